//! `--estimate` as a user meets it: Ctrl-C stops the sampling with exit 130 and the projection
//! of what was timed, a sample too thin for a margin says so instead of printing an interval,
//! and nothing but the report reaches a pipe (the bar is for terminals: `tests/terminal.rs`).
//! The memory it reports under a limit is tested in `tests/limits.rs`; `scripts/counted-sample`,
//! which checks it against counted shards, in `tests/counted_sample.rs`.

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
    // Every stratum timed fewer than ten times: the whole projection rests on guessed spreads.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "100% of the projection from strata timed fewer than 10 times, whose spread is guessed"
        ),
        "{err}"
    );
    let out = cmd().args(args).arg("--json").output().unwrap();
    assert!(out.status.success());
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["too_thin_for_a_margin"], true, "{row}");
    assert!(
        row["guessed_share"].as_f64().is_some_and(|g| g > 0.999),
        "{row}"
    );
    assert!(
        row["short_of_trusted"].as_u64().is_some_and(|s| s > 100),
        "{row}"
    );
    assert!(row["skewness"].as_f64().is_some(), "{row}");
    assert!(row["wall_seconds_low"].is_null() && row["wall_seconds_high"].is_null());
    assert!(row["cpu_hours_margin"].is_null(), "{row}");
    assert!(
        row["wall_seconds"].as_f64().is_some_and(|s| s > 0.0),
        "{row}"
    );
}

/// n = 18, not 16: its subproblems take long enough that a sampling thread preempted by
/// another test's count does not swamp the spread (n = 16 came out too thin for a margin
/// now and then on a busy 2-core machine).
#[test]
fn a_margin_is_printed_where_the_sample_holds_one() {
    let out = cmd()
        .args([
            "18",
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
