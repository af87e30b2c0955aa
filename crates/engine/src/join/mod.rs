//! The join engine: counting by pairing half-boards instead of walking the search tree.
//!
//! Cut the board by a vertical line into a west and an east half (for odd n the middle column
//! and the middle row are taken out first; see below). In a solution every row holds one queen,
//! either west or east of the line, so a solution is a west half-board and an east half-board
//! whose row sets are complements, each a non-attacking placement filling all its side's
//! columns, and with no diagonal shared between them. A diagonal of a west queen meets one of an
//! east queen only where it crosses the line, so each half-board is summarised by a *pattern*:
//! the bits of the diagonals it occupies within the window of diagonals both halves can reach
//! (`2h - 1` diagonals of each direction, h = ⌊n/2⌋). Two half-boards fit iff their patterns
//! share no bit.
//!
//! One *unit* of work fixes the set of rows of the east half. Its half-boards are not searched
//! queen by queen: every partial placement of each quadrant (north-west, north-east, south-west,
//! south-east, h×h each) is listed once per count, grouped by the rows and columns it fills, and
//! a half-board is a north and a south quadrant placement whose rows make up the unit's rows and
//! whose columns make up the side's columns, and whose own diagonals do not meet (one AND of
//! their patterns). One side's half-boards (the smaller side) are turned into bit-transposed
//! tables: for each chunk of 6 pattern bits and each of its 64 values, the set (one bit per
//! half-board) of half-boards that clash with that value. A pattern of the other side finds its
//! clashing set as the OR of one row per chunk, so one 512-bit OR tests 512 candidates, and the
//! count is the number of zero bits. Large units (even n from 20 on) are sieved first: both
//! sides are sorted by the few central diagonals they occupy, only bins that leave each
//! other's diagonals free are matched, and the larger side's bins become the tables. This
//! is the quadrant/half-board method of the fastest published CPU counters, laid out our own
//! way; the matching loop is compiled for AVX-512 (with `vpopcntq`) and for AVX2 and
//! selected at run time, with a portable build of the same loop elsewhere.
//!
//! Symmetry: for even n the counts of east row sets `S`, its complement (left-right mirror) and
//! both turned upside down (top-bottom mirror) are equal, so one of each orbit is counted with
//! its orbit size as weight (about four times less work); with the quarter turns
//! ([`Quadrants::bounded_turning`], `quarter.rs`) each unit also weighs its solutions by 0, 1
//! or 2, which halves the pairs it matches. For odd n the queen of the middle
//! column (row m) and the queen of the middle row (column k) are placed first; pairs (m, k) are
//! taken one per orbit of the eight board symmetries and weighted by the orbit size; the centre
//! queen (m = k = n/2) counts as one pair, whose row sets are reduced as for even n.
//!
//! The unique count comes from the same Burnside searches as the other plans
//! ([`crate::symmetry`]).
//!
//! The files: `geometry.rs` (the dividing lines and patterns), `quadrant.rs` (the quadrant
//! lists and their filtered copies), `units.rs` (the units and their weights), `quarter.rs`
//! (the quarter turns of even boards: which half-boards a unit makes), `halves.rs`
//! (half-boards from quadrant groups), `matching.rs` (counting fitting pairs, portable) with
//! `sieve.rs` (large units sorted into bins by a few of their diagonals first; which ones,
//! `split.rs`; units too large to hold, `stream.rs`) and `x86.rs`
//! (its vector builds), `memory.rs` (size limits and the memory estimate), `counting.rs` (one
//! unit counted row set by row set, on a thread's buffers), `probe.rs` (what a probe of a unit
//! tells whoever times it: the engine reads no clock). This file holds the entry points,
//! [`count_unit`] and [`probe_unit`], and each thread's buffers they reuse.

use std::cell::RefCell;
use std::sync::atomic::AtomicBool;

use super::Found;

#[macro_use]
mod rows;
mod counting;
mod deal;
mod geometry;
mod halves;
mod matching;
mod memory;
mod partition;
mod probe;
mod quadrant;
mod quarter;
mod sieve;
mod split;
mod stream;
mod tables;
mod units;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use super::Slice;
pub use geometry::Geometry;
pub use matching::{count_fitting, matching_work};
pub use memory::{Layout, MAX_JOIN_N, MAX_LISTED_N, memory_needed};
pub use probe::{Phase, Phases, Probe};
pub use quadrant::Quadrants;
pub use sieve::Work;
pub use stream::SLICES_A_BLOCK;
pub use tables::Tables;
pub use units::{Middle, Stratum, Unit, for_each_unit, stratum, units};

