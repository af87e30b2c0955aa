//! Counting one unit: its row sets one by one ([`count_unit_with`]), each row set's two sides
//! of half-boards made from the quadrant lists or from its four partitions and held whole, or
//! read anew each time where they are too large to hold ([`Share::streamed`]), then one side
//! matched against the other, the ties of the quarter turns apart ([`ties`]). A probe
//! ([`super::Probe`]) counts a portion of a unit the same way, and tells its caller where each
//! phase of its work begins and what each row set's phases stand for ([`super::probe`]).
//! [`count_unit_with`] is what [`super::count_unit`] and [`super::probe_unit`] run on the
//! thread's buffers ([`Scratch`], kept here with the code that fills them, so that the entry
//! points import the counting and the counting nothing of theirs).

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::halves::{each_half, halves, halves_even, halves_onto, side_pairs};
use super::matching::{count_few, count_few_streamed, count_part_until, probe_fitting};
use super::partition::{Cache, Partition, Spec};
use super::probe::{Phase, Phases, Probe};
use super::quadrant::{Lists, View};
use super::quarter::{self, Band};
use super::sieve::{self, Part};
use super::stream::{self, read_scales};
use super::tables::Sorted;
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
    Some(count_few(west_at, east_below, bits, t, stop)? + count_few(east_at, west, bits, t, stop)?)
}

/// One probe of a streamed unit in so many (by its seed) times the ties of the quarter turns
/// and stands for them that many times over: they read both sides again, 4.3 to 18.7 s of one
/// core for three n = 28 units against 3.5 to 6 s for the rest of their probes, and 3 to 9% of
/// those units' counted time (`results/join-log.md`, section 29).
const TIES_EVERY: usize = 4;

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
    let count = count_few_streamed(&west_at, east, bits, t, stop)?
        + count_few_streamed(&east_at, west, bits, t, stop)?;
    west.sides.1 = Band::Below(c);
    Some(count)
}

/// Buffers one thread reuses from unit to unit.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) east: Vec<u64>,
    pub(super) west: Vec<u64>,
    pub(super) tables: Tables,
    /// The buffers of the ties' matchings ([`ties`]), apart from `tables`, which may hold the
    /// sides sorted for the unit's next slice.
    pub(super) ties: Tables,
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
        for t in [&mut self.tables, &mut self.ties] {
            release_above(&mut t.rows, limit);
            release_above(&mut t.table, limit);
            release_above(&mut t.queries, limit);
            match &mut t.sorted {
                Sorted::Narrow(v) => release_above(v, limit),
                Sorted::Five(v) => release_above(v, limit),
                Sorted::Wide(v) => release_above(v, limit),
            }
            release_above(&mut t.table_starts, limit);
            release_above(&mut t.query_starts, limit);
            release_above(&mut t.runs, limit);
        }
        release_above(self.parts.search_buffer(), limit);
    }
}

/// Counts a share of `unit` on the thread's buffers `s` (all of it, one slice, or with `probe`
/// a portion of it, whose phases it marks on `phases`), row set by row set ([`row_sets`]). A
/// slice of the unit this thread counted last starts from what it left.
pub(super) fn count_unit_with(
    q: &Quadrants,
    unit: &Unit,
    s: &mut Scratch,
    stop: &AtomicBool,
    (probe, phases): (Option<Probe>, &mut dyn Phases),
) -> Option<Found> {
    s.enter_pair(q, unit.middle);
    let share = Share::new(q, unit, probe, s, stop);
    // The filtered lists of odd n, held apart from the buffers the row sets fill.
    let lists = match (unit.middle, &s.middle) {
        (Some(_), Some((_, _, lists))) if !q.is_bounded() => Some(Arc::clone(lists)),
        _ => None,
    };
    let lists = lists.as_deref().map(View::of);
    let mut total = Found::default();
    for (i, east_rows) in row_sets(unit, share.free_rows, share.stride) {
        phases.begin(Phase::Sides);
        let found = share.row_set(s, (i, east_rows), lists.as_ref(), phases)?;
        total.count += found.count;
        total.nodes += found.nodes;
    }
    Some(total)
}

