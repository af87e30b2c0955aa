//! The sieve in front of the matching tables: both sides of a unit are sorted into bins by
//! a few of their pattern bits (the diagonals both sides occupy most, chosen per unit by
//! [`super::split`]), and only bins that share none of those bits are matched, each table
//! bin with its own small tables, against runs of the sorted queries. The sieved bits leave
//! the patterns (fewer table chunks), and one bin's tables stay in the cache while every
//! query bin that fits it streams past (`results/join-log.md`, sections 15 and 18). The
//! slices of a unit are dealt by [`super::deal`].

use std::sync::atomic::{AtomicBool, Ordering};

use super::deal::{Cursor, Dealer, bin_weight, deal, fitting_queries};
use super::probe::{Phase, Phases, mark};
use super::rows::{AHEAD, CHUNK, MAX_WIDTH, Rest, Shape, words_for};
use super::split::{MAX_SIEVE, Split, Stats};
use super::tables::{Tables, build_tables, query_few, query_runs_until};
use crate::Slice;

pub(super) use super::split::{bins_for, pays};

/// Sorted queries past this many (32 MiB, the size of the last-level cache here) are fetched
/// ahead ([`Shape::ahead`]); fewer sit in the caches, where fetching ahead cost the odd boards
/// of n = 19 and 23 some 8% (`results/join-log.md`, section 27).
const FAR_QUERIES: usize = 1 << 22;

/// Below this many table patterns a bin is matched pair by pair, without tables.
const PAIRWISE_BIN: usize = 8;

/// The runs of query bins that fit table bin `a` (no sieve bit shared), as ranges of
/// the sorted queries, in increasing order of bin, runs of bins next to each other
/// (empty ones between them included) merged: a walk down the bin bits from the top that
/// skips empty ranges and takes a whole range once `a` has no bit left below it.
fn fitting_runs(a: usize, k: usize, starts: &[usize], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut stack = [(0usize, 0usize); MAX_SIEVE + 2];
    stack[0] = (k, 0);
    let mut depth = 1;
    while depth > 0 {
        depth -= 1;
        let (i, base) = stack[depth];
        let end = base + (1 << i);
        let (from, to) = (starts[base], starts[end]);
        if from == to {
            continue;
        }
        if a & ((1 << i) - 1) == 0 {
            match out.last_mut() {
                Some(last) if last.1 == from => last.1 = to,
                _ => out.push((from, to)),
            }
            continue;
        }
        let b = i - 1;
        if a >> b & 1 == 0 {
            stack[depth] = (b, base | 1 << b);
            depth += 1;
        }
        stack[depth] = (b, base);
        depth += 1;
    }
}

/// Sorts the rests of `patterns` by bin into `out`; bin `c` is `out[starts[c]..starts[c + 1]]`.
/// `None` (and `out` unfinished) if `stop` rose: a side of n = 28 holds hundreds of millions of
/// patterns, seconds of sorting, so the flag is looked at every [`SORT_STEP`] of them.
fn sort_by_bin(
    patterns: &[u64],
    split: &Split,
    (out, starts): (&mut Vec<u64>, &mut Vec<usize>),
    stop: &AtomicBool,
) -> Option<()> {
    let bins = split.bins();
    starts.clear();
    starts.resize(bins + 1, 0);
    for step in patterns.chunks(SORT_STEP) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        split.count(step, starts);
    }
    for c in 1..=bins {
        starts[c] += starts[c - 1];
    }
    // Gigabytes at n = 28: the pages are touched step by step, the flag looked at between.
    out.clear();
    out.reserve(patterns.len());
    while out.len() < patterns.len() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        out.resize((out.len() + SORT_STEP).min(patterns.len()), 0);
    }
    let mut next = starts[..bins].to_vec();
    for step in patterns.chunks(SORT_STEP) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        split.scatter::<true, u64>(step, 0, &mut next, out);
    }
    Some(())
}

/// Patterns sorted between two looks at the stop flag.
const SORT_STEP: usize = 1 << 22;

