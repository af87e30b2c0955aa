//! Which build of the matching's tables runs, the portable one ([`super::rows`]) or a vector
//! build ([`super::x86`]), chosen once per process by the instruction sets the processor
//! has; and the buffers the matching and the sieve reuse from call to call.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::rows::{Rest, Shape, build_any, query_any};
#[cfg(target_arch = "x86_64")]
use super::x86;

/// Queries matched between two looks at the stop flag, unsieved.
const QUERY_STEP: usize = 1 << 16;

/// Buffers of the matching, reused from call to call: the tables of one bin and both sides
/// sorted by bin (the `sieve` module).
#[derive(Default)]
pub struct Tables {
    pub(super) rows: Vec<u64>,
    pub(super) table: Vec<u64>,
    pub(super) queries: Vec<u64>,
    /// A streamed matching's sorted queries.
    pub(super) sorted: Sorted,
    pub(super) table_starts: Vec<usize>,
    pub(super) query_starts: Vec<usize>,
    /// The sieve both sides were sorted by.
    pub(super) split: Option<super::split::Split>,
    /// The runs of query bins fitting one table bin.
    pub(super) runs: Vec<(usize, usize)>,
    /// A streamed matching: the range of table bins `table` holds.
    pub(super) group: Option<(usize, usize)>,
}

/// A streamed matching's sorted queries, their rests held in as few bits as hold them
/// ([`super::rows::Rest`]): 32, 40 or 64.
pub(super) enum Sorted {
    Narrow(Vec<u32>),
    Five(Vec<[u8; 5]>),
    Wide(Vec<u64>),
}

impl Default for Sorted {
    fn default() -> Sorted {
        Sorted::Wide(Vec::new())
    }
}

/// Fills the bit-transposed tables of `table` into `t`, in `shape` (`words` at least
/// [`super::rows::words_for`] of the table's length).
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
            Isa::Avx512 => {
                has!("avx512f")
                    && has!("avx512vl")
                    && has!("avx512vpopcntdq")
                    && has!("popcnt")
                    && has!("bmi1")
                    && has!("bmi2")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => has!("avx2") && has!("popcnt"),
            Isa::Portable => true,
        }
    }
}

/// The best build this processor can run, chosen once.
pub(super) fn isa() -> Isa {
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

/// [`query`] in steps of [`QUERY_STEP`] queries, giving up (`None`) when `stop` rose between
/// two (one table against millions of queries takes a minute at n = 28).
pub(super) fn query_until<W: Rest>(
    shape: Shape,
    queries: &[W],
    tables: &[u64],
    stop: &AtomicBool,
) -> Option<u64> {
    let mut total = 0;
    for step in queries.chunks(QUERY_STEP) {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        total += query(shape, step, tables);
    }
    Some(total)
}

/// [`query_until`] of the queries of `runs` (ranges of `queries`): the runs of fewer than
/// [`QUERY_STEP`] queries in batches of up to that many, each one call of the query loop (a
/// table bin of n = 27 meets hundreds of short runs, and each call of the loop costs as much
/// as some queries), the stop flag looked at between batches.
pub(super) fn query_runs_until<W: Rest>(
    shape: Shape,
    (queries, runs): (&[W], &[(usize, usize)]),
    tables: &[u64],
    stop: &AtomicBool,
) -> Option<u64> {
    let mut total = 0;
    let mut i = 0;
    while i < runs.len() {
        let (from, to) = runs[i];
        if to - from >= QUERY_STEP {
            total += query_until(shape, &queries[from..to], tables, stop)?;
            i += 1;
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let (mut end, mut held) = (i, 0);
        while let Some(&(from, to)) = runs.get(end)
            && held + (to - from) < QUERY_STEP
        {
            held += to - from;
            end += 1;
        }
        total += query_runs(shape, queries, &runs[i..end], tables);
        i = end;
    }
    Some(total)
}

/// [`query`] of the queries of `runs` (ranges of `queries`), in one call of the query loop
/// where the processor runs the AVX-512 build.
fn query_runs<W: Rest>(
    shape: Shape,
    queries: &[W],
    runs: &[(usize, usize)],
    tables: &[u64],
) -> u64 {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: `isa()` picks `Avx512` only where the processor has every feature
            // `query_avx512` is compiled for.
            unsafe { x86::query_avx512(shape, (queries, runs), tables) }
        }
        _ => runs
            .iter()
            .map(|&(from, to)| query(shape, &queries[from..to], tables))
            .sum(),
    }
}

/// The number of pairs of a query and a table pattern that share no bit, the tables built by
/// [`build_tables`] in `shape` (the padding bits count as clashing), in the best build this
/// processor can run.
pub(super) fn query<W: Rest>(shape: Shape, queries: &[W], tables: &[u64]) -> u64 {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: `isa()` picks `Avx512` only where the processor has every feature
            // `query_avx512` is compiled for.
            unsafe { x86::query_avx512(shape, (queries, &[(0, queries.len())]), tables) }
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

/// The pairs of `table`, at most 8 patterns (a sieve bin too small for tables), and the
/// queries of `runs` (ranges of `queries`) that share no bit: where `queries` are too large for
/// the caches ([`super::rows::Shape::ahead`]), 8 a vector and fetched ahead where the
/// processor can; each pair tested otherwise.
pub(super) fn query_few<W: Rest>(
    table: &[u64],
    queries: &[W],
    runs: &[(usize, usize)],
    far: bool,
) -> u64 {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if far => {
            // SAFETY: `isa()` picks `Avx512` only where the processor has `avx512f`.
            unsafe { x86::few_avx512(table, queries, runs) }
        }
        _ => few_any(table, queries, runs),
    }
}

/// [`query_few`] for any processor: each query against each table pattern.
pub(super) fn few_any<W: Rest>(table: &[u64], queries: &[W], runs: &[(usize, usize)]) -> u64 {
    let mut total = 0;
    for &(from, to) in runs {
        for q in queries[from..to].iter().map(|q| q.wide()) {
            total += table.iter().map(|&p| u64::from(p & q == 0)).sum::<u64>();
        }
    }
    total
}
