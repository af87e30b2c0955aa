//! Why a journal is refused: the errors of reading and writing one ([`JournalError`]) and
//! what can be wrong with its contents ([`Problem`]), each in words that name what to do.

use std::path::{Path, PathBuf};

use super::Shard;
use crate::plan::{Algorithm, PlanHash};

/// Why a journal file was refused or could not be written.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("{path}: could not be saved: {source}")]
    Save {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a journal of this program, is damaged, or belongs to another run.
    #[error("{path}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: Problem,
    },
}

impl JournalError {
    /// What makes a [`JournalError::Read`] of `path` from the system's error.
    pub(crate) fn read(path: &Path) -> impl Fn(std::io::Error) -> JournalError + Copy + '_ {
        |source| JournalError::Read {
            path: path.to_path_buf(),
            source,
        }
    }

    /// What makes a [`JournalError::Invalid`] of `path` from its problem.
    pub(crate) fn invalid(path: &Path) -> impl Fn(Problem) -> JournalError + Copy + '_ {
        |problem| JournalError::Invalid {
            path: path.to_path_buf(),
            problem,
        }
    }

    /// The file it is about.
    pub fn path(&self) -> &Path {
        match self {
            JournalError::Read { path, .. }
            | JournalError::Save { path, .. }
            | JournalError::Invalid { path, .. } => path,
        }
    }
}

/// What is wrong with a journal's contents.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// An empty file.
    #[error("the file is empty, not a checkpoint or result file")]
    Empty,
    /// Not JSON at all, or cut short.
    #[error("not a checkpoint or result file, or truncated ({0})")]
    NotJson(serde_json::Error),
    /// JSON, but not of this program's shape.
    #[error("not a checkpoint or result file of this program ({0})")]
    Foreign(serde_json::Error),
    /// An unknown `format` field.
    #[error("unknown file kind '{0}'")]
    Kind(String),
    /// A version this program does not read.
    #[error(
        "unsupported version {0}: written by a later release of nqueens-count; read it with that release"
    )]
    Version(u32),
    /// Written by format version 1 for a plan it cut into slices, which this version numbers
    /// otherwise.
    #[error(
        "written by format version 1 (nqueens-count 0.1) for plan {file_plan}, which cut entries \
         into slices; this version's plan is {run_plan} and numbers its subproblems otherwise: finish \
         it with the release that wrote it, or count it again"
    )]
    FormatOne {
        /// The file's plan hash.
        file_plan: PlanHash,
        /// This run's plan hash.
        run_plan: PlanHash,
    },
    /// A subproblem of an entry cut otherwise than the plan it is read with.
    #[error(
        "entry {entry} is cut into {file} slices in the file, {run} in the plan it is read with"
    )]
    Cut {
        /// The entry.
        entry: u64,
        /// The file's number of slices.
        file: u64,
        /// The plan's.
        run: u64,
    },
    /// A key was given and the file carries no tag.
    #[error(
        "it carries no keyed tag, though a key was given: it was written without --key, or \
         its tag was removed"
    )]
    Untagged,
    /// The file carries a tag and no key was given to keep it.
    #[error(
        "it carries a keyed tag: give the --key it was written with (going on without it \
         would write the file back untagged)"
    )]
    KeyNeeded,
    /// The file's tag is not the one the key gives its contents.
    #[error(
        "its keyed tag does not match the key: it was rewritten without the key, or tagged \
         with another key"
    )]
    Tag,
    /// The checksum does not match the contents.
    #[error("checksum mismatch: the file was edited or damaged")]
    Checksum,
    /// Subproblems not sorted, repeated, past the plan's entries, or slices that do not fit.
    #[error("subproblems out of order or out of range")]
    Disorder,
    /// Written for another board size.
    #[error("written for n = {file}, not n = {run}")]
    Board {
        /// The file's.
        file: usize,
        /// This run's.
        run: usize,
    },
    /// Written for another algorithm.
    #[error("written for algorithm {file}, not {run}")]
    Algorithm {
        /// The file's.
        file: String,
        /// This run's.
        run: Algorithm,
    },
    /// Written for another plan of the same board and algorithm.
    #[error(
        "written for another plan (split depth {file_depth}, plan {file_plan}); this run's plan is split depth {run_depth}, plan {run_plan}"
    )]
    Plan {
        /// The file's split depth.
        file_depth: usize,
        /// The file's plan hash.
        file_plan: PlanHash,
        /// This run's split depth.
        run_depth: usize,
        /// This run's plan hash.
        run_plan: PlanHash,
    },
    /// The plan's own hash, with another number of entries: an edited file.
    #[error("it claims {file} entries for plan {plan}, which has {run}: the file was edited")]
    Subproblems {
        /// The number the file claims.
        file: u64,
        /// The plan's hash (the file's and this run's).
        plan: PlanHash,
        /// The plan's number.
        run: u64,
    },
    /// Written for another shard, or for a whole run when a shard runs (or the reverse).
    #[error("written for {}, not {}", describe(.file), describe(.run))]
    Shard {
        /// The file's.
        file: Option<Shard>,
        /// This run's.
        run: Option<Shard>,
    },
    /// A subproblem whose count passes what its subproblem can hold (the plan's `count_bound`).
    #[error("subproblem {id} claims {count} solutions, more than it can hold ({bound})")]
    CountTooLarge {
        /// The subproblem.
        id: u64,
        /// Its count as the file gives it.
        count: u128,
        /// The most its subproblem can count.
        bound: u128,
    },
    /// A subproblem outside the file's own shard.
    #[error("entry {entry} does not belong to shard {shard}")]
    NotInShard {
        /// The subproblem's entry.
        entry: u64,
        /// The file's shard.
        shard: Shard,
    },
    /// The sums differ from those of the subproblems.
    #[error("its sums disagree with its subproblems")]
    Sums,
    /// A shard that does not exist: a count of no shards, or an index past the count.
    #[error("it claims shard {0}, which does not exist (the index must be below the count)")]
    NoSuchShard(Shard),
    /// More shards than the plan has entries: every shard past the entries would own nothing.
    #[error("it claims {count} shards of a plan of {entries} entries: at most one shard an entry")]
    ShardCount {
        /// The shard count claimed.
        count: u64,
        /// The plan's entries, as the file claims them.
        entries: u64,
    },
    /// An entry cut into more slices than any run cuts one ([`crate::plan::MOST_SLICES`]).
    #[error("entry {entry} is cut into {of} slices, more than the {most} a run ever cuts")]
    TooManySlices {
        /// The entry.
        entry: u64,
        /// The slices claimed.
        of: u64,
        /// The most a run cuts.
        most: u64,
    },
    /// A file larger than any file of its plan and shard can be: refused unread.
    #[error(
        "it holds {bytes} bytes, more than a file of its plan and shard can hold ({most}): \
         refused unread"
    )]
    TooLarge {
        /// The file's size.
        bytes: u64,
        /// The most a file of its plan and shard holds.
        most: u64,
    },
    /// A large file that does not begin as this program's files do, so its size cannot be
    /// weighed against its plan before it is read.
    #[error(
        "it holds {0} bytes and does not begin as a checkpoint or result file does: refused \
         unread"
    )]
    Unshaped(u64),
}

fn describe(s: &Option<Shard>) -> String {
    match s {
        Some(s) => format!("shard {s}"),
        None => "a whole run".to_string(),
    }
}
