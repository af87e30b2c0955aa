//! Files forged by someone who can reseal them (their checksum redone), as a hostile user or
//! a faulty node leaves them: the recount of `merge` and of a resume catches a changed subproblem,
//! the per-subproblem bounds catch an impossible one, whatever the recount, and a keyed tag catches
//! any file rewritten without the key.

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

/// Adds `add` to the count of the first subproblem of the file at `path` whose weight is
/// `weight`, reseals the file and returns the subproblem's id.
fn forge(path: &Path, weight: u8, add: u128) -> u64 {
    let mut j = Journal::read(path).unwrap();
    let cut = j.cut_of(plan());
    let plan = cut.plan();
    let mut subproblems = j.counted_map(&cut).unwrap();
    let victim = subproblems
        .values_mut()
        .find(|p| plan.weight_of(p.entry) == weight)
        .expect("a subproblem of that weight");
    victim.count += add;
    let id = victim.id;
    j.set_counted(plan, &subproblems);
    j.write(path).unwrap();
    id
}

/// The result files of the four shards of `15` in `dir`.
fn shards(dir: &Path) -> Vec<PathBuf> {
    keyed_shards(dir, &[])
}

/// [`shards`] counted with `more` arguments (a `--key`).
fn keyed_shards(dir: &Path, more: &[&str]) -> Vec<PathBuf> {
    (0..4)
        .map(|i| {
            let path = dir.join(format!("s{i}.json"));
            shard(i, &path, more);
            path
        })
        .collect()
}

/// Counts shard `i` of 4 of `15` into `path`, with `more` arguments.
fn shard(i: u64, path: &Path, more: &[&str]) {
    cmd()
        .args(["15", "-t", "2", "--shard", &format!("{i}/4"), "--out"])
        .arg(path)
        .args(more)
        .assert()
        .success();
}

/// Two key files of 32 bytes in `dir`: the cluster's, and another.
fn keys(dir: &Path) -> (String, String) {
    let [ours, theirs] = ["key", "other-key"].map(|name| {
        let path = dir.join(name);
        std::fs::write(&path, format!("{name:-<31}\n")).unwrap();
        path.to_str().unwrap().to_string()
    });
    (ours, theirs)
}

/// Runs `merge` of `files` with `more` arguments and no recount; returns its exit code and
/// its stdout and stderr.
fn merged(files: &[PathBuf], more: &[&str]) -> (Option<i32>, String, String) {
    let out = cmd()
        .arg("merge")
        .args(files)
        .args(["--recount", "0"])
        .args(more)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn a_keyed_shard_set_refuses_any_file_rewritten_without_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let (key, other) = keys(dir.path());
    let files = keyed_shards(dir.path(), &["--key", &key]);
    let (code, out, _) = merged(&files, &["--key", &key]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("2279184 solutions") && out.contains("every keyed tag;"),
        "{out}"
    );
    // Resealed without the key, its old tag kept: the recount is off, and the tag alone
    // refuses it, naming the file.
    forge(&files[1], 2, 8);
    let (code, out, err) = merged(&files, &["--key", &key]);
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(
        err.contains("s1.json: its keyed tag does not match the key"),
        "{err}"
    );
    assert_eq!(
        err.lines().filter(|l| l.contains("keyed tag")).count(),
        1,
        "{err}"
    );
    // Without the key the tags go unchecked, and the merge says so.
    let (code, out, _) = merged(&files, &[]);
    assert_eq!(code, Some(0));
    assert!(out.contains("keyed tags not checked (give --key)"), "{out}");
    // Tagged with another key, or not tagged at all: refused too.
    shard(1, &files[1], &["--key", &other]);
    shard(2, &files[2], &[]);
    let (code, _, err) = merged(&files, &["--key", &key]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("s1.json: its keyed tag does not match"),
        "{err}"
    );
    assert!(err.contains("s2.json: it carries no keyed tag"), "{err}");
    // The JSON line says what the tags showed.
    shard(1, &files[1], &["--key", &key]);
    shard(2, &files[2], &["--key", &key]);
    let (_, out, _) = merged(&files, &["--key", &key, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tags"], "checked");
}

#[test]
fn a_keyed_checkpoint_resumes_only_with_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let (key, other) = keys(dir.path());
    let cp = dir.path().join("c.json");
    let cp_arg = cp.to_str().unwrap();
    let run = |more: &[&str]| {
        cmd()
            .args(["15", "-t", "2", "--recount", "0", "--checkpoint", cp_arg])
            .args(more)
            .output()
            .unwrap()
    };
    assert!(run(&["--key", &key]).status.success());
    let said = |out: std::process::Output| {
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        String::from_utf8(out.stderr).unwrap()
    };
    // Without its key a run would write it back untagged; with another it is foreign.
    assert!(said(run(&[])).contains("give the --key it was written with"));
    assert!(said(run(&["--key", &other])).contains("does not match the key"));
    // Resealed without the key: refused by the tag, the recount off.
    forge(&cp, 2, 8);
    assert!(said(run(&["--key", &key])).contains("does not match the key"));
}

#[test]
fn a_key_needs_a_file_to_tag_and_a_key_file_of_16_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (key, _) = keys(dir.path());
    cmd()
        .args(["12", "--key", &key])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--key tags the files of --out and --checkpoint",
        ));
    let short = dir.path().join("short");
    std::fs::write(&short, "too short\n").unwrap();
    let out = dir.path().join("s.json");
    cmd()
        .args([
            "12",
            "--shard",
            "0/2",
            "--out",
            out.to_str().unwrap(),
            "--key",
        ])
        .arg(&short)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds 10 bytes"));
    assert!(!out.exists());
}