/// The number of pairs of a table pattern and a query that share no bit (`bits`-bit
/// patterns), sieved by the bits [`Split::choose`] picks (or by `split`, if given); with a
/// slice of more than one, only the pairs of bins that slice is dealt ([`Dealer`]). `None`
/// if `stop` rose (checked between table bins, a small share of a unit each).
pub(super) fn count(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    split: Option<Split>,
    t: &mut Tables,
    stop: &AtomicBool,
    part: Part,
) -> Option<u64> {
    count_bins((table, queries), bits, split, t, stop, part, None).map(|(c, _)| c)
}

/// What a whole sieved matching does, counted without matching (for the roofline of
/// `examples/roofline.rs`): the candidate pairs (a table pattern and a query of bins that share
/// no sieve bit), the queries run against tables (one per table bin each fits), the table
/// words they OR and the table words built, over the table shapes a count would give each
/// table bin. The smallest bins, matched pair by pair, add pairs only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Candidate pairs: a table pattern and a query of bins that share no sieve bit.
    pub pairs: u128,
    /// Queries run against tables, one per table bin each fits.
    pub queries: u128,
    /// Table words the queries OR.
    pub words_ored: u128,
    /// Table words built.
    pub words_built: u128,
    /// The sieve's bins.
    pub bins: usize,
    /// The chunks of the tables.
    pub chunks: usize,
    /// The chunk width of the tables, in bits.
    pub width: usize,
}

/// The [`Work`] of [`count`] of `table` against `queries`.
pub(super) fn work(table: &[u64], queries: &[u64], bits: usize) -> Work {
    let split = Split::choose(&Stats::of(table), &Stats::of(queries), bits);
    let never = AtomicBool::new(false);
    let mut t = Tables::default();
    let sorted =
        sort_by_bin(table, &split, (&mut t.table, &mut t.table_starts), &never).and_then(|()| {
            sort_by_bin(
                queries,
                &split,
                (&mut t.queries, &mut t.query_starts),
                &never,
            )
        });
    sorted.expect("never stopped");
    let starts = (&t.table_starts[..], &t.queries[..], &t.query_starts[..]);
    let m = Matching::new(&split, starts, None, (&mut t.rows, &mut t.runs));
    let mut w = Work {
        bins: split.bins(),
        width: m.width,
        chunks: Shape::new(m.rest, m.width, 1).chunks,
        ..Work::default()
    };
    for (len, fits) in m.bins_and_fits() {
        w.pairs += len as u128 * u128::from(fits);
        if len >= PAIRWISE_BIN {
            let shape = Shape::new(m.rest, m.width, len);
            w.queries += u128::from(fits);
            w.words_ored += u128::from(fits) * (shape.chunks * shape.words) as u128;
            w.words_built += shape.size() as u128;
        }
    }
    w
}

/// Which slice of a matching to count, and whether the tables already hold both sides
/// sorted by bin (the same sides as the last call's, which counted another slice).
#[derive(Clone, Copy, Debug)]
pub(super) struct Part {
    pub(super) slice: Slice,
    pub(super) sorted: bool,
}

impl Part {
    /// `slice`, with both sides to be sorted.
    pub(super) fn fresh(slice: Slice) -> Part {
        Part {
            slice,
            sorted: false,
        }
    }
}

/// The slice of a matching whose table side holds `len` patterns that a probe of about
/// `bins` table bins counts (which one, from `seed`): one subproblem of the matching whole, as
/// a run would count it, so that it pays what a run pays for each bin it matches (the bin's
/// runs of queries, its tables, the queries that neighbouring bins share in the cache) in
/// proportion to its pairs. Many small slices spread over the matching paid those for a few
/// pairs of each bin and erred high by up to 1.8 times (`results/join-log.md`, section 21).
pub(super) fn probe_slice(len: usize, (bins, seed): (usize, usize)) -> Slice {
    let of = (bins_for(len) / bins.max(1)).max(1) as u64;
    let index = seed as u64 % of;
    Slice { index, of }
}

