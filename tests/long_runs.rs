//! Checkpoints and interruption: a run stopped by a signal resumes to the exact count, a
//! finished checkpoint answers at once, and every kind of bad checkpoint is refused untouched.

use std::fs;
use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;
use predicates::prelude::*;

fn cmd() -> Command {
    Command::cargo_bin("nqueens-count").unwrap()
}

fn json_row(out: &[u8]) -> serde_json::Value {
    serde_json::from_str(String::from_utf8_lossy(out).trim()).unwrap()
}

/// Runs a command that must succeed and print one JSON line; returns it.
fn success_json(c: &mut Command) -> serde_json::Value {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_row(&out.stdout)
}

/// A journal's text with the count of its first piece raised by one.
fn first_count_bumped(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let p = &v["pieces"][0];
    let bumped = text.replacen(
        &format!("[{},{},", p[0], p[1]),
        &format!("[{},{},", p[0], p[1].as_u64().unwrap() + 1),
        1,
    );
    assert_ne!(bumped, text);
    bumped
}

/// Starts a count in a child process, signals it once the checkpoint exists, and returns its
/// exit code.
fn interrupt(args: &[&str], checkpoint: &Path, signal: &str, after: Duration) -> Option<i32> {
    let child = Std::cargo_bin("nqueens-count")
        .unwrap()
        .args(args)
        .args(["--threads", "1", "--checkpoint"])
        .arg(checkpoint)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let it work long enough to finish some subproblems.
    std::thread::sleep(after);
    let status = Std::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let begun = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(begun.elapsed() < Duration::from_secs(20), "did not stop");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(130) {
        assert!(err.contains("resume"), "{err}");
    }
    out.status.code()
}

#[test]
fn an_interrupted_run_resumes_to_the_exact_count() {
    let dir = tempfile::tempdir().unwrap();
    let symmetry = ["17", "--algorithm", "symmetry", "--split-depth", "2"];
    let join = ["17", "--algorithm", "join"];
    for (args, signal, name, after) in [
        (&symmetry[..], "-INT", "int.json", 1500),
        (&symmetry[..], "-TERM", "term.json", 1500),
        (&join[..], "-INT", "join.json", 700),
    ] {
        let cp = dir.path().join(name);
        let code = interrupt(args, &cp, signal, Duration::from_millis(after));
        // A fast machine may finish first; then the count is simply complete.
        assert!(matches!(code, Some(130) | Some(0)), "{code:?}");
        let saved: serde_json::Value = serde_json::from_slice(&fs::read(&cp).unwrap()).unwrap();
        let done = saved["pieces"].as_array().unwrap().len();
        assert!(done > 0, "nothing was saved");
        // Resumed without --algorithm: the checkpoint's own algorithm is used.
        let row = success_json(
            cmd()
                .args(["17", "--json", "--threads", "2", "--checkpoint"])
                .arg(&cp),
        );
        assert_eq!(row["algorithm"], args[2]);
        assert_eq!(row["solutions"].as_u64(), Some(95_815_104));
        assert_eq!(row["unique"].as_u64(), Some(11_977_939));
    }
}

#[test]
fn a_finished_checkpoint_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("done.json");
    cmd()
        .args(["12", "--checkpoint"])
        .arg(&cp)
        .assert()
        .success();
    let before = fs::read(&cp).unwrap();
    let out = cmd()
        .args(["12", "--json", "--checkpoint"])
        .arg(&cp)
        .output()
        .unwrap();
    assert!(out.status.success());
    let row = json_row(&out.stdout);
    assert_eq!(row["solutions"], 14200);
    assert_eq!(row["unique"], 1787);
    // Nothing was left to compute.
    assert_eq!(row["nodes"], 0);
    assert_eq!(fs::read(&cp).unwrap(), before);
}

