//! Matching: counting the pairs of half-boards whose patterns share no bit. One side becomes
//! bit-transposed tables ([`super::rows`], [`super::tables`]), the other side queries them
//! 512 candidates at a time; small sides are tested pair by pair, large ones sieved first
//! ([`super::sieve`]).

use std::sync::atomic::AtomicBool;

use super::probe::{Phase, Phases};
use super::rows::{CHUNK, Shape};
use super::sieve::{self, Part};
use super::stream::Source;
use super::tables::{Tables, build_tables, query_until};
use crate::Slice;

/// The number of pairs (a, b), a from `one` and b from `other`, whose patterns share no bit
/// (`bits` long). `scratch` holds the buffers reused from call to call.
///
/// Small sides: the smaller side becomes the tables, the larger one the queries. Large sides
/// are sieved first (the `sieve` module), and then the larger side becomes the tables
/// (`results/join-log.md`, section 15).
pub fn count_fitting(one: &[u64], other: &[u64], bits: usize, scratch: &mut Tables) -> u64 {
    static NEVER: AtomicBool = AtomicBool::new(false);
    count_part_until(one, other, bits, scratch, Part::fresh(Slice::WHOLE), &NEVER)
        .expect("never stopped")
}

/// The fitting pairs of one part of the matching: where the sides are large enough to be
/// sieved, the pairs of bins the sieve deals to the part's slice ([`Slice`]); otherwise all of
/// them for slice 0 and none for the others, so the slices of `0..of` add up to
/// [`count_fitting`]. `part` may say that `scratch` already holds the sides sorted by the sieve
/// (the same sides as the last call's). `None` soon after `stop` rises: between steps of
/// queries or bins of the sieve, each a small share of the work.
pub(super) fn count_part_until(
    one: &[u64],
    other: &[u64],
    bits: usize,
    scratch: &mut Tables,
    part: Part,
    stop: &AtomicBool,
) -> Option<u64> {
    let (small, large) = by_size(one, other);
    if sieved(small.len(), large.len()) {
        sieve::count(large, small, bits, None, scratch, stop, part)
    } else if part.slice.index > 0 {
        Some(0)
    } else {
        count_unsieved(small, large, bits, scratch, stop)
    }
}

/// The two sides, the smaller first (`one` first when they are as large).
fn by_size<'a>(one: &'a [u64], other: &'a [u64]) -> (&'a [u64], &'a [u64]) {
    if one.len() <= other.len() {
        (one, other)
    } else {
        (other, one)
    }
}

/// The work of [`count_fitting`] of `one` and `other` where it is sieved ([`super::Work`]);
/// `None` where the sides are matched without a sieve.
pub fn matching_work(one: &[u64], other: &[u64], bits: usize) -> Option<sieve::Work> {
    let (small, large) = by_size(one, other);
    sieved(small.len(), large.len()).then(|| sieve::work(large, small, bits))
}

/// Whether the matching of sides of `small` and `large` patterns is sieved.
pub(super) fn sieved(small: usize, large: usize) -> bool {
    #[cfg(test)]
    if super::split::FORCED_SIEVE.get().is_some() {
        return small > 0;
    }
    small * large > PAIRWISE_LIMIT && sieve::pays(large)
}

/// A probe's share of [`count_fitting`]: where the sides are large enough to be sieved, one
/// slice of the matching of about `bins` of the table bins, chosen by `seed`
/// ([`sieve::probe_slice`]), with the scales of its tables and queries; the whole matching
/// otherwise, as its own [`Phase::Matching`]. `None` if `stop` rose.
pub(super) fn probe_fitting(
    (one, other): (&[u64], &[u64]),
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
    bins: (usize, usize),
    phases: &mut dyn Phases,
) -> Option<(u64, (f64, f64))> {
    let (small, large) = by_size(one, other);
    if small.is_empty() || !sieve::pays(large.len()) {
        phases.begin(Phase::Matching);
        let whole = Part::fresh(Slice::WHOLE);
        let count = count_part_until(one, other, bits, scratch, whole, stop)?;
        return Some((count, (1.0, 1.0)));
    }
    let part = Part::fresh(sieve::probe_slice(large.len(), bins));
    let (sides, phases) = ((large, small), Some(phases));
    sieve::count_bins(sides, bits, None, scratch, stop, part, phases)
}

