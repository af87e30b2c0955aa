//! One reading of a count's shard files, for `merge` and `status` alike, so that both give
//! every shard the same verdict: done (a result file holding all its subproblems), partial
//! (its fullest file, a checkpoint or a result, holds fewer, or a checkpoint holds all of
//! them but no result file was written), or missing (no good file); and every file the same
//! word: read, skipped (no journal, a checkpoint of no shard), damaged, foreign or a replica
//! that disagrees. The merge adds up what it reads; `status` says how far the count is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::findings::{MergeProblem, ShardSet, Skipped};
use super::rules::Rules;
use super::{Journal, JournalError, Key, Kind, Problem};
use crate::constraint::Board;
use crate::plan::{Algorithm, Cut, Plan};
use crate::tally::Sums;

/// The shard files of one count, read and checked against its plan.
#[derive(Debug)]
pub(crate) struct Reading {
    /// The count most of the files belong to.
    pub reference: ShardSet,
    /// Its plan, cut as the files cut the entries they hold and, with [`Rules`], the others
    /// as a run of this release would at the default slice time (else whole).
    pub cut: Cut,
    /// The files left out unread: no journals, and checkpoints of no shard.
    pub skipped: Vec<Skipped>,
    /// The checkpoints of the count's shards read (a merge adds up none of them).
    pub checkpoints: Vec<PathBuf>,
    /// What is wrong with the files, in their order, then the replicas that disagree.
    pub problems: Vec<MergeProblem>,
    /// The result files holding every subproblem of their shard, by shard: the first is the
    /// one counted, the others are replicas that agree with it.
    pub done: BTreeMap<u64, Vec<(PathBuf, Journal)>>,
    /// The shards with no complete result file and some good file: its fullest one.
    pub partial: BTreeMap<u64, Partial>,
    /// Whether any file of the count carries a keyed tag.
    pub tagged: bool,
}

/// The fullest file of a shard that is not done.
#[derive(Clone, Debug)]
pub(crate) struct Partial {
    /// The file.
    pub path: PathBuf,
    /// Whether it is a checkpoint (else a result file of a run that stopped).
    pub checkpoint: bool,
    /// Its subproblems.
    pub have: usize,
    /// The subproblems the shard owns.
    pub want: usize,
    /// Its sums.
    pub sums: Sums,
}

/// Where one shard stands.
#[derive(Debug)]
pub(crate) enum Verdict<'a> {
    /// Its complete result files, the first the one counted.
    Done(&'a [(PathBuf, Journal)]),
    /// Its fullest file.
    Partial(&'a Partial),
    /// No good file.
    Missing,
}

impl Reading {
    /// Where shard `index` stands.
    pub fn verdict(&self, index: u64) -> Verdict<'_> {
        if let Some(files) = self.done.get(&index) {
            Verdict::Done(files)
        } else if let Some(p) = self.partial.get(&index) {
            Verdict::Partial(p)
        } else {
            Verdict::Missing
        }
    }

    /// The shards with no good file, increasing.
    pub fn missing(&self) -> Vec<u64> {
        (0..self.reference.shards)
            .filter(|i| matches!(self.verdict(*i), Verdict::Missing))
            .collect()
    }

    /// The shards to count again, increasing: the missing and partial ones, and those of a
    /// damaged file or a replica that disagrees.
    pub fn resubmit(&self) -> Vec<u64> {
        let mut shards: Vec<u64> = (0..self.reference.shards)
            .filter(|i| !matches!(self.verdict(*i), Verdict::Done(_)))
            .collect();
        shards.extend(self.problems.iter().filter_map(MergeProblem::shard));
        shards.sort_unstable();
        shards.dedup();
        shards
    }
}