/// [`count`] of the pairs `part` names; for a probe, which marks its phases on `phases`, with
/// the scales of its tables and queries ([`Matching::scales`]).
pub(super) fn count_bins(
    (table, queries): (&[u64], &[u64]),
    bits: usize,
    split: Option<Split>,
    t: &mut Tables,
    stop: &AtomicBool,
    part: Part,
    mut phases: Option<&mut dyn Phases>,
) -> Option<(u64, (f64, f64))> {
    #[cfg(test)]
    super::split::SIEVED.set(super::split::SIEVED.get() + 1);
    mark(&mut phases, Phase::Matching);
    if !(part.sorted && t.split.is_some()) {
        t.split = None;
        let split =
            split.unwrap_or_else(|| Split::choose(&Stats::of(table), &Stats::of(queries), bits));
        sort_by_bin(table, &split, (&mut t.table, &mut t.table_starts), stop)?;
        sort_by_bin(queries, &split, (&mut t.queries, &mut t.query_starts), stop)?;
        t.split = Some(split);
    }
    let Tables {
        rows,
        table: sorted_table,
        queries: sorted_queries,
        table_starts,
        query_starts,
        split,
        runs,
        ..
    } = t;
    let split = split.as_ref().expect("sorted above or by the last call");
    let dealer = deal(part.slice, table_starts, query_starts, split.bins());
    let mut m = Matching::new(
        split,
        (table_starts, sorted_queries, query_starts),
        dealer.as_ref(),
        (rows, runs),
    );
    m.phases = phases.map(|p| p as &mut dyn Phases);
    let total = m.bins(0..split.bins(), sorted_table, stop)?;
    Some((total, m.scales(part.slice)))
}

/// The loop over table bins, shared by the sides held whole and the streamed ones: the
/// sorted queries (their rests held as `W`), where the pairs dealt so far end, and the
/// buffers of the tables.
pub(super) struct Matching<'a, W: Rest = u64> {
    k: usize,
    /// The rest bits of the patterns, and the chunk width of their tables.
    rest: usize,
    width: usize,
    table_starts: &'a [usize],
    queries: &'a [W],
    query_starts: &'a [usize],
    dealer: Option<&'a (Dealer, Vec<u64>)>,
    /// The queries fitting each bin mask ([`fitting_queries`]): the dealer's, or made once
    /// for the model of a whole matching.
    fitting: std::borrow::Cow<'a, [u64]>,
    /// The weight of the pairs before the next one ([`Dealer`]), and the slice of the last.
    before: u128,
    at: Cursor,
    rows: &'a mut Vec<u64>,
    runs: &'a mut Vec<(usize, usize)>,
    /// The modelled cost of what was matched: the table rows written and the queries run
    /// ([`query_cost`]).
    model: (f64, f64),
    /// A probe's phases, marked bin by bin: the tables built and the queries run.
    pub(super) phases: Option<&'a mut dyn Phases>,
}

/// The modelled cost of one query against a bin of `len` patterns: its row offsets, and a
/// load and OR per chunk and vector of 4 words.
fn query_cost(len: usize, chunks: usize) -> f64 {
    (chunks * (2 + words_for(len).div_ceil(4))) as f64
}

impl<'a, W: Rest> Matching<'a, W> {
    /// How many times the whole matching does the work of a probe's share of it, `slice`:
    /// building its table bins' tables and running their queries, each the modelled cost of
    /// the whole over that of the share (a probe builds the tables of a bin for a few of its
    /// queries, the whole matching for all of them, so the two scale apart). The rest (setting
    /// up the dealer and the tables' widths, walking past the bins it does not match) the
    /// whole matching pays once, as a probe does. Only a probe asks (it is no work of a count).
    pub(super) fn scales(&self, slice: Slice) -> (f64, f64) {
        if self.phases.is_none() {
            return (1.0, 1.0);
        }
        // The modelled cost of the whole matching: every bin's tables built once, every
        // fitting query run against them (less noisy than scaling by the share of pairs).
        let (whole_build, whole_query) = self.model_parts(self.width, true);
        let scale = |whole: f64, part: f64| {
            if part > 0.0 {
                whole / part
            } else {
                slice.of as f64
            }
        };
        (
            scale(whole_build, self.model.0),
            scale(whole_query, self.model.1),
        )
    }