#[test]
fn bad_checkpoints_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    cmd()
        .args(["11", "--split-depth", "1", "--checkpoint"])
        .arg(&good)
        .assert()
        .success();
    let text = fs::read_to_string(&good).unwrap();
    let edited = first_count_bumped(&text);
    let cases: Vec<(&str, String, Vec<&str>, &str)> = vec![
        (
            "truncated",
            text[..text.len() / 2].to_string(),
            vec!["11"],
            "truncated",
        ),
        ("edited", edited, vec!["11"], "checksum"),
        ("other-n", text.clone(), vec!["12"], "n = 11"),
        (
            "other-plan",
            text.clone(),
            vec!["11", "--split-depth", "2"],
            "another plan",
        ),
        (
            "other-algorithm",
            text.clone(),
            vec!["11", "--algorithm", "plain"],
            "algorithm",
        ),
        (
            "not-a-checkpoint",
            "{\"hello\": 1}".to_string(),
            vec!["11"],
            "not a checkpoint",
        ),
        ("empty", String::new(), vec!["11"], "empty"),
    ];
    for (name, content, args, words) in cases {
        let path = dir.path().join(format!("{name}.json"));
        fs::write(&path, &content).unwrap();
        let out = cmd()
            .args(&args)
            .arg("--checkpoint")
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(words), "{name}: {err}");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            content,
            "{name} was changed"
        );
    }
}

#[test]
fn progress_is_hidden_when_stderr_is_not_a_terminal() {
    cmd()
        .args(["13"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn shards_merge_to_the_exact_count_and_bad_sets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for m in [1u64, 2, 3, 7] {
        let files: Vec<_> = (0..m)
            .map(|i| {
                let path = dir.path().join(format!("m{m}-s{i}.json"));
                cmd()
                    .args(["12", "--shard", &format!("{i}/{m}"), "--out"])
                    .arg(&path)
                    .assert()
                    .success();
                path
            })
            .collect();
        let row = success_json(cmd().arg("merge").args(&files).arg("--json"));
        assert_eq!(row["solutions"], 14200);
        assert_eq!(row["unique"], 1787);
        assert_eq!(row["shards"], m);
    }
    let three: Vec<_> = (0..3)
        .map(|i| dir.path().join(format!("m3-s{i}.json")))
        .collect();
    // Missing.
    cmd()
        .arg("merge")
        .args(&three[..2])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing: shard 2 of 3"));
    // Duplicated.
    cmd()
        .arg("merge")
        .args(&three)
        .arg(&three[0])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("duplicated: shard 0"));
    // Foreign: a shard of another M.
    cmd()
        .arg("merge")
        .args(&three)
        .arg(dir.path().join("m2-s0.json"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("foreign"));
    // Altered: one count changed by one.
    let altered = dir.path().join("altered.json");
    let text = fs::read_to_string(&three[1]).unwrap();
    fs::write(&altered, first_count_bumped(&text)).unwrap();
    cmd()
        .arg("merge")
        .args([&three[0], &altered, &three[2]])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("damaged").and(predicate::str::contains("missing: shard 1")),
        );
}

#[test]
fn a_shard_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("cp.json");
    let out1 = dir.path().join("a.json");
    cmd()
        .args(["11", "--shard", "1/2", "--out"])
        .arg(&out1)
        .arg("--checkpoint")
        .arg(&cp)
        .assert()
        .success();
    // The checkpoint belongs to shard 1/2: another shard may not use it.
    cmd()
        .args(["11", "--shard", "0/2", "--out"])
        .arg(dir.path().join("b.json"))
        .arg("--checkpoint")
        .arg(&cp)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("shard 1/2"));
    let out0 = dir.path().join("c.json");
    cmd()
        .args(["11", "--shard", "0/2", "--out"])
        .arg(&out0)
        .assert()
        .success();
    let out = cmd().arg("merge").arg(&out0).arg(&out1).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("2680 solutions, 341 unique"));
}

#[test]
fn an_unwritable_checkpoint_fails_before_the_work() {
    let out = cmd()
        .args(["12", "--checkpoint", "/nonexistent-folder/c.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("could not be saved"), "{err}");
}
