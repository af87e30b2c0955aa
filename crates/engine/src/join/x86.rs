//! The matching loop and the table build compiled for wider vectors (AVX-512 with `vpopcntq`,
//! AVX2), apart from the portable code because they are `unsafe` to call: callers check the
//! processor's features first ([`super::tables`] chooses once per process).

use std::arch::x86_64::{
    __m256i, __m512i, _MM_HINT_T0, _mm_prefetch, _mm256_add_epi8, _mm256_add_epi64,
    _mm256_and_si256, _mm256_loadu_si256, _mm256_maskload_epi64, _mm256_maskz_loadu_epi64,
    _mm256_or_si256, _mm256_popcnt_epi64, _mm256_sad_epu8, _mm256_set1_epi8, _mm256_setr_epi8,
    _mm256_setr_epi64x, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
    _mm256_storeu_si256, _mm512_add_epi64, _mm512_and_si512, _mm512_castsi512_si256,
    _mm512_cvtepu32_epi64, _mm512_i64gather_epi64, _mm512_loadu_si512, _mm512_mask_add_epi64,
    _mm512_mask_storeu_epi64, _mm512_mask_testn_epi64_mask, _mm512_maskz_loadu_epi32,
    _mm512_maskz_loadu_epi64, _mm512_or_si512, _mm512_popcnt_epi64, _mm512_reduce_add_epi64,
    _mm512_set1_epi64, _mm512_setr_epi64, _mm512_setzero_si512, _mm512_srlv_epi64,
    _mm512_storeu_si512, _mm512_testn_epi64_mask, _mm512_zextsi256_si512,
};

use super::rows::{AHEAD, Rest, Shape, fill_rows, one_bit_rows, row_offsets};

/// # Safety
/// The processor must support `avx512f`, `avx512vl`, `avx512vpopcntdq`, `popcnt`, `bmi1` and
/// `bmi2`.
#[target_feature(enable = "avx512f,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
pub(super) unsafe fn query_avx512<W: Rest>(
    shape: Shape,
    q: (&[W], &[(usize, usize)]),
    t: &[u64],
) -> u64 {
    match shape.ahead {
        0 => by_chunks!(shape.chunks, query512::<false>(q, t, shape)),
        _ => by_chunks!(shape.chunks, query512::<true>(q, t, shape)),
    }
}

/// How the words past a row's last whole vector of 8 are loaded ([`rows512`]): none, up to
/// 4 as a 256-bit vector, 5 to 7 as a 512-bit one under a mask; [`ANY`]: found at run time.
const NO_TAIL: usize = 0;
const SHORT: usize = 1;
const LONG: usize = 2;
/// A [`rows512`] parameter found at run time.
const ANY: usize = usize::MAX;

/// The loop of the portable `query_words` written with 512-bit operations: one load and OR per
/// chunk and vector of 8 words, one `vpopcntq` per vector; the words past the last whole vector
/// are loaded under a mask, in a 256-bit vector where they are 4 or fewer. Zen 4 loads two
/// 256-bit halves a cycle, and the loop is bound by its loads (`results/roofline.md`): a row
/// of 9 to 12 words then takes 3 halves a chunk instead of 4. Rows of up to 23 words (most
/// of a sieved matching's) run a loop compiled for their number of vectors and tail, which
/// keeps its figures in registers rather than on the stack, where reading them back took
/// load slots from the tables' rows.
#[target_feature(enable = "avx512f,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
fn query512<const C: usize, const F: bool, W: Rest>(
    queries: (&[W], &[(usize, usize)]),
    tables: &[u64],
    shape: Shape,
) -> u64 {
    let words = shape.words;
    let count: usize = queries.1.iter().map(|&(from, to)| to - from).sum();
    let clear = match (words / 8, tail_of(words)) {
        (0, SHORT) => rows512::<C, F, W, 0, SHORT>(queries, tables, shape),
        (0, _) => rows512::<C, F, W, 0, LONG>(queries, tables, shape),
        (1, NO_TAIL) => rows512::<C, F, W, 1, NO_TAIL>(queries, tables, shape),
        (1, SHORT) => rows512::<C, F, W, 1, SHORT>(queries, tables, shape),
        (1, _) => rows512::<C, F, W, 1, LONG>(queries, tables, shape),
        (2, NO_TAIL) => rows512::<C, F, W, 2, NO_TAIL>(queries, tables, shape),
        (2, SHORT) => rows512::<C, F, W, 2, SHORT>(queries, tables, shape),
        (2, _) => rows512::<C, F, W, 2, LONG>(queries, tables, shape),
        _ => rows512::<C, F, W, ANY, ANY>(queries, tables, shape),
    };
    (count * words * 64) as u64 - clear
}