    /// The loop over the bins of `split`, with the bin starts and the sorted queries,
    /// the dealer of the share (if not the whole) and the buffers of the tables and runs.
    pub(super) fn new(
        split: &Split,
        (table_starts, queries, query_starts): (&'a [usize], &'a [W], &'a [usize]),
        dealer: Option<&'a (Dealer, Vec<u64>)>,
        (rows, runs): (&'a mut Vec<u64>, &'a mut Vec<(usize, usize)>),
    ) -> Matching<'a, W> {
        let fitting = match dealer {
            Some((_, f)) => std::borrow::Cow::Borrowed(&f[..]),
            None => std::borrow::Cow::Owned(fitting_queries(query_starts, split.bins())),
        };
        let mut m = Matching {
            fitting,
            k: split.k,
            rest: split.rest_bits(),
            width: CHUNK,
            table_starts,
            queries,
            query_starts,
            dealer,
            before: 0,
            at: Cursor::default(),
            rows,
            runs,
            model: (0.0, 0.0),
            phases: None,
        };
        m.width = m.best_width();
        m
    }

    /// The modelled cost of the whole matching with tables in chunks of `width` bits, in its
    /// two parts: the table rows written for every bin, and every fitting query run. `as_run`
    /// prices the bins of fewer than [`PAIRWISE_BIN`] patterns as [`Self::bin`] runs and
    /// models them (no tables, a query a chunk), as a probe's share is priced; the choice of
    /// the width prices them as if tabled, as it was measured.
    fn model_parts(&self, width: usize, as_run: bool) -> (f64, f64) {
        self.bins_and_fits()
            .fold((0.0, 0.0), |(build, query), (len, fits)| {
                if len == 0 || fits == 0 {
                    return (build, query);
                }
                if as_run && len < PAIRWISE_BIN {
                    return (build, query + fits as f64 * query_cost(len, 1));
                }
                let shape = Shape::new(self.rest, width, len);
                (
                    build + shape.size() as f64,
                    query + fits as f64 * query_cost(len, shape.chunks),
                )
            })
    }

    /// Each table bin's patterns and the queries that fit it, bin by bin.
    fn bins_and_fits(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let all = self.table_starts.len() - 2;
        let sizes = self.table_starts.windows(2).map(|w| w[1] - w[0]);
        sizes
            .enumerate()
            .map(move |(a, len)| (len, self.fitting[all & !a]))
    }

    /// The chunk width of the tables whose modelled cost is least: wider chunks mean fewer
    /// rows ORed by each query but larger tables to build for each bin
    /// (`results/join-log.md`, section 19). Of the widths that give a number of chunks, the
    /// narrowest.
    fn best_width(&self) -> usize {
        let mut best = (f64::INFINITY, CHUNK);
        let mut tried = 0;
        for width in CHUNK..=MAX_WIDTH {
            let chunks = self.rest.div_ceil(width).max(1);
            let narrowest = self.rest.div_ceil(chunks).max(1);
            if narrowest == tried {
                continue;
            }
            tried = narrowest;
            let (build, query) = self.model_parts(narrowest, false);
            let cost = build + query;
            if cost < best.0 {
                best = (cost, narrowest);
            }
        }
        best.1
    }

    /// Whether the sorted queries are too large for the caches ([`Shape::ahead`]).
    fn far(&self) -> bool {
        self.queries.len() > FAR_QUERIES
    }

    /// The weight of the pairs of table bin `a`.
    fn weight(&self, a: usize) -> u128 {
        if self.dealer.is_none() {
            return 0;
        }
        bin_weight(self.table_starts, &self.fitting, a)
    }

    /// Whether this share may match any pair of the table bins `range`; if not, they
    /// are passed over.
    pub(super) fn skip(&mut self, range: std::ops::Range<usize>) -> bool {
        let Some((d, _)) = self.dealer else {
            return false;
        };
        let weight: u128 = range.map(|a| self.weight(a)).sum();
        if d.may_own(self.before, self.before + weight) {
            return false;
        }
        self.before += weight;
        true
    }

    /// Passes over the table bins `range` without matching them (a share that matches
    /// none of their pairs, [`Self::touched`]).
    pub(super) fn pass_over(&mut self, range: std::ops::Range<usize>) {
        self.before += range.map(|a| self.weight(a)).sum::<u128>();
    }

