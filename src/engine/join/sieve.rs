//! The sieve in front of the matching tables: both sides of a unit are sorted into classes by
//! the few central diagonals of the pattern window (a run of bits of each pattern field), and
//! only classes that leave each other's diagonals free are matched, each table class with its
//! own small tables. A half-board on a central diagonal cannot pair with one that is on it too,
//! so about a quarter of the candidate pairs per sieved diagonal are never tested, the sieved
//! bits leave the patterns (fewer table chunks), and one class's tables stay in the cache while
//! every query class that fits it streams past (`results/join-log.md`, section 15).

use std::sync::atomic::{AtomicBool, Ordering};

use super::matching::{CHUNK, Tables, build_tables, query_until, words_for};
use crate::engine::Slice;

/// The most sieve bits per pattern field: at most 4^`MAX_RUN` classes.
const MAX_RUN: usize = 5;

/// The table side is sieved by the longest run (up to [`MAX_RUN`]) that leaves at least this
/// many table patterns per class on average; smaller classes spend more on their tables and
/// loop set-up than the sieve saves (`results/join-log.md`, section 15).
const MIN_CLASS: usize = 384;
/// Sides smaller than this are not sieved: sorting them and building one set of tables per
/// class costs more than the sieve saves (n = 16 and 18, `results/join-log.md`, section 15).
const MIN_SIEVE: usize = 8192;

/// Below this many table patterns a class is matched pair by pair, without tables.
const PAIRWISE_CLASS: usize = 8;

/// Where the sieve bits are: a run of `run` bits from bit `lo` of each of the two pattern fields
/// (`width` bits each; bits past the two fields, if any, are kept in the rest).
#[derive(Clone, Copy, Debug)]
pub(super) struct Split {
    width: usize,
    lo: usize,
    run: usize,
    bits: usize,
}

impl Split {
    /// The central run of `run` bits of each field of a `bits`-bit pattern (shorter if the
    /// fields are).
    pub(super) fn new(bits: usize, run: usize) -> Split {
        let width = bits / 2;
        let run = run.min(width);
        // The window's central diagonal (the board's long diagonal) is bit `(width - 1) / 2`.
        let centre = width.saturating_sub(1) / 2;
        let lo = centre
            .saturating_sub(run.saturating_sub(1) / 2)
            .min(width - run);
        Split {
            width,
            lo,
            run,
            bits,
        }
    }

    /// The run for a table side of `len` patterns: the longest leaving [`MIN_CLASS`] patterns
    /// per class on average.
    fn for_table(bits: usize, len: usize) -> Split {
        let run = (0..=MAX_RUN)
            .rev()
            .find(|&r| len >> (2 * r) >= MIN_CLASS)
            .unwrap_or(0);
        Split::new(bits, run)
    }

    /// Whether a table side of `len` patterns is sieved at all.
    fn sieved(len: usize) -> bool {
        len >= MIN_SIEVE
    }

    /// Number of classes.
    pub(super) fn classes(&self) -> usize {
        1 << (2 * self.run)
    }

    /// The class of a pattern: its sieve bits, the first field's in the low half.
    #[inline]
    pub(super) fn class(&self, p: u64) -> usize {
        let m = (1u64 << self.run) - 1;
        (((p >> self.lo) & m) | ((p >> (self.width + self.lo)) & m) << self.run) as usize
    }

    /// The pattern without its sieve bits, the bits above them moved down.
    #[inline]
    pub(super) fn rest(&self, p: u64) -> u64 {
        let (w, lo, run) = (self.width, self.lo, self.run);
        let squeeze = |x: u64| (x & ((1 << lo) - 1)) | (x >> (lo + run)) << lo;
        let field = (1u64 << w) - 1;
        let keep = w - run;
        squeeze(p & field) | squeeze((p >> w) & field) << keep | (p >> (2 * w)) << (2 * keep)
    }

    /// Bits in a rest.
    pub(super) fn rest_bits(&self) -> usize {
        self.bits - 2 * self.run
    }
}

/// Whether sieving pays for a table side of `len` patterns (the larger side of a unit).
pub(super) fn pays(len: usize) -> bool {
    Split::sieved(len)
}

/// The number of classes a table side of `len` patterns is sieved into.
pub(super) fn classes_for(bits: usize, len: usize) -> usize {
    Split::for_table(bits, len).classes()
}

