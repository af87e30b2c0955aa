//! Splitting for the `join` algorithm: one subproblem per join unit (an east row set, and for
//! odd n the middle queens), weighted by its orbit; the units themselves are defined by the
//! engine that counts them ([`crate::engine::join::units`]). The join plan has no split depth.

use super::PlanError;
use super::{SLICE_SECONDS, Subproblem, Work};
use crate::engine::join::{self, MAX_JOIN_N};

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
    join::for_each_unit(n, |mut unit, weight| {
        unit.slice.of = slices(n, &unit);
        push(Subproblem {
            id: 0,
            work: Work::Join { unit, weight },
            estimate: estimate(n, &unit),
        });
    });
    Ok(())
}

/// A unit's estimate, for ordering work: where strata are measured, its stratum's mean
/// seconds (so that the largest units are taken first), else 1.
pub(super) fn estimate(n: usize, unit: &join::Unit) -> f64 {
    unit_seconds(n, unit).map_or(1.0, |s| s.max(0.01))
}

/// How much longer than its stratum's mean a unit may take: among eight units of each stratum
/// of n = 26, the slowest took 1.6 to 4 times the mean. Units are cut as if they took this
/// many times their stratum's mean, so that the slices of the slow ones stay near
/// [`SLICE_SECONDS`] (those of a typical unit take about a third of it).
const SPREAD: f64 = 3.0;

/// Measured mean seconds of one unit of each stratum ([`join::stratum`]), one core of the
/// reference machine, for the boards whose units can take longer than [`SLICE_SECONDS`]:
/// `(n, two middle queens, seconds by the east rows in the north half)`. Measured with the
/// estimate's unit timing, one or two units a stratum (`examples/unit_times.rs`, the 2-core
/// AMD EPYC VM, after the per-unit sieve of `results/join-log.md`, section 18; n = 28 two
/// units a stratum spread over it, after the wider table chunks of section 19); as the plan
/// must not depend on the machine, the figures are fixed here, and only decide how finely
/// units are cut.
const STRATUM_SECONDS: &[(usize, bool, &[f64])] = &[
    (
        25,
        true,
        &[
            0.0, 0.0, 5.3, 12.6, 24.0, 58.0, 47.0, 17.8, 14.5, 6.8, 4.0, 2.0,
        ],
    ),
    (
        26,
        false,
        &[
            0.0, 0.18, 0.29, 2.2, 7.7, 33.4, 38.1, 25.5, 3.6, 1.5, 0.9, 0.34, 0.15, 0.12,
        ],
    ),
    (
        27,
        false,
        &[
            0.0, 0.06, 0.14, 0.38, 2.0, 8.0, 15.6, 2.2, 0.64, 0.21, 0.11, 0.08, 0.06, 0.05,
        ],
    ),
    (
        27,
        true,
        &[
            0.0, 13.6, 68.2, 21.5, 194.5, 242.1, 491.4, 149.5, 122.8, 35.3, 20.6, 7.4, 4.3,
        ],
    ),
    (
        28,
        false,
        &[
            0.0, 2.8, 6.2, 42.2, 99.1, 858.6, 2172.5, 2695.3, 1260.5, 456.7, 124.2, 12.5, 12.1,
            5.7, 0.8,
        ],
    ),
];

/// From n = 28 most units are streamed ([`join::Unit`]): every block of slices a worker takes
/// reads the unit's sides again (some 15 s of one core), so their slices are cut to about
/// [`SLICE_SECONDS`] for a typical unit of the stratum instead of a third of it.
const STREAMED_FROM: usize = 28;

/// The measured mean seconds of a unit's stratum, where measured.
fn unit_seconds(n: usize, unit: &join::Unit) -> Option<f64> {
    let stratum = join::stratum(n, unit);
    STRATUM_SECONDS
        .iter()
        .find(|&&(m, two, _)| m == n && two == stratum.two_middles)
        .and_then(|(_, _, by)| by.get(usize::from(stratum.north_rows)))
        .copied()
}

/// How many slices a unit of an n×n board is cut into ([`join::Slice`]): one where units take
/// seconds (up to n = 24); past that, enough that each slice of a slow unit of its stratum
/// stays near [`SLICE_SECONDS`].
/// A unit of one row set has its matching dealt out; a unit of several row sets (odd boards)
/// has its row sets dealt out, so its slices make nothing twice.
pub(super) fn slices(n: usize, unit: &join::Unit) -> u64 {
    let seconds = unit_seconds(n, unit).unwrap_or(0.0);
    let spread = if n >= STREAMED_FROM { 1.0 } else { SPREAD };
    let slices = (spread * seconds / SLICE_SECONDS).ceil().max(1.0);
    // A unit of several row sets is cut no finer than into single row sets.
    let finest = if unit.span > 1 {
        f64::from(unit.span)
    } else {
        f64::from(u16::MAX)
    };
    slices.min(finest) as u64
}
