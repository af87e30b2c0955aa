//! `bench` says when its figures cannot be trusted: the spread of each row's runs, more
//! threads than hardware threads (made so here with `taskset`, whatever the machine), and the
//! labels of the public profiles' workloads. The load and spread warnings are tested with
//! injected figures beside the code (`src/bench.rs`); no test here asserts a time.

mod common;

use std::process::Command;

use common::{lacks, stdout_of};

/// The JSON objects of a `bench --json` run's output.
fn rows(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn each_row_carries_the_spread_of_its_runs() {
    let text = stdout_of(&["bench", "--quick", "--threads", "1", "--json"]);
    let rows = rows(&text);
    assert_eq!(rows.len(), 2, "{text}");
    let row = &rows[0];
    let (lo, mid, hi) = (
        row["seconds_min"].as_f64().unwrap(),
        row["seconds"].as_f64().unwrap(),
        row["seconds_max"].as_f64().unwrap(),
    );
    assert!(lo <= mid && mid <= hi, "{row}");
    let spread = row["spread"].as_f64().unwrap();
    assert!((spread - (hi - lo) / mid).abs() < 1e-9, "{row}");
    assert_eq!(row["oversubscribed"], false, "{row}");
    let summary = &rows[1];
    assert_eq!(summary["summary"], true);
    assert!(summary["busy"].is_boolean(), "{summary}");
    assert!(summary["warnings"].is_array(), "{summary}");
    assert_eq!(summary["algorithm"], "symmetry", "{summary}");
    let human = stdout_of(&["bench", "--quick", "--threads", "1"]);
    let header = human.lines().nth(2).unwrap();
    assert!(
        header.contains(" time ") && header.contains(" min-max "),
        "{human}"
    );
    let row = human.lines().nth(3).unwrap();
    let range = regex::Regex::new(r" \d+\.\d{3} s +\d+\.\d{3}-\d+\.\d{3} s ").unwrap();
    assert!(range.is_match(row), "{human}");
}

#[test]
fn more_threads_than_hardware_threads_are_warned_of_and_their_efficiency_is_over_the_hardware() {
    // One hardware thread, whatever the machine: `taskset` pins the program to one CPU.
    if lacks("taskset", "taskset (util-linux) is not installed") {
        return;
    }
    let out = Command::new("taskset")
        .args(["-c", "0"])
        .arg(assert_cmd::cargo::cargo_bin("nqueens-count"))
        .args(["bench", "--quick", "--threads", "1,3", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let rows = rows(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(rows[1]["threads"], 3);
    assert_eq!(rows[1]["oversubscribed"], true, "{}", rows[1]);
    // Over the one hardware thread the three share: the speedup itself, not a third of it.
    assert_eq!(rows[1]["efficiency"], rows[1]["speedup"], "{}", rows[1]);
    assert_eq!(rows[2]["logical_cores"], 1, "{}", rows[2]);
    let said = "3 threads on 1 hardware thread: threads past 1 only take turns";
    assert!(
        rows[2]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with(said)),
        "{}",
        rows[2]
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with(&format!("warning: {said}"))),
        "{err}"
    );
    // The human table marks the row and says what its efficiency means.
    let out = Command::new("taskset")
        .args(["-c", "0"])
        .arg(assert_cmd::cargo::cargo_bin("nqueens-count"))
        .args(["bench", "--quick", "--threads", "3"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().nth(3).unwrap().ends_with("%*"), "{text}");
    assert!(
        text.contains("* more threads than hardware threads (1): efficiency is the speedup over 1"),
        "{text}"
    );
}

#[test]
fn the_plain_algorithm_can_be_benchmarked_like_for_like() {
    let text = stdout_of(&[
        "bench",
        "--quick",
        "--algorithm",
        "plain",
        "--threads",
        "1",
        "--json",
    ]);
    let rows = rows(&text);
    assert_eq!(rows[0]["algorithm"], "plain", "{text}");
    assert_eq!(rows[1]["algorithm"], "plain", "{text}");
    let out = common::cmd()
        .args(["bench", "--quick", "--algorithm", "brute"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_help_says_what_the_public_profiles_time() {
    let help = stdout_of(&["bench", "--help"]);
    assert!(help.contains("brute-force OpenMP counter"), "{help}");
    assert!(help.contains("--algorithm plain"), "{help}");
    assert!(help.contains("min-max"), "{help}");
}
