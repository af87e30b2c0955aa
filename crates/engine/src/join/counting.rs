//! Counting one unit: its row sets one by one, each row set's two sides of half-boards made
//! from the quadrant lists or from its four partitions (or streamed, where they are too large
//! to hold), and the matching of one side against the other. [`count_unit_with`] is what
//! [`super::count_unit`] and [`super::time_unit`] run on the thread's buffers ([`Scratch`],
//! kept here with the code that fills them, so that the entry points import the counting and
//! the counting nothing of theirs).

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::halves::{each_half, halves, halves_even, halves_onto, side_pairs};
use super::matching::{count_part_until, count_unsieved, count_unsieved_streamed, time_fitting};
use super::partition::{Cache, Partition, Spec};
use super::quadrant::{Lists, View};
use super::quarter::{self, Band};
use super::sieve::{self, Part};
use super::stream::{self, Reads};
use super::units::{free_lines, next_row_set};
use super::{Found, Geometry, Middle, Quadrants, Slice, Tables, Unit, matching, split};

/// Candidate pairs of north and south quadrant placements (an upper bound of a unit's
/// half-boards) past which a unit's sides are not held whole but read anew buffer by buffer
/// ([`stream::count_streamed`]): held, two sides of at most this many patterns and their
/// sorted copies take up to 512 MiB; the largest units of n = 26 (some 32 million
/// half-boards) and most of n = 28 pass it.
pub(super) const STREAM_ABOVE: u64 = 1 << 25;