#[test]
fn a_changed_subproblem_that_keeps_every_sum_true_is_caught_by_the_merge_recount() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    // +8 on a subproblem of weight 2: the total moves by 16, and Burnside's lemma still holds.
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
    // The default recount is a time budget (3 s), which reaches every subproblem of so small a
    // count on a quiet machine but not on a busy one: what it reaches is not asserted here.
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
            "2279184 solutions, 285053 unique (4 shards of plan 7edc409a339d6396; checked: \
             structure, checksums, sums and bounds against the plan, Burnside's lemma, no keyed \
             tags; recounted 5 of 9929 subproblems (0.050%) at random in",
        ))
        .stdout(predicate::str::contains(
            "(seed 42), all agree; the others not recounted",
        ))
        .stdout(predicate::str::contains("verified").not());
    // Every subproblem, so that the figure does not hang on how many 3 s (the default) can
    // recount on a busy machine.
    let mut args = vec!["merge", "--json", "--recount", "all", "--recount-seed", "7"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let v: serde_json::Value = serde_json::from_str(&common::stdout_of(&args)).unwrap();
    assert_eq!(v["recounted"], 9929);
    assert_eq!(v["recount_seed"], 7);
    assert_eq!(v["recounted_all"], true);
}

#[test]
fn an_audit_recounts_whole_shards_and_replicas_must_agree() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    // +8 on a subproblem of weight 8: Burnside's lemma still holds.
    forge(&files[2], 8, 8);
    let merge = |more: &[&str], extra: &[&PathBuf]| {
        let out = cmd()
            .arg("merge")
            .args(&files)
            .args(extra)
            .args(more)
            .output()
            .unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (out.status.code(), text(out.stdout), text(out.stderr))
    };
    // A sample of one: the merge says how little it recounted, and never "verified".
    let (code, out, err) = merge(&["--recount", "1", "--recount-seed", "3"], &[]);
    assert!(
        code == Some(1) || out.contains("recounted 1 of 9929 subproblems"),
        "{err}"
    );
    assert!(!out.contains("verified"), "{out}");
    // An audit of every shard recounts the forged one whole.
    let (code, out, err) = merge(&["--recount", "0", "--audit", "4"], &[]);
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(err.contains("s2.json"), "{err}");
    // An audit of one shard names it, and the chance it had.
    for seed in 0..16 {
        let seed = seed.to_string();
        let (code, out, err) = merge(
            &["--recount", "0", "--audit", "1", "--recount-seed", &seed],
            &[],
        );
        match code {
            Some(0) => {
                assert!(
                    out.contains("catches one wrong shard with probability 25%"),
                    "{out}"
                );
                assert!(!out.contains("audit: shards 2 of 4"), "{out}");
            }
            Some(1) => assert!(err.contains("s2.json"), "{err}"),
            _ => panic!("{err}"),
        }
    }
    // Replicas: an equal copy of a shard passes, and says so; a copy that differs fails,
    // naming both files.
    let copy = dir.path().join("s0-again.json");
    std::fs::copy(&files[0], &copy).unwrap();
    let (code, out, err) = merge(&["--recount", "0"], &[&copy]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("replicas: shard 0 (2 files), each agreeing"),
        "{out}"
    );
    forge(&copy, 8, 8);
    let (code, _, err) = merge(&["--recount", "0"], &[&copy]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("replicas differ: shard 0")
            && err.contains("s0.json and")
            && err.contains("s0-again.json disagree"),
        "{err}"
    );
}

#[test]
fn a_resumed_checkpoint_with_a_changed_subproblem_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("c.json");
    cmd()
        .args(["15", "-t", "2", "--checkpoint"])
        .arg(&cp)
        .assert()
        .success();
    let id = forge(&cp, 2, 8);
    // Every subproblem recounted, so that the forged one is found however busy the machine.
    cmd()
        .args(["15", "-t", "2", "--recount", "all", "--checkpoint"])
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
fn a_subproblem_past_what_its_subproblem_holds_is_refused_without_a_recount() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    // 2^120 solutions in one subproblem: more than 15! and every sum still true.
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
