//! Matching: counting the pairs of half-boards whose patterns share no bit. One side becomes
//! bit-transposed tables (built with 64×64 bit transposes), the other side queries them 512
//! candidates at a time; the query loop has a portable build here and vector builds in
//! [`super::x86`], chosen once per process by the instruction sets the processor has.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::sieve::{self, Part};
#[cfg(target_arch = "x86_64")]
use super::x86;
use crate::engine::Slice;

/// Bits per chunk of a pattern in the tables of an unsieved matching (their 64 rows a chunk
/// are cheap to build for the few queries of a small side).
pub(super) const CHUNK: usize = 6;
/// The widest chunks of a sieved matching's tables: the tables of one class in chunks of 9
/// bits (512 rows of some 8 words) stay in the second-level cache; 10 bits cost more at
/// n = 26 (`results/join-log.md`, section 19).
pub(super) const MAX_WIDTH: usize = 9;
/// The most chunks a pattern of a 32×32 board needs (62 bits, chunks of at least [`CHUNK`]).
pub(super) const MAX_CHUNKS: usize = 11;

/// The shape of one set of tables: `chunks` chunks of `width` pattern bits (pattern bits
/// `width * j ..` in chunk `j`), each of `2^width` rows of `words` words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) chunks: usize,
    pub(super) width: usize,
    pub(super) words: usize,
}

impl Shape {
    /// The tables of `len` patterns of `bits` bits in chunks of `width` bits.
    pub(super) fn new(bits: usize, width: usize, len: usize) -> Shape {
        let chunks = bits.div_ceil(width).max(1);
        assert!(chunks <= MAX_CHUNKS && (chunks - 1) * width < 64);
        Shape {
            chunks,
            width,
            words: words_for(len),
        }
    }

    /// Words of one chunk's rows.
    pub(super) fn per_chunk(self) -> usize {
        self.words << self.width
    }

    /// Words of the whole tables.
    pub(super) fn size(self) -> usize {
        self.chunks * self.per_chunk()
    }
}

/// Calls `$f::<C>(args)` with the chunk count `$c` as a constant (1 to [`MAX_CHUNKS`]), so that
/// each matching loop is compiled with its per-chunk loop unrolled.
macro_rules! by_chunks {
    ($c:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $c {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*),
            _ => $f::<{ $crate::engine::join::matching::MAX_CHUNKS }>($($arg),*),
        }
    };
}

/// The number of pairs (a, b), a from `one` and b from `other`, whose patterns share no bit
/// (`bits` long). `scratch` holds the buffers reused from call to call.
///
/// Small sides: the smaller side becomes the tables, the larger one the queries. Large sides
/// are sieved first ([`super::sieve`]), and then the larger side becomes the tables
/// (`results/join-log.md`, section 15).
pub fn count_fitting(one: &[u64], other: &[u64], bits: usize, scratch: &mut Tables) -> u64 {
    static NEVER: AtomicBool = AtomicBool::new(false);
    count_fitting_until(one, other, bits, scratch, &NEVER).expect("never stopped")
}

/// [`count_fitting`], giving up (`None`) soon after `stop` rises: between blocks of queries or
/// classes of the sieve, each a small share of the work.
pub fn count_fitting_until(
    one: &[u64],
    other: &[u64],
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    count_slice_until(one, other, bits, scratch, Slice::WHOLE, stop)
}

/// The fitting pairs of one slice of the matching ([`Slice`]): where the sides are large
/// enough to be sieved, the pairs of classes the sieve deals to `slice`; otherwise all of them
/// for slice 0 and none for the others. The slices of `0..of` add up to [`count_fitting`].
pub fn count_slice_until(
    one: &[u64],
    other: &[u64],
    bits: usize,
    scratch: &mut Tables,
    slice: Slice,
    stop: &AtomicBool,
) -> Option<u64> {
    count_part_until(one, other, bits, scratch, Part::fresh(slice), stop)
}

/// [`count_slice_until`], where `part` may say that `scratch` already holds the sides sorted
/// by the sieve (the same sides as the last call's).
pub(super) fn count_part_until(
    one: &[u64],
    other: &[u64],
    bits: usize,
    scratch: &mut Tables,
    part: Part,
    stop: &AtomicBool,
) -> Option<u64> {
    let slice = part.slice;
    if one.is_empty() || other.is_empty() {
        return Some(0);
    }
    let (small, large) = if one.len() <= other.len() {
        (one, other)
    } else {
        (other, one)
    };
    let sieved = sieved(small.len(), large.len());
    if !sieved && slice.index > 0 {
        return Some(0);
    }
    if one.len() * other.len() <= PAIRWISE_LIMIT {
        return Some(count_pairwise(one, other));
    }
    if !sieved {
        return count_plain(small, large, bits, scratch, stop);
    }
    sieve::count(large, small, bits, None, scratch, stop, part)
}

