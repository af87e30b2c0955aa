//! Where a sharded count stands: its folder of shard results and checkpoints read as a whole,
//! by the same reading as the merge's (`persist::read_shards`), so that `status` and `merge`
//! give every shard the same verdict: done, partial, missing or damaged; with the share of the
//! work done and left, the CPU time the done shards took and the time left at their rate, and
//! the shards to count again.

use std::path::PathBuf;

use super::rules::file_rules;
use crate::constraint::Board;
use crate::persist::{
    Key, MergeProblem, MergeProblems, Reading, Skipped, Tags, Verdict, read_shards,
};
use crate::plan::{Algorithm, PlanHash};
use crate::tally::Sums;

/// Where the shards of one count stand.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct Survey {
    /// Board size.
    pub n: usize,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// The plan's hash.
    pub plan: PlanHash,
    /// Shards in all.
    pub shards: u64,
    /// The shards whose result file holds every subproblem, increasing.
    pub done: Vec<u64>,
    /// The shards with no complete result file and a checkpoint (or the result of a run that
    /// stopped) of some of their subproblems: `(index, subproblems done, subproblems the shard
    /// owns)`, by index. Done and owned are equal for a shard whose checkpoint is complete
    /// but whose result file was never written (or is gone): `merge` does not count it
    /// either, and a rerun of the shard writes it.
    pub partial: Vec<(u64, usize, usize)>,
    /// The shards with no good file, increasing.
    pub missing: Vec<u64>,
    /// The files that are damaged, belong to another count, or are replicas that disagree
    /// with the shard's first done file, with why.
    pub damaged: Vec<DamagedFile>,
    /// The done shards with more than one done file (replicas), each with its number of
    /// done files, by index.
    pub replicas: Vec<(u64, usize)>,
    /// The files left out: checkpoints of no shard, files that are no journals.
    pub skipped: Vec<Skipped>,
    /// The sums of the done shards and the partial ones.
    pub sums: Sums,
    /// Seconds the done shards took, added up, and how many of them said.
    pub done_seconds: (f64, usize),
    /// CPU seconds the done shards took (their seconds times their threads), added up over
    /// those that said their seconds.
    pub cpu_seconds: f64,
    /// How many of those did not record their threads (files of earlier releases): each is
    /// taken as one thread.
    pub threads_unknown: usize,
    /// The shards' work still to do, in shards: the missing ones, and the part of each
    /// partial one not done.
    pub shards_left: f64,
    /// Subproblems in the count's files (done and partial shards).
    pub subproblems_done: u64,
    /// Subproblems of the whole count, as the files cut their entries and a run of this
    /// release would cut the others.
    pub subproblems: u64,
    /// The shards to count again, increasing: the missing and partial ones, and those of a
    /// damaged file or a replica that disagrees.
    pub resubmit: Vec<u64>,
    /// What the keyed tags of the files showed, as `merge` says it.
    pub tags: Tags,
}

/// A file `status` names as damaged.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedFile {
    /// The file.
    pub path: PathBuf,
    /// Its shard, when the file says which and is to be counted again.
    pub shard: Option<u64>,
    /// What is wrong.
    pub why: String,
}

impl Survey {
    /// Reads `files` (shard results and checkpoints of one count; see
    /// [`crate::persist::Journal::files_in`] for folders) and says where each shard stands:
    /// what `status` shows, with the verdict `merge` gives each shard. The count is the one
    /// most files belong to; `board` rebuilds a constrained board's plan; with `key`, every
    /// file must carry its tag (one that does not is damaged). `Err` when no file is a
    /// shard's journal ([`MergeProblems::nothing_begun`] tells an empty folder), or its plan
    /// cannot be built here.
    pub fn of(
        files: &[PathBuf],
        board: Option<&Board>,
        key: Option<&Key>,
    ) -> Result<Survey, MergeProblems> {
        let reading = read_shards(files, board, Some(file_rules()), key)
            .map_err(|(p, skipped)| MergeProblems(p, skipped))?;
        Ok(survey(&reading, key.is_some()))
    }

    /// Whether every shard is done and no file is damaged: what `merge` needs.
    pub fn complete(&self) -> bool {
        self.done.len() as u64 == self.shards && self.damaged.is_empty()
    }

    /// Shard-seconds left at the done shards' mean time, when some said how long they took
    /// (none when every shard is done).
    pub fn seconds_left(&self) -> Option<f64> {
        let (seconds, timed) = self.done_seconds;
        if self.done.len() as u64 == self.shards {
            return Some(0.0);
        }
        (timed > 0).then(|| seconds / timed as f64 * self.shards_left)
    }