/// Sorts the rests of `patterns` by class into `out`; class `c` is `out[starts[c]..starts[c + 1]]`.
/// `None` (and `out` unfinished) if `stop` rose: a side of n = 28 holds hundreds of millions of
/// patterns, seconds of sorting, so the flag is looked at every [`SORT_BLOCK`] of them.
fn sort_by_class(
    patterns: &[u64],
    split: &Split,
    (out, starts): (&mut Vec<u64>, &mut Vec<usize>),
    stop: &AtomicBool,
) -> Option<()> {
    let classes = split.classes();
    starts.clear();
    starts.resize(classes + 1, 0);
    for block in patterns.chunks(SORT_BLOCK) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        for &p in block {
            starts[split.class(p) + 1] += 1;
        }
    }
    for c in 1..=classes {
        starts[c] += starts[c - 1];
    }
    // Gigabytes at n = 28: the pages are touched block by block, the flag looked at between.
    out.clear();
    out.reserve(patterns.len());
    while out.len() < patterns.len() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        out.resize((out.len() + SORT_BLOCK).min(patterns.len()), 0);
    }
    let mut next = starts[..classes].to_vec();
    for block in patterns.chunks(SORT_BLOCK) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        for &p in block {
            let c = split.class(p);
            out[next[c]] = split.rest(p);
            next[c] += 1;
        }
    }
    Some(())
}

/// Patterns sorted between two looks at the stop flag.
const SORT_BLOCK: usize = 1 << 22;

/// The number of pairs of a table pattern and a query that share no bit (`bits`-bit
/// patterns), sieved by a run of `run` bits per field (chosen by the table's size if `None`);
/// with a slice of more than one, only the pairs of classes that slice is dealt
/// ([`Dealer`]). `None` if `stop` rose (checked between table classes, a small share of a
/// unit each).
pub(super) fn count(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    run: Option<usize>,
    t: &mut Tables,
    stop: &AtomicBool,
    part: Part,
) -> Option<u64> {
    count_classes(table, queries, bits, run, t, stop, Share::Slice(part)).map(|(c, _)| c)
}

/// Which slice of a matching to count, and whether the tables already hold both sides
/// sorted by class (the same sides as the last call's, which counted another slice).
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

/// Seconds [`count`] would take, projected from matching one table class in `stride` (from
/// `offset`), the sorting timed whole; `None` if `stop` rose.
pub(super) fn time(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    t: &mut Tables,
    stop: &AtomicBool,
    (stride, offset): (usize, usize),
) -> Option<f64> {
    let share = Share::Sampled { stride, offset };
    count_classes(table, queries, bits, None, t, stop, share).map(|(_, s)| s)
}

/// Which part of the class pairs [`count_classes`] matches.
#[derive(Clone, Copy)]
enum Share {
    /// The pairs a slice is dealt (all of them for a whole unit).
    Slice(Part),
    /// Every pair of one table class in `stride`, from `offset`, for timing.
    Sampled { stride: usize, offset: usize },
}

/// Deals the pairs of a table class and a query class that fits it out to the slices of a
/// unit: each pair weighs the candidate pairs it holds, the pairs are laid end to end in the
/// order the matching takes them, and a pair goes to the slice its midpoint falls in. So the
/// slices are about equal in work, each pair is matched by exactly one of them, and the
/// dealing depends on the patterns alone (never on the machine or the thread).
struct Dealer {
    slice: Slice,
    /// Twice the total weight.
    total2: u128,
}

impl Dealer {
    /// The dealer of `slice` over a total weight of `total`.
    fn new(slice: Slice, total: u128) -> Dealer {
        Dealer {
            slice,
            total2: 2 * total,
        }
    }

    /// The slice a midpoint (doubled) falls in.
    fn slice_of(&self, mid2: u128) -> u64 {
        if self.total2 == 0 {
            return 0;
        }
        let of = u128::from(self.slice.of);
        (mid2 * of / self.total2).min(of - 1) as u64
    }

    /// Whether the pair of weight `w` that starts at `before` is this slice's.
    fn owns(&self, before: u128, w: u128) -> bool {
        self.slice_of(2 * before + w) == self.slice.index
    }

    /// Whether any pair between `from` and `to` may be this slice's.
    fn may_own(&self, from: u128, to: u128) -> bool {
        (self.slice_of(2 * from)..=self.slice_of(2 * to)).contains(&self.slice.index)
    }
}

/// For each class mask `m`, the number of queries in the classes that are subsets of `m` (a
/// subset-sum transform of the class sizes): the queries that fit a table class `a` are those
/// of the subsets of its complement.
fn fitting_queries(starts: &[usize], classes: usize) -> Vec<u128> {
    let mut sums: Vec<u128> = (0..classes)
        .map(|c| (starts[c + 1] - starts[c]) as u128)
        .collect();
    let mut bit = 1;
    while bit < classes {
        for m in 0..classes {
            if m & bit != 0 {
                sums[m] += sums[m ^ bit];
            }
        }
        bit <<= 1;
    }
    sums
}

