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
//! `sieve.rs` (large units sorted into classes by a few of their diagonals first; which ones,
//! `split.rs`; units too large to hold, `stream.rs`) and `x86.rs`
//! (its vector builds), `memory.rs` (size limits and the memory estimate). This file
//! holds the entry point, [`count_unit`], and the per-thread buffers it reuses.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Found;

#[macro_use]
mod rows;
mod cost;
mod deal;
mod geometry;
mod halves;
mod matching;
mod memory;
mod partition;
mod quadrant;
mod sieve;
mod split;
mod stream;
mod tables;
mod units;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use super::Slice;
pub use cost::unit_cost;
pub use geometry::Geometry;
pub use matching::{count_fitting, count_fitting_until, count_slice_until, time_fitting};
pub use memory::{LISTS_BY_DEFAULT_UNTIL, Layout, MAX_JOIN_N, MAX_LISTED_N, memory_needed};
pub use quadrant::Quadrants;
pub use tables::Tables;
pub use units::{Middle, Stratum, Unit, for_each_unit, stratum, units};

use halves::{each_half, halves, halves_even, side_pairs};
use matching::count_part_until;
use partition::{Cache, Key, Partition};
use quadrant::{Lists, View};
use sieve::Part;
use stream::Reads;
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
    /// A streamed unit (sides too large to hold): its four partitions, kept for the next
    /// slice of the same unit, and whether the west side is its table.
    streamed: Option<([Rc<Partition>; 4], bool)>,
    /// Tests: the candidate pairs past which units stream and the table patterns a streamed
    /// group holds, in place of [`STREAM_ABOVE`] and [`stream::GROUP_PATTERNS`].
    #[cfg(test)]
    limits: Option<(u64, usize)>,
    /// Tests: the size past which buffers are let go, in place of [`RELEASE_ABOVE`].
    #[cfg(test)]
    release: Option<usize>,
}

/// A buffer of a thread's [`Scratch`] larger than this is let go when the thread moves on to
/// another unit. Buffers keep their size from unit to unit, so a thread would otherwise hold
/// the largest sides, the largest tables and the largest partition search it ever met, each
/// from a different unit: at n = 28 one thread going through three units of every stratum
/// held 1.8 GiB where no single unit held more than 1 GiB (`results/join-log.md`, section 23).
/// Growing a buffer again costs its page faults, small against the minutes a unit with such
/// buffers takes: side by side, n = 24 and 26 shards ran at the same speed (section 23).
const RELEASE_ABOVE: usize = 32 << 20;

/// Lets go of `v`'s memory if it holds more than `limit` bytes.
fn release_above<T>(v: &mut Vec<T>, limit: usize) {
    if v.capacity() * std::mem::size_of::<T>() > limit {
        *v = Vec::new();
    }
}

impl Scratch {
    /// Lets go of the buffers larger than `limit` bytes (the kept partitions stay: they are
    /// within their own budget, and the next units may share them).
    fn release_above(&mut self, limit: usize) {
        release_above(&mut self.east, limit);
        release_above(&mut self.west, limit);
        release_above(&mut self.south, limit);
        let t = &mut self.tables;
        release_above(&mut t.rows, limit);
        release_above(&mut t.table, limit);
        release_above(&mut t.queries, limit);
        release_above(&mut t.table_starts, limit);
        release_above(&mut t.query_starts, limit);
        release_above(&mut t.runs, limit);
        release_above(self.parts.search_buffer(), limit);
    }
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
    /// Table classes of the sieve matched, about: the matching is cut into one slice per so
    /// many classes and one of them, chosen by `seed`, is matched; small sides are matched
    /// whole.
    pub classes: usize,
    /// Chooses which slice.
    pub seed: usize,
}

/// The seconds counting `unit` would take on this thread, projected from counting a share of
/// it ([`Sample`]): the half-boards of each row set sampled are made whole and timed, one
/// slice of the matching (as a run would count it) is timed and scaled up, and the row sets
/// sampled stand for the whole span. `None` if `stop` rose.
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