use counting::{Scratch, count_unit_with};
use partition::{Partition, Spec};

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Counts the solutions of one unit.
pub fn count_unit(q: &Quadrants, unit: &Unit) -> Found {
    static NEVER: AtomicBool = AtomicBool::new(false);
    count_unit_until(q, unit, &NEVER).expect("never stopped")
}

/// Counts the solutions of one unit, giving up (`None`) soon after `stop` rises: between row
/// sets and inside the matching (a small share of a unit at a time).
pub fn count_unit_until(q: &Quadrants, unit: &Unit, stop: &AtomicBool) -> Option<Found> {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        count_unit_with(q, unit, s, stop, (None, &mut ()))
    })
}

/// Runs `f` with this thread's units streamed from `stream_above` candidate pairs on, in
/// table groups of at most `group` patterns, in place of the engine's own limits
/// (`STREAM_ABOVE` and `GROUP_PATTERNS`, 2^25 pairs and 2^24 patterns): so that the streamed
/// path can be checked on units it would hold (`examples/second_opinion.rs`). Only units of
/// one row set stream. The counts are the same; no slice counted inside starts from
/// half-boards held outside, or the other way round.
#[doc(hidden)]
pub fn with_stream_limits<T>((stream_above, group): (u64, usize), f: impl FnOnce() -> T) -> T {
    let set = |limits| {
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            s.limits = limits;
            s.made_for = None;
        })
    };
    set(Some((stream_above, group.max(1))));
    let out = f();
    set(None);
    out
}

/// Counts a portion of `unit` on this thread ([`Probe`]) for a caller that times it, telling
/// `phases` where each phase of the work begins and how many times the whole unit does each
/// phase's work ([`Phases`]). Returns what the portion found; `None` if `stop` rose.
pub fn probe_unit(
    q: &Quadrants,
    unit: &Unit,
    probe: Probe,
    phases: &mut dyn Phases,
    stop: &AtomicBool,
) -> Option<Found> {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        count_unit_with(q, unit, s, stop, (Some(probe), phases))
    })
}

/// The largest partition of the north-west quadrant of an n×n board (placements on one row
/// mask) and the placements of all of them (for measuring the memory model).
pub fn partition_sizes(n: usize) -> (usize, usize) {
    let q = Quadrants::bounded(n, 0);
    let all = (1u32 << q.geo.h) - 1;
    let mut found = Vec::new();
    let (mut largest, mut total) = (0, 0);
    for rows in 0..=all {
        let spec = Spec {
            n,
            origin: (0, 0),
            rows,
            cols: all,
            forbid: (0, 0),
        };
        let part = Partition::make(&q.geo, &q.index, spec, &mut found);
        largest = largest.max(part.patterns.len());
        total += part.patterns.len();
    }
    (largest, total)
}

/// The `k`-th unit of board `n`'s stratum with `north` east rows in the north half, with its
/// place in [`units`] ([`picked_units`]); `None` where no unit has that many.
pub fn unit_in_stratum(n: usize, north: u32, k: usize) -> Option<(usize, Unit)> {
    picked_units(n, k + 1)
        .into_iter()
        .filter(|p| p.0 == north)
        .nth(k)
        .map(|(_, id, unit)| (id, unit))
}

/// Units `0..k` of each stratum of board `n` by its east rows in the north half, as
/// `(north rows, place in [`units`], unit)`: the `j`-th is unit `(7919 j + 13) mod` the
/// stratum's size, in the order of east rows (the units of `results/join-log.md`, sections 18
/// and 19, for the tools in `examples/`).
pub fn picked_units(n: usize, k: usize) -> Vec<(u32, usize, Unit)> {
    let units = units(n);
    let mut by: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, u) in units.iter().enumerate() {
        by.entry(stratum(n, &u.0).north_rows.into())
            .or_default()
            .push(i);
    }
    by.into_iter()
        .flat_map(|(north, ids)| (0..k).map(move |j| (north, ids[(j * 7919 + 13) % ids.len()])))
        .map(|(north, id)| (north, id, units[id].0))
        .collect()
}

/// The two sides (east, west half-board patterns) of a unit of an even board, made in the
/// memory-bounded layout as a count makes them (for the tools in `examples/` that measure the
/// matching).
pub fn unit_sides(q: &Quadrants, unit: &Unit) -> (Vec<u64>, Vec<u64>) {
    let mut s = Scratch::default();
    counting::made_sides(q, unit, &mut s);
    (s.east, s.west)
}

#[cfg(test)]
mod frontier_tests;
#[cfg(test)]
mod tests;