/// How the words past the last whole vector of a row of `words` words are loaded.
#[inline(always)]
fn tail_of(words: usize) -> usize {
    match words % 8 {
        0 => NO_TAIL,
        1..=4 => SHORT,
        _ => LONG,
    }
}

/// The bits set in the ORed rows of every query of the runs (ranges of the queries,
/// [`query512`]), rows of `V` whole vectors and a tail loaded as `T` ([`NO_TAIL`], [`SHORT`],
/// [`LONG`]); either [`ANY`]: as `shape` gives. The rows' first words are found as
/// [`row_offsets`] finds them, from each chunk's base pointer, the bounds checked once.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
fn rows512<const C: usize, const F: bool, W: Rest, const V: usize, const T: usize>(
    (queries, runs): (&[W], &[(usize, usize)]),
    tables: &[u64],
    shape: Shape,
) -> u64 {
    let words = shape.words;
    let vectors = if V == ANY { words / 8 } else { V };
    let kind = if T == ANY { tail_of(words) } else { T };
    assert!((V == ANY || V == words / 8) && (T == ANY || T == tail_of(words)));
    let tail = words % 8;
    let mask = ((1u32 << tail) - 1) as u8;
    let (per, stride, width) = (shape.per_chunk(), shape.words, shape.width);
    // Every row read, `[j * per + v * stride, .. + words)` for chunk `j` and value `v` below
    // `2^width`, lies inside `tables`: the last ends at `C * per - stride + words`.
    assert!(tables.len() + stride >= C * per + words && words <= stride && width < 64);
    let values = (1u64 << width) - 1;
    let bases: [*const u64; C] = std::array::from_fn(|j| tables.as_ptr().wrapping_add(j * per));
    let mut set = _mm512_setzero_si512();
    for &(from, to) in runs {
        for (i, q) in (from..).zip(&queries[from..to]) {
            // One fetch a cache line of queries: each fetch takes a load slot.
            if F && i % (64 / size_of::<W>()) == 0 {
                _mm_prefetch::<_MM_HINT_T0>(queries.as_ptr().wrapping_add(i + AHEAD).cast());
            }
            let p = q.wide();
            // The first word of the query's row in each chunk (inside `tables`, asserted above).
            let at: [*const u64; C] = std::array::from_fn(|j| {
                bases[j].wrapping_add(((p >> (width * j)) & values) as usize * stride)
            });
            let mut acc = _mm512_setzero_si512();
            for b in 0..vectors {
                // SAFETY: `8 * b + 8 <= words`, so the 8 words at `at[j] + 8 * b` are inside the
                // row's words read, inside `tables` (asserted above); no alignment needed.
                let load = |j: usize| unsafe { _mm512_loadu_si512(at[j].add(8 * b).cast()) };
                let mut a: __m512i = load(0);
                for j in 1..C {
                    a = _mm512_or_si512(a, load(j));
                }
                acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(a));
            }
            if kind == SHORT {
                // SAFETY: the mask reads only the `tail` (at most 4) words `8 * vectors .. words`
                // of the row, inside `tables` (asserted above); masked-off words are not touched.
                let load = |j: usize| unsafe {
                    _mm256_maskz_loadu_epi64(mask, at[j].add(8 * vectors).cast())
                };
                let mut a: __m256i = load(0);
                for j in 1..C {
                    a = _mm256_or_si256(a, load(j));
                }
                acc = _mm512_add_epi64(acc, _mm512_zextsi256_si512(_mm256_popcnt_epi64(a)));
            } else if kind == LONG {
                // SAFETY: as above, for the `tail` words past the last whole vector.
                let load = |j: usize| unsafe {
                    _mm512_maskz_loadu_epi64(mask, at[j].add(8 * vectors).cast())
                };
                let mut a: __m512i = load(0);
                for j in 1..C {
                    a = _mm512_or_si512(a, load(j));
                }
                acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(a));
            }
            set = _mm512_add_epi64(set, acc);
        }
    }
    _mm512_reduce_add_epi64(set) as u64
}

/// # Safety
/// The processor must support `avx512f`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn few_avx512<W: Rest>(
    table: &[u64],
    queries: &[W],
    runs: &[(usize, usize)],
) -> u64 {
    few512(table, queries, runs)
}

