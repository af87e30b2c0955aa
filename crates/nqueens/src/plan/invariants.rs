//! The searches of the unique count: for Burnside's lemma, the solutions a half turn or a
//! quarter turn leaves unchanged, one search per column of the row-0 queen
//! ([`nqueens_engine::symmetry::unique_from`]). Every plan that gives a unique count ends with them.

use super::entries::Entries;
use super::{Slice, Subproblem, Work};

/// The searches for solutions a half or a quarter turn leaves unchanged (Burnside's lemma),
/// one per column of the row-0 queen (a run may cut the long half-turn searches of large
/// boards into slices).
pub(super) fn push(n: usize, subproblems: &mut Entries) {
    if n < 2 {
        return;
    }
    subproblems.reserve_rest(2 * n);
    let half_turns = (0..n as u8).map(|first| Work::HalfTurn {
        first,
        slice: Slice::WHOLE,
    });
    let quarter_turns = (0..n as u8).map(|first| Work::QuarterTurn { first });
    for work in half_turns.chain(quarter_turns) {
        subproblems.push(Subproblem { id: 0, work });
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{Algorithm, Plan, Slice, Work};

    #[test]
    fn half_turn_searches_cut_into_slices_give_the_published_unique_count() {
        for n in [11, 12] {
            let mut plan = Plan::build(n, Algorithm::Symmetry, None).unwrap();
            let hash = plan.hash();
            plan.cut(|_, _, e| u64::from(matches!(e.work, Work::HalfTurn { .. })) * 6 + 1);
            assert_eq!(plan.hash(), hash, "a cut leaves the identity as it was");
            let halves = plan
                .subproblems()
                .filter(|s| {
                    matches!(
                        s.work,
                        Work::HalfTurn {
                            slice: Slice { of: 7, .. },
                            ..
                        }
                    )
                })
                .count();
            assert_eq!(halves, 7 * n);
            let subproblems: Vec<_> = plan
                .subproblems()
                .map(|s| crate::run::solve_one(&plan, &s))
                .collect();
            let sums = crate::tally::Sums::of(&plan, subproblems.iter());
            assert_eq!(sums.unique(&plan), crate::known::unique(n), "n = {n}");
        }
    }
}
