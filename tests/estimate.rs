//! `--estimate` as a user meets it: Ctrl-C stops the sampling with exit 130 and the projection
//! of what was timed, a sample too thin for a margin says so instead of printing an interval,
//! and nothing but the report reaches a pipe (the bar is for terminals: `tests/terminal.rs`).
//! The memory it reports under a limit is tested in `tests/limits.rs`. `scripts/counted-sample`,
//! which checks the estimate against counted shards, is tried here on a small board.

mod common;

use common::{cmd, runs_thread, signal_and_wait, spawn, thread_cpu_seconds, wait_until};

/// Whether the process `pid` runs the estimate's sampling threads (`nqueens-estimate-*`).
fn sampling(pid: u32) -> bool {
    runs_thread(pid, "nqueens-estim")
}

#[test]
fn ctrl_c_stops_the_sampling_with_exit_130_and_the_projection_so_far() {
    // n = 21 on one thread projects half an hour: the sample would run its 600 s. Its units
    // time in milliseconds, so once the sampling thread has worked half a second of CPU time,
    // hundreds are timed.
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens-count"))
        .args(["21", "--estimate", "--estimate-seconds", "600", "-t", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    let pid = child.id();
    wait_until(&mut child, "half a second of sampling", || {
        thread_cpu_seconds(pid, "nqueens-estim") >= 0.5
    });
    // SAFETY: the child was started above and not yet waited for.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        text.starts_with("estimate for n = 21, join, 1 thread\n"),
        "{text}"
    );
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("interrupted: sampling stopped after ")
            && last.contains(" of the 10.0 min asked for; the projection above is from the "),
        "{err}"
    );
    // Through a pipe, no bar: nothing but lines of words.
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
}

#[test]
fn a_signal_before_anything_was_timed_still_exits_130() {
    // n = 27's units take more than a second each to time on one thread.
    let mut child = spawn(["27", "--estimate", "--threads", "1"]);
    let pid = child.id();
    wait_until(&mut child, "the sampling threads", || sampling(pid));
    let err = signal_and_wait(child, libc::SIGINT);
    assert!(err.contains("interrupted"), "{err}");
}

#[test]
fn a_sample_too_thin_for_a_margin_says_so_instead_of_an_interval() {
    // n = 28 on one thread for 3 s: one or a few of its 16 strata, each unit's probe taking
    // about a second; the margin is wider than the projection (it was "95%: 0.0 s to 5.1
    // years").
    let args = ["28", "--estimate", "--estimate-seconds", "3", "-t", "1"];
    let out = cmd().args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("(95%: no interval, too thin a sample)"),
        "{text}"
    );
    assert!(
        text.contains("CPU-hours (margin unknown: too thin a sample)"),
        "{text}"
    );
    assert!(!text.contains("0.0 s to"), "{text}");
    let out = cmd().args(args).arg("--json").output().unwrap();
    assert!(out.status.success());
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["too_thin_for_a_margin"], true, "{row}");
    assert!(row["wall_seconds_low"].is_null() && row["wall_seconds_high"].is_null());
    assert!(row["cpu_hours_margin"].is_null(), "{row}");
    assert!(
        row["wall_seconds"].as_f64().is_some_and(|s| s > 0.0),
        "{row}"
    );
}

#[test]
fn a_margin_is_printed_where_the_sample_holds_one() {
    let out = cmd()
        .args([
            "16",
            "--estimate",
            "--estimate-seconds",
            "2",
            "-t",
            "2",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["too_thin_for_a_margin"], false, "{row}");
    assert_eq!(row["interrupted"], false, "{row}");
    assert_eq!(row["sample_threads"], 2, "{row}");
    let (lo, hi) = (
        row["wall_seconds_low"].as_f64(),
        row["wall_seconds_high"].as_f64(),
    );
    assert!(lo.is_some() && hi.is_some() && lo < hi, "{row}");
}

/// The raw lines of a `scripts/counted-sample` report: `(shard, CPU seconds, partial sum)` of
/// each counted shard, and the number of estimate lines.
fn counted_sample_lines(raw: &str) -> (Vec<(String, f64, u64)>, usize) {
    let (mut counts, mut estimates) = (Vec::new(), 0);
    for line in raw.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if r["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--estimate")
        {
            estimates += 1;
            continue;
        }
        let shard = r["command"][2].as_str().unwrap().to_string();
        let found = r["json"]["partial_solutions"].as_u64().unwrap();
        counts.push((shard, r["cpu"].as_f64().unwrap(), found));
    }
    counts.sort_by(|a, b| a.0.cmp(&b.0));
    (counts, estimates)
}

/// `scripts/counted-sample` with as many blocks as shards counts each shard once, two at a
/// time: their partial sums add up to the board's total. Run again on its own raw file with
/// `--estimate-each`, it counts nothing anew and sets an estimate beside each shard.
#[test]
fn counted_sample_counts_a_shard_a_block_and_reuses_its_counts() {
    if common::lacks(
        "python3",
        "python3 is not installed; it runs scripts/counted-sample",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/counted-sample");
        let out = std::process::Command::new(script)
            .args(["12", "4", "4", "--threads", "1", "--jobs", "2", "--bin"])
            .arg(assert_cmd::cargo::cargo_bin("nqueens-count"))
            .arg("--out")
            .arg(dir.path().join(format!("{name}.md")))
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let raw = std::fs::read_to_string(dir.path().join(format!("{name}.jsonl"))).unwrap();
        let report = std::fs::read_to_string(dir.path().join(format!("{name}.md"))).unwrap();
        (counted_sample_lines(&raw), report)
    };
    let ((counts, estimates), report) = run("first", &[]);
    let shards: Vec<&str> = counts.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(shards, ["0/4", "1/4", "2/4", "3/4"]);
    assert_eq!(counts.iter().map(|c| c.2).sum::<u64>(), 14_200);
    assert_eq!(estimates, 0);
    assert!(
        report.contains("**Projected from the counted shards: "),
        "{report}"
    );
    let reused = dir.path().join("first.jsonl");
    let ((again, estimates), report) = run(
        "second",
        &["--estimate-each", "1", "--reuse", reused.to_str().unwrap()],
    );
    assert_eq!(again, counts, "the counts are taken, not made anew");
    assert_eq!(estimates, 4);
    assert!(
        report.contains("The shards' own estimates held their counted CPU time "),
        "{report}"
    );
}

/// A count that fails stops `scripts/counted-sample` with exit 1 and the program's error, and
/// the shard counting beside it is stopped rather than waited for (here a stand-in program
/// that fails on shard 0 and would mark the others done after 10 s).
#[test]
fn counted_sample_stops_the_other_counts_when_one_fails() {
    if common::lacks(
        "python3",
        "python3 is not installed; it runs scripts/counted-sample",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("stand-in");
    let body = format!(
        "#!/bin/sh\ncase \"$3\" in\n  0/*) echo 'error: planted failure' >&2; exit 3;;\nesac\n\
         sleep 10\ntouch '{}/done'\n",
        dir.path().display()
    );
    std::fs::write(&bin, body).unwrap();
    let mut perms = std::fs::metadata(&bin).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/counted-sample");
    let out = std::process::Command::new(script)
        .args(["12", "4", "4", "--threads", "1", "--jobs", "2", "--bin"])
        .arg(&bin)
        .arg("--out")
        .arg(dir.path().join("r.md"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("planted failure"), "{err}");
    assert!(
        !dir.path().join("done").exists(),
        "another shard was counted to its end"
    );
    assert!(
        !dir.path().join("r.md").exists(),
        "no report of a failed sample"
    );
}