/// The pairs of `table`, at most 8 patterns, and the queries of `runs` (ranges of `queries`)
/// that share no bit: 8 queries a vector, each table pattern tested against them
/// (`vptestnmq`) and the fitting lanes counted.
#[target_feature(enable = "avx512f")]
fn few512<W: Rest>(table: &[u64], queries: &[W], runs: &[(usize, usize)]) -> u64 {
    assert!(table.len() <= 8);
    let ts = std::array::from_fn::<_, 8, _>(|i| {
        _mm512_set1_epi64(table.get(i).copied().unwrap_or(0) as i64)
    });
    let ts = &ts[..table.len()];
    let one = _mm512_set1_epi64(1);
    let mut acc = _mm512_setzero_si512();
    for &(from, to) in runs {
        let mut blocks = queries[from..to].chunks_exact(8);
        for block in blocks.by_ref() {
            _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().wrapping_add(AHEAD).cast());
            let q = rests8(block, 0xff);
            for &t in ts {
                acc = _mm512_mask_add_epi64(acc, _mm512_testn_epi64_mask(q, t), acc, one);
            }
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let lanes = ((1u32 << rest.len()) - 1) as u8;
            let q = rests8(rest, lanes);
            for &t in ts {
                let fit = _mm512_mask_testn_epi64_mask(lanes, q, t);
                acc = _mm512_mask_add_epi64(acc, fit, acc, one);
            }
        }
    }
    _mm512_reduce_add_epi64(acc) as u64
}

/// The first `lanes` (a mask of low bits) of at most 8 queries' rests as 64-bit lanes, the
/// others zero: one load of 8 words, or of 8 `u32`s widened, or a gather of 8 5-byte rests
/// (fewer one by one).
#[target_feature(enable = "avx512f")]
fn rests8<W: Rest>(rests: &[W], lanes: u8) -> __m512i {
    let count = lanes.count_ones() as usize;
    assert!(rests.len() >= count && lanes & lanes.wrapping_add(1) == 0);
    let at = rests.as_ptr();
    match size_of::<W>() {
        4 => {
            // SAFETY: the mask reads only the first `count` of `rests` (checked above to be
            // low bits and that many); no alignment needed.
            let half = unsafe { _mm512_maskz_loadu_epi32(u16::from(lanes), at.cast()) };
            _mm512_cvtepu32_epi64(_mm512_castsi512_si256(half))
        }
        // SAFETY: 8 readable words (checked above); no alignment needed.
        8 if lanes == 0xff => unsafe { _mm512_loadu_si512(at.cast()) },
        // SAFETY: as for 32-bit rests, the words of the mask's lanes alone.
        8 => unsafe { _mm512_maskz_loadu_epi64(lanes, at.cast()) },
        5 if lanes == 0xff => {
            // Lane i reads the 8 bytes from rest i's first (the last lane those from byte 32,
            // shifted down to rest 7's first), keeping its 40 low bits.
            let from = _mm512_setr_epi64(0, 5, 10, 15, 20, 25, 30, 32);
            // SAFETY: 8 rests of 5 bytes are 40 readable bytes (checked above), and each
            // lane's 8 bytes end at byte 40 or before; no alignment needed.
            let raw = unsafe { _mm512_i64gather_epi64::<1>(from, at.cast()) };
            let down = _mm512_srlv_epi64(raw, _mm512_setr_epi64(0, 0, 0, 0, 0, 0, 0, 24));
            _mm512_and_si512(down, _mm512_set1_epi64((1 << 40) - 1))
        }
        _ => {
            let mut wide = [0u64; 8];
            for (w, r) in wide.iter_mut().zip(&rests[..count]) {
                *w = r.wide();
            }
            // SAFETY: 8 words of a local array.
            unsafe { _mm512_loadu_si512(wide.as_ptr().cast()) }
        }
    }
}

/// # Safety
/// The processor must support `avx512f`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn build_avx512(table: &[u64], shape: Shape, t: &mut [u64]) {
    one_bit_rows(table, shape, t);
    if shape.words >= FILL512_WORDS {
        fill512(shape, t);
    } else {
        fill_rows(shape, t);
    }
}

/// Rows of at least this many words are filled by [`fill512`]; shorter ones by the portable
/// loop, whose plain stores the next rows' loads read back sooner than masked ones (n = 17's
/// units, rows of a word or two, took 3% longer with the vector fill; n = 18's, 4% less time
/// with it; `results/join-log.md`, section 22).
const FILL512_WORDS: usize = 4;

