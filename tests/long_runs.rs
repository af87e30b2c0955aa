//! Checkpoints and interruption: a run stopped by a signal resumes to the exact count, a
//! finished checkpoint answers at once, and every kind of bad checkpoint is refused untouched.

mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use common::{cmd, runs_thread, saved_counted, signal_and_wait, spawn, wait_until};
use predicates::prelude::*;

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

/// A journal's text with the count of its first subproblem raised by one.
fn first_count_bumped(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let p = &v["whole"][0];
    let bumped = text.replacen(
        &format!("[{},{},", p[0], p[1]),
        &format!("[{},{},", p[0], p[1].as_u64().unwrap() + 1),
        1,
    );
    assert_ne!(bumped, text);
    bumped
}

/// Starts a count that takes minutes on any machine (n = 20 by the symmetry plan on one
/// thread), waits until its checkpoint holds more than `before` subproblems, sends `signal`, and
/// requires exit 128 + `signal` within seconds. Returns the subproblems saved.
fn interrupt_long_count(checkpoint: &Path, signal: i32, before: usize) -> Vec<serde_json::Value> {
    let cp = checkpoint.to_str().unwrap();
    let mut child = spawn([
        "20",
        "--algorithm",
        "symmetry",
        "--threads",
        "1",
        "--checkpoint",
        cp,
    ]);
    wait_until(&mut child, "a new subproblem was saved", || {
        saved_counted(checkpoint).is_some_and(|p| p.len() > before)
    });
    let err = signal_and_wait(child, signal);
    assert!(err.contains("resume"), "{err}");
    saved_counted(checkpoint).unwrap()
}

#[test]
fn a_signal_stops_a_long_count_with_exit_128_plus_it_and_the_resumed_run_keeps_every_subproblem() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("long.json");
    let first = interrupt_long_count(&cp, libc::SIGINT, 0);
    // The same command resumes: the subproblems saved before are kept, and new ones are added.
    let second = interrupt_long_count(&cp, libc::SIGTERM, first.len());
    assert!(first.iter().all(|p| second.contains(p)));
}

#[test]
fn a_run_resumed_from_a_partial_checkpoint_gives_the_exact_count() {
    use nqueens::{Algorithm, Config, Control, Counted, Job, Status};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    for (algorithm, name) in [
        (Algorithm::Symmetry, "sym.json"),
        (Algorithm::Join, "join.json"),
    ] {
        let cp = dir.path().join(name);
        // A run of the library stopped after a few subproblems leaves a partial checkpoint.
        let job = Job::new(&Config::new(15).algorithm(algorithm).threads(1))
            .unwrap()
            .checkpoint(&cp)
            .unwrap();
        let (stop, done) = (AtomicBool::new(false), AtomicUsize::new(0));
        let observe = |_: &Counted, _: &Status| {
            if done.fetch_add(1, Ordering::SeqCst) + 1 >= 4 {
                stop.store(true, Ordering::SeqCst);
            }
        };
        let first = job
            .run(Control {
                cancel: Some(&stop),
                observer: Some(&observe),
                ..Control::default()
            })
            .unwrap();
        assert!(first.cancelled);
        assert_eq!(saved_counted(&cp).unwrap().len(), first.counted.len());
        // Resumed without --algorithm: the checkpoint's own algorithm is used.
        let row = success_json(
            cmd()
                .args(["15", "--json", "--threads", "2", "--checkpoint"])
                .arg(&cp),
        );
        assert_eq!(row["algorithm"], algorithm.name());
        assert_eq!(row["solutions"].as_u64(), Some(2_279_184));
        assert_eq!(row["unique"].as_u64(), Some(285_053));
        assert!(row["nodes"].as_u64().unwrap() > 0);
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
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("nothing was left to count: the result is the file's"),
        "{said}"
    );
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
    // A shard given twice: a replica, which agrees with itself.
    cmd()
        .arg("merge")
        .args(&three)
        .arg(&three[0])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "replicas: shard 0 (2 files), each agreeing",
        ));
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