/// Reads `files` as the shard files of one count: the count most shard files (results and
/// checkpoints) belong to, its plan rebuilt (from `board` for a constrained board's), every
/// file checked against it, and with `key` its tag. `Err` when no file is a shard's journal
/// (the damaged files, then [`MergeProblem::NoShards`]), or the plan cannot be built here,
/// with the files left out.
pub(crate) fn read_shards(
    files: &[PathBuf],
    board: Option<&Board>,
    rules: Option<Rules>,
    key: Option<&Key>,
) -> Result<Reading, (Vec<MergeProblem>, Vec<Skipped>)> {
    let mut problems = Vec::new();
    let mut skipped = Vec::new();
    let mut read: Vec<(&Path, Journal)> = Vec::new();
    for path in files {
        match read_journal(path) {
            Ok(None) => skipped.push(Skipped {
                path: path.clone(),
                checkpoint: false,
            }),
            Err(e) => problems.push(MergeProblem::Unreadable(e)),
            Ok(Some(j)) if j.shard().is_none() && j.kind() == Some(Kind::Checkpoint) => skipped
                .push(Skipped {
                    path: path.clone(),
                    checkpoint: true,
                }),
            Ok(Some(j)) if j.shard().is_none() || j.kind().is_none() => {
                problems.push(MergeProblem::NotShardResult {
                    path: path.clone(),
                    kind: j.format,
                })
            }
            Ok(Some(j)) => read.push((path, j)),
        }
    }
    let Some(reference) = ShardSet::most_common(read.iter().map(|r| &r.1)) else {
        problems.push(MergeProblem::NoShards);
        return Err((problems, skipped));
    };
    let plan = match reference_plan(&reference, read.iter().map(|r| r.0), board) {
        Ok(plan) => plan,
        Err(p) => return Err((vec![p], skipped)),
    };
    read_whole(&mut read, &reference, &plan, rules, &mut problems);
    let cut = cut_as_read(plan, &read, &reference, rules);

    let mut reading = Reading {
        reference,
        cut,
        skipped,
        checkpoints: Vec::new(),
        problems,
        done: BTreeMap::new(),
        partial: BTreeMap::new(),
        tagged: false,
    };
    for (path, j) in read {
        reading.take(path, j, key);
    }
    // Replicas (one shard counted more than once, perhaps on other machines) must agree.
    for (&index, copies) in &reading.done {
        let (first, a) = &copies[0];
        for (other, b) in &copies[1..] {
            if let Some((entry, ours, theirs)) = a.first_difference(b) {
                reading.problems.push(MergeProblem::ReplicasDiffer {
                    index,
                    first: first.clone(),
                    second: other.clone(),
                    entry,
                    counts: (ours, theirs),
                });
            }
        }
    }
    // A shard with a complete result has no partial one.
    let done = &reading.done;
    reading.partial.retain(|index, _| !done.contains_key(index));
    Ok(reading)
}

impl Reading {
    /// Files one shard journal: foreign or damaged, done, or the shard's fullest partial file.
    fn take(&mut self, path: &Path, j: Journal, key: Option<&Key>) {
        let set = ShardSet::of(&j);
        if set != self.reference {
            self.problems.push(MergeProblem::Foreign {
                path: path.to_path_buf(),
                theirs: Box::new(set),
                ours: Box::new(self.reference.clone()),
            });
            return;
        }
        let shard = j.shard().expect("a shard's journal");
        let checked = j
            .check_against(&self.cut, Some(shard))
            .and_then(|_| key.map_or(Ok(()), |k| j.check_tag(k)));
        if let Err(problem) = checked {
            self.problems.push(MergeProblem::Damaged {
                index: shard.index,
                path: path.to_path_buf(),
                problem,
            });
            return;
        }
        self.tagged |= j.tag().is_some();
        let checkpoint = j.kind() == Some(Kind::Checkpoint);
        if checkpoint {
            self.checkpoints.push(path.to_path_buf());
        }
        let (have, want) = (j.counted_len(), shard.len(&self.cut));
        if !checkpoint && have == want {
            self.done
                .entry(shard.index)
                .or_default()
                .push((path.to_path_buf(), j));
            return;
        }
        // Of two partial files, the fuller; of two as full, the result file.
        let better = self.partial.get(&shard.index).is_none_or(|was| {
            have > was.have || (have == was.have && was.checkpoint && !checkpoint)
        });
        if better {
            self.partial.insert(
                shard.index,
                Partial {
                    path: path.to_path_buf(),
                    checkpoint,
                    have,
                    want,
                    sums: *j.sums(),
                },
            );
        }
    }
}

/// Cuts `plan` as the files of `reference`'s count cut the entries they hold (a result
/// file's word first, then a checkpoint's: each entry belongs to one shard, so a file that
/// says otherwise than the first to name an entry is refused, as a subproblem of another cut),
/// and the others as a run of this release cuts them at the default slice time (with `rules`),
/// else whole.
fn cut_as_read(
    plan: Plan,
    read: &[(&Path, Journal)],
    reference: &ShardSet,
    rules: Option<Rules>,
) -> Cut {
    let ours = |results: bool| {
        read.iter()
            .filter(move |(_, j)| (j.kind() == Some(Kind::ShardResult)) == results)
            .filter(|(_, j)| ShardSet::of(j) == *reference)
    };
    let recorded = ours(true).chain(ours(false)).flat_map(|(_, j)| j.cuts());
    Cut::from_files(plan, recorded, |plan, unnamed| match rules {
        Some(rules) => (rules.slices)(plan, rules.default_seconds, unnamed),
        None => vec![1; unnamed.len()],
    })
}

