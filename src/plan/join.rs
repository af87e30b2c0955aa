//! Splitting for the `join` algorithm: one subproblem per join unit (an east row set, and for
//! odd n the middle queens), weighted by its orbit; the units themselves are defined by the
//! engine that counts them ([`crate::engine::join::units`]). The join plan has no split depth.

use super::{SLICE_SECONDS, Subproblem, Work};
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
        .map(|(mut unit, weight)| {
            unit.slice.of = slices(n, &unit);
            Subproblem {
                id: 0,
                work: Work::Join { unit, weight },
                // Where strata are measured, the largest units are taken first.
                estimate: unit_seconds(n, &unit).map_or(1.0, |s| s.max(0.01)),
            }
        })
        .collect())
}

/// How much longer than its stratum's mean a unit may take: among eight units of each stratum
/// of n = 26, the slowest took 1.6 to 4 times the mean. Units are cut as if they took this
/// many times their stratum's mean, so that the slices of the slow ones stay near
/// [`SLICE_SECONDS`] (those of a typical unit take about a third of it).
const SPREAD: f64 = 3.0;

/// Measured mean seconds of one unit of each stratum ([`join::stratum`]), one core of the
/// reference machine, for the boards whose units can take longer than [`SLICE_SECONDS`]:
/// `(n, two middle queens, seconds by the east rows in the north half)`. Measured with the
/// estimate's unit timing, one to eight units a stratum (`examples/unit_times.rs`); as the plan
/// must not depend on the machine, the figures are fixed here, and only decide how finely
/// units are cut.
const STRATUM_SECONDS: &[(usize, bool, &[f64])] = &[
    (
        25,
        true,
        &[
            0.0, 0.0, 5.1, 17.3, 24.0, 30.2, 13.7, 18.8, 7.0, 2.8, 1.4, 1.4,
        ],
    ),
    (
        26,
        false,
        &[
            0.0, 0.17, 0.70, 7.2, 36.9, 36.1, 60.0, 81.8, 38.7, 18.9, 4.0, 0.69, 0.13, 0.12,
        ],
    ),
    (
        27,
        false,
        &[
            0.0, 0.0, 0.2, 0.2, 14.1, 7.3, 7.3, 17.4, 3.5, 0.4, 0.1, 0.1, 0.0, 0.0,
        ],
    ),
    (
        27,
        true,
        &[
            0.0, 9.4, 20.9, 15.6, 137.4, 144.8, 199.0, 64.8, 161.8, 38.1, 29.6, 4.7, 4.1,
        ],
    ),
    (
        28,
        false,
        &[
            0.0, 0.8, 22.4, 693.3, 8606.4, 5716.6, 6031.2, 6771.2, 4913.6, 237.0, 44.0, 5.4, 1.3,
            1.3, 1.0,
        ],
    ),
];

/// The measured mean seconds of a unit's stratum, where measured.
fn unit_seconds(n: usize, unit: &join::Unit) -> Option<f64> {
    let stratum = join::stratum(n, unit);
    let two = stratum >> 8 == 1;
    let north = (stratum & 0xff) as usize;
    STRATUM_SECONDS
        .iter()
        .find(|&&(m, t, _)| m == n && t == two)
        .and_then(|(_, _, by)| by.get(north))
        .copied()
}

/// How many slices a unit of an n×n board is cut into ([`join::Slice`]): one where units take
/// seconds (up to n = 24); past that, enough that each slice of a slow unit of its stratum
/// stays near [`SLICE_SECONDS`].
/// A unit of one row set has its matching dealt out; a unit of several row sets (odd boards)
/// has its row sets dealt out, so its slices make nothing twice.
pub(super) fn slices(n: usize, unit: &join::Unit) -> u64 {
    let seconds = unit_seconds(n, unit).unwrap_or(0.0);
    let slices = (SPREAD * seconds / SLICE_SECONDS).ceil().max(1.0);
    // A unit of several row sets is cut no finer than into single row sets.
    let finest = if unit.span > 1 {
        f64::from(unit.span)
    } else {
        f64::from(u16::MAX)
    };
    slices.min(finest) as u64
}
