//! Splitting for the `join` algorithm: one subproblem per join unit (an east row set, and for
//! odd n the middle queens), weighted by its orbit; the units themselves are defined by the
//! engine that counts them ([`crate::engine::join::units`]). The join plan has no split depth.

use super::{Subproblem, Work};
use crate::engine::join::{self, MAX_JOIN_N};
use crate::error::Error;

/// The join units of an n×n board as subproblems (ids are given by the caller).
pub(super) fn subproblems(n: usize, split_depth: Option<usize>) -> Result<Vec<Subproblem>, Error> {
    if let Some(d) = split_depth.filter(|&d| d > 0) {
        return Err(Error::JoinSplitDepth(d));
    }
    if n > MAX_JOIN_N {
        return Err(Error::JoinTooLarge {
            n,
            largest: MAX_JOIN_N,
        });
    }
    Ok(join::units(n)
        .into_iter()
        .map(|(unit, weight)| Subproblem {
            id: 0,
            work: Work::Join { unit, weight },
            estimate: 1.0,
        })
        .collect())
}
