//! The matching loop and the table build compiled for wider vectors (AVX-512 with `vpopcntq`,
//! AVX2), apart from the portable code because they are `unsafe` to call: callers check the
//! processor's features first ([`super::matching`] chooses once per process).

use std::arch::x86_64::{
    __m256i, __m512i, _mm256_loadu_si256, _mm256_or_si256, _mm256_storeu_si256, _mm512_add_epi64,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi64, _mm512_or_si512, _mm512_popcnt_epi64,
    _mm512_reduce_add_epi64, _mm512_setzero_si512,
};

use super::matching::{build_any, row_offsets};

/// # Safety
/// The processor must support `avx512f`, `avx512vpopcntdq` and `popcnt`.
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
pub(super) unsafe fn query_avx512(c: usize, q: &[u64], t: &[u64], words: usize) -> u64 {
    by_chunks!(c, query512(q, t, words))
}

/// The loop of the portable `query_words` written with 512-bit operations: one load and OR per
/// chunk and block of 8 words, one `vpopcntq` per block; the words past the last whole block
/// are loaded under a mask.
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
fn query512<const C: usize>(queries: &[u64], tables: &[u64], words: usize) -> u64 {
    let blocks = words / 8;
    let tail = words % 8;
    let mask = ((1u32 << tail) - 1) as u8;
    let base = tables.as_ptr();
    let mut set = _mm512_setzero_si512();
    for &p in queries {
        // Checks that every row `[at[j], at[j] + words)` lies inside `tables`.
        let at = row_offsets::<C>(tables, p, words);
        let mut acc = _mm512_setzero_si512();
        for b in 0..blocks {
            // SAFETY: `8 * b + 8 <= words`, so the 8 words at `at[j] + 8 * b` are inside the
            // row, which is inside `tables` (checked by `row_offsets`); no alignment needed.
            let load = |j: usize| unsafe { _mm512_loadu_si512(base.add(at[j] + 8 * b).cast()) };
            let mut a: __m512i = load(0);
            for j in 1..C {
                a = _mm512_or_si512(a, load(j));
            }
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(a));
        }
        if tail != 0 {
            // SAFETY: the mask reads only the `tail` words `8 * blocks .. words` of the row,
            // inside `tables` (checked by `row_offsets`); masked-off words are not touched.
            let load = |j: usize| unsafe {
                _mm512_maskz_loadu_epi64(mask, base.add(at[j] + 8 * blocks).cast())
            };
            let mut a: __m512i = load(0);
            for j in 1..C {
                a = _mm512_or_si512(a, load(j));
            }
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(a));
        }
        set = _mm512_add_epi64(set, acc);
    }
    (queries.len() * words * 64) as u64 - _mm512_reduce_add_epi64(set) as u64
}

/// # Safety
/// The processor must support `avx512f`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn build_avx512(table: &[u64], chunks: usize, words: usize, t: &mut [u64]) {
    build_any(table, chunks, words, t)
}

/// # Safety
/// The processor must support `avx2` and `popcnt`.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn query_avx2(c: usize, q: &[u64], t: &[u64], words: usize) -> u64 {
    by_chunks!(c, query256(q, t, words))
}

/// The loop of the portable `query_words` with one 256-bit OR per chunk and block of 4 words
/// and a scalar `popcnt` per word, the last words of a row (fewer than 4) a word at a time:
/// the sieve's classes hold a few hundred patterns, rows of a few words.
#[target_feature(enable = "avx2,popcnt")]
fn query256<const C: usize>(queries: &[u64], tables: &[u64], words: usize) -> u64 {
    let blocks = words / 4;
    let base = tables.as_ptr();
    let mut set = 0u64;
    for &p in queries {
        // Checks that every row `[at[j], at[j] + words)` lies inside `tables`.
        let at = row_offsets::<C>(tables, p, words);
        for b in 0..blocks {
            // SAFETY: `4 * b + 4 <= words`, so the 4 words at `at[j] + 4 * b` are inside the
            // row, which is inside `tables` (checked by `row_offsets`); no alignment needed.
            let load = |j: usize| unsafe { _mm256_loadu_si256(base.add(at[j] + 4 * b).cast()) };
            let mut a: __m256i = load(0);
            for j in 1..C {
                a = _mm256_or_si256(a, load(j));
            }
            let mut out = [0u64; 4];
            // SAFETY: `out` is 32 writable bytes; the store needs no alignment.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), a) };
            set += out.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        }
        for w in 4 * blocks..words {
            let mut x = tables[at[0] + w];
            for &j in &at[1..] {
                x |= tables[j + w];
            }
            set += u64::from(x.count_ones());
        }
    }
    (queries.len() * words * 64) as u64 - set
}
