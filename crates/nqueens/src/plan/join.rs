//! Splitting for the `join` algorithm: one subproblem per join unit (an east row set, and for
//! odd n the middle queens), weighted by its orbit; the units themselves are defined by the
//! engine that counts them ([`nqueens_engine::join::units`]). The join plan has no split depth.

use super::PlanError;
use super::{Subproblem, Work};
use nqueens_engine::join::{self, MAX_JOIN_N};

/// Hands the join units of an n×n board to `push` as subproblems (ids are given by the
/// caller), one at a time: the ten million units of n = 28 are never held twice.
pub(super) fn push_subproblems(
    n: usize,
    split_depth: Option<usize>,
    mut push: impl FnMut(Subproblem),
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
        push(Subproblem {
            id: 0,
            work: Work::Join { unit, weight },
        });
    });
    Ok(())
}