/// The matching without a sieve: `table` as one set of tables, every query against all of it.
fn count_plain(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    let (shape, tables) = plain_tables(table, bits, scratch);
    query_until(shape, queries, tables, stop)
}

/// `table` built into one set of tables (no sieve) in `scratch`: their shape and the tables.
fn plain_tables<'s>(table: &[u64], bits: usize, scratch: &'s mut Tables) -> (Shape, &'s [u64]) {
    let shape = Shape::new(bits, CHUNK, table.len());
    if scratch.rows.len() < shape.size() {
        scratch.rows.resize(shape.size(), 0);
    }
    let tables = &mut scratch.rows[..shape.size()];
    build_tables(table, shape, tables);
    (shape, tables)
}

/// The fitting pairs of `table` and `queries` without a sieve (a matching too small for one,
/// or the ties of the quarter turns, [`super::quarter`]): pair by pair when there are few
/// pairs, else `table`, the smaller side, as one set of tables.
pub(super) fn count_unsieved(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    if table.is_empty() || queries.is_empty() {
        return Some(0);
    }
    if table.len() * queries.len() <= PAIRWISE_LIMIT {
        return Some(count_pairwise(table, queries));
    }
    count_plain(table, queries, bits, scratch, stop)
}

/// [`count_unsieved`] with queries read buffer by buffer from `queries` (a side too large to
/// hold, [`super::stream`]).
pub(super) fn count_unsieved_streamed(
    table: &[u64],
    queries: &mut dyn Source,
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    if table.is_empty() {
        return Some(0);
    }
    let (shape, tables) = plain_tables(table, bits, scratch);
    let (mut total, mut stopped) = (0, false);
    queries.each(
        &mut |buffer| match query_until(shape, buffer, tables, stop) {
            Some(c) => total += c,
            None => stopped = true,
        },
    )?;
    (!stopped).then_some(total)
}

/// Queries [`count_few`] sorts by bin at a time: 16 MiB of them, and their sorted copy (a
/// few thousand in the tests, so that they cross blocks).
const FEW_BLOCK: usize = if cfg!(test) { 1 << 12 } else { 1 << 21 };

/// Below this many table patterns, [`count_few`] matches without a sieve.
const FEW_SIEVE: usize = 1024;

/// The fitting pairs of `table`, a side of a few half-boards (the ties of the quarter turns,
/// [`super::quarter`]), and `queries`, however many: sieved with `table` as the sieve's
/// table side whatever the sizes ([`sieve::count`]), a block of [`FEW_BLOCK`] queries at a
/// time; without a sieve ([`count_unsieved`]) where either side is small. Unsieved, each
/// query ORs one row per chunk of 6 bits over every word of the table: at n = 28, where the
/// ties of a unit run to tens of thousands of half-boards against hundreds of millions of
/// queries, that was a quarter of a shard's time (`results/join-log.md`, section 27).
pub(super) fn count_few(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    if table.len() < FEW_SIEVE || queries.len() < FEW_SIEVE {
        return count_unsieved(table, queries, bits, scratch, stop);
    }
    let whole = Part::fresh(Slice::WHOLE);
    queries
        .chunks(FEW_BLOCK)
        .map(|block| sieve::count(table, block, bits, None, scratch, stop, whole))
        .sum()
}

/// [`count_few`] with queries read buffer by buffer from `queries` (a side too large to
/// hold, [`super::stream`]), gathered into blocks of [`FEW_BLOCK`].
pub(super) fn count_few_streamed(
    table: &[u64],
    queries: &mut dyn Source,
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    if table.len() < FEW_SIEVE {
        return count_unsieved_streamed(table, queries, bits, scratch, stop);
    }
    let (mut block, mut total) = (Vec::new(), Some(0));
    queries.each(&mut |buffer| {
        block.extend_from_slice(buffer);
        if block.len() >= FEW_BLOCK {
            let count = count_few(table, &block, bits, scratch, stop);
            total = total.zip(count).map(|(a, b)| a + b);
            block.clear();
        }
    })?;
    Some(total? + count_few(table, &block, bits, scratch, stop)?)
}

