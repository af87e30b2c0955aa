//! Counts against the published tables, for every algorithm and several thread counts, and
//! properties that must hold whatever the plan looks like.

use nqueens::{Algorithm, Config, count, known};
use proptest::prelude::*;

#[test]
fn known_totals_up_to_fifteen_for_every_algorithm_and_one_to_three_threads() {
    for n in 1..=15 {
        for algorithm in Algorithm::ALL {
            for threads in 1..=3 {
                let c = count(&Config::new(n).algorithm(algorithm).threads(threads)).unwrap();
                assert_eq!(
                    Some(c.total),
                    known::total(n),
                    "{algorithm} n={n} t={threads}"
                );
                assert_eq!(c.threads, threads);
                if algorithm == Algorithm::Symmetry {
                    assert_eq!(c.unique, known::unique(n), "unique n={n} t={threads}");
                } else {
                    assert_eq!(c.unique, None);
                }
            }
        }
    }
}

/// Larger boards: run by `.ci/run` in release mode (`cargo test --release -- --ignored`).
#[test]
#[ignore = "n = 16 and 17 take a few seconds; run in release mode"]
fn known_totals_sixteen_and_seventeen() {
    for n in 16..=17 {
        let c = count(&Config::new(n)).unwrap();
        assert_eq!(Some(c.total), known::total(n), "n={n}");
        assert_eq!(c.unique, known::unique(n), "n={n}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Neither the split depth nor the thread count changes a total.
    #[test]
    fn split_depth_and_threads_never_change_the_total(
        n in 4usize..=11,
        plain in any::<bool>(),
        depth in 0usize..=4,
        threads in 1usize..=4,
    ) {
        let algorithm = if plain { Algorithm::Plain } else { Algorithm::Symmetry };
        let depth = if plain { depth.max(1) } else { depth };
        let c = count(&Config::new(n).algorithm(algorithm).threads(threads).split_depth(depth)).unwrap();
        prop_assert_eq!(Some(c.total), known::total(n));
        if !plain {
            prop_assert_eq!(c.unique, known::unique(n));
        }
    }
}
