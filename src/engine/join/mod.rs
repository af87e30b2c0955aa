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
//! sides are sorted by the few central diagonals they occupy, only classes that leave each
//! other's diagonals free are matched, and the larger side's classes become the tables. This
//! is the quadrant/half-board method of the fastest published CPU counters, laid out our own
//! way; the matching loop is compiled for AVX-512 (with `vpopcntq`) and for AVX2 and
//! selected at run time, with a portable build of the same loop elsewhere.
//!
//! Symmetry: for even n the counts of east row sets `S`, its complement (left-right mirror) and
//! both turned upside down (top-bottom mirror) are equal, so one of each orbit is counted with
//! its orbit size as weight (about four times less work). For odd n the queen of the middle
//! column (row m) and the queen of the middle row (column k) are placed first; pairs (m, k) are
//! taken one per orbit of the eight board symmetries and weighted by the orbit size; the centre
//! queen (m = k = n/2) counts as one pair, whose row sets are reduced as for even n.
//!
//! The unique count comes from the same Burnside searches as the other plans
//! ([`crate::symmetry`]).
//!
//! The files: `geometry.rs` (the dividing lines and patterns), `quadrant.rs` (the quadrant
//! lists and their filtered copies), `units.rs` (the units and their weights), `halves.rs`
//! (half-boards from quadrant groups), `matching.rs` (counting fitting pairs, portable) with
//! `sieve.rs` (large units sorted into classes by their central diagonals first) and `x86.rs`
//! (its vector builds), `memory.rs` (size limits and the memory estimate). This file
//! holds the entry point, [`count_unit`], and the per-thread buffers it reuses.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Found;

mod cost;
mod geometry;
mod halves;
#[macro_use]
mod matching;
mod memory;
mod partition;
mod quadrant;
mod sieve;
mod units;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use super::Slice;
pub use cost::unit_cost;
pub use geometry::Geometry;
pub use matching::{Tables, count_fitting, count_fitting_until, count_slice_until, time_fitting};
pub use memory::{LISTS_BY_DEFAULT_UNTIL, Layout, MAX_JOIN_N, MAX_LISTED_N, memory_needed};
pub use quadrant::Quadrants;
pub use units::{Middle, Unit, stratum, units};

use halves::{halves, halves_even};
use matching::count_part_until;
use partition::{Cache, Key, Partition};
use quadrant::{Lists, View};
use sieve::Part;
use units::{free_lines, next_row_set};

/// Buffers one thread reuses from unit to unit.
#[derive(Default)]
struct Scratch {
    east: Vec<u64>,
    west: Vec<u64>,
    tables: Tables,
    /// Even n: a south quadrant group made from the north-west list.
    south: Vec<u64>,
    /// Odd n: the quadrant lists filtered by the current middle-queen pair, that pair, and the
    /// board size.
    middle: Option<(usize, Middle, Arc<[Lists; 4]>)>,
    /// Memory-bounded layout: the partitions this thread keeps.
    parts: Cache,
    /// The one-row-set unit (board size, east rows, middle queens) whose half-boards `east` and
    /// `west` hold, with, where its matching is sieved, both sides sorted in `tables`: the
    /// next slice of the same unit starts from them.
    made_for: Option<(usize, u32, Option<Middle>)>,
}

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
        count_unit_with(q, unit, s, stop, None).map(|(found, _)| found)
    })
}

/// How much of a unit [`time_unit`] counts.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Row sets of a unit counted, spread evenly over its span (at least 1).
    pub row_sets: u32,
    /// Table classes of the sieve matched, about (one in so many, from a place chosen by
    /// `seed`); small sides are matched whole.
    pub classes: usize,
    /// Chooses which classes.
    pub seed: usize,
}

/// The seconds counting `unit` would take on this thread, projected from counting a share of
/// it ([`Sample`]): the half-boards of each row set sampled are made whole and timed, the
/// matching of a share of the sieve's table classes (each with all its queries) is timed and
/// scaled up, and the row sets sampled stand for the whole span. `None` if `stop` rose.
pub fn time_unit(q: &Quadrants, unit: &Unit, sample: Sample, stop: &AtomicBool) -> Option<f64> {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        count_unit_with(q, unit, s, stop, Some(sample)).map(|(_, secs)| secs)
    })
}

