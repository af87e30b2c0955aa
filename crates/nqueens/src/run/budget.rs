//! The memory check of a run: what its engines, its plan and its subproblems' bookkeeping need
//! against the bytes it may use, and, where it does not fit,
//! the advice (fewer threads, more shards, another algorithm) that the refusal carries.

use super::prepared::Prepared;
use crate::error::{Error, MemoryAdvice};
use crate::plan::Plan;
use crate::shard::Shard;
use crate::system::Bytes;
use nqueens_engine::join;

/// What a count may use: its threads, the subproblems it keeps account of, the shards the plan is
/// cut into (1 for a whole count) and the bytes available (unknown: no limit).
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    pub threads: usize,
    pub subproblems: usize,
    /// The shard counted, [`Shard::WHOLE`] for a whole count.
    pub shard: Shard,
    pub available: Option<u64>,
}

/// Bytes of bookkeeping a run keeps for each of its subproblems: the schedule, the progress
/// weights, the finished subproblems and their sums (about 128 bytes).
pub(super) const BYTES_PER_SUBPROBLEM: u64 = 128;

/// Bytes a run of `subproblems` subproblems of `plan` keeps besides its engines: the plan and the
/// subproblems' bookkeeping.
pub(super) fn bookkeeping(plan: &Plan, subproblems: usize) -> u64 {
    plan.bytes()
        .saturating_add((subproblems as u64).saturating_mul(BYTES_PER_SUBPROBLEM))
}

/// Checks a count of `plan` against its [`Budget`]: the join's memory-bounded layout (its
/// threads' buffers), the plan and the bookkeeping of the subproblems. A refusal advises fewer
/// threads, or more shards where the plan's bookkeeping is what does not fit.
pub(super) fn fit_budget(plan: &Plan, budget: Budget) -> Result<(), Error> {
    let Budget {
        threads,
        subproblems,
        shard,
        available,
    } = budget;
    let n = plan.n();
    if Prepared::engine_bytes(plan, threads).is_none() {
        // The kernel's searches need next to nothing; a plan of long searches cut into
        // billions of slices needs its bookkeeping.
        let needs = |subproblems: usize| bookkeeping(plan, subproblems);
        let needed = needs(subproblems);
        return match available {
            Some(available) if needed > available => Err(Error::Memory {
                n,
                algorithm: plan.algorithm(),
                threads,
                needed: Bytes(needed),
                available: Bytes(available),
                advice: match more_shards(plan, shard, |p| needs(p) <= available) {
                    Ok(s) => MemoryAdvice::Shards(shard.count.saturating_mul(s)),
                    Err(largest) => MemoryAdvice::OneThreadNeeds(Bytes(needs(largest))),
                },
            }),
            _ => Ok(()),
        };
    }
    // The threads' buffers and the bookkeeping of the subproblems of this run.
    let needs_for = |t: usize, subproblems: usize| {
        Prepared::engine_bytes(plan, t)
            .unwrap_or(0)
            .saturating_add(bookkeeping(plan, subproblems))
    };
    let Some(available) = available else {
        return Ok(());
    };
    let needed = needs_for(threads, subproblems);
    if needed <= available {
        return Ok(());
    }
    let fits = (1..threads)
        .rev()
        .find(|&t| needs_for(t, subproblems) <= available);
    // Where one thread's buffers fit but the bookkeeping does not, more shards do.
    let more_shards = more_shards(plan, shard, |p| needs_for(threads, p) <= available).ok();
    Err(Error::Memory {
        n,
        algorithm: plan.algorithm(),
        threads,
        needed: Bytes(needed),
        available: Bytes(available),
        advice: match (fits, more_shards) {
            (Some(t), _) => MemoryAdvice::Threads(t),
            (None, Some(s)) => MemoryAdvice::Shards(shard.count.saturating_mul(s)),
            // Fewer threads' buffers fit, and their bookkeeping in more shards (where the
            // kernel's algorithms would take years: on smaller boards they need little).
            (None, None)
                if n > join::MAX_LISTED_N
                    && let Some((t, s)) = fewer_threads_in_shards(
                        threads,
                        |t, p| needs_for(t, p) <= available,
                        |fits| self::more_shards(plan, shard, fits).ok(),
                    ) =>
            {
                MemoryAdvice::ThreadsInShards {
                    threads: t,
                    shards: shard.count.saturating_mul(s),
                }
            }
            // Past the listed boards the kernel's algorithms would take years.
            (None, None) if n > join::MAX_LISTED_N => {
                MemoryAdvice::OneThreadNeeds(Bytes(needs_for(1, 0)))
            }
            (None, None) => MemoryAdvice::OtherAlgorithm,
        },
    })
}

/// The most threads (fewer than `threads`) whose buffers `fit` without bookkeeping, and the
/// shards (`shards_for`) in which their bookkeeping fits too.
fn fewer_threads_in_shards(
    threads: usize,
    fit: impl Fn(usize, usize) -> bool,
    shards_for: impl Fn(&dyn Fn(usize) -> bool) -> Option<u64>,
) -> Option<(usize, u64)> {
    let t = (1..threads).rev().find(|&t| fit(t, 0))?;
    shards_for(&|p| fit(t, p)).map(|s| (t, s))
}

/// The smallest power of two `s` such that cutting `shard` of `plan` (the whole plan for
/// [`Shard::WHOLE`]) into `s` (shards `index + count × j` of `count × s`) leaves no part
/// whose subproblems' bookkeeping does not `fit`. A part owns whole entries of the plan
/// ([`Plan::shard_entries`]), so the largest part is found entry by entry, not as an average
/// (a plan has at most some ten million entries, the units of n = 28). If no cut will do, the
/// subproblems of the largest entry, which no cut divides.
pub(super) fn more_shards(
    plan: &Plan,
    shard: Shard,
    fits: impl Fn(usize) -> bool,
) -> Result<u64, usize> {
    let mut shares = (1..=62).map(|k| 1u64 << k);
    let sizes: Vec<u64> = plan
        .shard_entries(shard)
        .map(|(_, slices)| slices)
        .collect();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let mut parts = Vec::new();
    let mut most = |s: u64| {
        if s as usize >= sizes.len() {
            return largest;
        }
        parts.clear();
        parts.resize(s as usize, 0);
        for (t, &k) in sizes.iter().enumerate() {
            parts[t % s as usize] += k;
        }
        parts.iter().copied().max().unwrap_or(0)
    };
    shares
        .find(|&s| fits(most(s) as usize))
        .ok_or(largest as usize)
}