/// One side of a unit as a [`stream::Source`]: its half-boards made from the partitions each
/// time it is read.
struct HalfSource<'a, 'v> {
    q: &'a Quadrants,
    view: &'a View<'v>,
    sides: ([usize; 2], Band),
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

/// How [`streamed_unit`] counts: the pattern length, a timing probe (table bins, seed)
/// or the slice, and for a later slice of the same unit, which side its table was.
struct Streamed {
    bits: usize,
    probe: Option<(usize, usize)>,
    slice: Slice,
    west_table: Option<bool>,
    /// Table patterns a group holds ([`stream::GROUP_PATTERNS`]).
    group: usize,
}

/// The ties of a unit counted with the quarter turns, its value `c` ([`quarter`]): the pairs
/// with one side's split value at `c` and the other's at or below it, from sides held whole
/// (`east` and `west`, the first `below` of each below `c`, the rest at it). With the east
/// side's half-boards below `c` against the west ones at `c`, and the east ones at `c` against
/// all the west ones, each tie is counted once.
fn ties(
    (east, west): (&[u64], &[u64]),
    below: (usize, usize),
    bits: usize,
    t: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    let (east_below, east_at) = east.split_at(below.0);
    let west_at = &west[below.1..];
    Some(
        count_unsieved(west_at, east_below, bits, t, stop)?
            + count_unsieved(east_at, west, bits, t, stop)?,
    )
}

/// [`ties`] of a streamed unit: the half-boards at `c` (few) are held, the others read
/// buffer by buffer.
fn streamed_ties(
    east: &mut HalfSource<'_, '_>,
    west: &mut HalfSource<'_, '_>,
    c: u32,
    bits: usize,
    t: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    use stream::Source;
    let held = |side: &mut HalfSource<'_, '_>| {
        side.sides.1 = Band::At(c);
        let mut out = Vec::new();
        side.each(&mut |b| out.extend_from_slice(b)).map(|()| out)
    };
    let (east_at, west_at) = (held(east)?, held(west)?);
    east.sides.1 = Band::Below(c);
    west.sides.1 = Band::UpTo(c);
    let count = count_unsieved_streamed(&west_at, east, bits, t, stop)?
        + count_unsieved_streamed(&east_at, west, bits, t, stop)?;
    west.sides.1 = Band::Below(c);
    Some(count)
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
            let part = Part::fresh(how.slice);
            let count = match how.probe {
                Some(bins) => {
                    let secs = time_fitting(&w, &e, how.bits, t, stop, bins)?;
                    return Some((Found { count: 0, nodes }, (Reads::default(), secs), None));
                }
                None => count_part_until(&w, &e, how.bits, t, part, stop)?,
            };
            return Some((Found { count, nodes }, (Reads::default(), 0.0), None));
        }
    }
    let ordered = stats
        .as_ref()
        .map(|(se, sw)| if west_table { (sw, se) } else { (se, sw) });
    let portion = match how.probe {
        Some((bins, seed)) => {
            let len = ordered.map_or(0, |(ts, _)| ts.len);
            let stride = (sieve::bins_for(len) / bins.max(1)).max(1);
            sieve::Portion::Timed {
                stride,
                offset: seed % stride,
            }
        }
        None => sieve::Portion::Slice(Part {
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
        portion,
    )?;
    let nodes = (t.table_starts.last().copied().unwrap_or(0)
        + t.query_starts.last().copied().unwrap_or(0)) as u64;
    let found = Found { count, nodes };
    reads.fixed += figures;
    Some((found, (reads, matching), Some(west_table)))
}

/// Buffers one thread reuses from unit to unit.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) east: Vec<u64>,
    pub(super) west: Vec<u64>,
    pub(super) tables: Tables,
    /// Even n: a south quadrant group made from the north-west list.
    pub(super) south: Vec<u64>,
    /// Odd n: the quadrant lists filtered by the current middle-queen pair, that pair, and the
    /// board size.
    pub(super) middle: Option<(usize, Middle, Arc<[Lists; 4]>)>,
    /// Memory-bounded layout: the partitions this thread keeps.
    pub(super) parts: Cache,
    /// How many of `east` and of `west` are below the unit's quarter-turn value (the rest are
    /// at it, [`quarter`]); all of them without quarter turns.
    pub(super) below: (usize, usize),
    /// The one-row-set unit (board size, east rows, middle queens) whose half-boards `east` and
    /// `west` hold, with, where its matching is sieved, both sides sorted in `tables`: the
    /// next slice of the same unit starts from them.
    pub(super) made_for: Option<(usize, u32, Option<Middle>)>,
    /// A streamed unit (sides too large to hold): its four partitions, kept for the next
    /// slice of the same unit, and whether the west side is its table.
    pub(super) streamed: Option<([Rc<Partition>; 4], bool)>,
    /// Tests and [`super::with_stream_limits`]: the candidate pairs past which units stream
    /// and the table patterns a streamed group holds, in place of [`STREAM_ABOVE`] and
    /// [`stream::GROUP_PATTERNS`].
    pub(super) limits: Option<(u64, usize)>,
    /// Tests: the size past which buffers are let go, in place of [`RELEASE_ABOVE`].
    #[cfg(test)]
    pub(super) release: Option<usize>,
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
    /// Readies the lists for a unit of the middle-queen pair `middle` (odd n): units of one
    /// pair come one after another, so the whole lists are filtered about once per pair and
    /// shared by the threads (the memory-bounded layout filters as it makes partitions).
    pub(super) fn enter_pair(&mut self, q: &Quadrants, middle: Option<Middle>) {
        let Some(m) = middle else { return };
        let fresh = !matches!(&self.middle, Some((n, f, _)) if *n == q.geo.n && *f == m);
        if !q.is_bounded() && fresh {
            // Let go of the old pair's copy first, so it can be freed while filtering.
            self.middle = None;
            self.middle = Some((q.geo.n, m, q.filtered(m)));
        }
    }

    /// The size past which buffers are let go between units ([`RELEASE_ABOVE`]).
    pub(super) fn release_limit(&self) -> usize {
        #[cfg(test)]
        if let Some(limit) = self.release {
            return limit;
        }
        RELEASE_ABOVE
    }

    /// The candidate pairs past which a unit streams ([`STREAM_ABOVE`]) and the
    /// table patterns a streamed group holds ([`stream::GROUP_PATTERNS`]).
    pub(super) fn stream_limits(&self) -> (u64, usize) {
        if let Some(limits) = self.limits {
            return limits;
        }
        (STREAM_ABOVE, stream::GROUP_PATTERNS)
    }

    /// Lets go of the buffers larger than `limit` bytes (the kept partitions stay: they are
    /// within their own budget, and the next units may share them).
    pub(super) fn release_above(&mut self, limit: usize) {
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

/// How much of a unit [`super::time_unit`] counts.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    /// Row sets of a unit counted, spread evenly over its span (at least 1).
    pub row_sets: u32,
    /// Table bins of the sieve matched, about: the matching is cut into one slice per so
    /// many bins and one of them, chosen by `seed`, is matched; small sides are matched
    /// whole.
    pub bins: usize,
    /// Chooses which slice.
    pub seed: usize,
}

/// Counts `unit` (or, with `probe`, a portion of it) and returns what it found with the
/// seconds the whole unit is projected to take (only measured when probing).
///
/// Row set by row set ([`row_sets`]): each one's two sides of half-boards come from the
/// quadrant lists (filtered by the middle queens for odd n) or, in the memory-bounded layout,
/// from the row set's four partitions ([`partitions`]); sides too large to hold are streamed
/// ([`streamed_unit`]); then the larger side becomes the tables and the other is matched
/// against it. A slice of the unit this thread counted last starts from what it left.
pub(super) fn count_unit_with(
    q: &Quadrants,
    unit: &Unit,
    s: &mut Scratch,
    stop: &AtomicBool,
    probe: Option<Probe>,
) -> Option<(Found, f64)> {
    let geo = &q.geo;
    let free = free_lines(geo, unit.middle);
    s.enter_pair(q, unit.middle);
    // A slice of the unit this thread counted last starts from its half-boards.
    let sides_of =
        (unit.span == 1 && probe.is_none()).then_some((geo.n, unit.east_rows, unit.middle));
    let made = sides_of.is_some() && s.made_for == sides_of;
    s.made_for = None;
    if !made {
        s.streamed = None;
        s.release_above(s.release_limit());
    }
    let (stream_above, group) = s.stream_limits();
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
        below: below_lens,
        ..
    } = s;
    let filtered = match (unit.middle, middle) {
        (Some(_), Some((_, _, lists))) if !q.is_bounded() => Some(View::of(lists)),
        _ => None,
    };
    let mut total = Found::default();
    let mut seconds = 0.0;
    // A slice of a unit of several row sets takes every `of`-th of them, each whole; a slice
    // of a one-row-set unit takes its share of the matching.
    let by_rows = unit.span > 1 && unit.slice.of > 1;
    let own = if by_rows {
        unit.span.div_ceil(unit.slice.of as u32)
    } else {
        unit.span
    };
    let stride = probe.map_or(1, |x| own.div_ceil(x.row_sets.max(1)));
    let matching_slice = if by_rows { Slice::WHOLE } else { unit.slice };
    let bits = geo.pattern_bits();
    // With the quarter turns (even n), each row set's value, and the bands of column splits
    // its sides are made of ([`quarter`]): below the value counted twice, at it apart.
    let turning = q.quarter_turns && unit.middle.is_none();
    let times = if turning { 2 } else { 1 };
    for (i, east_rows) in row_sets(unit, free.rows, stride) {
        let begun = std::time::Instant::now();
        let value = turning.then(|| quarter::row_set_value(geo.h, east_rows));
        let (below, up_to) =
            value.map_or((Band::All, Band::All), |c| (Band::Below(c), Band::UpTo(c)));
        let west_rows = free.rows & !east_rows;
        let east_side = (east_rows, free.east_cols);
        let west_side = (west_rows, free.west_cols);
        // A streamed unit's slice after another of it keeps its partitions and sorted
        // sides.
        let streamed_before = if made { streamed.take() } else { None };
        let west_table_before = streamed_before.as_ref().map(|&(_, w)| w);
        // The held sides and their sorted copies are this unit's.
        let held = made && streamed_before.is_none();
        // Seconds spent making partitions, which a run makes once for the many units that
        // share them (each thread keeps those it made): a probe leaves them out.
        let mut parted = 0.0;
        if held {
            // `east` and `west` are this unit's already.
        } else if q.is_bounded() {
            let got = match streamed_before {
                Some((got, _)) => got,
                None => {
                    let t = std::time::Instant::now();
                    let got = partitions(q, parts, unit.middle, (east_rows, west_rows), stop)?;
                    parted = t.elapsed().as_secs_f64();
                    got
                }
            };
            let view = View::parts([0, 1, 2, 3].map(|k| &*got[k]));
            let large = unit.span == 1
                && side_pairs(q, &view, ([1, 3], up_to), east_side.0, east_side.1)
                    + side_pairs(q, &view, ([0, 2], up_to), west_side.0, west_side.1)
                    > stream_above;
            if large {
                let source = |sides, rows_cols, buf| HalfSource {
                    q,
                    view: &view,
                    sides,
                    rows_cols,
                    buf,
                    stop,
                };
                let how = Streamed {
                    bits,
                    probe: probe.map(|x| (x.bins, x.seed + i as usize)),
                    slice: matching_slice,
                    west_table: west_table_before,
                    group,
                };
                let mut east_source = source(([1, 3], below), east_side, east);
                let mut west_source = source(([0, 2], below), west_side, west);
                let (found, (reads, matching), reusable) =
                    streamed_unit(&mut east_source, &mut west_source, how, tables, stop)?;
                total.count += times * found.count;
                total.nodes += found.nodes;
                if let Some(c) = value.filter(|_| probe.is_none() && matching_slice.index == 0) {
                    let (e, w) = (&mut east_source, &mut west_source);
                    total.count += streamed_ties(e, w, c, bits, tables, stop)?;
                }
                if probe.is_some() {
                    let of = unit.slice.of as f64;
                    seconds += f64::from(stride) * (reads.per_unit(of) + matching) / of;
                }
                if let Some(west_table) = reusable {
                    *streamed = Some((got, west_table));
                    *made_for = sides_of;
                }
                continue;
            }
            halves(q, &view, ([1, 3], below), east_side, east, stop)?;
            halves(q, &view, ([0, 2], below), west_side, west, stop)?;
            *below_lens = (east.len(), west.len());
            if let Some(c) = value {
                halves_onto(q, &view, ([1, 3], Band::At(c)), east_side, east, stop)?;
                halves_onto(q, &view, ([0, 2], Band::At(c)), west_side, west, stop)?;
            }
        } else {
            match &filtered {
                Some(view) => {
                    halves(q, view, ([1, 3], Band::All), east_side, east, stop)?;
                    halves(q, view, ([0, 2], Band::All), west_side, west, stop)?;
                }
                None => {
                    halves_even(q, true, east_rows, free.east_cols, south, east);
                    halves_even(q, false, west_rows, free.west_cols, south, west);
                }
            }
            *below_lens = (east.len(), west.len());
        }
        // The larger side becomes the tables (the matching chooses), sieved into bins
        // (`results/join-log.md`, section 15); with the quarter turns, of the half-boards
        // below the unit's value, the ties apart.
        let (east_below, west_below) = (&east[..below_lens.0], &west[..below_lens.1]);
        total.nodes += (east.len() + west.len()) as u64;
        let sides = (&east[..], &west[..]);
        if let Some(x) = probe {
            let made = begun.elapsed().as_secs_f64() - parted;
            let bins = (x.bins, x.seed + i as usize);
            let mut matching = time_fitting(east_below, west_below, bits, tables, stop, bins)?;
            if value.is_some() {
                let begun = std::time::Instant::now();
                ties(sides, *below_lens, bits, tables, stop)?;
                matching += begun.elapsed().as_secs_f64();
            }
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
        // stopped may not have. The ties (counted with the first slice) build plain tables
        // only, which leaves the sorted sides as they are.
        if value.is_some() && matching_slice.index == 0 {
            total.count += ties(sides, *below_lens, bits, tables, stop)?;
        }
        total.count += times * count_part_until(east_below, west_below, bits, tables, part, stop)?;
        *made_for = sides_of;
    }
    Some((total, seconds))
}

/// The row sets this share of `unit` counts, each with its index among the share's own: the
/// unit's `span` consecutive east row sets (of the free rows `free_rows`), every `of`-th of
/// them for a slice of a unit of several, and every `stride`-th of those when probing (each
/// then standing for `stride`).
fn row_sets(unit: &Unit, free_rows: u32, stride: u32) -> impl Iterator<Item = (u32, u32)> {
    let by_rows = unit.span > 1 && unit.slice.of > 1;
    let (of, index) = (unit.slice.of, unit.slice.index);
    std::iter::successors(Some(unit.east_rows), move |&rows| {
        next_row_set(rows, free_rows)
    })
    .take(unit.span as usize)
    .zip(0u64..)
    .filter_map(move |(rows, i)| match by_rows {
        true => (i % of == index).then_some(((i / of) as u32, rows)),
        false => Some((i as u32, rows)),
    })
    .filter(move |&(i, _)| i % stride == 0)
}

/// The specs of the four partitions (north-west, north-east, south-west, south-east) whose
/// placements make up the half-boards of the east rows `east_rows` and the west rows
/// `west_rows`: each quadrant's rows of the row set and its side's free columns, avoiding the
/// diagonals of the middle queens, which the partitions leave out as they are made.
pub(super) fn partition_specs(
    geo: &Geometry,
    middle: Option<Middle>,
    (east_rows, west_rows): (u32, u32),
) -> [Spec; 4] {
    let free = free_lines(geo, middle);
    let mut forbid = (0, 0);
    for (r, c) in middle.iter().flat_map(|m| m.squares(geo.n)) {
        let (a, b) = geo.diagonals(r, c);
        forbid = (forbid.0 | a, forbid.1 | b);
    }
    let side = (1u32 << geo.h) - 1;
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
    wanted.map(|(origin, rows, cols)| Spec {
        n: geo.n,
        origin,
        rows,
        cols,
        forbid,
    })
}

/// The four partitions of a row set ([`partition_specs`]), from the thread's cache or made;
/// `None` if `stop` rose. Each takes up to a second or two at n = 28, so the stop flag is
/// looked at between them (and between the groups of a side).
fn partitions(
    q: &Quadrants,
    parts: &mut Cache,
    middle: Option<Middle>,
    row_set: (u32, u32),
    stop: &AtomicBool,
) -> Option<[Rc<Partition>; 4]> {
    let specs = partition_specs(&q.geo, middle, row_set);
    let mut got: [Option<Rc<Partition>>; 4] = Default::default();
    for (slot, spec) in got.iter_mut().zip(specs) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        *slot = Some(parts.get(q.cache, &q.geo, &q.index, spec));
    }
    Some(got.map(|p| p.expect("every partition was made above")))
}
