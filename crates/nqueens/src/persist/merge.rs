//! The merge: the result files of every shard of a count, put back together only when every
//! subproblem is there exactly once and intact. It rebuilds the plan from what the files say
//! and cuts it as they cut it (`reading.rs`), checks every file against it, and adds the sums
//! in `u128`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::findings::{MergeProblem, MergeProblems, Skipped};
use super::reading::{Reading, read_shards};
use super::rules::Rules;
use super::{Journal, JournalError, Key};
use crate::constraint::Board;
use crate::plan::{Algorithm, Cut, PlanHash};
use crate::tally::Sums;
use nqueens_engine::random::{Reservoir, XorShift};

/// A verified merge.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// Board size.
    pub n: usize,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Number of shards.
    pub shards: u64,
    /// The plan's hash.
    pub plan: PlanHash,
    /// Sums over all shards.
    pub sums: Sums,
    /// Unique solutions, when the algorithm counts them.
    pub unique: Option<u128>,
    /// Seconds the shards spent, added up (as they reported).
    pub shard_seconds: f64,
    /// What the keyed tags of the files showed.
    pub tags: Tags,
    /// The shards given more than once, each with its number of files (all agreeing).
    pub replicas: Vec<(u64, usize)>,
}

/// The keyed tags of a merge's files ([`super::Key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tags {
    /// Every file carries the tag of the key given.
    Checked,
    /// Some files carry tags, but no key was given to check them.
    NotChecked,
    /// No key was given and no file carries a tag.
    None,
}

/// How [`merge`] reads the files beyond checking them.
#[derive(Clone, Copy, Default)]
pub struct MergeOptions<'a> {
    /// The constrained board whose count the shards share, which rebuilds its plan.
    pub board: Option<&'a Board>,
    /// Subproblems to draw at random for a recount.
    pub keep: usize,
    /// The draw's seed.
    pub seed: u64,
    /// The key every file must carry the tag of.
    pub key: Option<&'a Key>,
    /// The rules a file's size and cut are weighed against: without them, files are read
    /// whatever their size, and their cuts are taken as they are.
    pub rules: Option<Rules>,
    /// Whole shards to draw at random (seeded by `seed`) for an audit.
    pub audit: u64,
}

impl Journal {
    /// The files `paths` name: a file as it is, a folder as the `*.json` files in it (its
    /// hidden files left out: the temporary files of a write in progress), in order of name.
    /// What `merge` and `status` read.
    pub fn files_in(paths: &[PathBuf]) -> Result<Vec<PathBuf>, JournalError> {
        let mut files = Vec::new();
        for path in paths {
            if !path.is_dir() {
                files.push(path.clone());
                continue;
            }
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(JournalError::read(path))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                    name.is_some_and(|n| !n.starts_with('.') && n.ends_with(".json")) && p.is_file()
                })
                .collect();
            inside.sort();
            files.extend(inside);
        }
        Ok(files)
    }
}

/// A finished subproblem as a file gives it: what a recount checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The subproblem, by its id in the cut the files make ([`Sampled`]).
    pub id: u64,
    /// Its count, before its weight.
    pub count: u128,
    /// The file that gave it, if any.
    pub file: Option<Arc<Path>>,
}

/// A merge with what a recount needs ([`merge`]).
#[derive(Debug)]
pub struct Sampled {
    /// The merge.
    pub merged: Merged,
    /// The files left out as no shard results.
    pub skipped: Vec<Skipped>,
    /// The plan the files were checked against, cut as they cut it.
    pub(crate) cut: Cut,
    /// A uniform random sample of the files' subproblems, in a random order.
    pub(crate) sample: Vec<Claim>,
    /// The subproblems the sample was drawn from.
    pub(crate) subproblems: u64,
    /// The seed of the sample's draw (and of the audit's).
    pub(crate) seed: u64,
    /// The subproblems of the entries a file cut otherwise than this release cuts them at
    /// the file's slice times ([`Rules::slices`]): recounted, every one, before they count.
    pub(crate) miscut: Vec<Claim>,
    /// How many entries those are.
    pub(crate) miscut_entries: u64,
    /// The shards drawn for an audit ([`MergeOptions::audit`]), increasing.
    pub audited: Vec<u64>,
    /// Their subproblems, to be recounted every one.
    pub(crate) audit_claims: Vec<Claim>,
}