/// [`Journal::read`] of one of the files a merge or a status is given: `Ok(None)` for a file
/// that is no journal of this program at all (to be skipped), an error for a damaged one.
pub(crate) fn read_journal(path: &Path) -> Result<Option<Journal>, JournalError> {
    match Journal::read_header(path) {
        Err(JournalError::Invalid { problem, .. }) if not_a_journal(path, &problem) => Ok(None),
        Err(e) => Err(e),
        Ok(j) => Ok(Some(j)),
    }
}

/// Whether a file [`Journal::read`] refused as `problem` is no journal of this program at all
/// (JSON of another shape, whose `format` names no kind of journal), rather than a damaged
/// one.
fn not_a_journal(path: &Path, problem: &Problem) -> bool {
    match problem {
        Problem::Kind(_) => true,
        Problem::Foreign(_) => {
            let format = std::fs::read(path)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|v| v.get("format").and_then(|f| f.as_str()).map(String::from));
            format.is_none_or(|f| f != Kind::Checkpoint.format() && f != Kind::ShardResult.format())
        }
        _ => false,
    }
}

/// Reads whole the files of `reference`'s count of which [`Journal::read_header`] read only
/// the header (the large ones), each when its size is within what a file of its plan and
/// shard can hold ([`Rules::most_bytes`]); a file that is not, or does not read, is taken out of
/// `good` as a problem. Files of other counts keep their header alone: it names their count.
pub(crate) fn read_whole(
    good: &mut Vec<(&Path, Journal)>,
    reference: &ShardSet,
    plan: &Plan,
    rules: Option<Rules>,
    problems: &mut Vec<MergeProblem>,
) {
    good.retain_mut(|(path, j)| {
        if !j.is_header_only() || ShardSet::of(j) != *reference {
            return true;
        }
        let most = rules.map_or(u64::MAX, |r| (r.most_bytes)(plan, j.shard));
        match Journal::read_at_most(path, most) {
            Ok(whole) => {
                *j = whole;
                true
            }
            Err(e) => {
                problems.push(MergeProblem::Unreadable(e));
                false
            }
        }
    });
}

/// This program's plan for the files' shard set, when it is the plan they were written for.
pub(crate) fn reference_plan<'a>(
    set: &ShardSet,
    mut paths: impl Iterator<Item = &'a Path>,
    board: Option<&Board>,
) -> Result<Plan, MergeProblem> {
    let algorithm =
        Algorithm::from_name(&set.algorithm).ok_or_else(|| MergeProblem::UnknownAlgorithm {
            path: paths.next().map(Path::to_path_buf).unwrap_or_default(),
            name: set.algorithm.clone(),
        })?;
    let constrained = algorithm == Algorithm::Constrained;
    if constrained != board.is_some() {
        return Err(MergeProblem::BoardMismatch {
            board_given: board.is_some(),
        });
    }
    // A default kernel plan of a large board refines its largest subproblems, which a plan of the
    // same split depth chosen does not: the default plan first, then that of the files' depth.
    let kernel = board.is_none() && matches!(algorithm, Algorithm::Plain | Algorithm::Symmetry);
    let built = match board {
        None if kernel => Plan::build(set.n, algorithm, None),
        Some(b) => Plan::constrained(b, Some(set.split_depth)),
        None => Plan::build(set.n, algorithm, Some(set.split_depth)),
    }
    .map_err(MergeProblem::ImpossiblePlan)?;
    let plan = built.for_file(set.plan, set.split_depth, kernel);
    if constrained && plan.hash() != set.plan {
        return Err(MergeProblem::OtherBoard {
            theirs: set.plan,
            ours: plan.hash(),
        });
    }
    if plan.hash() != set.plan {
        return Err(MergeProblem::OtherPlan {
            theirs: set.plan,
            ours: plan.hash(),
            n: set.n,
            algorithm,
            split_depth: set.split_depth,
        });
    }
    Ok(plan)
}