/// Whether the matching of sides of `small` and `large` patterns is sieved.
pub(super) fn sieved(small: usize, large: usize) -> bool {
    small * large > PAIRWISE_LIMIT && sieve::pays(large)
}

/// Seconds [`count_fitting`] would take, projected from matching a share of the work when the
/// sides are large enough to be sieved (about `classes` of the table classes, from `seed`);
/// timed whole otherwise. `None` if `stop` rose.
pub fn time_fitting(
    one: &[u64],
    other: &[u64],
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
    (classes, seed): (usize, usize),
) -> Option<f64> {
    let (small, large) = if one.len() <= other.len() {
        (one, other)
    } else {
        (other, one)
    };
    if small.is_empty() || !sieve::pays(large.len()) {
        let begun = std::time::Instant::now();
        count_fitting_until(one, other, bits, scratch, stop)?;
        return Some(begun.elapsed().as_secs_f64());
    }
    let stride = (sieve::classes_for(large.len()) / classes.max(1)).max(1);
    sieve::time(large, small, bits, scratch, stop, (stride, seed % stride))
}

/// Queries matched between two looks at the stop flag, unsieved.
const QUERY_BLOCK: usize = 1 << 16;

/// The matching without a sieve: `table` as one set of tables, every query against all of it.
fn count_plain(
    table: &[u64],
    queries: &[u64],
    bits: usize,
    scratch: &mut Tables,
    stop: &AtomicBool,
) -> Option<u64> {
    let shape = Shape::new(bits, CHUNK, table.len());
    if scratch.rows.len() < shape.size() {
        scratch.rows.resize(shape.size(), 0);
    }
    let tables = &mut scratch.rows[..shape.size()];
    build_tables(table, shape, tables);
    query_until(shape, queries, tables, stop)
}

/// Buffers of the matching, reused from call to call: the tables of one class and both sides
/// sorted by class ([`super::sieve`]).
#[derive(Default)]
pub struct Tables {
    pub(super) rows: Vec<u64>,
    pub(super) table: Vec<u64>,
    pub(super) queries: Vec<u64>,
    pub(super) table_starts: Vec<usize>,
    pub(super) query_starts: Vec<usize>,
    /// The sieve both sides were sorted by.
    pub(super) split: Option<super::split::Split>,
    /// The runs of query classes fitting one table class.
    pub(super) runs: Vec<(usize, usize)>,
    /// A streamed matching: the range of table classes `table` holds.
    pub(super) group: Option<(usize, usize)>,
}

impl Tables {
    /// Bytes the buffers hold.
    pub fn bytes(&self) -> usize {
        8 * (self.rows.capacity() + self.table.capacity() + self.queries.capacity())
            + 8 * (self.table_starts.capacity() + self.query_starts.capacity())
    }
}

/// Below this many candidate pairs, testing every pair beats building tables (the tables of
/// one 512-candidate block take some 3000 word writes; `results/join-log.md`, section 4).
const PAIRWISE_LIMIT: usize = 16 * 1024;

/// Pairs sharing no bit, one AND each.
fn count_pairwise(table: &[u64], queries: &[u64]) -> u64 {
    queries
        .iter()
        .map(|&q| table.iter().map(|&t| u64::from(t & q == 0)).sum::<u64>())
        .sum()
}

/// Words per table row for `k` table patterns: one bit each, whole words.
pub(super) fn words_for(k: usize) -> usize {
    k.div_ceil(64)
}

/// Fills the bit-transposed tables of `table` into `t`, in `shape` (`words` at least
/// [`words_for`] of the table's length).
///
/// Row `(j, v)` (at `(j * 2^width + v) * words`) holds, for chunk `j` and chunk value `v`, one
/// bit per table pattern: set when the pattern shares a bit with `v` in chunk `j`. Bits past
/// the last pattern are set in every row of chunk 0, so they are never counted.
pub(super) fn build_tables(table: &[u64], shape: Shape, t: &mut [u64]) {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: `isa()` picks `Avx512` only where the processor has `avx512f`.
            unsafe { x86::build_avx512(table, shape, t) }
        }
        _ => build_any(table, shape, t),
    }
}

/// [`build_tables`] for any processor.
#[inline(always)]
fn build_any(table: &[u64], shape: Shape, t: &mut [u64]) {
    one_bit_rows(table, shape, t);
    fill_rows(shape, t);
}

