//! The memory check of a run: what its engines, its plan and its subproblems' bookkeeping need
//! against the bytes it may use, and, where it does not fit,
//! the advice (fewer threads, more shards, another algorithm) that the refusal carries; and
//! the need in its parts ([`MemoryNeeds`]), which an estimate reports instead of refusing.

use super::engines::{Engines, another_algorithm_may_fit};
use crate::error::{Error, MemoryAdvice};
use crate::plan::Cut;
use crate::shard::Shard;
use crate::system::Bytes;

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

/// Bytes a run of `subproblems` subproblems of `cut` keeps besides its engines: the plan, its
/// cut and the subproblems' bookkeeping.
pub(super) fn bookkeeping(cut: &Cut, subproblems: usize) -> u64 {
    cut.bytes()
        .saturating_add((subproblems as u64).saturating_mul(BYTES_PER_SUBPROBLEM))
}

/// Checks a count of `cut` against its [`Budget`]: what its engines keep (the threads'
/// buffers, [`Engines::bytes`]), the plan and the bookkeeping of the subproblems. A refusal
/// advises fewer threads, or more shards where the plan's bookkeeping is what does not fit.
pub(super) fn fit_budget(cut: &Cut, budget: Budget) -> Result<(), Error> {
    let plan = cut.plan();
    let Budget {
        threads,
        subproblems,
        shard,
        available,
    } = budget;
    let n = plan.n();
    let engines = Engines::new(plan);
    if engines.bytes(threads).is_none() {
        // The kernel's searches need next to nothing; a plan of long searches cut into
        // billions of slices needs its bookkeeping.
        let needs = |subproblems: usize| bookkeeping(cut, subproblems);
        let needed = needs(subproblems);
        return match available {
            Some(available) if needed > available => Err(Error::Memory {
                n,
                algorithm: plan.algorithm(),
                threads,
                needed: Bytes(needed),
                available: Bytes(available),
                advice: match more_shards(cut, shard, |p| needs(p) <= available) {
                    Ok(s) => MemoryAdvice::Shards(shard.count.saturating_mul(s)),
                    Err(largest) => MemoryAdvice::OneThreadNeeds(Bytes(needs(largest))),
                },
            }),
            _ => Ok(()),
        };
    }
    // The threads' buffers and the bookkeeping of the subproblems of this run.
    let needs_for = |t: usize, subproblems: usize| {
        engines
            .bytes(t)
            .unwrap_or(0)
            .saturating_add(bookkeeping(cut, subproblems))
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
    let more_shards = more_shards(cut, shard, |p| needs_for(threads, p) <= available).ok();
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
                if !another_algorithm_may_fit(n)
                    && let Some((t, s)) = fewer_threads_in_shards(
                        threads,
                        |t, p| needs_for(t, p) <= available,
                        |fits| self::more_shards(cut, shard, fits).ok(),
                    ) =>
            {
                MemoryAdvice::ThreadsInShards {
                    threads: t,
                    shards: shard.count.saturating_mul(s),
                }
            }
            // Past the listed boards the kernel's algorithms would take years.
            (None, None) if !another_algorithm_may_fit(n) => {
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

/// The smallest power of two `s` such that cutting `shard` of `cut` (the whole plan for
/// [`Shard::WHOLE`]) into `s` (shards `index + count × j` of `count × s`) leaves no part
/// whose subproblems' bookkeeping does not `fit`. A part owns whole entries of the plan
/// ([`Cut::shard_entries`]), so the largest part is found entry by entry, not as an average
/// (a plan has at most some ten million entries, the units of n = 28). If no cut will do, the
/// subproblems of the largest entry, which no cut divides.
pub(super) fn more_shards(
    cut: &Cut,
    shard: Shard,
    fits: impl Fn(usize) -> bool,
) -> Result<u64, usize> {
    let mut shares = (1..=62).map(|k| 1u64 << k);
    let sizes: Vec<u64> = cut.shard_entries(shard).map(|(_, slices)| slices).collect();
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

/// What a count needs in memory by the model, in the parts that grow with its threads and with
/// its subproblems, so that an estimate can say what one thread, one shard and the whole count
/// need, and what fits the bytes available ([`crate::Job::memory_needs`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryNeeds {
    /// Threads of the count.
    pub threads: usize,
    /// The engines' bytes on all of them (with the partitions each thread may keep).
    pub engines: u64,
    /// What one thread adds to `engines`.
    pub per_thread: u64,
    /// Bytes of the plan and its cut (every shard holds them).
    pub plan: u64,
    /// Bytes of bookkeeping a run keeps for each subproblem.
    pub per_subproblem: u64,
    /// Subproblems this run counts (this shard's, for a shard).
    pub subproblems: usize,
    /// Subproblems of the whole count.
    pub whole_subproblems: usize,
    /// The bytes this process may use (`--memory`, a control group, a resource limit, the
    /// memory free), when known.
    pub available: Option<u64>,
    /// Where the run does not fit `available`: what would ([`MemoryAdvice`]).
    pub advice: Option<MemoryAdvice>,
}

impl MemoryNeeds {
    /// Bytes this run needs: the engines, the plan and the bookkeeping of its subproblems.
    pub fn run(&self) -> u64 {
        self.with_subproblems(self.subproblems as u64)
    }

    /// Bytes the whole count needs in one process.
    pub fn whole(&self) -> u64 {
        self.with_subproblems(self.whole_subproblems as u64)
    }

    /// Bytes each of `parts` shards of this run needs, their subproblems shared out evenly
    /// (a shard owns whole entries, so the largest may keep a little more).
    pub fn shard(&self, parts: u64) -> u64 {
        self.with_subproblems((self.subproblems as u64).div_ceil(parts.max(1)))
    }

    /// Bytes the engines share, whatever the threads.
    pub fn shared(&self) -> u64 {
        self.engines
            .saturating_sub(self.per_thread.saturating_mul(self.threads as u64))
    }

    fn with_subproblems(&self, subproblems: u64) -> u64 {
        self.engines
            .saturating_add(self.plan)
            .saturating_add(subproblems.saturating_mul(self.per_subproblem))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_needs_add_up_by_thread_shard_and_whole_count() {
        let m = MemoryNeeds {
            threads: 4,
            engines: 1000 + 4 * 300,
            per_thread: 300,
            plan: 50,
            per_subproblem: 128,
            subproblems: 100,
            whole_subproblems: 800,
            available: None,
            advice: None,
        };
        assert_eq!(m.shared(), 1000);
        assert_eq!(m.run(), 2200 + 50 + 100 * 128);
        assert_eq!(m.whole(), 2200 + 50 + 800 * 128);
        // Shares rounded up: 100 subproblems in 3 shards keep 34 each at most.
        assert_eq!(m.shard(3), 2200 + 50 + 34 * 128);
        assert_eq!(m.shard(1), m.run());
        assert_eq!(m.shard(0), m.run());
    }

    #[test]
    fn a_job_reports_what_its_count_needs_and_what_fits() {
        let job = crate::Job::new(&crate::Config::new(20).threads(4)).unwrap();
        let m = job.memory_needs();
        assert_eq!(m.threads, 4);
        assert_eq!(m.subproblems, m.whole_subproblems);
        assert!(m.per_thread > 0 && m.shared() > 0, "{m:?}");
        // Under a budget of 1 MiB the run does not fit, and the advice says what would.
        let limited = crate::Job::new(&crate::Config::new(20).threads(4).memory(1 << 20)).unwrap();
        let m = limited.memory_needs();
        assert_eq!(m.available, Some(1 << 20));
        assert!(m.advice.is_some(), "{m:?}");
        // A shard keeps the bookkeeping of its own subproblems only.
        let shard = crate::Job::new(&crate::Config::new(20).threads(4))
            .unwrap()
            .shard(Shard::new(0, 8).unwrap());
        let m = shard.memory_needs();
        assert!(m.subproblems < m.whole_subproblems);
        assert!(m.run() < m.whole());
    }
}
