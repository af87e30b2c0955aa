//! The hot loop: an iterative bit-parallel backtrack that counts the completions of one
//! subproblem.
//!
//! Every algorithm in the crate reduces its work to the same shape: a [`Frame`] lists the rows
//! that are still empty, top to bottom, each with the columns that fixed queens (border queens,
//! for the full-symmetry plan) already attack in it, and a [`Start`] says what the rows placed by
//! the plan left behind. The kernel fills the remaining rows one queen at a time with the
//! classic bitmask method (Richards 1997; Somers 2002): free squares are
//! `mask & !(cols | diag | anti | fixed)`, the lowest free bit is taken with
//! `free & free.wrapping_neg()`, and going one row down shifts the two diagonal masks by one bit
//! (by `k` bits when the next empty row is `k` rows further, so rows that already hold a queen
//! cost nothing).
//!
//! Frames where as many columns are free as levels are empty (every frame the plans make) run
//! a loop without data-dependent branches on the squares (`lanes`): the next level is the
//! highest bit of a mask of levels with squares left, and independent searches of the
//! subproblem take turns to overlap their latency. The bottom levels are not searched but
//! counted in bulk (`bottom`): on x86-64 with `bmi2` a child five levels above the bottom is
//! queued and the queue is counted in batches from tables of the 120 ways to put the five
//! columns left on the five levels (`LastFive`); four levels and 24 ways (`LastFour`) when the
//! start is closer to the bottom or the last five levels are not five adjacent board rows;
//! elsewhere the last two levels are counted from the two columns left (`LastTwo`). Other
//! frames use a plain backtrack that counts the last level by popcount. There is no I/O and no
//! threading here; the permutation tables are built once per process.
//!
//! This file holds the entry point [`complete`] with the choice of bottom and lane count, and
//! the plain backtrack; the public types ([`Frame`], [`Start`]), the lane loop, the bottoms and
//! the proof of the processor's bit extensions have their own files.

mod bottom;
pub mod check;
#[cfg(target_arch = "x86_64")]
mod extensions;
mod frame;
mod lanes;
mod slices;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, Ordering};

use super::Found;
use crate::MAX_N;
use bottom::{Bottom, LastTwo};
pub use frame::{Frame, Start};
use lanes::Shape;
pub use slices::complete_slice_until;
#[cfg(target_arch = "x86_64")]
use {
    bottom::{LastFive, LastFour},
    extensions::BitExtensions,
};

/// Counts the ways to complete `start` within `frame`.
///
/// When the frame is tight (as many free columns as empty levels, as in every frame the plans
/// make), the branch-free loop of `complete_tight` runs; otherwise a plain backtrack.
pub fn complete(frame: &Frame, start: &Start) -> Found {
    static NEVER: AtomicBool = AtomicBool::new(false);
    complete_until(frame, start, &NEVER).expect("a search that is never stopped ends")
}

/// [`complete`], giving up (`None`) within milliseconds once `stop` is set, so that a run can
/// be interrupted however long its subproblems are.
pub fn complete_until(frame: &Frame, start: &Start, stop: &AtomicBool) -> Option<Found> {
    let depth = frame.depth;
    if start.level >= depth {
        return Some(Found { count: 1, nodes: 0 });
    }
    let spare = (frame.mask & !start.cols).count_ones() as usize;
    if spare == depth - start.level {
        complete_tight(frame, start, stop)
    } else {
        complete_loose(frame, start, stop)
    }
}