/// The first step of [`build_tables`], inlined into the vector builds too: row 0 of each
/// chunk (the padding bits in chunk 0, nothing in the others) and the rows of one-bit chunk
/// values (the patterns holding that bit).
#[inline(always)]
pub(super) fn one_bit_rows(table: &[u64], shape: Shape, t: &mut [u64]) {
    let Shape {
        chunks,
        width,
        words,
    } = shape;
    let k = table.len();
    let per = shape.per_chunk();
    assert!(words >= words_for(k) && t.len() >= chunks * per);
    for j in 0..chunks {
        t[j * per..j * per + words].fill(0);
    }
    // 64 table patterns at a time: a 64×64 bit transpose turns the patterns (one word each)
    // into one word per pattern bit (one bit per pattern).
    let bits = (chunks * width).min(64);
    for w in 0..words {
        let mut square = [0u64; 64];
        let from = (w * 64).min(k);
        let to = (w * 64 + 64).min(k);
        square[..to - from].copy_from_slice(&table[from..to]);
        transpose64(&mut square);
        for (b, &word) in square[..bits].iter().enumerate() {
            t[(b / width) * per + (1 << (b % width)) * words + w] = word;
        }
    }
    for i in k..words * 64 {
        t[i / 64] |= 1 << (i % 64);
    }
}

/// The second step of [`build_tables`]: the one-bit rows of chunk 0 take in the padding of
/// its row 0, then the rows of values `2^b + r` (`0 < r < 2^b`) are the OR of row `r` and
/// row `2^b`, bit by bit. In this order a row is made from rows written long before it, never
/// from the row just stored (the vector build's masked stores do not forward to loads).
#[inline(always)]
pub(super) fn fill_rows(shape: Shape, t: &mut [u64]) {
    let Shape {
        chunks,
        width,
        words,
    } = shape;
    let per = shape.per_chunk();
    for j in 0..chunks {
        let rows = &mut t[j * per..(j + 1) * per];
        for b in 0..width {
            let hi = 1 << b;
            let (done, upper) = rows.split_at_mut(hi * words);
            if j == 0 {
                for (o, x) in upper[..words].iter_mut().zip(&done[..words]) {
                    *o |= x;
                }
            }
            let (high, made) = upper.split_at_mut(words);
            for r in 1..hi {
                let row = &mut made[(r - 1) * words..r * words];
                let low = &done[r * words..(r + 1) * words];
                for ((o, x), y) in row.iter_mut().zip(low).zip(high.iter()) {
                    *o = x | y;
                }
            }
        }
    }
}

/// Transposes a 64×64 bit matrix in place: afterwards bit `e` of `a[b]` is what bit `b` of
/// `a[e]` was. Six rounds of masked swaps of ever smaller sub-squares (Hacker's Delight, 7-3),
/// each round a loop over whole blocks of rows with a constant stride, so that the rounds of
/// 32, 16, 8 and 4 rows compile to vector operations.
#[inline(always)]
fn transpose64(a: &mut [u64; 64]) {
    swap_round::<32>(a, 0x0000_0000_ffff_ffff);
    swap_round::<16>(a, 0x0000_ffff_0000_ffff);
    swap_round::<8>(a, 0x00ff_00ff_00ff_00ff);
    swap_round::<4>(a, 0x0f0f_0f0f_0f0f_0f0f);
    swap_round::<2>(a, 0x3333_3333_3333_3333);
    swap_round::<1>(a, 0x5555_5555_5555_5555);
}

/// One round of [`transpose64`]: in each block of `2 * J` rows, the bits of mask `m` of the
/// second half swap with the bits `J` places above them in the first half.
#[inline(always)]
fn swap_round<const J: usize>(a: &mut [u64; 64], m: u64) {
    for block in a.chunks_exact_mut(2 * J) {
        let (lo, hi) = block.split_at_mut(J);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let t = ((*x >> J) ^ *y) & m;
            *x ^= t << J;
            *y ^= t;
        }
    }
}

/// Instruction sets the matching loop is compiled for, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Isa {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Isa {
    /// Whether this processor can run the build for `self`.
    pub(super) fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        use std::arch::is_x86_feature_detected as has;
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => has!("avx512f") && has!("avx512vpopcntdq") && has!("popcnt"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => has!("avx2") && has!("popcnt"),
            Isa::Portable => true,
        }
    }
}

/// The best build this processor can run, chosen once.
fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        let best_first = [Isa::Avx512, Isa::Avx2, Isa::Portable];
        #[cfg(not(target_arch = "x86_64"))]
        let best_first = [Isa::Portable];
        best_first
            .into_iter()
            .find(|isa| isa.supported())
            .unwrap_or(Isa::Portable)
    })
}