    /// The runs of table bins this share may match any pair of, in order, as
    /// [`Self::bins`] meets them from here: a probe gathers only their patterns.
    pub(super) fn touched(&self) -> Vec<std::ops::Range<usize>> {
        let bins = self.table_starts.len() - 1;
        let Some((d, _)) = self.dealer else {
            return std::iter::once(0..bins).collect();
        };
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        let mut before = self.before;
        for a in 0..bins {
            let weight = self.weight(a);
            if weight > 0 && d.may_own(before, before + weight) {
                match out.last_mut() {
                    Some(last) if last.end == a => last.end = a + 1,
                    _ => out.push(a..a + 1),
                }
            }
            before += weight;
        }
        out
    }

    /// The fitting pairs of this share among the table bins `range`, whose patterns
    /// `group` holds (bin `a` from `table_starts[a] - table_starts[range.start]`).
    pub(super) fn bins(
        &mut self,
        range: std::ops::Range<usize>,
        group: &[u64],
        stop: &AtomicBool,
    ) -> Option<u64> {
        let offset = self.table_starts[range.start];
        let mut total = 0;
        for a in range {
            let ts = &group[self.table_starts[a] - offset..self.table_starts[a + 1] - offset];
            if ts.is_empty() {
                continue;
            }
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some((d, _)) = self.dealer {
                let weight = self.weight(a);
                if !d.may_own(self.before, self.before + weight) {
                    self.before += weight;
                    continue;
                }
            }
            mark(&mut self.phases, Phase::Queries);
            total += self.bin(a, ts, stop)?;
            mark(&mut self.phases, Phase::Matching);
        }
        Some(total)
    }

    /// The fitting pairs of this share between table bin `a` (patterns `ts`) and the
    /// query bins that fit it.
    fn bin(&mut self, a: usize, ts: &[u64], stop: &AtomicBool) -> Option<u64> {
        fitting_runs(a, self.k, self.query_starts, self.runs);
        let far = self.far();
        let dealer = self.dealer;
        let (before, at) = (&mut self.before, &mut self.at);
        // Whether a run of `len` queries is matched here (and where the next run starts).
        let mut mine = |len: usize| match dealer {
            None => true,
            Some((d, _)) => {
                let w = ts.len() as u128 * len as u128;
                let owned = d.owns(*before, w, at);
                *before += w;
                owned
            }
        };
        self.runs.retain(|&(from, to)| mine(to - from));
        let owned: usize = self.runs.iter().map(|&(from, to)| to - from).sum();
        if ts.len() < PAIRWISE_BIN {
            self.model.1 += owned as f64 * query_cost(ts.len(), 1);
            return Some(query_few(ts, self.queries, self.runs, far));
        }
        if self.runs.is_empty() {
            return Some(0);
        }
        let ahead = if far { AHEAD } else { 0 };
        let shape = Shape {
            ahead,
            ..Shape::new(self.rest, self.width, ts.len())
        };
        if self.rows.len() < shape.size() {
            self.rows.resize(shape.size(), 0);
        }
        let tables = &mut self.rows[..shape.size()];
        mark(&mut self.phases, Phase::Tables);
        build_tables(ts, shape, tables);
        mark(&mut self.phases, Phase::Queries);
        self.model.0 += shape.size() as f64;
        self.model.1 += owned as f64 * query_cost(ts.len(), shape.chunks);
        query_runs_until(shape, (self.queries, &self.runs[..]), tables, stop)
    }
}

#[cfg(test)]
mod tests {
    use super::super::matching::count_pairwise;
    use super::super::split::sieve_bits;
    use super::*;

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn xorshift() -> impl FnMut() -> u64 {
        let mut rng = crate::random::XorShift::new(0x2545_f491_4f6c_dd1d);
        move || rng.next()
    }

