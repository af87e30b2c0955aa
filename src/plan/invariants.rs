//! The searches of the unique count: for Burnside's lemma, the solutions a half turn or a
//! quarter turn leaves unchanged, one search per column of the row-0 queen
//! ([`crate::symmetry::unique_from`]). Every plan that gives a unique count ends with them.

use super::entries::Entries;
use super::{SLICE_SECONDS, Slice, Subproblem, Work};

/// The searches for solutions a half or a quarter turn leaves unchanged (Burnside's lemma),
/// one per column of the row-0 queen; the half-turn searches cut into slices where they could
/// take longer than [`SLICE_SECONDS`].
pub(super) fn push(n: usize, subproblems: &mut Entries) {
    if n < 2 {
        return;
    }
    subproblems.reserve_rest(2 * n);
    let slices = half_turn_slices(n);
    let half_turns = (0..n as u8).map(|first| Work::HalfTurn {
        first,
        slice: Slice {
            index: 0,
            of: slices,
        },
    });
    let quarter_turns = (0..n as u8).map(|first| Work::QuarterTurn { first });
    for work in half_turns.chain(quarter_turns) {
        subproblems.push(Subproblem {
            id: 0,
            work,
            estimate: 1.0,
        });
    }
}

/// How many slices each half-turn search of an n×n board is cut into: one up to n = 27 (the
/// plans are as they were), then enough that the longest search's slices stay within
/// [`SLICE_SECONDS`]. The longest search (one row-0 column) took 5.3 s at n = 26 and 0.46 s
/// at n = 25 on the reference machine (odd boards leave the middle column to the centre
/// queen), growing about 3.5 times a row (`results/large-n.md`).
fn half_turn_slices(n: usize) -> u64 {
    let (base, seconds) = if n.is_multiple_of(2) {
        (26, 5.3)
    } else {
        (25, 0.46)
    };
    let seconds = seconds * 3.5f64.powi(n as i32 - base);
    (seconds / SLICE_SECONDS).ceil().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::MAX_N;
    use crate::plan::{Algorithm, Plan, slices_of};

    #[test]
    fn half_turn_searches_are_cut_from_n_28_on_and_their_slices_add_up() {
        // Whole up to n = 27 (the plans are as they were), slices past it.
        assert!((2..=27).all(|n| half_turn_slices(n) == 1));
        assert!((28..=MAX_N).all(|n| half_turn_slices(n) > 1));
        assert!(half_turn_slices(32) < 1000, "{}", half_turn_slices(32));
        let mut entries = Entries::new(28);
        push(28, &mut entries);
        let halves: Vec<u64> = entries
            .iter()
            .filter(|e| matches!(e.work, Work::HalfTurn { .. }))
            .map(|e| slices_of(&e))
            .collect();
        assert_eq!(halves, vec![half_turn_slices(28); 28]);
        // Cut into 7, the half-turn searches give the published unique count.
        for n in [11, 12] {
            let mut plan = Plan::build(n, Algorithm::Symmetry, None).unwrap();
            plan.entries = plan.entries.map(|e| {
                if let Work::HalfTurn { .. } = e.work {
                    *e.slice_mut().unwrap() = Slice { index: 0, of: 7 };
                }
            });
            plan.number_entries();
            let pieces: Vec<_> = plan
                .subproblems()
                .map(|s| crate::run::solve_one(&plan, &s))
                .collect();
            let sums = crate::tally::Sums::of(&plan, pieces.iter());
            assert_eq!(sums.unique(&plan), crate::known::unique(n), "n = {n}");
        }
    }
}
