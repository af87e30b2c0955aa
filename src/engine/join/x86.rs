//! The matching loop and the table build compiled for wider vectors (AVX-512 with `vpopcntq`,
//! AVX2), apart from the portable code because they are `unsafe` to call: callers check the
//! processor's features first ([`super::matching`] chooses once per process).

use std::arch::x86_64::{
    __m256i, __m512i, _mm256_loadu_si256, _mm256_or_si256, _mm256_storeu_si256, _mm512_add_epi64,
    _mm512_loadu_si512, _mm512_or_si512, _mm512_popcnt_epi64, _mm512_reduce_add_epi64,
    _mm512_setzero_si512,
};

use super::matching::{build_any, count_clear};

/// # Safety
/// The processor must support `avx512f`, `avx512vpopcntdq` and `popcnt`.
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
pub(super) unsafe fn query_avx512(c: usize, q: &[u64], t: &[u64], words: usize) -> u64 {
    by_chunks!(c, query512(q, t, words))
}

/// One 512-bit row block.
#[inline]
#[target_feature(enable = "avx512f")]
fn load512(block: &[u64; 8]) -> __m512i {
    // SAFETY: `block` is 64 readable bytes; the load needs no alignment.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }
}

/// The loop of the portable `query` written with 512-bit operations: one load and OR per chunk
/// and block, one `vpopcntq` per block.
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
fn query512<const C: usize>(queries: &[u64], tables: &[u64], words: usize) -> u64 {
    count_clear::<C>(queries, tables, words, |rows, at| {
        let mut acc = _mm512_setzero_si512();
        for b in 0..words / 8 {
            let mut a = load512(&rows[at[0] + b]);
            for &j in &at[1..] {
                a = _mm512_or_si512(a, load512(&rows[j + b]));
            }
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(a));
        }
        _mm512_reduce_add_epi64(acc) as u64
    })
}

/// # Safety
/// The processor must support `avx512f`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn build_avx512(table: &[u64], chunks: usize, t: &mut Vec<u64>) -> usize {
    build_any(table, chunks, t)
}

/// # Safety
/// The processor must support `avx2` and `popcnt`.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn query_avx2(c: usize, q: &[u64], t: &[u64], words: usize) -> u64 {
    by_chunks!(c, query256(q, t, words))
}

/// The two 256-bit halves of a row block.
#[inline]
#[target_feature(enable = "avx2")]
fn load256(block: &[u64; 8]) -> [__m256i; 2] {
    // SAFETY: each half of `block` is 32 readable bytes; the loads need no alignment.
    unsafe {
        [
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block[4..].as_ptr().cast()),
        ]
    }
}

/// The words of a row block held as two 256-bit halves.
#[inline]
#[target_feature(enable = "avx2")]
fn store256([lo, hi]: [__m256i; 2]) -> [u64; 8] {
    let mut out = [0u64; 8];
    // SAFETY: each half of `out` is 32 writable bytes; the stores need no alignment.
    unsafe {
        _mm256_storeu_si256(out.as_mut_ptr().cast(), lo);
        _mm256_storeu_si256(out[4..].as_mut_ptr().cast(), hi);
    }
    out
}

/// The loop of the portable `query` with 256-bit ORs and a scalar `popcnt` per word.
#[target_feature(enable = "avx2,popcnt")]
fn query256<const C: usize>(queries: &[u64], tables: &[u64], words: usize) -> u64 {
    count_clear::<C>(queries, tables, words, |rows, at| {
        let mut set = 0u64;
        for b in 0..words / 8 {
            let [mut lo, mut hi] = load256(&rows[at[0] + b]);
            for &j in &at[1..] {
                let [l, h] = load256(&rows[j + b]);
                lo = _mm256_or_si256(lo, l);
                hi = _mm256_or_si256(hi, h);
            }
            let out = store256([lo, hi]);
            set += out.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        }
        set
    })
}
