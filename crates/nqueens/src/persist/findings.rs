//! What a reading of a count's shard files finds, in the words `merge` and `status` share:
//! which count a file belongs to ([`ShardSet`]), each thing wrong ([`MergeProblem`]) and the
//! files left out ([`Skipped`]). Apart from the merge and the reading, which both use them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::{Journal, JournalError, Problem};
use crate::plan::{Algorithm, PlanError, PlanHash};
use crate::tally::Sums;

/// Which plan and shard count a result file belongs to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShardSet {
    /// Board size.
    pub n: usize,
    /// Algorithm name.
    pub algorithm: String,
    /// Split depth.
    pub split_depth: usize,
    /// Plan hash.
    pub plan: PlanHash,
    /// Shard count.
    pub shards: u64,
}

impl ShardSet {
    /// The plan most of `journals` share, so that a stray file listed first cannot make every
    /// good one look foreign (ties go to the first file's plan); `None` for no journal.
    pub(crate) fn most_common<'a>(journals: impl Iterator<Item = &'a Journal>) -> Option<ShardSet> {
        let mut votes: BTreeMap<ShardSet, (usize, usize)> = BTreeMap::new();
        for (i, j) in journals.enumerate() {
            votes.entry(ShardSet::of(j)).or_insert((0, i)).0 += 1;
        }
        votes
            .into_iter()
            .max_by_key(|&(_, (count, first))| (count, std::cmp::Reverse(first)))
            .map(|(k, _)| k)
    }

    pub(crate) fn of(j: &Journal) -> ShardSet {
        ShardSet {
            n: j.n,
            algorithm: j.algorithm.clone(),
            split_depth: j.split_depth,
            plan: j.plan,
            shards: j.shard.map_or(0, |s| s.count),
        }
    }
}

impl fmt::Display for ShardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "n = {}, {}, split depth {}, {} shards (plan {})",
            self.n, self.algorithm, self.split_depth, self.shards, self.plan
        )
    }
}

/// What to say when two sets of shards are of the same board and shard count under two plans:
/// files of an earlier release's plan (an even join board counted before the quarter turns,
/// format version 2) merge only with their own.
fn same_board(theirs: &ShardSet, ours: &ShardSet) -> &'static str {
    let same = ShardSet {
        plan: ours.plan,
        ..theirs.clone()
    };
    if same == *ours {
        "; the same board under another plan (shards begun by another release): merge each \
         plan's shards apart, and count a plan's missing shards with the release that began it"
    } else {
        ""
    }
}