/// Checks the result files of a count's shards (every shard once, intact, of one plan:
/// the plan is rebuilt, from `options.board` for a constrained board's count) and adds them up,
/// as `options` say: with a key, every file must carry its tag; with `keep`,
/// that many of the files' subproblems are drawn at random (seeded) for a recount. Checkpoints
/// and files that are no journals are left out ([`Skipped`]); a damaged journal is not.
pub fn merge(files: &[PathBuf], options: MergeOptions) -> Result<Sampled, MergeProblems> {
    let MergeOptions {
        board,
        keep,
        seed,
        key: tag_key,
        rules,
        audit,
    } = options;
    let reading = read_shards(files, board, rules, tag_key)
        .map_err(|(problems, skipped)| MergeProblems(problems, skipped))?;
    let missing = reading.missing();
    let Reading {
        reference,
        cut,
        mut skipped,
        checkpoints,
        mut problems,
        done: by_index,
        partial,
        tagged,
    } = reading;
    // The merge adds up no checkpoint: it names those it read as left out.
    skipped.extend(checkpoints.into_iter().map(|path| Skipped {
        path,
        checkpoint: true,
    }));
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let count = reference.shards;
    for (index, p) in partial {
        problems.push(MergeProblem::Partial {
            index,
            path: p.path,
            have: p.have,
            want: p.want,
            checkpoint: p.checkpoint,
        });
    }
    let replicas: Vec<(u64, usize)> = by_index
        .iter()
        .filter(|(_, copies)| copies.len() > 1)
        .map(|(&index, copies)| (index, copies.len()))
        .collect();
    if !missing.is_empty() {
        problems.push(MergeProblem::Missing {
            shards: missing,
            count,
        });
    }
    if !problems.is_empty() {
        return Err(MergeProblems(problems, skipped));
    }
    let mut sums = Sums::default();
    let mut seconds = 0.0;
    let plan = cut.plan();
    let mut rng = XorShift::new(seed);
    let mut sample = Reservoir::new(keep);
    let mut subproblems = 0;
    let audited = drawn_shards(count, audit, seed);
    let mut audit_claims = Vec::new();
    let (mut miscut, mut miscut_entries) = (Vec::new(), 0);
    for (&index, copies) in &by_index {
        let (path, j) = &copies[0];
        let off_rule = rules.map_or_else(Vec::new, |r| j.cut_otherwise(plan, r));
        miscut_entries += off_rule.len() as u64;
        let audited_here = audited.binary_search(&index).is_ok();
        if keep > 0 || !off_rule.is_empty() || audited_here {
            let file: Arc<Path> = Arc::from(path.as_path());
            let map = j.counted_map(&cut).expect("checked against the plan above");
            for p in map.values() {
                let claim = Claim {
                    id: p.id,
                    count: p.count,
                    file: Some(file.clone()),
                };
                if off_rule.binary_search(&p.entry).is_ok() {
                    miscut.push(claim.clone());
                }
                if audited_here {
                    audit_claims.push(claim.clone());
                }
                if keep > 0 {
                    sample.offer(claim, &mut rng);
                }
            }
        }
        subproblems += j.counted_len() as u64;
        sums.merge(&j.sums);
        seconds += j
            .meta
            .get("seconds")
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
    }
    if plan.has_unique() && !sums.burnside_holds(plan.n()) {
        return Err(MergeProblems(vec![MergeProblem::Integrity(sums)], skipped));
    }
    let merged = Merged {
        n: plan.n(),
        algorithm: plan.algorithm(),
        shards: count,
        plan: reference.plan,
        unique: sums.unique(plan),
        sums,
        shard_seconds: seconds,
        tags: match (tag_key, tagged) {
            (Some(_), _) => Tags::Checked,
            (None, true) => Tags::NotChecked,
            (None, false) => Tags::None,
        },
        replicas,
    };
    Ok(Sampled {
        merged,
        cut,
        sample: sample.into_shuffled(&mut rng),
        subproblems,
        seed,
        skipped,
        miscut,
        miscut_entries,
        audited,
        audit_claims,
    })
}

/// `k` of the shard indices `0..count`, drawn at random from `seed`, increasing (all of them
/// for `k >= count`).
fn drawn_shards(count: u64, k: u64, seed: u64) -> Vec<u64> {
    if k >= count {
        return (0..count).collect();
    }
    // A partial shuffle of the indices, from a stream of its own (not the sample's).
    let mut rng = XorShift::new(seed ^ 0x5a5a_5a5a_a5a5_a5a5);
    let mut picked: BTreeMap<u64, u64> = BTreeMap::new();
    for i in 0..k {
        let j = i + rng.next() % (count - i);
        let at_j = *picked.get(&j).unwrap_or(&j);
        let at_i = *picked.get(&i).unwrap_or(&i);
        picked.insert(j, at_i);
        picked.insert(i, at_j);
    }
    let mut drawn: Vec<u64> = (0..k).map(|i| picked[&i]).collect();
    drawn.sort_unstable();
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_support::write_shards;

    fn problems(files: &[PathBuf]) -> String {
        merge(files, MergeOptions::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_foreign_shard_listed_first_is_still_the_odd_one_out() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_shards(dir.path(), 9, 3);
        let other_dir = dir.path().join("other");
        std::fs::create_dir(&other_dir).unwrap();
        let other = write_shards(&other_dir, 9, 2);
        let mut stray_first = vec![other[0].clone()];
        stray_first.extend(files.iter().cloned());
        let err = problems(&stray_first);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("foreign") && err.contains("s0.json"),
            "{err}"
        );
    }

    #[test]
    fn a_shard_altered_with_its_checksum_redone_fails_the_burnside_check() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_shards(dir.path(), 10, 2);
        let plan = crate::plan::Plan::build(10, Algorithm::Symmetry, None).unwrap();
        let cut = Cut::whole(plan.clone());
        let mut j = Journal::read(&files[0]).unwrap();
        let mut subproblems = j.counted_map(&cut).unwrap();
        let victim = subproblems
            .values_mut()
            .find(|p| !plan.weight_of(p.entry).is_multiple_of(8))
            .unwrap();
        victim.count += 1;
        j.set_counted(&plan, &subproblems);
        j.write(&files[0]).unwrap();
        let err = problems(&files);
        assert!(err.contains("Burnside"), "{err}");
    }
}