/// Starts `args`, sends `signal` once the program listens for signals (its thread
/// `nqueens-signals` runs), and requires exit 128 + `signal` within seconds; returns its
/// stderr, whose message says what the signal stopped.
fn stops_on_signal(args: &[&str], signal: i32) -> String {
    let mut child = spawn(args);
    let pid = child.id();
    wait_until(&mut child, "the signal handler", || {
        runs_thread(pid, "nqueens-signals")
    });
    signal_and_wait(child, signal)
}

#[test]
fn a_signal_while_the_plan_is_built_ends_the_process_at_once() {
    // n = 28's plan of ten million units and n = 32's of billions of slices take seconds to
    // build, and the program listens for signals before it builds them: a signal then has
    // nothing to save, and ends the process at once (the message shows that it came before
    // the work).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.json");
    let out = out.to_str().unwrap();
    for (args, signal) in [
        (
            vec!["28", "--shard", "0/1000000", "--out", out],
            libc::SIGTERM,
        ),
        (vec!["32", "-t", "1"], libc::SIGINT),
    ] {
        let err = stops_on_signal(&args, signal);
        assert_eq!(
            err.trim_end(),
            "interrupted before the work began: nothing to save"
        );
    }
    assert!(!Path::new(out).exists());
}

#[test]
fn a_signal_stops_the_largest_join_counts_in_their_set_up_and_their_units() {
    // The checkpoint is written once the plan is made and before n = 23 spends seconds
    // building its quadrant lists (or, where they do not fit, setting up the memory-bounded
    // layout): a signal then comes in the set-up. n = 24's units take seconds each: a signal
    // once the first is saved comes while the others are counted.
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("23.json");
    let mut child = spawn(["23", "-t", "2", "--checkpoint", cp.to_str().unwrap()]);
    wait_until(&mut child, "the checkpoint was written", || cp.exists());
    signal_and_wait(child, libc::SIGTERM);
    let cp = dir.path().join("24.json");
    let mut child = spawn(["24", "-t", "2", "--checkpoint", cp.to_str().unwrap()]);
    wait_until(&mut child, "a subproblem was saved", || {
        saved_counted(&cp).is_some_and(|p| !p.is_empty())
    });
    let err = signal_and_wait(child, libc::SIGINT);
    assert!(err.contains("resume"), "{err}");
}

#[test]
fn an_estimate_stopped_before_any_subproblem_finished_says_so_and_exits_143() {
    // n = 27's plan takes seconds to make and sample from, and its units take more than a
    // second each to time on one thread: a signal as soon as the sampling's threads start
    // (named `nqueens-estimate-*`) comes after the plan and before any subproblem is timed.
    let mut child = spawn(["27", "--estimate", "--threads", "1"]);
    let pid = child.id();
    wait_until(&mut child, "the sampling threads", || {
        runs_thread(pid, "nqueens-estim")
    });
    let err = signal_and_wait(child, libc::SIGTERM);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("interrupted before any subproblem finished"),
        "{err}"
    );
}

#[test]
fn thousands_of_threads_count_at_once_and_stop_at_once() {
    // A pool starts at most a few threads a hardware thread: `15 -t 4096` started thousands
    // and took minutes on two cores, and a stop came seconds late. The command runs under a
    // limit far past what it needs, so that a regression fails instead of hanging.
    let out = cmd()
        .args(["15", "-t", "4096", "--json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"solutions\":2279184"));
    let mut child = spawn(["18", "-t", "4096", "--no-progress"]);
    let tasks = format!("/proc/{}/task", child.id());
    // Signalled once its worker threads run (the main thread and more).
    wait_until(&mut child, "the count's threads", || {
        fs::read_dir(&tasks).is_ok_and(|d| d.count() > 2)
    });
    let err = signal_and_wait(child, libc::SIGINT);
    assert!(err.contains("interrupted"), "{err}");
}

#[test]
fn a_thin_estimate_says_how_long_a_trustworthy_one_samples() {
    // n = 26 sampled for a second reaches a few of its strata: the projection comes with a
    // warning that names the seconds a trustworthy one needs.
    let out = cmd()
        .args([
            "26",
            "--estimate",
            "--estimate-seconds",
            "1",
            "--threads",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("warning: a thin sample ("), "{err}");
    assert!(err.contains("--estimate-seconds "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