/// The portable `fill_rows`, in the same order, with one 512-bit OR per vector of 8 words and
/// the last words of a row under a mask: the rows of a sieve bin are a few words long,
/// which the compiler's loop leaves to scalar code.
#[target_feature(enable = "avx512f")]
fn fill512(shape: Shape, t: &mut [u64]) {
    let words = shape.words;
    let per = shape.per_chunk();
    assert!(t.len() >= shape.chunks * per);
    let vectors = words / 8;
    let tail = words % 8;
    let mask = ((1u32 << tail) - 1) as u8;
    let base = t.as_mut_ptr();
    // Row `o` of `t` becomes the OR of rows `x` and `y`.
    let or_rows = |o: usize, x: usize, y: usize| {
        for b in 0..vectors {
            // SAFETY: every row passed is a row of a chunk, `[at, at + words)` inside `t`
            // (asserted above), and `8 * b + 8 <= words`; no alignment needed.
            unsafe {
                let a = _mm512_loadu_si512(base.add(x + 8 * b).cast());
                let c = _mm512_loadu_si512(base.add(y + 8 * b).cast());
                _mm512_storeu_si512(base.add(o + 8 * b).cast(), _mm512_or_si512(a, c));
            }
        }
        if tail != 0 {
            let at = 8 * vectors;
            // SAFETY: as above; the mask reads and writes only the `tail` words `at .. words`
            // of each row, and masked-off words are not touched.
            unsafe {
                let a = _mm512_maskz_loadu_epi64(mask, base.add(x + at).cast());
                let c = _mm512_maskz_loadu_epi64(mask, base.add(y + at).cast());
                _mm512_mask_storeu_epi64(base.add(o + at).cast(), mask, _mm512_or_si512(a, c));
            }
        }
    };
    for j in 0..shape.chunks {
        let row = |v: usize| j * per + v * words;
        for b in 0..shape.width {
            let hi = 1 << b;
            if j == 0 {
                or_rows(row(hi), row(hi), row(0));
            }
            for r in 1..hi {
                or_rows(row(hi + r), row(r), row(hi));
            }
        }
    }
}

/// # Safety
/// The processor must support `avx2` and `popcnt`.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn query_avx2<W: Rest>(shape: Shape, q: &[W], t: &[u64]) -> u64 {
    match shape.ahead {
        0 => by_chunks!(shape.chunks, query256::<false>(q, t, shape)),
        _ => by_chunks!(shape.chunks, query256::<true>(q, t, shape)),
    }
}

/// The loop of the portable `query_words` with one 256-bit OR per chunk and vector of 4 words,
/// the last words of a row (fewer than 4) under a mask: the sieve's bins hold a few
/// hundred patterns, rows of a few words. AVX2 has no vector popcount, so each ORed vector is
/// counted by a table of the 16 nibbles (`vpshufb`) and byte sums (`vpsadbw`) into four
/// 64-bit lanes, added up once at the end (Muła, Kurz and Lemire, "Faster population counts
/// using AVX2 instructions", 2018).
#[target_feature(enable = "avx2,popcnt")]
fn query256<const C: usize, const F: bool, W: Rest>(
    queries: &[W],
    tables: &[u64],
    shape: Shape,
) -> u64 {
    let words = shape.words;
    let vectors = words / 4;
    let base = tables.as_ptr();
    let nibbles = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let low = _mm256_set1_epi8(0x0f);
    let zero = _mm256_setzero_si256();
    // The bits set in each 64-bit lane of `a`.
    let count = |a: __m256i| {
        let counts = _mm256_add_epi8(
            _mm256_shuffle_epi8(nibbles, _mm256_and_si256(a, low)),
            _mm256_shuffle_epi8(nibbles, _mm256_and_si256(_mm256_srli_epi16(a, 4), low)),
        );
        _mm256_sad_epu8(counts, zero)
    };
    let tail = words % 4;
    let mask = _mm256_setr_epi64x(
        -i64::from(tail > 0),
        -i64::from(tail > 1),
        -i64::from(tail > 2),
        0,
    );
    let mut lanes = zero;
    for (i, p) in queries.iter().map(|q| q.wide()).enumerate() {
        if F {
            _mm_prefetch::<_MM_HINT_T0>(queries.as_ptr().wrapping_add(i + AHEAD).cast());
        }
        // Checks that every row `[at[j], at[j] + words)` lies inside `tables`.
        let at = row_offsets::<C>(tables, p, shape);
        for b in 0..vectors {
            // SAFETY: `4 * b + 4 <= words`, so the 4 words at `at[j] + 4 * b` are inside the
            // row, which is inside `tables` (checked by `row_offsets`); no alignment needed.
            let load = |j: usize| unsafe { _mm256_loadu_si256(base.add(at[j] + 4 * b).cast()) };
            let mut a: __m256i = load(0);
            for j in 1..C {
                a = _mm256_or_si256(a, load(j));
            }
            lanes = _mm256_add_epi64(lanes, count(a));
        }
        if tail != 0 {
            // SAFETY: the mask reads only the `tail` words `4 * vectors .. words` of the row,
            // inside `tables` (checked by `row_offsets`); masked-off words are not touched.
            let load = |j: usize| unsafe {
                _mm256_maskload_epi64(base.add(at[j] + 4 * vectors).cast(), mask)
            };
            let mut a: __m256i = load(0);
            for j in 1..C {
                a = _mm256_or_si256(a, load(j));
            }
            lanes = _mm256_add_epi64(lanes, count(a));
        }
    }
    let mut out = [0u64; 4];
    // SAFETY: `out` is 32 writable bytes; the store needs no alignment.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), lanes) };
    (queries.len() * words * 64) as u64 - out.iter().sum::<u64>()
}