/// [`query`] in blocks of [`QUERY_BLOCK`] queries, giving up (`None`) when `stop` rose between
/// two (one table against millions of queries takes a minute at n = 28).
pub(super) fn query_until(
    shape: Shape,
    queries: &[u64],
    tables: &[u64],
    stop: &AtomicBool,
) -> Option<u64> {
    let mut total = 0;
    for block in queries.chunks(QUERY_BLOCK) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        total += query(shape, block, tables);
    }
    Some(total)
}

/// The number of pairs of a query and a table pattern that share no bit, the tables built by
/// [`build_tables`] in `shape` (the padding bits count as clashing), in the best build this
/// processor can run.
pub(super) fn query(shape: Shape, queries: &[u64], tables: &[u64]) -> u64 {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: `isa()` picks `Avx512` only where the processor has every feature
            // `query_avx512` is compiled for.
            unsafe { x86::query_avx512(shape, queries, tables) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            // SAFETY: `isa()` picks `Avx2` only where the processor has every feature
            // `query_avx2` is compiled for.
            unsafe { x86::query_avx2(shape, queries, tables) }
        }
        Isa::Portable => query_any(shape, queries, tables),
    }
}

/// The portable build of the query loop.
#[inline(always)]
fn query_any(shape: Shape, queries: &[u64], tables: &[u64]) -> u64 {
    by_chunks!(shape.chunks, query_words(queries, tables, shape))
}

/// The first word of pattern `p`'s row in each chunk: chunk `j`'s rows start at
/// `j * 2^width * words` words, value `v`'s row at `v * words` within them. Checks that the
/// tables hold `C` chunks, so every row `[at[j], at[j] + words)` is inside them.
#[inline(always)]
pub(super) fn row_offsets<const C: usize>(tables: &[u64], p: u64, shape: Shape) -> [usize; C] {
    let per = shape.per_chunk();
    assert!(tables.len() >= C * per && shape.width < 64);
    let mask = (1usize << shape.width) - 1;
    let mut at = [0usize; C];
    for (j, a) in at.iter_mut().enumerate() {
        let v = ((p >> (shape.width * j)) as usize) & mask;
        *a = j * per + v * shape.words;
    }
    at
}

/// For each query, ORs one table row per chunk, a word at a time, and counts the candidates
/// left clear: the portable build of the query loop.
#[inline(always)]
pub(super) fn query_words<const C: usize>(queries: &[u64], tables: &[u64], shape: Shape) -> u64 {
    let words = shape.words;
    let mut set = 0u64;
    for &p in queries {
        let at = row_offsets::<C>(tables, p, shape);
        for w in 0..words {
            let mut x = tables[at[0] + w];
            for &j in &at[1..] {
                x |= tables[j + w];
            }
            set += u64::from(x.count_ones());
        }
    }
    (queries.len() * words * 64) as u64 - set
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crate's deterministic test generator, as a closure.
    fn xorshift() -> impl FnMut() -> u64 {
        let mut rng = crate::internals::XorShift::new(0x9e37_79b9_7f4a_7c15);
        move || rng.next()
    }

    /// Checks a build of the query loop, `query(chunks, queries, tables, words)`, against
    /// pairwise tests, on patterns of several densities and lengths around the 512-candidate
    /// blocks; `count_fitting` itself too.
    fn check_query(name: &str, query: impl Fn(Shape, &[u64], &[u64]) -> u64) {
        let mut next = xorshift();
        let mut scratch = Tables::default();
        let cases = [
            (6, 1, 1),
            (30, 700, 90),
            (34, 512, 33),
            (34, 520, 17),
            (62, 1025, 40),
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
            // Whole words, and rows longer than the table needs; chunks of every width the
            // sieve may choose.
            for width in CHUNK..=MAX_WIDTH {
                if bits.div_ceil(width) > MAX_CHUNKS {
                    continue;
                }
                let whole = Shape::new(bits, width, t_len);
                for words in [whole.words, whole.words + 3] {
                    let shape = Shape { words, ..whole };
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

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_builds_match_pairwise_tests() {
        type Query = unsafe fn(Shape, &[u64], &[u64]) -> u64;
        let builds: [(Isa, Query); 2] = [
            (Isa::Avx512, x86::query_avx512),
            (Isa::Avx2, x86::query_avx2),
        ];
        for (isa, query) in builds {
            if !isa.supported() {
                eprintln!("skipped: this processor cannot run the {isa:?} build of the query loop");
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
