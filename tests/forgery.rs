//! Files forged by someone who can reseal them (their checksum redone), as a hostile user or
//! a faulty node leaves them: the recount of `merge` and of a resume catches a changed piece,
//! the per-piece bounds catch an impossible one, whatever the recount.

mod common;

use std::path::{Path, PathBuf};

use common::cmd;

use nqueens::persist::Journal;
use nqueens::{Algorithm, Plan};
use predicates::prelude::*;

/// The n = 15 join plan every file below is of.
fn plan() -> Plan {
    Plan::build(15, Algorithm::Join, None).unwrap()
}

/// Adds `add` to the count of the first piece of the file at `path` whose weight is
/// `weight`, reseals the file and returns the piece's id.
fn forge(path: &Path, weight: u8, add: u128) -> u64 {
    let plan = plan();
    let mut j = Journal::read(path).unwrap();
    let mut pieces = j.piece_map();
    let victim = pieces
        .values_mut()
        .find(|p| plan.subproblem(p.id).work.weight() == weight)
        .expect("a piece of that weight");
    victim.count += add;
    let id = victim.id;
    j.set_pieces(&plan, &pieces);
    j.write(path).unwrap();
    id
}

/// The result files of the four shards of `15` in `dir`.
fn shards(dir: &Path) -> Vec<PathBuf> {
    (0..4)
        .map(|i| {
            let path = dir.join(format!("s{i}.json"));
            cmd()
                .args(["15", "-t", "2", "--shard", &format!("{i}/4"), "--out"])
                .arg(&path)
                .assert()
                .success();
            path
        })
        .collect()
}

#[test]
fn a_changed_piece_that_keeps_every_sum_true_is_caught_by_the_merge_recount() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    // +8 on a piece of weight 2: the total moves by 16, and Burnside's lemma still holds.
    let id = forge(&files[2], 2, 8);
    // Without a recount the forgery passes: that is what the recount is for.
    cmd()
        .arg("merge")
        .args(&files)
        .args(["--recount", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2279200 solutions"));
    let out = cmd()
        .arg("merge")
        .args(&files)
        .args(["--recount", "all", "-t", "2"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("s2.json") && err.contains(&format!("subproblem {id} claims")),
        "{err}"
    );
    // The default recount (a few seconds) reaches every piece of so small a count.
    cmd()
        .arg("merge")
        .args(&files)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("subproblem {id} claims")));
}

#[test]
fn an_honest_merge_says_what_it_recounted_and_with_which_seed() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    cmd()
        .arg("merge")
        .args(&files)
        .args(["--recount", "5", "--recount-seed", "42"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "2279184 solutions, 285053 unique (4 shards of plan 7edc409a339d6396, all verified; 9929 pieces, recounted 5 of them in",
        ))
        .stdout(predicate::str::contains("(seed 42), all agree"));
    let mut args = vec!["merge", "--json", "--recount-seed", "7"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let v: serde_json::Value = serde_json::from_str(&common::stdout_of(&args)).unwrap();
    assert_eq!(v["recounted"], 9929);
    assert_eq!(v["recount_seed"], 7);
}

#[test]
fn a_resumed_checkpoint_with_a_changed_piece_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("c.json");
    cmd()
        .args(["15", "-t", "2", "--checkpoint"])
        .arg(&cp)
        .assert()
        .success();
    let id = forge(&cp, 2, 8);
    cmd()
        .args(["15", "-t", "2", "--checkpoint"])
        .arg(&cp)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "subproblem {id} claims 8"
        )));
    // Asked to trust it, the run gives the forged total: the recount is what stops it.
    cmd()
        .args(["15", "-t", "2", "--recount", "0", "--checkpoint"])
        .arg(&cp)
        .assert()
        .success()
        .stdout(predicate::str::contains("2279200"))
        .stderr(predicate::str::contains(
            "resumed 9929 of 9929 subproblems from",
        ));
}

#[test]
fn a_piece_past_what_its_subproblem_holds_is_refused_without_a_recount() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    // 2^120 solutions in one piece: more than 15! and every sum still true.
    forge(&files[1], 2, 1 << 120);
    cmd()
        .arg("merge")
        .args(&files)
        .args(["--recount", "0"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("s1.json")
                .and(predicate::str::contains("more than it can hold")),
        );
}

#[test]
fn a_bad_recount_is_a_usage_error() {
    for bad in ["-1", "lots", "s"] {
        cmd()
            .args(["merge", "x.json", &format!("--recount={bad}")])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("not a recount"));
    }
}
