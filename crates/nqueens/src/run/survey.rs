//! Where a sharded count stands: its folder of shard results and checkpoints read as a whole
//! ([`survey`]), shard by shard: done, partial, missing or damaged, with the sum so far and
//! what the finished shards took.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::rules::file_rules;
use super::{CostModel, SLICE_SECONDS, cut};
use crate::constraint::Board;
use crate::persist::{
    Journal, Kind, MergeProblem, MergeProblems, Shard, ShardSet, Skipped, read_journal, read_whole,
    reference_plan,
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
    /// The shards with no result yet and a checkpoint (or a partial result) of some of their
    /// subproblems: `(index, subproblems done, subproblems the shard owns)`, by index.
    pub partial: Vec<(u64, usize, usize)>,
    /// The shards with no good file, increasing.
    pub missing: Vec<u64>,
    /// The files that are damaged or belong to another count, with why (a replica that
    /// disagrees with the shard's first done file among them).
    pub damaged: Vec<(PathBuf, String)>,
    /// The done shards with more than one done file (replicas), each with its number of
    /// done files, by index.
    pub replicas: Vec<(u64, usize)>,
    /// The files left out: checkpoints of no shard, files that are no journals.
    pub skipped: Vec<Skipped>,
    /// The sums of the done shards and the partial ones.
    pub sums: Sums,
    /// Seconds the done shards took, added up, and how many of them said.
    pub done_seconds: (f64, usize),
    /// The shards' work still to do, in shards: the missing ones, and the part of each
    /// partial one not done.
    pub shards_left: f64,
}

impl Survey {
    /// Reads `files` (shard results and checkpoints of one count; see
    /// [`crate::persist::Journal::files_in`] for folders) and says where each shard stands:
    /// what `status` shows. The count is the one most files belong to; `board` rebuilds a
    /// constrained board's plan. `Err` when no file is a shard's journal, or its plan cannot
    /// be built here.
    pub fn of(files: &[PathBuf], board: Option<&Board>) -> Result<Survey, MergeProblems> {
        survey(files, board).map_err(|(p, skipped)| MergeProblems(p, skipped))
    }

    /// Shard-seconds left at the done shards' mean time, when some said how long they took.
    pub fn seconds_left(&self) -> Option<f64> {
        let (seconds, timed) = self.done_seconds;
        (timed > 0).then(|| seconds / timed as f64 * self.shards_left)
    }
}