/// Makes the sides of `unit`'s first row set into `s.east` and `s.west` from its partitions,
/// as a count that holds them makes them ([`super::unit_sides`]).
pub(super) fn made_sides(q: &Quadrants, unit: &Unit, s: &mut Scratch) {
    static NEVER: AtomicBool = AtomicBool::new(false);
    let share = Share::new(q, unit, None, s, &NEVER);
    let rows = (unit.east_rows, share.free_rows & !unit.east_rows);
    let got = partitions(q, &mut s.parts, unit.middle, rows, &NEVER).expect("never stopped");
    let view = View::parts([0, 1, 2, 3].map(|k| &*got[k]));
    share
        .made_halves(s, Some(&view), rows, None)
        .expect("never stopped");
}

/// A share of a unit as its row sets are counted ([`count_unit_with`]).
struct Share<'a> {
    q: &'a Quadrants,
    stop: &'a AtomicBool,
    unit: Unit,
    /// The rows the middle queens leave free, and the east and west columns.
    free_rows: u32,
    cols: (u32, u32),
    bits: usize,
    /// With the quarter turns (even n): each row set's value, and the bands of column splits
    /// its sides are made of ([`quarter`]), below the value counted twice, at it apart.
    turning: bool,
    /// A slice of a unit of several row sets takes every `of`-th of them, each whole; a slice
    /// of a one-row-set unit takes its share of the matching, `matching`.
    matching: Slice,
    /// Every `stride`-th of the share's row sets is counted (all of them but for a probe).
    stride: u32,
    probe: Option<Probe>,
    /// The unit whose sides the thread keeps for its next slice ([`Scratch::made_for`]), and
    /// whether the thread holds them already.
    sides_of: Option<(usize, u32, Option<Middle>)>,
    made: bool,
    /// [`Scratch::stream_limits`].
    limits: (u64, usize),
}

