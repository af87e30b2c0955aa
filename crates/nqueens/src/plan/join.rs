//! Splitting for the `join` algorithm: one subproblem per join unit (an east row set, and for
//! odd n the middle queens), weighted by its orbit; the units themselves are defined by the
//! engine that counts them ([`nqueens_engine::join::units`]). The join plan has no split depth.

use super::PlanError;
use super::Work;
use nqueens_engine::join::{self, MAX_JOIN_N};

/// Hands the join units of an n×n board to `push` as entries, one at a time: the ten million
/// units of n = 28 are never held twice.
pub(super) fn push_subproblems(
    n: usize,
    split_depth: Option<usize>,
    mut push: impl FnMut(Work),
) -> Result<(), PlanError> {
    if let Some(d) = split_depth.filter(|&d| d > 0) {
        return Err(PlanError::JoinSplitDepth(d));
    }
    if n > MAX_JOIN_N {
        return Err(PlanError::JoinTooLarge {
            n,
            largest: MAX_JOIN_N,
        });
    }
    join::for_each_unit(n, |unit, weight| {
        push(Work::Join {
            unit: unit.into(),
            weight,
        });
    });
    Ok(())
}

/// The smallest even board whose join units are counted with the quarter turns (the engine's
/// `join::quarter` rule): each unit's count weighs its solutions by 0, 1 or 2, so that about
/// half the candidate pairs are matched. Measured side by side with the commit before it (two
/// threads): 1.33 times faster at n = 18, 1.40 at n = 20, 1.36 for `22 --shard 0/256`,
/// 1.51 for `24 --shard 0/4096`, 1.58 for `26 --shard 0/524288` (`results/join-log.md`,
/// section 26). Smaller boards keep the whole quadrant lists, which the rule is not written
/// for, and take a second at most.
pub(crate) const QUARTER_TURNS_FROM: usize = 18;

/// Whether the join plan of an n×n board counts with the quarter turns.
pub(super) fn quarter_turns(n: usize) -> bool {
    n.is_multiple_of(2) && n >= QUARTER_TURNS_FROM
}