/// [`count`] of the pairs `share` names; with a sample, timed (seconds projected to every
/// class).
fn count_classes(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    run: Option<usize>,
    t: &mut Tables,
    stop: &AtomicBool,
    share: Share,
) -> Option<(u64, f64)> {
    let begun = std::time::Instant::now();
    let split = run.map_or_else(
        || Split::for_table(bits, table.len()),
        |r| Split::new(bits, r),
    );
    let Tables {
        rows,
        table: sorted_table,
        queries: sorted_queries,
        table_starts,
        query_starts,
    } = t;
    if !matches!(share, Share::Slice(Part { sorted: true, .. })) {
        sort_by_class(table, &split, (sorted_table, table_starts), stop)?;
        sort_by_class(queries, &split, (sorted_queries, query_starts), stop)?;
    }
    let chunks = split.rest_bits().div_ceil(CHUNK).max(1);
    let all = split.classes() - 1;
    let class_len = |starts: &[usize], c: usize| (starts[c + 1] - starts[c]) as u128;
    // Slices of a unit: the weight of every pair, laid end to end ([`Dealer`]).
    let dealer = match share {
        Share::Slice(Part { slice: s, .. }) if s.of > 1 => {
            let fitting = fitting_queries(query_starts, split.classes());
            let total = (0..split.classes())
                .map(|a| class_len(table_starts, a) * fitting[all & !a])
                .sum();
            Some((Dealer::new(s, total), fitting))
        }
        _ => None,
    };
    let mut before = 0u128;
    let mut total = 0;
    let sorted = begun.elapsed().as_secs_f64();
    let (stride, offset) = match share {
        Share::Sampled { stride, offset } => (stride, offset),
        Share::Slice(_) => (1, 0),
    };
    for a in 0..split.classes() {
        let ts = &sorted_table[table_starts[a]..table_starts[a + 1]];
        if ts.is_empty() || a % stride != offset % stride {
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        // The query classes that fit class `a`: the subsets of its complement.
        let fits = all & !a;
        let query_class = |v: usize| &sorted_queries[query_starts[v]..query_starts[v + 1]];
        if let Some((d, fitting)) = &dealer {
            let weight = ts.len() as u128 * fitting[fits];
            if !d.may_own(before, before + weight) {
                before += weight;
                continue;
            }
        }
        // Whether the pair of `a` with query class `v` is matched here (and where the next
        // pair starts).
        let mut mine = |v: usize| match &dealer {
            None => true,
            Some((d, _)) => {
                let w = ts.len() as u128 * class_len(query_starts, v);
                let owned = d.owns(before, w);
                before += w;
                owned
            }
        };
        if ts.len() < PAIRWISE_CLASS {
            let mut v = fits;
            loop {
                if mine(v) {
                    for &q in query_class(v) {
                        total += ts.iter().map(|&p| u64::from(p & q == 0)).sum::<u64>();
                    }
                }
                if v == 0 {
                    break;
                }
                v = (v - 1) & fits;
            }
            continue;
        }
        let words = words_for(ts.len());
        let size = chunks * (words << CHUNK);
        if rows.len() < size {
            rows.resize(size, 0);
        }
        let tables = &mut rows[..size];
        let mut built = false;
        let mut v = fits;
        loop {
            let qs = query_class(v);
            if mine(v) && !qs.is_empty() {
                if !built {
                    build_tables(ts, chunks, words, tables);
                    built = true;
                }
                total += query_until(chunks, qs, tables, words, stop)?;
            }
            if v == 0 {
                break;
            }
            v = (v - 1) & fits;
        }
    }
    let matched = begun.elapsed().as_secs_f64() - sorted;
    Some((total, sorted + stride as f64 * matched))
}

#[cfg(test)]
mod tests {
    use super::*;

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn xorshift() -> impl FnMut() -> u64 {
        let mut rng = crate::internals::XorShift::new(0x2545_f491_4f6c_dd1d);
        move || rng.next()
    }

    #[test]
    fn classes_and_rests_split_every_clash() {
        let mut next = xorshift();
        for bits in [1, 2, 7, 12, 30, 34, 38, 42, 62] {
            for run in 0..=MAX_RUN + 1 {
                let s = Split::new(bits, run);
                let mask = (1u64 << bits) - 1;
                for _ in 0..2000 {
                    let (p, q) = (next() & next() & mask, next() & next() & mask);
                    assert!(s.class(p) < s.classes());
                    assert!(s.rest(p) < 1 << s.rest_bits());
                    let split_fit = s.class(p) & s.class(q) == 0 && s.rest(p) & s.rest(q) == 0;
                    assert_eq!(p & q == 0, split_fit, "{bits} bits, run {run}: {p:x} {q:x}");
                }
            }
        }
    }

    #[test]
    fn every_run_counts_as_pairwise_tests() {
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
                let want: u64 = queries
                    .iter()
                    .map(|a| table.iter().filter(|&&b| a & b == 0).count() as u64)
                    .sum();
                let whole = Part::fresh(Slice::WHOLE);
                for run in 0..=MAX_RUN {
                    let got = count(&table, &queries, bits, Some(run), &mut t, &NEVER, whole);
                    assert_eq!(got, Some(want), "{bits} bits, run {run}");
                }
                let got = count(&table, &queries, bits, None, &mut t, &NEVER, whole);
                assert_eq!(got, Some(want));
                // Slices deal the pairs of classes out: each is counted by one slice.
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
                }
                let stop = AtomicBool::new(true);
                let got = count(&table, &queries, bits, None, &mut t, &stop, whole);
                assert_eq!(got, None);
            }
        }
    }
}