impl<'a> Share<'a> {
    /// The share of `unit` counted (a portion, with `probe`), with the thread's buffers `s`
    /// readied for it: a slice of the unit the thread counted last keeps its half-boards, any
    /// other share lets go of the large buffers first.
    fn new(
        q: &'a Quadrants,
        unit: &Unit,
        probe: Option<Probe>,
        s: &mut Scratch,
        stop: &'a AtomicBool,
    ) -> Share<'a> {
        let geo = &q.geo;
        let sides_of =
            (unit.span == 1 && probe.is_none()).then_some((geo.n, unit.east_rows, unit.middle));
        let made = sides_of.is_some() && s.made_for == sides_of;
        s.made_for = None;
        if !made {
            s.streamed = None;
            s.release_above(s.release_limit());
        }
        let free = free_lines(geo, unit.middle);
        let by_rows = unit.span > 1 && unit.slice.of > 1;
        let own = unit
            .span
            .div_ceil(if by_rows { unit.slice.of as u32 } else { 1 });
        Share {
            q,
            stop,
            unit: *unit,
            free_rows: free.rows,
            cols: (free.east_cols, free.west_cols),
            bits: geo.pattern_bits(),
            turning: q.quarter_turns && unit.middle.is_none(),
            matching: if by_rows { Slice::WHOLE } else { unit.slice },
            stride: probe.map_or(1, |x| own.div_ceil(x.row_sets.max(1))),
            probe,
            sides_of,
            made,
            limits: s.stream_limits(),
        }
    }

    /// Counts the share's `i`-th row set, `east_rows`: its two sides of half-boards made from
    /// the quadrant lists (filtered by the middle queens for odd n) or, in the memory-bounded
    /// layout, from the row set's four partitions ([`partitions`]) and held, or streamed where
    /// they are too large to hold ([`Share::streamed`]).
    fn row_set(
        &self,
        s: &mut Scratch,
        (i, east_rows): (u32, u32),
        lists: Option<&View<'_>>,
        phases: &mut dyn Phases,
    ) -> Option<Found> {
        let (q, h) = (self.q, self.q.geo.h);
        let value = self.turning.then(|| quarter::row_set_value(h, east_rows));
        let rows = (east_rows, self.free_rows & !east_rows);
        // A streamed unit's slice after another of it keeps its partitions and sorted sides;
        // the held sides and their sorted copies are this unit's.
        let before = if self.made { s.streamed.take() } else { None };
        let held = self.made && before.is_none();
        if !held && q.is_bounded() {
            let (got, west_table) = match before {
                Some((got, w)) => (got, Some(w)),
                None => {
                    phases.begin(Phase::Partitions);
                    let got = partitions(q, &mut s.parts, self.unit.middle, rows, self.stop)?;
                    phases.begin(Phase::Sides);
                    (got, None)
                }
            };
            let view = View::parts([0, 1, 2, 3].map(|k| &*got[k]));
            let up_to = value.map_or(Band::All, Band::UpTo);
            let ((er, wr), (ec, wc)) = (rows, self.cols);
            let pairs = |quads, rows, cols| side_pairs(q, &view, (quads, up_to), rows, cols);
            if self.unit.span == 1 && pairs([1, 3], er, ec) + pairs([0, 2], wr, wc) > self.limits.0
            {
                return self.streamed(s, (got, west_table), (i, rows, value), phases);
            }
            self.made_halves(s, Some(&view), rows, value)?;
        } else if !held {
            self.made_halves(s, lists, rows, None)?;
        }
        self.matched(s, (i, value), held, phases)
    }

    /// Makes the row set's sides into `s.east` and `s.west` from `view` (its partitions, or
    /// the lists filtered by the middle queens), or for even n from the whole lists: with the
    /// quarter turns, those below its value `value` first, those at it after.
    fn made_halves(
        &self,
        s: &mut Scratch,
        view: Option<&View<'_>>,
        rows: (u32, u32),
        value: Option<u32>,
    ) -> Option<()> {
        let (q, stop) = (self.q, self.stop);
        let (east_side, west_side) = ((rows.0, self.cols.0), (rows.1, self.cols.1));
        let below = value.map_or(Band::All, Band::Below);
        match view {
            Some(view) => {
                halves(q, view, ([1, 3], below), east_side, &mut s.east, stop)?;
                halves(q, view, ([0, 2], below), west_side, &mut s.west, stop)?;
            }
            None => {
                let ((er, ec), (wr, wc), south) = (east_side, west_side, &mut s.south);
                halves_even(q, true, er, ec, south, &mut s.east);
                halves_even(q, false, wr, wc, south, &mut s.west);
            }
        }
        s.below = (s.east.len(), s.west.len());
        if let (Some(c), Some(view)) = (value, view) {
            halves_onto(q, view, ([1, 3], Band::At(c)), east_side, &mut s.east, stop)?;
            halves_onto(q, view, ([0, 2], Band::At(c)), west_side, &mut s.west, stop)?;
        }
        Some(())
    }

    /// Matches the row set's held sides: the larger becomes the tables (the matching
    /// chooses), sieved into bins (`results/join-log.md`, section 15); with the quarter turns,
    /// of the half-boards below the row set's value, the ties apart. With `sorted`, the
    /// tables hold both sides sorted by the slice before. A probe matches its portion.
    fn matched(
        &self,
        s: &mut Scratch,
        (i, value): (u32, Option<u32>),
        sorted: bool,
        phases: &mut dyn Phases,
    ) -> Option<Found> {
        let (east, west, below) = (&s.east[..], &s.west[..], s.below);
        let (t, tied) = (&mut s.tables, &mut s.ties);
        let (bits, stop) = (self.bits, self.stop);
        let halves = (&east[..below.0], &west[..below.1]);
        let nodes = (east.len() + west.len()) as u64;
        let times = if value.is_some() { 2 } else { 1 };
        let Some(probe) = self.probe else {
            // A matching that ends has left the sides sorted wherever it sieves them; one
            // that stopped may not have. The ties (counted with the first slice) are matched
            // on buffers of their own, which leaves the sorted sides as they are.
            let mut count = 0;
            if value.is_some() && self.matching.index == 0 {
                count += ties((east, west), below, bits, tied, stop)?;
            }
            let part = Part {
                slice: self.matching,
                sorted,
            };
            count += times * count_part_until(halves.0, halves.1, bits, t, part, stop)?;
            s.made_for = self.sides_of;
            return Some(Found { count, nodes });
        };
        let bins = (probe.bins, probe.seed + i as usize);
        let (count, matching) = probe_fitting(halves, bits, t, stop, bins, phases)?;
        let mut count = times * count;
        if value.is_some() {
            phases.begin(Phase::Matching);
            count += ties((east, west), below, bits, tied, stop)?;
        }
        self.settle(phases, matching, &[(Phase::Sides, 1.0)]);
        Some(Found { count, nodes })
    }

    /// A probe settles its row set's phases: each stands for the share's row sets the row set
    /// stands for, and in a slice of a one-row-set unit for the slice's share (its
    /// half-boards are made once for the slices a worker takes one after another, so it is
    /// charged its share of them too); the tables and the queries further by `matching` (the
    /// sieve scales them apart), and the phases of `more` by their own factors.
    fn settle(&self, phases: &mut dyn Phases, matching: (f64, f64), more: &[(Phase, f64)]) {
        if self.probe.is_some() {
            let by = self.stands_for();
            let own = [Phase::Matching, Phase::Tables, Phase::Queries];
            let own = own.into_iter().zip([1.0, matching.0, matching.1]);
            let scales: Vec<_> = own
                .chain(more.iter().copied())
                .map(|(p, x)| (p, by * x))
                .collect();
            phases.settle(&scales);
        }
    }

    /// How many times the whole unit does a probe's work of one row set of its share: each
    /// row set stands for `stride` of the share's, and the share for a slice of the unit.
    fn stands_for(&self) -> f64 {
        f64::from(self.stride) / self.matching.of as f64
    }

    /// Counts the share's `i`-th row set, `rows`, where its sides are too large to hold: read
    /// anew from its partitions `got` ([`Share::streamed_matching`]; for a later slice,
    /// `west_table` says which side was the table), the ties apart. The partitions are kept
    /// for the unit's next slice.
    fn streamed(
        &self,
        s: &mut Scratch,
        (got, west_table): ([Rc<Partition>; 4], Option<bool>),
        (i, rows, value): (u32, (u32, u32), Option<u32>),
        phases: &mut dyn Phases,
    ) -> Option<Found> {
        let (q, stop, bits) = (self.q, self.stop, self.bits);
        let view = View::parts([0, 1, 2, 3].map(|k| &*got[k]));
        let below = value.map_or(Band::All, Band::Below);
        let (east_side, west_side) = ((rows.0, self.cols.0), (rows.1, self.cols.1));
        let Scratch {
            east,
            west,
            tables,
            ties: tied,
            ..
        } = &mut *s;
        let source = |sides, rows_cols, buf| HalfSource {
            q,
            view: &view,
            sides,
            rows_cols,
            buf,
            stop,
        };
        let mut east_source = source(([1, 3], below), east_side, east);
        let mut west_source = source(([0, 2], below), west_side, west);
        let (e, w) = (&mut east_source, &mut west_source);
        let (found, reusable) = self.streamed_matching((e, w), (i, west_table), tables, phases)?;
        let times = if value.is_some() { 2 } else { 1 };
        let mut count = times * found.count;
        let timed = self.probe.is_some_and(|p| p.seed % TIES_EVERY == 0);
        if let Some(c) = value.filter(|_| timed || self.probe.is_none() && self.matching.index == 0)
        {
            phases.begin(Phase::Matching);
            let tied = streamed_ties(e, w, c, bits, tied, stop)?;
            if self.probe.is_none() {
                count += tied;
            } else {
                // Timed, not counted: the probe's count is its slice's pairs. The ties stand
                // for the unit's, which its first slice counts, in every TIES_EVERY-th probe.
                let scale = self.stands_for() * TIES_EVERY as f64;
                phases.settle(&[(Phase::Matching, scale)]);
            }
        }
        if let Some(west_table) = reusable {
            s.streamed = Some((got, west_table));
            s.made_for = self.sides_of;
        }
        Some(Found { count, ..found })
    }

    /// The matching of the `i`-th row set's sides read anew each time ([`STREAM_ABOVE`]):
    /// what it found, and whether the west side was the table (the larger side, as
    /// [`matching::count_part_until`] chooses it) where the next slice of the unit may start
    /// from what `t` holds (`west_table`, for such a slice). A probe's reads stand for those of
    /// the workers the unit's blocks of slices are dealt to ([`stream::read_scales`]); sides
    /// that turn out small are held whole, and then a probe's reads stand for none.
    fn streamed_matching(
        &self,
        (east, west): (&mut HalfSource<'_, '_>, &mut HalfSource<'_, '_>),
        (i, west_table): (u32, Option<bool>),
        t: &mut Tables,
        phases: &mut dyn Phases,
    ) -> Option<(Found, Option<bool>)> {
        use stream::Source;
        let (bits, stop, slice) = (self.bits, self.stop, self.matching);
        let bins = self.probe.map(|x| (x.bins, x.seed + i as usize));
        phases.begin(Phase::Reading);
        let (stats, west_table) = match west_table {
            Some(w) => (None, w),
            None => {
                let (mut se, mut sw) = (split::Stats::default(), split::Stats::default());
                east.each(&mut |b| se.add(b))?;
                west.each(&mut |b| sw.add(b))?;
                let w = sw.len >= se.len;
                (Some((se, sw)), w)
            }
        };
        if let Some((se, sw)) = &stats
            && !matching::sieved(se.len.min(sw.len), se.len.max(sw.len))
        {
            // Small after all: held whole, as any unit.
            let (mut e, mut w) = (Vec::new(), Vec::new());
            east.each(&mut |b| e.extend_from_slice(b))?;
            west.each(&mut |b| w.extend_from_slice(b))?;
            let nodes = (e.len() + w.len()) as u64;
            let count = match bins {
                Some(bins) => {
                    let (count, matching) = probe_fitting((&w, &e), bits, t, stop, bins, phases)?;
                    self.settle(phases, matching, &[]);
                    count
                }
                None => count_part_until(&w, &e, bits, t, Part::fresh(slice), stop)?,
            };
            return Some((Found { count, nodes }, None));
        }
        let ordered = (stats.as_ref()).map(|(se, sw)| if west_table { (sw, se) } else { (se, sw) });
        let len = ordered.map_or(0, |(ts, _)| ts.len);
        let slice = bins.map_or(slice, |b| sieve::probe_slice(len, b));
        let part = Part {
            slice,
            sorted: stats.is_none(),
        };
        let (table, queries): (&mut dyn Source, &mut dyn Source) = if west_table {
            (west, east)
        } else {
            (east, west)
        };
        let marks = bins.map(|_| &mut *phases as &mut dyn Phases);
        let (sizes, how) = ((bits, self.limits.1), (part, marks));
        let sides = (table, queries);
        let (count, groups, matching) =
            stream::count_streamed(sides, ordered, sizes, t, stop, how)?;
        let nodes = (t.table_starts.last().copied().unwrap_or(0)
            + t.query_starts.last().copied().unwrap_or(0)) as u64;
        // The reads stand for the workers the run deals the unit's blocks of slices to (its
        // cut, `self.matching`), not for the probe's share of the matching.
        let workers = self.probe.map_or(1, |p| p.workers);
        let reads = read_scales(groups, self.matching.of as f64, workers);
        self.settle(phases, matching, &reads);
        Some((Found { count, nodes }, Some(west_table)))
    }
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
fn partition_specs(
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