/// Below this many candidate pairs, testing every pair beats building tables (the tables of
/// one group of 512 candidates take some 3000 word writes; `results/join-log.md`, section 4).
const PAIRWISE_LIMIT: usize = 16 * 1024;

/// Pairs of `one` and `other` sharing no bit, one AND each. The larger side is the inner
/// loop, which the compiler vectorises (with the smaller inside, n = 17 takes some 3 per cent
/// more instructions).
pub(super) fn count_pairwise(one: &[u64], other: &[u64]) -> u64 {
    let (inner, outer) = if one.len() >= other.len() {
        (one, other)
    } else {
        (other, one)
    };
    outer
        .iter()
        .map(|&q| inner.iter().map(|&t| u64::from(t & q == 0)).sum::<u64>())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::super::rows::*;
    use super::super::tables::*;
    #[cfg(target_arch = "x86_64")]
    use super::super::x86;
    use super::*;

    static NEVER: AtomicBool = AtomicBool::new(false);

    /// The crate's deterministic test generator, as a closure.
    fn xorshift() -> impl FnMut() -> u64 {
        let mut rng = crate::random::XorShift::new(0x9e37_79b9_7f4a_7c15);
        move || rng.next()
    }

    /// Checks a build of the query loop, `query(chunks, queries, tables, words)`, against
    /// pairwise tests, on patterns of several densities and lengths around the groups of 512
    /// candidates (rows of no whole vector, one and more, each with no tail, a short one and
    /// a long one); `count_fitting` itself too.
    fn check_query(name: &str, query: impl Fn(Shape, &[u64], &[u64]) -> u64) {
        let mut next = xorshift();
        let mut scratch = Tables::default();
        let cases = [
            (6, 1, 1),
            (30, 700, 90),
            (34, 512, 33),
            (34, 520, 17),
            (40, 400, 25),
            (36, 1024, 12),
            (62, 1025, 40),
            (44, 1300, 9),
            (40, 1800, 11),
            (38, 4096, 7),
            (38, 4100, 20),
        ];
        for (bits, t_len, q_len) in cases {
            let mask = (1u64 << bits) - 1;
            let t: Vec<u64> = (0..t_len)
                .map(|_| next() & next() & next() & mask)
                .collect();
            let q: Vec<u64> = (0..q_len).map(|_| next() & next() & mask).collect();
            let want: u64 = q
                .iter()
                .map(|a| t.iter().filter(|&&b| a & b == 0).count() as u64)
                .sum();
            assert_eq!(count_fitting(&t, &q, bits, &mut scratch), want);
            // Whole words, and rows longer than the table needs, with queries fetched ahead
            // and not; chunks of every width the sieve may choose.
            for width in CHUNK..=MAX_WIDTH {
                if bits.div_ceil(width) > MAX_CHUNKS {
                    continue;
                }
                let whole = Shape::new(bits, width, t_len);
                let fetched = [(0, whole.words), (AHEAD, whole.words + 3), (AHEAD, 1)];
                for (ahead, words) in fetched.into_iter().chain([(0, whole.words + 3)]) {
                    let shape = Shape {
                        words: words.max(whole.words),
                        ahead,
                        ..whole
                    };
                    let mut tables = vec![0; shape.size()];
                    build_tables(&t, shape, &mut tables);
                    assert_eq!(
                        query(shape, &q, &tables),
                        want,
                        "{name}, {bits} bits, {shape:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn fitting_pairs_match_pairwise_tests() {
        check_query("portable", query_any);
    }

    #[test]
    fn queries_matched_run_by_run_count_each_run_once() {
        let mut next = xorshift();
        let (bits, mask) = (30, (1u64 << 30) - 1);
        let t: Vec<u64> = (0..300).map(|_| next() & next() & mask).collect();
        let q: Vec<u64> = (0..150_000).map(|_| next() & next() & mask).collect();
        let shape = Shape::new(bits, 8, t.len());
        let mut tables = vec![0; shape.size()];
        build_tables(&t, shape, &mut tables);
        // Short runs batched together, one run longer than a step, runs that are empty
        // and runs left out between them.
        let runs = [
            (0, 0),
            (3, 10),
            (10, 400),
            (500, 501),
            (600, 80_000),
            (80_000, 80_007),
        ];
        let runs = [&runs[..], &[(90_000, 90_100), (100_000, 149_999)]].concat();
        let want: u64 = runs
            .iter()
            .map(|&(from, to)| query_any(shape, &q[from..to], &tables))
            .sum();
        let never = AtomicBool::new(false);
        let got = query_runs_until(shape, (&q, &runs), &tables, &never);
        assert_eq!(got, Some(want));
        assert_eq!(
            query_runs_until(shape, (&q, &runs), &tables, &AtomicBool::new(true)),
            None
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_builds_match_pairwise_tests() {
        type Query = unsafe fn(Shape, &[u64], &[u64]) -> u64;
        /// The AVX-512 build on one run of all the queries.
        unsafe fn avx512(shape: Shape, q: &[u64], t: &[u64]) -> u64 {
            // SAFETY: the caller's (the processor has every feature of the build).
            unsafe { x86::query_avx512(shape, (q, &[(0, q.len())]), t) }
        }
        let builds: [(Isa, Query); 2] = [(Isa::Avx512, avx512), (Isa::Avx2, x86::query_avx2)];
        for (isa, query) in builds {
            if !isa.supported() {
                crate::tests_support::skip(&format!(
                    "this processor cannot run the {isa:?} build of the query loop"
                ));
                continue;
            }
            check_query(&format!("{isa:?}"), |shape, q, t| {
                // SAFETY: the processor has every feature of this build (checked above).
                unsafe { query(shape, q, t) }
            });
        }
    }

    /// Every row of the tables as [`build_tables`] defines it, from the portable build and
    /// the AVX-512 one (where this processor has it), for rows of 1 to 12 words, on both sides
    /// of the vector fill's threshold, in chunks of every width.
    #[test]
    fn the_table_builds_write_each_row_as_defined() {
        let mut next = xorshift();
        for len in [1, 63, 64, 65, 200, 255, 256, 257, 511, 700, 768] {
            for width in CHUNK..=MAX_WIDTH {
                let bits = 2 * width + 3;
                let table: Vec<u64> = (0..len).map(|_| next() & ((1 << bits) - 1)).collect();
                let shape = Shape::new(bits, width, len);
                let mut portable = vec![!0; shape.size()];
                build_any(&table, shape, &mut portable);
                for j in 0..shape.chunks {
                    for v in 0..1usize << width {
                        for i in 0..shape.words * 64 {
                            let chunk = table.get(i).map(|p| (p >> (width * j)) as usize);
                            let want = match chunk {
                                Some(c) => c & v != 0,
                                None => j == 0,
                            };
                            let row = j * shape.per_chunk() + v * shape.words;
                            let got = portable[row + i / 64] >> (i % 64) & 1 == 1;
                            assert_eq!(got, want, "{len} patterns, width {width}, row ({j}, {v})");
                        }
                    }
                }
                #[cfg(target_arch = "x86_64")]
                if Isa::Avx512.supported() {
                    let mut vector = vec![!0; shape.size()];
                    // SAFETY: the processor has `avx512f` (checked above).
                    unsafe { x86::build_avx512(&table, shape, &mut vector) };
                    assert!(vector == portable, "{len} patterns, width {width}");
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if !Isa::Avx512.supported() {
            crate::tests_support::skip(
                "this processor cannot run the Avx512 build of the tables: \
                 the portable one alone was checked",
            );
        }
    }

    /// A side held whole, handed over in buffers of `.1` patterns.
    struct Buffers<'a>(&'a [u64], usize);

    impl Source for Buffers<'_> {
        fn each(&mut self, f: &mut dyn FnMut(&[u64])) -> Option<()> {
            self.0.chunks(self.1).for_each(f);
            Some(())
        }
    }

    /// A few table patterns against many queries, held and streamed, sieved or not, in one
    /// block or several: as many pairs as testing each.
    #[test]
    fn a_few_table_patterns_count_as_pairwise_tests() {
        let mut next = xorshift();
        let mut scratch = Tables::default();
        let (bits, mask) = (46, (1u64 << 46) - 1);
        for (t_len, q_len) in [(0, 50), (7, 3000), (1023, 2000), (1024, 10), (3000, 10_000)] {
            let t: Vec<u64> = (0..t_len).map(|_| next() & next() & mask).collect();
            let q: Vec<u64> = (0..q_len).map(|_| next() & next() & mask).collect();
            let want = count_pairwise(&t, &q);
            let got = count_few(&t, &q, bits, &mut scratch, &NEVER);
            assert_eq!(got, Some(want), "{t_len} x {q_len}");
            for buffer in [1000, FEW_BLOCK + 5] {
                let mut source = Buffers(&q, buffer);
                let got = count_few_streamed(&t, &mut source, bits, &mut scratch, &NEVER);
                assert_eq!(got, Some(want), "{t_len} x {q_len}, buffers of {buffer}");
            }
        }
        let stop = AtomicBool::new(true);
        let t: Vec<u64> = (0..2000).map(|_| next() & mask).collect();
        assert_eq!(count_few(&t, &t, bits, &mut scratch, &stop), None);
    }

    /// The builds of the loop for sieve bins of at most 8 patterns, over runs of queries of
    /// every length around the vector of 8, against each pair tested.
    #[test]
    fn the_builds_for_bins_of_a_few_patterns_match_pairwise_tests() {
        let mut next = xorshift();
        let queries: Vec<u64> = (0..400).map(|_| next() & next() & next()).collect();
        let mut runs = Vec::new();
        let mut at = 0;
        for len in (0..18).chain([40, 77]) {
            runs.push((at, at + len));
            at += len + 3;
        }
        for t_len in 0..=8 {
            let table: Vec<u64> = (0..t_len).map(|_| next() & next()).collect();
            let pairs = |&(from, to): &(usize, usize)| count_pairwise(&table, &queries[from..to]);
            let want: u64 = runs.iter().map(pairs).sum();
            assert_eq!(few_any(&table, &queries, &runs), want, "{t_len} patterns");
            for far in [false, true] {
                let got = query_few(&table, &queries, &runs, far);
                assert_eq!(got, want, "{t_len} patterns");
            }
        }
    }

    /// Queries whose rests are held in 32 or 40 bits ([`Rest`]) count as those held in 64:
    /// the best build of the query loop, the portable one and those for a few patterns.
    #[test]
    fn rests_held_in_fewer_bits_count_as_in_64() {
        fn check<W: Rest>(t: &[u64], q: &[u64], shape: Shape, tables: &[u64]) {
            let held: Vec<W> = q.iter().map(|&r| W::held(r)).collect();
            assert!(held.iter().zip(q).all(|(h, &r)| h.wide() == r));
            let want = count_pairwise(t, q);
            assert_eq!(query(shape, &held, tables), want, "{} bits", W::BITS);
            assert_eq!(query_any(shape, &held, tables), want, "{} bits", W::BITS);
            let runs = [(0, 5), (5, 300), (301, q.len())];
            let few = &t[..7];
            let want = few_any(few, q, &runs);
            for far in [false, true] {
                let got = query_few(few, &held, &runs, far);
                assert_eq!(got, want, "{} bits, far {far}", W::BITS);
            }
        }
        let mut next = xorshift();
        for bits in [32, 40] {
            let mask = (1u64 << bits) - 1;
            let t: Vec<u64> = (0..300).map(|_| next() & next() & next() & mask).collect();
            let mut q: Vec<u64> = (0..777).map(|_| next() & next() & mask).collect();
            q[0] = mask;
            let shape = Shape::new(bits, 8, t.len());
            let mut tables = vec![0; shape.size()];
            build_tables(&t, shape, &mut tables);
            if bits == 32 {
                check::<u32>(&t, &q, shape, &tables);
            }
            check::<[u8; 5]>(&t, &q, shape, &tables);
            check::<u64>(&t, &q, shape, &tables);
        }
    }

    #[test]
    fn the_bit_transpose_swaps_rows_and_columns() {
        let mut next = xorshift();
        let mut a = [0u64; 64];
        a.fill_with(&mut next);
        let before = a;
        transpose64(&mut a);
        for (b, row) in a.iter().enumerate() {
            for (e, pattern) in before.iter().enumerate() {
                assert_eq!(row >> e & 1, pattern >> b & 1, "bit {b} of pattern {e}");
            }
        }
    }
}
