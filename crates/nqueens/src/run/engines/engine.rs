//! The one trait the runner reaches every engine through, apart from the adapters that
//! implement it and from the table of them ([`super::Engines`]), so that each adapter
//! imports the trait and nothing of the others.

use std::sync::atomic::AtomicBool;

use crate::plan::{Slice, Work};
use crate::run::class::Class;

/// How [`Engine::time`] times a slice: `seed` chooses the share of it a probe counts, and
/// the count it stands for runs on `workers` threads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timed {
    /// Chooses the share of the slice a probe counts.
    pub seed: u64,
    /// The threads of the count the time stands for.
    pub workers: usize,
}

/// What the runner needs of the engine that counts one kind of work. An entry of the plan is
/// given as its [`Work`], which the adapter's engine takes apart; each method of an adapter
/// is only ever called with work of its own kind.
pub(crate) trait Engine: Send + Sync + std::fmt::Debug {
    /// Builds what the engine's subproblems share (once per run, on the pool that counts
    /// them), keeping up to `cache` bytes a thread between subproblems.
    fn prepare(&mut self, _cache: usize) {}

    /// Counts `slice` of `work`: its solutions and nodes, or `None` soon after `stop` rose.
    fn count(&self, work: &Work, slice: Slice, stop: &AtomicBool) -> Option<(u128, u64)>;

    /// The seconds counting `slice` of `work` takes on this thread, in a count on `workers`
    /// threads, measured from outside the engine; `None` if `stop` rose first. By default the
    /// count, timed whole.
    fn time(&self, work: &Work, slice: Slice, _how: Timed, stop: &AtomicBool) -> Option<f64> {
        let begun = std::time::Instant::now();
        self.count(work, slice, stop)?;
        Some(begun.elapsed().as_secs_f64())
    }

    /// Whether [`Engine::time`] counts the whole slice, so that a stratum timed in full
    /// carries no error of its own.
    fn times_whole(&self) -> bool {
        true
    }

    /// A rough relative size of a whole entry, for ordering work and weighing the time left.
    fn size(&self, work: &Work) -> f64;

    /// Seconds of one core a whole entry may take, by the engine's measured figures: what
    /// its cut into slices follows.
    fn seconds(&self, work: &Work) -> f64;

    /// The most slices an entry is cut into, where fewer than the cut allows
    /// ([`crate::plan::MOST_SLICES`]).
    fn finest(&self, _work: &Work) -> u64 {
        u64::MAX
    }

    /// The class of an entry ([`Class`]), its slices of size `size` each.
    fn class(&self, work: &Work, size: f64) -> Class;

    /// Whether the time left paces each class of this engine's work apart; otherwise all its
    /// work together.
    fn paced_apart(&self) -> bool {
        true
    }

    /// Which entries share what a thread prepares for them (0: none), so that the schedule
    /// keeps them together.
    fn shares(&self, _work: &Work) -> u32 {
        0
    }

    /// The bytes the engine keeps on `threads` threads, where more than next to nothing.
    fn bytes(&self, _threads: usize) -> Option<u64> {
        None
    }

    /// The bytes each of `threads` threads may keep between subproblems, given `available`.
    fn cache(&self, _threads: usize, _available: Option<u64>) -> usize {
        0
    }

    /// The threads one subproblem can keep busy (a sum shared among the pool's threads).
    fn parts(&self) -> usize {
        1
    }
}
