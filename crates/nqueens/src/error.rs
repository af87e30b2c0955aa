//! The runner's error, which the library's public functions return: every way a count can be
//! refused or fail, as values. It sits just below the runner: the layers under it have their
//! own errors (board size, shard, constrained board, plan, journal), which it holds.
//!
//! Messages speak of the values involved (board sizes, depths, bytes, threads). A few remedies
//! name the program's flag, the one way to give what they ask for from the command line: a
//! smaller `--split-depth` here ([`MemoryAdvice::SplitDepthNeeds`]), and in the files'
//! refusals the `--key`, `--board`, `--allowed` and `--piece` a file was written with. The
//! command line adds its own words where other flags are meant.

use crate::board::SizeError;
use crate::constraint::BoardError;
use crate::persist::JournalError;
use crate::plan::PlanError;
use crate::shard::{Shard, ShardError};
use crate::system::Bytes;

/// Everything that can go wrong in the library.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The board size (given) is outside 1..=32.
    #[error("{}", SizeError(*.0))]
    BoardSize(usize),
    /// A plan that cannot be made as asked (split depth, size of the plan, join limits).
    #[error(transparent)]
    Plan(PlanError),
    /// A count would not fit in the available memory: the join algorithm's lists or
    /// buffers, or the bookkeeping of a plan's subproblems.
    #[error(
        "the {algorithm} algorithm needs about {needed} for n = {n} on {threads} thread{}, but only {available} is available; {advice}",
        plural(*.threads)
    )]
    Memory {
        /// Board size.
        n: usize,
        /// The plan's algorithm.
        algorithm: crate::plan::Algorithm,
        /// Threads asked for.
        threads: usize,
        /// Estimated need.
        needed: Bytes,
        /// Available memory.
        available: Bytes,
        /// What would fit.
        advice: MemoryAdvice,
    },
    /// A thread count past the supported bound.
    #[error("{asked} threads is too many: at most {max} are supported")]
    Threads {
        /// Asked for.
        asked: usize,
        /// The bound.
        max: usize,
    },
    /// A shard that does not exist.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// Resumed subproblems that are not part of the run.
    #[error("subproblem {id} is not part of this run (its plan has {subproblems} subproblems{})", .shard.map_or(String::new(), |s| format!(", shard {s}")))]
    ForeignSubproblem {
        /// The subproblem's id.
        id: u64,
        /// Subproblems of the plan.
        subproblems: usize,
        /// The run's shard.
        shard: Option<Shard>,
    },
    /// A resumed subproblem counted under another cut of the plan (another slice time): its
    /// id names other work in this run's cut ([`crate::plan::Cut`]).
    #[error(
        "subproblem {id} was counted under another cut of the plan: it is entry {}, slice {} of {}, where this run's is entry {}, slice {} of {} (resume from its run's checkpoint, which records the cut)",
        .theirs.0, .theirs.1, .theirs.2, .ours.0, .ours.1, .ours.2
    )]
    OtherCut {
        /// The subproblem's id.
        id: u64,
        /// The entry, slice and number of slices it names.
        theirs: (u64, u64, u64),
        /// Those this run's cut gives its id.
        ours: (u64, u64, u64),
    },
    /// A resumed subproblem whose count passes what its subproblem can hold.
    #[error("subproblem {id} claims {count} solutions, more than it can hold ({bound})")]
    ImpossibleCount {
        /// The subproblem's id.
        id: u64,
        /// Its count.
        count: u128,
        /// The most its subproblem can count (`crate::Plan::count_bound`).
        bound: u128,
    },
    /// A subproblem counted again gave another count than its file claims.
    #[error("{}subproblem {id} claims {claimed} solutions, but counted again it has {counted}: the file was altered or its count went wrong", .file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
    Recount {
        /// The subproblem's id.
        id: u64,
        /// The count the file gives.
        claimed: u128,
        /// The count found again.
        counted: u128,
        /// The file the subproblem came from, if any.
        file: Option<std::path::PathBuf>,
    },
    /// A stop (a signal) ended a recount before it was done.
    #[error("the recount was interrupted")]
    RecountInterrupted,
    /// A checkpoint or result file that cannot be used or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// Complete sums that fail the check of Burnside's lemma: an altered subproblem was resumed or
    /// merged, or the machine miscounted.
    #[error(
        "the counts of n = {n} fail the Burnside check (Q + P + 2R = {total} + {half_turn} + 2 x {quarter_turn} must be a multiple of 8, with P >= R): a resumed subproblem was altered or the machine miscounted; {}",
        match .checkpoint {
            Some(path) => format!("the checkpoint {} holds every subproblem, this run's too: count again without it", path.display()),
            None => "count again".to_string(),
        }
    )]
    Integrity {
        /// Board size.
        n: usize,
        /// The checkpoint the subproblems were resumed from and saved to, if any.
        checkpoint: Option<std::path::PathBuf>,
        /// Q.
        total: u128,
        /// P.
        half_turn: u128,
        /// R.
        quarter_turn: u128,
    },
    /// An estimate timed no subproblem within its budget.
    #[error(
        "no subproblem finished within the {seconds} s the estimate may take: its subproblems are too long to sample"
    )]
    NothingSampled {
        /// The budget in seconds.
        seconds: u64,
    },
    /// An estimate was stopped (a signal) before any subproblem finished.
    #[error("the estimate was interrupted before any subproblem finished")]
    EstimateInterrupted,
    /// A constrained board that is not one (built from parts, not read from a file), or
    /// whose count could pass the exact range of the sums.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// The thread pool could not be started: why, as the system said it.
    #[error("cannot start the worker threads: {0}")]
    ThreadPool(String),
}