/// One reason a set of shard files does not merge.
#[derive(Debug, thiserror::Error)]
pub enum MergeProblem {
    /// A file that cannot be read or checked on its own.
    #[error("damaged: {0}")]
    Unreadable(JournalError),
    /// A checkpoint, or another file that is no shard's result.
    #[error("not a shard result: {} (a {kind} file)", .path.display())]
    NotShardResult {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: String,
    },
    /// Nothing readable was given.
    #[error("no readable shard result among the files")]
    NoShards,
    /// The files name an algorithm this program does not know.
    #[error("{}: the shards name an unknown algorithm '{name}'", .path.display())]
    UnknownAlgorithm {
        /// A file naming it.
        path: PathBuf,
        /// The name.
        name: String,
    },
    /// The files name a plan this program cannot build.
    #[error("the shards name an impossible plan: {0}")]
    ImpossiblePlan(PlanError),
    /// A board was given for shards of the empty board, or none for a constrained board's.
    #[error("{}", if *.board_given {
        "the shards count the empty board, not the board given: merge them without --board, --allowed and --piece"
    } else {
        "the shards count a constrained board: give the --board, --allowed and --piece they were counted with"
    })]
    BoardMismatch {
        /// Whether `--board`/`--allowed`/`--piece` was given.
        board_given: bool,
    },
    /// The constrained board given makes another plan than the shards'.
    #[error(
        "the shards were counted for another board (their plan {theirs}, the board given makes \
         {ours}): give the --board, --allowed and --piece they were counted with"
    )]
    OtherBoard {
        /// The shards' plan hash.
        theirs: PlanHash,
        /// The plan hash of the board given.
        ours: PlanHash,
    },
    /// The files were written by a program that plans differently.
    #[error(
        "the shards' plan {theirs} is not this program's plan {ours} for n = {n}, {algorithm}, split depth {split_depth}: merge with the version that wrote them"
    )]
    OtherPlan {
        /// The files' hash.
        theirs: PlanHash,
        /// This program's.
        ours: PlanHash,
        /// Board size.
        n: usize,
        /// Algorithm.
        algorithm: Algorithm,
        /// Split depth.
        split_depth: usize,
    },
    /// A file of another count (or another shard count) than most of the files.
    #[error("foreign: {} is for {theirs}, not {ours}{}", .path.display(), same_board(.theirs, .ours))]
    Foreign {
        /// The file.
        path: PathBuf,
        /// Its plan.
        theirs: Box<ShardSet>,
        /// The plan most files share.
        ours: Box<ShardSet>,
    },
    /// A file that does not check against the plan.
    #[error("damaged: shard {index}: {}: {problem}", .path.display())]
    Damaged {
        /// Its shard index.
        index: u64,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: Problem,
    },
    /// A shard with no complete result file: its fullest file, a checkpoint or the result of
    /// a run that stopped, holds fewer than its subproblems, or a checkpoint holds them all but
    /// no result file was written.
    #[error("partial: shard {index}: {}", partial_words(.path, *.have, *.want, *.checkpoint))]
    Partial {
        /// Its shard index.
        index: u64,
        /// Its fullest file.
        path: PathBuf,
        /// Subproblems in the file.
        have: usize,
        /// Subproblems the shard owns.
        want: usize,
        /// Whether the file is a checkpoint.
        checkpoint: bool,
    },
    /// Two result files of the same shard (replicas, from two runs) that disagree.
    #[error(
        "replicas differ: shard {index}: {} and {} disagree at entry {entry} ({} against {} \
         solutions): at least one is wrong; count the shard again",
        .first.display(), .second.display(), .counts.0, .counts.1
    )]
    ReplicasDiffer {
        /// Its shard index.
        index: u64,
        /// The first file.
        first: PathBuf,
        /// The file that differs from it.
        second: PathBuf,
        /// The first entry they disagree on.
        entry: u64,
        /// Its count in each.
        counts: (u128, u128),
    },
    /// Complete sums that fail the check of Burnside's lemma ([`Sums::burnside_holds`]).
    #[error(
        "the merged counts fail the Burnside check (Q + P + 2R = {} + {} + 2 x {} must be a multiple of 8, with P >= R): a shard's subproblems were altered or miscounted; recount the shards",
        .0.total, .0.half_turn, .0.quarter_turn
    )]
    Integrity(Sums),
    /// Shards with no good file.
    #[error(
        "missing: shard{} {} of {count} (resubmit {})",
        if .shards.len() == 1 { "" } else { "s" },
        crate::shard::Shard::ranges(.shards),
        if .shards.len() == 1 { "it" } else { "them" }
    )]
    Missing {
        /// The missing indices, increasing.
        shards: Vec<u64>,
        /// Shards in all.
        count: u64,
    },
}

/// What a partial shard's file says, as `merge` and `status` both word it.
pub(crate) fn partial_words(path: &Path, have: usize, want: usize, checkpoint: bool) -> String {
    let file = path.display();
    match (checkpoint, have >= want) {
        (true, true) => format!(
            "its checkpoint {file} is complete, but the shard has no good result file: rerun it \
             to write it"
        ),
        (true, false) => format!(
            "its checkpoint {file} has {have} of its {want} subproblems: rerun the shard to \
             finish it"
        ),
        (false, _) => format!(
            "its result file {file} has {have} of its {want} subproblems: rerun the shard to \
             finish it"
        ),
    }
}

impl MergeProblem {
    /// The shard this problem is of, where it names one to count again: a damaged file's, a
    /// replica's that disagrees, a partial one.
    pub fn shard(&self) -> Option<u64> {
        match self {
            MergeProblem::Damaged { index, .. }
            | MergeProblem::ReplicasDiffer { index, .. }
            | MergeProblem::Partial { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// Every problem of a refused merge, and the files it skipped.
#[derive(Debug)]
pub struct MergeProblems(pub(crate) Vec<MergeProblem>, pub(crate) Vec<Skipped>);

impl MergeProblems {
    /// Each problem in one line, as the merge's refusal says it.
    pub fn messages(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }

    /// The files the merge left out as no shard results.
    pub fn skipped(&self) -> &[Skipped] {
        &self.1
    }

    /// Whether the files hold no shard's journal at all and nothing damaged: no shard of the
    /// count has written a file yet (an empty folder, or one of other files alone).
    pub fn nothing_begun(&self) -> bool {
        matches!(self.0[..], [MergeProblem::NoShards])
    }
}

/// A file a merge read and left out, as no shard result: a checkpoint (a gnu-parallel or
/// Slurm folder keeps one beside each shard's result), or a file that is no journal of this
/// program at all (the merge's own JSON output).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Whether it is a checkpoint (else no journal at all).
    pub checkpoint: bool,
}

impl fmt::Display for MergeProblems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages().join("\n"))
    }
}

impl std::error::Error for MergeProblems {}