/// [`Survey::of`], with the problem that stops it (after the damaged files, when no file
/// is a shard's journal) and the files left out.
pub(crate) fn survey(
    files: &[PathBuf],
    board: Option<&Board>,
) -> Result<Survey, (Vec<MergeProblem>, Vec<Skipped>)> {
    let mut damaged = Vec::new();
    let mut unreadable = Vec::new();
    let mut skipped = Vec::new();
    let mut read: Vec<(&Path, Journal)> = Vec::new();
    for path in files {
        match read_journal(path) {
            Ok(None) => skipped.push(Skipped {
                path: path.clone(),
                checkpoint: false,
            }),
            Err(e) => {
                damaged.push((path.clone(), strip(&e.to_string(), path)));
                unreadable.push(MergeProblem::Unreadable(e));
            }
            Ok(Some(j)) if j.shard().is_none() => skipped.push(Skipped {
                path: path.clone(),
                checkpoint: j.kind() == Some(Kind::Checkpoint),
            }),
            Ok(Some(j)) => read.push((path, j)),
        }
    }
    let Some(reference) = ShardSet::most_common(read.iter().map(|r| &r.1)) else {
        unreadable.push(MergeProblem::NoShards);
        return Err((unreadable, skipped));
    };
    let mut plan = match reference_plan(&reference, read.iter().map(|r| r.0), board) {
        Ok(plan) => plan,
        Err(p) => return Err((vec![p], skipped)),
    };
    let mut unreadable = Vec::new();
    read_whole(
        &mut read,
        &reference,
        &plan,
        Some(file_rules()),
        &mut unreadable,
    );
    for p in unreadable {
        if let MergeProblem::Unreadable(e) = p {
            let path = e.path().to_path_buf();
            damaged.push((path.clone(), strip(&e.to_string(), &path)));
        }
    }
    // Cut as the files' runs cut the entries they hold, and the others as a run would.
    let mut fixed: BTreeMap<u64, u64> = BTreeMap::new();
    for (_, j) in read.iter().filter(|(_, j)| ShardSet::of(j) == reference) {
        for (entry, of) in j.cuts() {
            fixed.entry(entry).or_insert(of);
        }
    }
    let costs = CostModel::new(&plan, SLICE_SECONDS);
    cut(&mut plan, &costs, fixed.into_iter());

    // The best file of each shard so far: whether it is done, the file, the shard's subproblems.
    let mut best: BTreeMap<u64, (bool, Journal, usize)> = BTreeMap::new();
    let mut replicas: BTreeMap<u64, usize> = BTreeMap::new();
    for (path, j) in read {
        let set = ShardSet::of(&j);
        if set != reference {
            damaged.push((path.to_path_buf(), format!("of another count: {set}")));
            continue;
        }
        let shard: Shard = j.shard().expect("kept above");
        if let Err(problem) = j.check_against(&plan, Some(shard)) {
            damaged.push((path.to_path_buf(), problem.to_string()));
            continue;
        }
        let want = shard.len(&plan);
        let done = j.kind() == Some(Kind::ShardResult) && j.counted_len() == want;
        // A second done file of a done shard is a replica: it must agree with the first.
        if let Some((true, first, _)) = best.get(&shard.index)
            && done
        {
            match first.first_difference(&j) {
                None => *replicas.entry(shard.index).or_insert(1) += 1,
                Some((entry, ours, theirs)) => damaged.push((
                    path.to_path_buf(),
                    format!(
                        "a replica of shard {} that disagrees with another file of it at entry \
                         {entry} ({theirs} against {ours} solutions): count the shard again",
                        shard.index
                    ),
                )),
            }
            continue;
        }
        // A file that is done beats one that is not; of two partial ones, the fuller.
        let better = best.get(&shard.index).is_none_or(|(was_done, was, _)| {
            !was_done && (done || j.counted_len() > was.counted_len())
        });
        if better {
            best.insert(shard.index, (done, j, want));
        }
    }
    let mut survey = Survey {
        n: plan.n(),
        algorithm: plan.algorithm(),
        plan: reference.plan,
        shards: reference.shards,
        done: Vec::new(),
        partial: Vec::new(),
        missing: Vec::new(),
        damaged,
        replicas: replicas.into_iter().collect(),
        skipped,
        sums: Sums::default(),
        done_seconds: (0.0, 0),
        shards_left: 0.0,
    };
    for index in 0..reference.shards {
        match best.get(&index) {
            Some((true, j, _)) => {
                survey.done.push(index);
                survey.sums.merge(j.sums());
                if let Some(s) = j.meta().get("seconds").and_then(|s| s.parse::<f64>().ok()) {
                    survey.done_seconds.0 += s;
                    survey.done_seconds.1 += 1;
                }
            }
            Some((false, j, want)) => {
                survey.partial.push((index, j.counted_len(), *want));
                survey.sums.merge(j.sums());
                if *want > 0 {
                    survey.shards_left += 1.0 - j.counted_len() as f64 / *want as f64;
                }
            }
            None => {
                survey.missing.push(index);
                survey.shards_left += 1.0;
            }
        }
    }
    Ok(survey)
}

/// A journal error's words without the path it starts with (the survey names the file).
fn strip(words: &str, path: &Path) -> String {
    let prefix = format!("{}: ", path.display());
    words.strip_prefix(&prefix).unwrap_or(words).to_string()
}