impl Error {
    /// Whether the request was refused as asked (a board, an algorithm, a split depth, a
    /// thread count or a shard that cannot be), rather than failing while it ran: a caller
    /// reports it as a usage error. Every variant is classed here, so a new one must be.
    pub fn is_refusal(&self) -> bool {
        match self {
            Error::BoardSize(_)
            | Error::Plan(_)
            | Error::Threads { .. }
            | Error::Shard(_)
            | Error::Board(_) => true,
            Error::Memory { .. }
            | Error::ForeignSubproblem { .. }
            | Error::OtherCut { .. }
            | Error::ImpossibleCount { .. }
            | Error::Recount { .. }
            | Error::RecountInterrupted
            | Error::Journal(_)
            | Error::Integrity { .. }
            | Error::NothingSampled { .. }
            | Error::ThreadPool(_)
            | Error::EstimateInterrupted => false,
        }
    }

    /// Whether a stop (a signal) ended the work before it gave anything.
    pub fn is_interruption(&self) -> bool {
        matches!(self, Error::EstimateInterrupted | Error::RecountInterrupted)
    }
}

impl From<PlanError> for Error {
    /// The plan's error, with a board size or a board refused where the crate's error keeps
    /// them.
    fn from(e: PlanError) -> Error {
        match e {
            PlanError::BoardSize(e) => Error::BoardSize(e),
            PlanError::Board(e) => Error::Board(e),
            e => Error::Plan(e),
        }
    }
}

/// What fits when the join algorithm's memory does not.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryAdvice {
    /// At most this many threads fit.
    Threads(usize),
    /// Not even one thread fits: another algorithm is needed.
    OtherAlgorithm,
    /// Not even one thread fits, and no other algorithm ends in reasonable time: one thread
    /// needs about this much.
    OneThreadNeeds(Bytes),
    /// The bookkeeping of the count's subproblems does not fit: a shard of this many would.
    Shards(u64),
    /// Building the plan alone needs about this much, in every process of a shard set.
    PlanNeeds(Bytes),
    /// This many threads would fit in this many shards (their bookkeeping shared out).
    ThreadsInShards {
        /// Threads that fit.
        threads: usize,
        /// Shards their bookkeeping fits in.
        shards: u64,
    },
    /// Building the plan of the split depth chosen needs about this much.
    SplitDepthNeeds {
        /// The depth chosen.
        depth: usize,
        /// What its plan takes while it is built.
        bytes: Bytes,
    },
}

/// The plural ending for `count` things.
fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

impl std::fmt::Display for MemoryAdvice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryAdvice::Threads(1) => f.write_str("one thread would fit"),
            MemoryAdvice::Threads(t) => write!(f, "{t} threads would fit"),
            MemoryAdvice::OtherAlgorithm => {
                f.write_str("not even one thread fits: the symmetry algorithm needs little memory")
            }
            MemoryAdvice::OneThreadNeeds(b) => {
                write!(f, "not even one thread fits: one thread needs about {b}")
            }
            MemoryAdvice::PlanNeeds(b) => write!(
                f,
                "building its plan alone needs about {b}, in every shard: give the process that much"
            ),
            MemoryAdvice::ThreadsInShards { threads, shards } => write!(
                f,
                "{threads} thread{} would fit, with the count cut into {shards} shards",
                plural(*threads)
            ),
            MemoryAdvice::SplitDepthNeeds { depth, bytes } => write!(
                f,
                "building its plan of split depth {depth} alone needs about {bytes}: choose a smaller --split-depth"
            ),
            MemoryAdvice::Shards(s) => write!(
                f,
                "the bookkeeping of its subproblems does not fit: cut the count into {s} shards"
            ),
        }
    }
}

impl From<rayon::ThreadPoolBuildError> for Error {
    /// The pool's error as words: no third-party type in the library's public API.
    fn from(e: rayon::ThreadPoolBuildError) -> Error {
        Error::ThreadPool(e.to_string())
    }
}

impl From<SizeError> for Error {
    fn from(e: SizeError) -> Error {
        Error::BoardSize(e.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_interruptions_and_failures_are_told_apart() {
        let refused = [
            Error::from(crate::board::validate(0).unwrap_err()),
            Error::from(PlanError::BoardNeeded),
            Error::from(PlanError::from(crate::board::validate(40).unwrap_err())),
            Error::Threads { asked: 9, max: 8 },
        ];
        for e in &refused {
            assert!(e.is_refusal() && !e.is_interruption(), "{e}");
        }
        // A plan's board size arrives as the crate's own board-size error.
        assert!(matches!(refused[2], Error::BoardSize(_)));
        assert!(Error::EstimateInterrupted.is_interruption());
        assert!(!Error::EstimateInterrupted.is_refusal());
        let failed = Error::NothingSampled { seconds: 5 };
        assert!(!failed.is_refusal() && !failed.is_interruption());
    }
}
