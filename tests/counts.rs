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
                if algorithm == Algorithm::Plain {
                    assert_eq!(c.unique, None);
                } else {
                    assert_eq!(c.unique, known::unique(n), "unique n={n} t={threads}");
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
        for algorithm in [Algorithm::Symmetry, Algorithm::Join] {
            let c = count(&Config::new(n).algorithm(algorithm)).unwrap();
            assert_eq!(Some(c.total), known::total(n), "{algorithm} n={n}");
            assert_eq!(c.unique, known::unique(n), "{algorithm} n={n}");
        }
    }
}

/// The join (every unit makes its own quadrant partitions, in bounded memory) is exact on
/// every board up to 19 (some 20 seconds on two cores in release mode).
#[test]
#[ignore = "n = 18 and 19 take some seconds; run in release mode"]
fn the_join_gives_the_published_counts_up_to_nineteen() {
    use nqueens::{Control, Job};
    for n in 1..=19 {
        let config = Config::new(n).algorithm(Algorithm::Join).threads(2);
        let job = Job::new(&config).unwrap();
        let c = job.run(Control::default()).unwrap().counts().unwrap();
        assert_eq!(Some(c.total), known::total(n), "n={n}");
        assert_eq!(c.unique, known::unique(n), "n={n}");
    }
}

#[test]
fn join_agrees_with_symmetry_for_every_board_up_to_fifteen() {
    for n in 1..=15 {
        let join = count(&Config::new(n).algorithm(Algorithm::Join).threads(2)).unwrap();
        let sym = count(&Config::new(n).algorithm(Algorithm::Symmetry).threads(2)).unwrap();
        assert_eq!((join.total, join.unique), (sym.total, sym.unique), "n={n}");
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
