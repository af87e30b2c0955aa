//! Shards: one count cut into M independent parts for cluster array jobs, and the merge that
//! puts the parts back together only when every piece is there exactly once and intact.
//!
//! Shard `i` of `M` owns the subproblems whose id is `i` modulo `M`, so membership depends only
//! on the plan and `M`. Each shard writes a result journal (see [`crate::checkpoint`]); the
//! merge rebuilds the plan from what the files say, checks every file against it, and adds the
//! sums in `u128`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::checkpoint::{Journal, SHARD_RESULT, Shard};
use crate::plan::{Algorithm, Plan};
use crate::tally::Sums;

/// The ids shard `shard` owns in `plan`.
pub fn owned_ids(plan: &Plan, shard: Shard) -> Vec<u64> {
    (shard.index..plan.subproblems.len() as u64)
        .step_by(shard.count as usize)
        .collect()
}

/// A verified merge.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// Board size.
    pub n: usize,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Number of shards.
    pub shards: u64,
    /// The plan's hash.
    pub plan: String,
    /// Sums over all shards.
    pub sums: Sums,
    /// Total solutions.
    pub total: u128,
    /// Unique solutions, when the algorithm counts them.
    pub unique: Option<u128>,
    /// Seconds the shards spent, added up (as they reported).
    pub shard_seconds: f64,
}

/// Reads, checks and adds up shard result files. On failure, returns one line per problem,
/// naming the files and the shard numbers to resubmit.
pub fn merge(files: &[PathBuf]) -> Result<Merged, Vec<String>> {
    let mut problems = Vec::new();
    let mut good: Vec<(&Path, Journal)> = Vec::new();
    for path in files {
        match Journal::read(path) {
            Err(e) => problems.push(format!("damaged: {e}")),
            Ok(j) if j.format != SHARD_RESULT || j.shard.is_none() => problems.push(format!(
                "not a shard result: {} (a {} file)",
                path.display(),
                j.format
            )),
            Ok(j) => good.push((path, j)),
        }
    }
    let Some((_, first)) = good.first() else {
        problems.push("no readable shard result among the files".to_string());
        return Err(problems);
    };
    let key = |j: &Journal| {
        (
            j.n,
            j.algorithm.clone(),
            j.split_depth,
            j.plan.clone(),
            j.shard.map(|s| s.count),
        )
    };
    let reference = key(first);
    let (n, algorithm, depth, plan_hex, count) = reference.clone();
    let count = count.expect("checked above");
    let algorithm: Algorithm = match algorithm.parse() {
        Ok(a) => a,
        Err(e) => return Err(vec![format!("{}: {e}", files[0].display())]),
    };
    let plan = match Plan::build(n, algorithm, Some(depth), 1) {
        Ok(p) if p.hash_hex() == plan_hex => p,
        Ok(p) => {
            return Err(vec![format!(
                "the shards' plan {plan_hex} is not this program's plan {} for n = {n}, {algorithm}, split depth {depth}: merge with the version that wrote them",
                p.hash_hex()
            )]);
        }
        Err(e) => return Err(vec![format!("the shards name an impossible plan: {e}")]),
    };

    let mut by_index: BTreeMap<u64, Vec<(&Path, Journal)>> = BTreeMap::new();
    for (path, j) in good {
        if key(&j) != reference {
            problems.push(format!(
                "foreign: {} is for n = {}, {}, split depth {}, {} shards (plan {}), not n = {n}, {algorithm}, split depth {depth}, {count} shards (plan {plan_hex})",
                path.display(),
                j.n,
                j.algorithm,
                j.split_depth,
                j.shard.map_or(0, |s| s.count),
                j.plan
            ));
            continue;
        }
        let shard = j.shard.expect("checked above");
        if let Err(e) = j.check_against(path, &plan, Some(shard)) {
            problems.push(format!("damaged: shard {}: {e}", shard.index));
            continue;
        }
        let wanted = owned_ids(&plan, shard).len();
        if j.pieces.len() != wanted {
            problems.push(format!(
                "incomplete: shard {} ({}) has {} of its {wanted} subproblems",
                shard.index,
                path.display(),
                j.pieces.len()
            ));
            continue;
        }
        by_index.entry(shard.index).or_default().push((path, j));
    }
    for (index, copies) in &by_index {
        if copies.len() > 1 {
            let names: Vec<String> = copies
                .iter()
                .map(|(p, _)| p.display().to_string())
                .collect();
            problems.push(format!(
                "duplicated: shard {index} appears {} times ({})",
                copies.len(),
                names.join(", ")
            ));
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "missing: shard{} {} of {count} (resubmit {})",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(","),
            if missing.len() == 1 { "it" } else { "them" }
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut sums = Sums::default();
    let mut seconds = 0.0;
    for copies in by_index.values() {
        let j = &copies[0].1;
        sums.merge(&j.sums);
        seconds += j
            .meta
            .get("seconds")
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
    }
    Ok(Merged {
        n,
        algorithm,
        shards: count,
        plan: plan_hex,
        total: sums.total,
        unique: sums.unique(&plan),
        sums,
        shard_seconds: seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::solve;

    fn write_shards(dir: &Path, n: usize, m: u64) -> Vec<PathBuf> {
        let plan = Plan::build(n, Algorithm::Symmetry, None, 1).unwrap();
        (0..m)
            .map(|i| {
                let shard = Shard { index: i, count: m };
                let mut j = Journal::new(SHARD_RESULT, &plan, Some(shard));
                let pieces = owned_ids(&plan, shard)
                    .into_iter()
                    .map(|id| (id, solve(&plan, &plan.subproblems[id as usize])))
                    .collect();
                j.set_pieces(&plan, &pieces);
                let path = dir.join(format!("s{i}.json"));
                j.write_atomic(&path).unwrap();
                path
            })
            .collect()
    }

    #[test]
    fn shards_of_any_count_merge_to_the_exact_totals() {
        let dir = tempfile::tempdir().unwrap();
        for m in [1, 2, 3, 7] {
            let sub = dir.path().join(format!("m{m}"));
            std::fs::create_dir(&sub).unwrap();
            let files = write_shards(&sub, 10, m);
            let merged = merge(&files).unwrap();
            assert_eq!(merged.total, 724);
            assert_eq!(merged.unique, Some(92));
        }
    }

    #[test]
    fn missing_duplicated_and_foreign_shards_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_shards(dir.path(), 9, 3);
        let err = merge(&files[..2]).unwrap_err().join("\n");
        assert!(err.contains("missing: shard 2 of 3"), "{err}");

        let mut dup = files.clone();
        dup.push(files[1].clone());
        let err = merge(&dup).unwrap_err().join("\n");
        assert!(err.contains("duplicated: shard 1"), "{err}");

        let other_dir = dir.path().join("other");
        std::fs::create_dir(&other_dir).unwrap();
        let other = write_shards(&other_dir, 9, 2);
        let mut mixed = files.clone();
        mixed.push(other[0].clone());
        let err = merge(&mixed).unwrap_err().join("\n");
        assert!(err.contains("foreign"), "{err}");
    }
}