    /// Some sieve bit sets of a `bits`-bit pattern: none, the lowest, the central run of
    /// each field (the old sieve's choice), scattered ones, and the most bits allowed.
    fn splits(bits: usize) -> Vec<Vec<usize>> {
        let width = bits / 2;
        let centre = width.saturating_sub(1) / 2;
        let run = |lo: usize, r: usize| (lo..(lo + r).min(bits)).collect::<Vec<_>>();
        let mut central = run(centre.saturating_sub(2), 5.min(width));
        central.extend(run(width + centre.saturating_sub(2), 5.min(width)));
        central.retain(|&b| b < bits);
        vec![
            vec![],
            vec![0],
            central,
            (0..bits).step_by(3).collect(),
            (0..bits.min(MAX_SIEVE)).rev().collect(),
        ]
    }

    #[test]
    fn the_work_of_a_matching_is_the_pairs_of_bins_that_fit() {
        let mut next = xorshift();
        let (bits, mask) = (42, (1u64 << 42) - 1);
        let mut side =
            |len: usize| -> Vec<u64> { (0..len).map(|_| next() & next() & mask).collect() };
        let (table, queries) = (side(30_000), side(700));
        let w = work(&table, &queries, bits);
        let split = Split::choose(&Stats::of(&table), &Stats::of(&queries), bits);
        let by_bin = |s: &[u64]| {
            let mut c = vec![0u128; split.bins()];
            s.iter().for_each(|&p| c[split.bin(p)] += 1);
            c
        };
        let (tb, qb) = (by_bin(&table), by_bin(&queries));
        let mut pairs = 0;
        for (a, t) in tb.iter().enumerate() {
            for (b, q) in qb.iter().enumerate() {
                pairs += if a & b == 0 { t * q } else { 0 };
            }
        }
        assert!(w.bins == split.bins() && w.bins > 1 && w.chunks > 0);
        assert_eq!(w.pairs, pairs);
        assert!(w.pairs >= u128::from(count_pairwise(&table, &queries)));
        assert!(w.words_ored > 0 && w.words_built > 0);
    }

    #[test]
    fn bins_and_rests_split_every_clash() {
        let mut next = xorshift();
        for bits in [1, 2, 7, 12, 30, 34, 38, 42, 62] {
            let mask = (1u64 << bits) - 1;
            for sieve in splits(bits) {
                let s = Split::new(&sieve, mask);
                assert_eq!(s.rest_bits() + sieve.len(), bits);
                for _ in 0..2000 {
                    let (p, q) = (next() & next() & mask, next() & next() & mask);
                    assert!(s.bin(p) < s.bins());
                    assert!(s.rest(p) < 1 << s.rest_bits());
                    let split_fit = s.bin(p) & s.bin(q) == 0 && s.rest(p) & s.rest(q) == 0;
                    assert_eq!(p & q == 0, split_fit, "{bits} bits, {sieve:?}: {p:x} {q:x}");
                }
            }
        }
    }

    #[test]
    fn bits_one_side_never_sets_are_dropped() {
        let mut next = xorshift();
        // The table never sets bits 8 to 15, the queries never set bits 30 to 39.
        let table: Vec<u64> = (0..20_000)
            .map(|_| next() & next() & 0xff_ffff_00ff)
            .collect();
        let queries: Vec<u64> = (0..3_000).map(|_| next() & next() & 0x3fff_ffff).collect();
        let s = Split::choose(&Stats::of(&table), &Stats::of(&queries), 40);
        assert_eq!(s.k + s.rest_bits(), 40 - 8 - 10);
        assert_eq!(s.k, sieve_bits(table.len()));
        let mut t = Tables::default();
        let want = count_pairwise(&table, &queries);
        let whole = Part::fresh(Slice::WHOLE);
        assert_eq!(
            count(&table, &queries, 40, None, &mut t, &NEVER, whole),
            Some(want)
        );
    }