/// Bytes this thread's reused buffers hold (for measuring the memory model).
pub fn scratch_bytes() -> usize {
    SCRATCH.with(|s| {
        let s = s.borrow();
        8 * (s.east.capacity() + s.west.capacity() + s.south.capacity())
            + s.tables.bytes()
            + s.parts.bytes()
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
        let key = Key {
            n,
            origin: (0, 0),
            rows,
            cols: all,
            forbid: (0, 0),
        };
        let part = Partition::make(&q.geo, &q.index, key, &mut found);
        largest = largest.max(part.patterns.len());
        total += part.patterns.len();
    }
    (largest, total)
}

/// Counts `unit` (or, with `sample`, a share of it) and returns what it found with the
/// seconds the whole unit is projected to take (only measured when sampling).
fn count_unit_with(
    q: &Quadrants,
    unit: &Unit,
    s: &mut Scratch,
    stop: &AtomicBool,
    sample: Option<Sample>,
) -> Option<(Found, f64)> {
    let geo = &q.geo;
    let free = free_lines(geo, unit.middle);
    // The middle queens' diagonals, which the partitions avoid as they are made.
    let mut forbid = (0, 0);
    if let Some(m) = unit.middle {
        for (r, c) in m.squares(geo.n) {
            let (a, b) = geo.diagonals(r, c);
            forbid = (forbid.0 | a, forbid.1 | b);
        }
        // Units of one middle-queen pair come one after another, so the lists are filtered
        // about once per pair and shared by the threads.
        let fresh = !matches!(&s.middle, Some((n, f, _)) if *n == geo.n && *f == m);
        if !q.is_bounded() && fresh {
            // Let go of the old pair's copy first, so it can be freed while filtering.
            s.middle = None;
            s.middle = Some((geo.n, m, q.filtered(m)));
        }
    }
    // A slice of the unit this thread counted last starts from its half-boards.
    let key = (unit.span == 1 && sample.is_none()).then_some((geo.n, unit.east_rows, unit.middle));
    let made = key.is_some() && s.made_for == key;
    s.made_for = None;
    // Disjoint borrows of the buffers, so that the filtered lists' view can be held while the
    // others are written.
    let Scratch {
        east,
        west,
        tables,
        south,
        middle,
        parts,
        made_for,
    } = s;
    let filtered = match (unit.middle, middle) {
        (Some(_), Some((_, _, lists))) if !q.is_bounded() => Some(View::of(lists)),
        _ => None,
    };
    let mut total = Found::default();
    let mut rows = Some(unit.east_rows);
    let side = (1u32 << geo.h) - 1;
    // Sampling: every `stride`-th row set (of the slice's), each standing for `stride` of them.
    let own_sets = if unit.span > 1 && unit.slice.of > 1 {
        // A unit of several row sets has at most `span` slices.
        unit.span.div_ceil(unit.slice.of as u32)
    } else {
        unit.span
    };
    let stride = sample.map_or(1, |x| own_sets.div_ceil(x.row_sets.max(1)));
    let mut seconds = 0.0;
    // A slice of a unit of several row sets takes every `of`-th of them, each whole; a slice
    // of a one-row-set unit takes its share of the matching.
    let by_rows = unit.span > 1 && unit.slice.of > 1;
    let (of, index) = (unit.slice.of, unit.slice.index);
    let matching_slice = if by_rows { Slice::WHOLE } else { unit.slice };
    for i in 0..unit.span {
        let Some(east_rows) = rows else { break };
        rows = next_row_set(east_rows, free.rows);
        if by_rows && u64::from(i) % of != index {
            continue;
        }
        let i = if by_rows {
            (u64::from(i) / of) as u32
        } else {
            i
        };
        if i % stride != 0 {
            continue;
        }
        let begun = std::time::Instant::now();
        let west_rows = free.rows & !east_rows;
        if made {
            // `east` and `west` are this unit's already.
        } else if q.is_bounded() {
            // North-west, north-east, south-west, south-east: each quadrant's rows of this
            // row set.
            let wanted = [
                ((0, 0), west_rows & side, free.west_cols),
                ((0, geo.far), east_rows & side, free.east_cols),
                ((geo.far, 0), (west_rows >> geo.far) & side, free.west_cols),
                (
                    (geo.far, geo.far),
                    (east_rows >> geo.far) & side,
                    free.east_cols,
                ),
            ];
            // Each partition takes up to a second or two at n = 28: the stop flag is looked
            // at between them (and between the groups of a side).
            let mut got: [Option<Rc<Partition>>; 4] = Default::default();
            for (slot, (origin, rows, cols)) in got.iter_mut().zip(wanted) {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let key = Key {
                    n: geo.n,
                    origin,
                    rows,
                    cols,
                    forbid,
                };
                *slot = Some(parts.get(q.cache, geo, &q.index, key));
            }
            let parts = got.map(|p| p.expect("every partition was made above"));
            let view = View::parts([0, 1, 2, 3].map(|k| &*parts[k]));
            halves(q, &view, [1, 3], (east_rows, free.east_cols), east, stop)?;
            halves(q, &view, [0, 2], (west_rows, free.west_cols), west, stop)?;
        } else {
            match &filtered {
                Some(view) => {
                    halves(q, view, [1, 3], (east_rows, free.east_cols), east, stop)?;
                    halves(q, view, [0, 2], (west_rows, free.west_cols), west, stop)?;
                }
                None => {
                    halves_even(q, true, east_rows, free.east_cols, south, east);
                    halves_even(q, false, west_rows, free.west_cols, south, west);
                }
            }
        }
        // The larger side becomes the tables, sieved into classes
        // (`results/join-log.md`, section 15).
        let (table, queries): (&[u64], &[u64]) = if east.len() >= west.len() {
            (east, west)
        } else {
            (west, east)
        };
        total.nodes += (east.len() + west.len()) as u64;
        let bits = geo.pattern_bits();
        if let Some(x) = sample {
            let made = begun.elapsed().as_secs_f64();
            let classes = (x.classes, x.seed + i as usize);
            let matching = time_fitting(table, queries, bits, tables, stop, classes)?;
            // A slice of a one-row-set unit matches its share of the pairs; its half-boards
            // are made once for the slices a worker takes one after another, so it is charged
            // its share of them too.
            let dealt = if by_rows { 1.0 } else { unit.slice.of as f64 };
            seconds += f64::from(stride) * (made + matching) / dealt;
            continue;
        }
        let part = Part {
            slice: matching_slice,
            sorted: made,
        };
        // A matching that ends has left the sides sorted wherever it sieves them; one that
        // stopped may not have.
        total.count += count_part_until(table, queries, bits, tables, part, stop)?;
        *made_for = key;
    }
    Some((total, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_add_up_to_the_known_totals() {
        for n in 1..=12 {
            let q = Quadrants::build(n);
            let total: u128 = units(n)
                .iter()
                .map(|(u, w)| u128::from(count_unit(&q, u).count) * u128::from(*w))
                .sum();
            assert_eq!(Some(total), crate::known::total(n), "n = {n}");
        }
    }

    #[test]
    fn the_bounded_layout_counts_every_unit_as_the_lists_do() {
        for n in 1..=13 {
            let lists = Quadrants::build(n);
            let bounded = Quadrants::bounded(n, 1 << 20);
            for (u, _) in units(n) {
                assert_eq!(
                    count_unit(&lists, &u),
                    count_unit(&bounded, &u),
                    "n = {n}, {u:?}"
                );
            }
        }
    }

    #[test]
    fn the_slices_of_a_unit_add_up_to_it() {
        let mut split = 0;
        for n in [20, 21] {
            let q = Quadrants::bounded(n, 64 << 20);
            let all = units(n);
            // Units spread over the plan, and among them ones large enough to be sieved.
            for (u, _) in all.iter().step_by(all.len() / 9) {
                let whole = count_unit(&q, u).count;
                for of in [2, 3, 16] {
                    let counts: Vec<u64> = (0..of)
                        .map(|index| {
                            let slice = Slice { index, of };
                            count_unit(&q, &Unit { slice, ..*u }).count
                        })
                        .collect();
                    assert_eq!(counts.iter().sum::<u64>(), whole, "n = {n}, {u:?}, {of}");
                    split += usize::from(counts.iter().filter(|&&c| c > 0).count() > 1);
                }
            }
            // Slices of different units one after another on one thread: none starts from
            // another unit's half-boards.
            let picks: Vec<Unit> = all.iter().step_by(all.len() / 9).map(|x| x.0).collect();
            let mut sums = vec![0; picks.len()];
            for index in 0..3 {
                for (u, sum) in picks.iter().zip(&mut sums) {
                    let slice = Slice { index, of: 3 };
                    *sum += count_unit(&q, &Unit { slice, ..*u }).count;
                }
            }
            for (u, sum) in picks.iter().zip(sums) {
                assert_eq!(sum, count_unit(&q, u).count, "n = {n}, {u:?}");
            }
            // A slice given up does not leave its unit's half-boards for the next slice.
            let stop = AtomicBool::new(true);
            for u in &picks {
                let slice = Slice { index: 1, of: 3 };
                assert_eq!(count_unit_until(&q, &Unit { slice, ..*u }, &stop), None);
                let whole: u64 = (0..3)
                    .map(|index| {
                        let slice = Slice { index, of: 3 };
                        count_unit(&q, &Unit { slice, ..*u }).count
                    })
                    .sum();
                assert_eq!(whole, count_unit(&q, u).count, "n = {n}, {u:?}");
            }
        }
        assert!(split >= 6, "only {split} units were really cut");
    }

    #[test]
    fn a_raised_stop_gives_up_the_unit() {
        let stop = AtomicBool::new(true);
        for q in [Quadrants::build(16), Quadrants::bounded(16, 0)] {
            let big = units(16)
                .into_iter()
                .map(|(u, _)| u)
                .max_by_key(|u| count_unit(&q, u).nodes)
                .unwrap();
            assert_eq!(count_unit_until(&q, &big, &stop), None);
        }
    }
}
