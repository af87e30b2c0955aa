//! What a run returns: every finished subproblem of its share and their sums ([`Outcome`]), and
//! the counts of a whole count made from them ([`Counts`]).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::plan::Algorithm;
use crate::shard::Shard;
use crate::tally::{Counted, Sums};

/// What a run did: every finished subproblem of its share (resumed ones included) and their sums.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Board size.
    pub n: usize,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Subproblems in the whole plan.
    pub subproblems: usize,
    /// The plan's split depth.
    pub split_depth: usize,
    /// The shard covered, if any.
    pub shard: Option<Shard>,
    /// Every finished subproblem of the run's share, by id.
    pub counted: BTreeMap<u64, Counted>,
    /// Their sums.
    pub sums: Sums,
    /// The unique count, when the plan makes one and the whole count is done.
    pub unique: Option<u128>,
    /// Nodes of the subproblems this run counted (resumed ones not included).
    pub nodes: u128,
    /// Subproblems this run counted.
    pub fresh: usize,
    /// Whether every subproblem of the share is done.
    pub complete: bool,
    /// Whether the run was cancelled before the end.
    pub cancelled: bool,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Time each worker spent inside subproblems.
    pub busy: Vec<Duration>,
    /// The process's peak resident memory at the end of the run, where the system tells it.
    pub peak_memory: Option<u64>,
    /// Why the checkpoint's last save failed, when it did: the counts are whole, but the file
    /// holds the last good save (or what the run resumed from).
    pub unsaved: Option<std::sync::Arc<crate::persist::JournalError>>,
}

impl Outcome {
    /// The counts of a whole, finished count (`None` for a shard or an unfinished run).
    pub fn counts(&self) -> Option<Counts> {
        (self.complete && self.shard.is_none()).then(|| Counts {
            n: self.n,
            total: self.sums.total,
            unique: self.unique,
            nodes: self.nodes,
            algorithm: self.algorithm,
            subproblems: self.subproblems,
            split_depth: self.split_depth,
            threads: self.threads,
            elapsed: self.elapsed,
            busy: self.busy.clone(),
            peak_memory: self.peak_memory,
        })
    }
}

/// The result of a whole count.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    /// Board size.
    pub n: usize,
    /// Number of solutions (OEIS A000170).
    pub total: u128,
    /// Number of solutions up to rotation and reflection (OEIS A002562), when the algorithm
    /// computes it.
    pub unique: Option<u128>,
    /// Search nodes visited by this run (resumed subproblems not included).
    pub nodes: u128,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Subproblems in the plan.
    pub subproblems: usize,
    /// Rows the plan pre-placed.
    pub split_depth: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Wall-clock time of the count.
    pub elapsed: Duration,
    /// Time each worker spent inside subproblems.
    pub busy: Vec<Duration>,
    /// The process's peak resident memory after the count, in bytes, when known.
    pub peak_memory: Option<u64>,
}

impl Counts {
    /// Nodes per second of wall-clock time.
    pub fn nodes_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.nodes as f64 / s } else { 0.0 }
    }
}