    #[test]
    fn fitting_runs_cover_the_fitting_bins_once() {
        let mut next = xorshift();
        for k in [0, 1, 3, 6, 9] {
            // Bin sizes, some of them empty.
            let sizes: Vec<usize> = (0..1usize << k).map(|_| (next() % 4) as usize).collect();
            let mut starts = vec![0];
            for &n in &sizes {
                starts.push(starts.last().unwrap() + n);
            }
            let mut runs = Vec::new();
            for a in 0..1usize << k {
                fitting_runs(a, k, &starts, &mut runs);
                let mut covered = vec![false; *starts.last().unwrap()];
                for w in runs.windows(2) {
                    assert!(
                        w[0].1 < w[1].0,
                        "runs next to each other are merged: {runs:?}"
                    );
                }
                for &(from, to) in &runs {
                    covered[from..to].iter_mut().for_each(|c| *c = true);
                }
                for (c, &n) in sizes.iter().enumerate() {
                    for &got in &covered[starts[c]..starts[c] + n] {
                        assert_eq!(got, a & c == 0, "k = {k}, a = {a}, bin {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_split_counts_as_pairwise_tests() {
        let mut next = xorshift();
        let mut t = Tables::default();
        for (bits, t_len, q_len) in [
            (12, 300, 50),
            (34, 2000, 300),
            (38, 5000, 77),
            (62, 1500, 60),
        ] {
            let mask = (1u64 << bits) - 1;
            for density in [2, 3] {
                let mut draw = || (0..density).fold(mask, |x, _| x & next());
                let table: Vec<u64> = (0..t_len).map(|_| draw()).collect();
                let queries: Vec<u64> = (0..q_len).map(|_| draw()).collect();
                let want = count_pairwise(&table, &queries);
                let whole = Part::fresh(Slice::WHOLE);
                for sieve in splits(bits) {
                    let split = || Some(Split::new(&sieve, mask));
                    let got = count(&table, &queries, bits, split(), &mut t, &NEVER, whole);
                    assert_eq!(got, Some(want), "{bits} bits, {sieve:?}");
                    // A probe of the whole matching stands for itself, its smallest bins
                    // (matched without tables) priced alike in the share and in the whole:
                    // by every split, from bins of a pattern or two to bins of hundreds.
                    let sides = (&table[..], &queries[..]);
                    let probe =
                        count_bins(sides, bits, split(), &mut t, &NEVER, whole, Some(&mut ()));
                    let (c, (build, run)) = probe.unwrap();
                    assert_eq!(c, want);
                    assert!((run - 1.0).abs() < 1e-9, "{bits} bits, {sieve:?}: {run}");
                    assert!(
                        (build - 1.0).abs() < 1e-9,
                        "{bits} bits, {sieve:?}: {build}"
                    );
                }
                let got = count(&table, &queries, bits, None, &mut t, &NEVER, whole);
                assert_eq!(got, Some(want));
                // Slices deal the pairs of bins out: each is counted by one slice.
                for of in [2, 5, 64] {
                    let slices: Vec<u64> = (0..of)
                        .map(|index| {
                            let slice = Slice { index, of };
                            let part = Part::fresh(slice);
                            count(&table, &queries, bits, None, &mut t, &NEVER, part).unwrap()
                        })
                        .collect();
                    assert_eq!(slices.iter().sum::<u64>(), want, "{bits} bits, {of} slices");
                    if of == 2 && t_len >= 2000 {
                        assert!(slices.iter().all(|&c| c > 0), "{slices:?}");
                    }
                    // A slice counted from the sides sorted by the slice before gives the same.
                    let again = Part {
                        slice: Slice { index: of - 1, of },
                        sorted: true,
                    };
                    let got = count(&table, &queries, bits, None, &mut t, &NEVER, again);
                    assert_eq!(got, Some(slices[of as usize - 1]));
                }
                // A probe matches the pairs of the slice it stands for, and scales its tables
                // and queries up to the whole matching.
                let slice = Part::fresh(Slice { index: 1, of: 4 });
                let sides = (&table[..], &queries[..]);
                let probe = count_bins(sides, bits, None, &mut t, &NEVER, slice, Some(&mut ()));
                let (c, (build, run)) = probe.unwrap();
                let want = count(&table, &queries, bits, None, &mut t, &NEVER, slice);
                assert_eq!(Some(c), want);
                assert!(build > 0.0 && run > 0.0, "{build} {run}");
                let stop = AtomicBool::new(true);
                let got = count(&table, &queries, bits, None, &mut t, &stop, whole);
                assert_eq!(got, None);
            }
        }
    }
}