    /// CPU seconds left at the done shards' mean CPU time, when some said how long they took
    /// (none when every shard is done).
    pub fn cpu_seconds_left(&self) -> Option<f64> {
        let timed = self.done_seconds.1;
        if self.done.len() as u64 == self.shards {
            return Some(0.0);
        }
        (timed > 0).then(|| self.cpu_seconds / timed as f64 * self.shards_left)
    }

    /// The share of the count's subproblems done, 0 to 1.
    pub fn share_done(&self) -> f64 {
        if self.subproblems == 0 {
            return 1.0;
        }
        (self.subproblems_done as f64 / self.subproblems as f64).min(1.0)
    }
}

/// Where the shards of `reading` stand.
fn survey(reading: &Reading, key_given: bool) -> Survey {
    let plan = reading.cut.plan();
    let damaged = reading
        .problems
        .iter()
        .map(|p| DamagedFile {
            path: problem_file(p).unwrap_or_default(),
            shard: p.shard(),
            why: problem_words(p),
        })
        .collect();
    let mut survey = Survey {
        n: plan.n(),
        algorithm: plan.algorithm(),
        plan: reading.reference.plan,
        shards: reading.reference.shards,
        done: Vec::new(),
        partial: Vec::new(),
        missing: Vec::new(),
        damaged,
        replicas: Vec::new(),
        skipped: reading.skipped.clone(),
        sums: Sums::default(),
        done_seconds: (0.0, 0),
        cpu_seconds: 0.0,
        threads_unknown: 0,
        shards_left: 0.0,
        subproblems_done: 0,
        subproblems: reading.cut.len() as u64,
        resubmit: reading.resubmit(),
        tags: match (key_given, reading.tagged) {
            (true, _) => Tags::Checked,
            (false, true) => Tags::NotChecked,
            (false, false) => Tags::None,
        },
    };
    for index in 0..reading.reference.shards {
        match reading.verdict(index) {
            Verdict::Done(copies) => {
                survey.done.push(index);
                if copies.len() > 1 {
                    survey.replicas.push((index, copies.len()));
                }
                let j = &copies[0].1;
                survey.sums.merge(j.sums());
                survey.subproblems_done += j.counted_len() as u64;
                let number = |name: &str| j.meta().get(name).and_then(|s| s.parse::<f64>().ok());
                if let Some(s) = number("seconds").filter(|s| s.is_finite() && *s >= 0.0) {
                    let threads = number("threads").filter(|t| t.is_finite() && *t >= 1.0);
                    survey.threads_unknown += usize::from(threads.is_none());
                    survey.done_seconds.0 += s;
                    survey.done_seconds.1 += 1;
                    survey.cpu_seconds += s * threads.unwrap_or(1.0);
                }
            }
            Verdict::Partial(p) => {
                survey.partial.push((index, p.have, p.want));
                survey.sums.merge(&p.sums);
                survey.subproblems_done += p.have as u64;
                if p.want > 0 {
                    survey.shards_left += 1.0 - (p.have as f64 / p.want as f64).min(1.0);
                }
            }
            Verdict::Missing => {
                survey.missing.push(index);
                survey.shards_left += 1.0;
            }
        }
    }
    survey
}

/// The file a problem is about, if one.
fn problem_file(p: &MergeProblem) -> Option<PathBuf> {
    Some(match p {
        MergeProblem::Unreadable(e) => e.path().to_path_buf(),
        MergeProblem::NotShardResult { path, .. }
        | MergeProblem::Foreign { path, .. }
        | MergeProblem::Damaged { path, .. }
        | MergeProblem::Partial { path, .. } => path.clone(),
        MergeProblem::ReplicasDiffer { second, .. } => second.clone(),
        _ => return None,
    })
}

/// A problem's words without the file it names first (the status names the file).
fn problem_words(p: &MergeProblem) -> String {
    match p {
        MergeProblem::Unreadable(e) => strip(&e.to_string(), e.path()),
        MergeProblem::NotShardResult { kind, .. } => format!("not a shard result (a {kind} file)"),
        MergeProblem::Foreign { theirs, .. } => format!("of another count: {theirs}"),
        MergeProblem::Damaged { problem, .. } => problem.to_string(),
        MergeProblem::ReplicasDiffer {
            index,
            first,
            entry,
            counts: (ours, theirs),
            ..
        } => format!(
            "a replica of shard {index} that disagrees with {} at entry {entry} ({theirs} \
             against {ours} solutions): count the shard again",
            first.display()
        ),
        other => other.to_string(),
    }
}

/// A journal error's words without the path it starts with (the survey names the file).
fn strip(words: &str, path: &std::path::Path) -> String {
    let prefix = format!("{}: ", path.display());
    words.strip_prefix(&prefix).unwrap_or(words).to_string()
}