/// The kernel for tight frames: every level has exactly as many free columns as levels remain.
///
/// The search runs as interleaved lanes (see `lanes`). Where the processor has the bit
/// extensions and the start is above level `last - 4`, a child at level `last - 4` is not
/// entered: it is queued and counted by a [`LastFive`] ([`LANES_LAST_FIVE`] lanes). Failing
/// that (start at `last - 4`, or last five levels that are not adjacent rows), above level
/// `last - 3` the same with a [`LastFour`] ([`LANES_LAST_FOUR`] lanes). Otherwise a child at
/// level `last - 1` is not entered: its completions are counted by [`LastTwo`]
/// ([`LANES_LAST_TWO`] lanes).
fn complete_tight(frame: &Frame, start: &Start, stop: &AtomicBool) -> Option<Found> {
    let depth = frame.depth;
    let last = depth - 1;
    let first = frame.free(start);
    let base = start.level;
    if base == last {
        return Some(Found {
            count: u64::from(first != 0),
            nodes: 0,
        });
    }
    if base + 1 == last {
        let count =
            LastTwo::new(frame).count(frame.mask, start.cols, start.diag, start.anti, first);
        return Some(Found { count, nodes: 0 });
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(ext) = BitExtensions::detect() {
        if base + LastFive::LEVELS < depth
            && let Some(bottom) = LastFive::new(frame, ext)
        {
            return ext.lanes::<LANES_LAST_FIVE, _>(&Shape::new(frame, bottom), start, first, stop);
        }
        if base + LastFour::LEVELS < depth
            && let Some(bottom) = LastFour::new(frame, ext)
        {
            return ext.lanes::<LANES_LAST_FOUR, _>(&Shape::new(frame, bottom), start, first, stop);
        }
        let sh = Shape::new(frame, LastTwo::new(frame));
        return ext.lanes::<LANES_LAST_TWO, _>(&sh, start, first, stop);
    }
    let sh = Shape::new(frame, LastTwo::new(frame));
    lanes::portable::<LANES_LAST_TWO, _>(&sh, start, first, stop)
}

/// Lanes interleaved with a [`LastTwo`] bottom (chosen by measurement, see
/// results/kernel-log.md).
const LANES_LAST_TWO: usize = 3;
/// Lanes interleaved with a [`LastFour`] bottom (chosen by measurement, as is the four-level
/// bottom against a three-level one; see results/kernel-log.md).
#[cfg(target_arch = "x86_64")]
const LANES_LAST_FOUR: usize = 2;
/// Lanes interleaved with a [`LastFive`] bottom (chosen by measurement, see
/// results/kernel-log.md).
#[cfg(target_arch = "x86_64")]
const LANES_LAST_FIVE: usize = 2;

/// Plain backtrack for frames with spare columns (never made by the plans; kept so that any
/// frame gives the right count). The last level is counted by popcount.
fn complete_loose(frame: &Frame, start: &Start, stop: &AtomicBool) -> Option<Found> {
    let depth = frame.depth;
    let mask = frame.mask;
    let first_free = frame.free(start);
    let last = depth - 1;
    if start.level == last {
        return Some(Found {
            count: u64::from(first_free.count_ones()),
            nodes: 0,
        });
    }

    let mut cols = [0u64; MAX_N];
    let mut diag = [0u64; MAX_N];
    let mut anti = [0u64; MAX_N];
    let mut free = [0u64; MAX_N];
    let base = start.level;
    let mut lv = base;
    cols[lv] = start.cols;
    diag[lv] = start.diag;
    anti[lv] = start.anti;
    free[lv] = first_free;
    let mut count = 0u64;
    let mut nodes = 0u64;

    loop {
        if nodes & (u64::from(lanes::POLL) - 1) == 0 && stop.load(Ordering::Relaxed) {
            return None;
        }
        let f = free[lv];
        if f == 0 {
            if lv == base {
                break;
            }
            lv -= 1;
            continue;
        }
        let b = f & f.wrapping_neg();
        free[lv] = f ^ b;
        nodes += 1;
        let k = frame.step[lv];
        let c = cols[lv] | b;
        let d = (diag[lv] | b) << k;
        let a = (anti[lv] | b) >> k;
        let next = lv + 1;
        let nf = mask & !(c | d | a | frame.fixed[next]);
        if next == last {
            count += u64::from(nf.count_ones());
        } else if nf != 0 {
            lv = next;
            cols[lv] = c;
            diag[lv] = d;
            anti[lv] = a;
            free[lv] = nf;
        }
    }
    Some(Found { count, nodes })
}