/// The two sides (east, west half-board patterns) of a unit of an even board, made in the
/// memory-bounded layout (for the tools in `examples/` that measure the matching).
pub fn unit_sides(q: &Quadrants, unit: &Unit) -> (Vec<u64>, Vec<u64>) {
    static NEVER: AtomicBool = AtomicBool::new(false);
    let geo = &q.geo;
    let free = free_lines(geo, unit.middle);
    let side = (1u32 << geo.h) - 1;
    let east_rows = unit.east_rows;
    let west_rows = free.rows & !east_rows;
    let mut parts = Cache::default();
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
    let got = wanted.map(|(origin, rows, cols)| {
        let key = Key {
            n: geo.n,
            origin,
            rows,
            cols,
            forbid: (0, 0),
        };
        parts.get(0, geo, &q.index, key)
    });
    let view = View::parts([0, 1, 2, 3].map(|k| &*got[k]));
    let (mut east, mut west) = (Vec::new(), Vec::new());
    halves(
        q,
        &view,
        [1, 3],
        (east_rows, free.east_cols),
        &mut east,
        &NEVER,
    )
    .unwrap();
    halves(
        q,
        &view,
        [0, 2],
        (west_rows, free.west_cols),
        &mut west,
        &NEVER,
    )
    .unwrap();
    (east, west)
}

/// Candidate pairs of north and south quadrant placements (an upper bound of a unit's
/// half-boards) past which a unit's sides are not held whole but read anew block by block
/// ([`stream::count_streamed`]): held, two sides of at most this many patterns and their
/// sorted copies take up to 512 MiB; the largest units of n = 26 (some 32 million
/// half-boards) and most of n = 28 pass it.
pub(super) const STREAM_ABOVE: u64 = 1 << 25;

/// One side of a unit as a [`stream::Source`]: its half-boards made from the partitions each
/// time it is read.
struct HalfSource<'a, 'v> {
    q: &'a Quadrants,
    view: &'a View<'v>,
    sides: [usize; 2],
    rows_cols: (u32, u32),
    buf: &'a mut Vec<u64>,
    stop: &'a AtomicBool,
}

impl stream::Source for HalfSource<'_, '_> {
    fn each(&mut self, f: &mut dyn FnMut(&[u64])) -> Option<()> {
        let (q, view, sides, rc) = (self.q, self.view, self.sides, self.rows_cols);
        each_half(q, view, sides, rc, self.buf, self.stop, f)
    }
}

/// How [`streamed_unit`] counts: the pattern length, a timing sample (table classes, seed)
/// or the slice, and for a later slice of the same unit, which side its table was.
struct Streamed {
    bits: usize,
    sample: Option<(usize, usize)>,
    slice: Slice,
    west_table: Option<bool>,
    /// Table patterns a group holds ([`stream::GROUP_PATTERNS`]).
    group: usize,
}

/// Counts (or times) a unit whose sides are read anew each time ([`STREAM_ABOVE`]): the
/// count, the seconds spent reading and sorting the sides and the (projected) seconds of
/// the matching, and whether the west side was the table (the larger side, as
/// [`matching::count_part_until`] chooses it) where the next slice of the unit may start from
/// what `t` holds.
fn streamed_unit(
    east: &mut HalfSource<'_, '_>,
    west: &mut HalfSource<'_, '_>,
    how: Streamed,
    t: &mut Tables,
    stop: &AtomicBool,
) -> Option<(Found, (Reads, f64), Option<bool>)> {
    use stream::Source;
    let begun = std::time::Instant::now();
    let (stats, west_table) = match how.west_table {
        Some(w) => (None, w),
        None => {
            let (mut se, mut sw) = (split::Stats::default(), split::Stats::default());
            east.each(&mut |b| se.add(b))?;
            west.each(&mut |b| sw.add(b))?;
            let w = sw.len >= se.len;
            (Some((se, sw)), w)
        }
    };
    if let Some((se, sw)) = &stats {
        let (large, small) = (se.len.max(sw.len), se.len.min(sw.len));
        if !matching::sieved(small, large) {
            // Small after all: held whole, as any unit.
            let (mut e, mut w) = (Vec::new(), Vec::new());
            east.each(&mut |b| e.extend_from_slice(b))?;
            west.each(&mut |b| w.extend_from_slice(b))?;
            let nodes = (e.len() + w.len()) as u64;
            let (tq, qq) = if w.len() >= e.len() {
                (&w, &e)
            } else {
                (&e, &w)
            };
            let part = Part::fresh(how.slice);
            let count = match how.sample {
                Some(classes) => {
                    let secs = time_fitting(tq, qq, how.bits, t, stop, classes)?;
                    return Some((Found { count: 0, nodes }, (Reads::default(), secs), None));
                }
                None => count_part_until(tq, qq, how.bits, t, part, stop)?,
            };
            return Some((Found { count, nodes }, (Reads::default(), 0.0), None));
        }
    }
    let ordered = stats
        .as_ref()
        .map(|(se, sw)| if west_table { (sw, se) } else { (se, sw) });
    let share = match how.sample {
        Some((classes, seed)) => {
            let len = ordered.map_or(0, |(ts, _)| ts.len);
            let stride = (sieve::classes_for(len) / classes.max(1)).max(1);
            sieve::Share::Sampled {
                stride,
                offset: seed % stride,
            }
        }
        None => sieve::Share::Slice(Part {
            slice: how.slice,
            sorted: how.west_table.is_some(),
        }),
    };
    let (table, queries): (&mut dyn Source, &mut dyn Source) = if west_table {
        (west, east)
    } else {
        (east, west)
    };
    let figures = begun.elapsed().as_secs_f64();
    let (count, mut reads, matching) = stream::count_streamed(
        table,
        queries,
        ordered,
        (how.bits, how.group),
        t,
        stop,
        share,
    )?;
    let nodes = (t.table_starts.last().copied().unwrap_or(0)
        + t.query_starts.last().copied().unwrap_or(0)) as u64;
    let found = Found { count, nodes };
    reads.fixed += figures;
    Some((found, (reads, matching), Some(west_table)))
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
    if !made {
        s.streamed = None;
        #[cfg(not(test))]
        let limit = RELEASE_ABOVE;
        #[cfg(test)]
        let limit = s.release.unwrap_or(RELEASE_ABOVE);
        s.release_above(limit);
    }
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
        streamed,
        #[cfg(test)]
        limits,
        #[cfg(test)]
            release: _,
    } = s;
    #[cfg(not(test))]
    let (stream_above, group) = (STREAM_ABOVE, stream::GROUP_PATTERNS);
    #[cfg(test)]
    let (stream_above, group) = limits.unwrap_or((STREAM_ABOVE, stream::GROUP_PATTERNS));
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
        // A streamed unit's slice after another of it keeps its partitions and sorted
        // sides.
        let streamed_before = if made { streamed.take() } else { None };
        *streamed = None;
        let west_table_before = streamed_before.as_ref().map(|&(_, w)| w);
        // The held sides and their sorted copies are this unit's.
        let held = made && streamed_before.is_none();
        if held {
            // `east` and `west` are this unit's already.
        } else if q.is_bounded() {
            let parts = match streamed_before {
                Some((held, _)) => held,
                None => {
                    // North-west, north-east, south-west, south-east: each quadrant's rows of
                    // this row set.
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
                    // Each partition takes up to a second or two at n = 28: the stop flag is
                    // looked at between them (and between the groups of a side).
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
                    got.map(|p| p.expect("every partition was made above"))
                }
            };
            let view = View::parts([0, 1, 2, 3].map(|k| &*parts[k]));
            let east_side = (east_rows, free.east_cols);
            let west_side = (west_rows, free.west_cols);
            let large = unit.span == 1
                && side_pairs(q, &view, [1, 3], east_side.0, east_side.1)
                    + side_pairs(q, &view, [0, 2], west_side.0, west_side.1)
                    > stream_above;
            if large {
                let mut east_src = HalfSource {
                    q,
                    view: &view,
                    sides: [1, 3],
                    rows_cols: east_side,
                    buf: east,
                    stop,
                };
                let mut west_src = HalfSource {
                    q,
                    view: &view,
                    sides: [0, 2],
                    rows_cols: west_side,
                    buf: west,
                    stop,
                };
                let how = Streamed {
                    bits: geo.pattern_bits(),
                    sample: sample.map(|x| (x.classes, x.seed + i as usize)),
                    slice: matching_slice,
                    west_table: west_table_before,
                    group,
                };
                let (found, (reads, matching), reusable) =
                    streamed_unit(&mut east_src, &mut west_src, how, tables, stop)?;
                total.count += found.count;
                total.nodes += found.nodes;
                if sample.is_some() {
                    let of = unit.slice.of as f64;
                    seconds += f64::from(stride) * (reads.per_unit(of) + matching) / of;
                }
                if let Some(west_table) = reusable {
                    *streamed = Some((parts, west_table));
                    *made_for = key;
                }
                continue;
            }
            halves(q, &view, [1, 3], east_side, east, stop)?;
            halves(q, &view, [0, 2], west_side, west, stop)?;
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
            sorted: held,
        };
        // A matching that ends has left the sides sorted wherever it sieves them; one that
        // stopped may not have.
        total.count += count_part_until(table, queries, bits, tables, part, stop)?;
        *made_for = key;
    }
    Some((total, seconds))
}

#[cfg(test)]
mod tests;
