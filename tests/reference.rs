//! The plain C counter of `scripts/reference/`, the one `scripts/compare` times the program
//! against: it must count right, or every speed ratio stated against it means nothing. It is
//! built with gcc (the test is skipped where gcc is missing, except under CI).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

const SOURCE: &str = "scripts/reference/plain-queens.c";

/// The published totals of n = 1 to 12 (OEIS A000170), written out here rather than taken
/// from the library, so that this check stands apart from the program's own table.
const PUBLISHED: [u64; 12] = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];

fn gcc_present() -> bool {
    Command::new("gcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The counter built into `dir` with the flags `scripts/compare` uses, or `None` (skipped)
/// where there is no gcc.
fn build(dir: &Path) -> Option<PathBuf> {
    if !gcc_present() {
        common::skip("gcc is not installed; it builds the reference counter");
        return None;
    }
    let bin = dir.join("plain-queens");
    let out = Command::new("gcc")
        .args([
            "-O3",
            "-march=native",
            "-fopenmp",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-o",
        ])
        .arg(&bin)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(SOURCE))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(bin)
}

#[test]
fn the_reference_counter_prints_the_published_totals() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bin) = build(dir.path()) else { return };
    for (n, want) in (1..=12).zip(PUBLISHED) {
        for threads in ["1", "3"] {
            let out = Command::new(&bin)
                .args([&n.to_string(), threads])
                .output()
                .unwrap();
            assert!(out.status.success(), "n = {n}: {out:?}");
            assert_eq!(
                String::from_utf8(out.stdout).unwrap(),
                format!("{want}\n"),
                "n = {n} on {threads} threads"
            );
        }
    }
}

#[test]
fn the_reference_counter_refuses_bad_input_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bin) = build(dir.path()) else { return };
    for args in [&["0"][..], &["33"], &["8x"], &[], &["8", "0"]] {
        let out = Command::new(&bin).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

/// `scripts/compare` on a tiny board, once each: it finds the two totals equal and prints its
/// lines (the figures themselves are not checked: no timing is asserted).
#[test]
fn compare_checks_the_totals_and_prints_a_speedup() {
    if !gcc_present() {
        return common::skip("gcc is not installed; it builds the reference counter");
    }
    if common::lacks(
        "python3",
        "python3 is not installed; it runs scripts/compare",
    ) {
        return;
    }
    let ours = Command::cargo_bin("nqueens-count").unwrap();
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/compare"))
        .args(["8", "--runs", "2", "--threads", "2", "--bin"])
        .arg(ours.get_program())
        .args(["--", "--algorithm", "plain"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "n=8 threads=2 runs=2 total=92", "{text}");
    assert!(lines[1].starts_with("plain-queens   median "), "{text}");
    assert!(lines[2].starts_with("nqueens-count  median "), "{text}");
    assert!(
        lines[1].contains(" spread ") && lines[2].contains(" spread "),
        "{text}"
    );
    let speedup = lines.last().unwrap().strip_prefix("speedup=").expect(&text);
    assert!(speedup.parse::<f64>().is_ok_and(|s| s > 0.0), "{text}");
}

/// A program that prints another total than the reference's stops `scripts/compare` with
/// exit 1 and `COUNTS DIFFER`, before any figure is printed.
#[test]
fn compare_stops_when_the_totals_differ() {
    if !gcc_present() {
        return common::skip("gcc is not installed; it builds the reference counter");
    }
    if common::lacks(
        "python3",
        "python3 is not installed; it runs scripts/compare",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong-count");
    common::write_script(&wrong, "echo '{\"solutions_str\":\"93\"}'");
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/compare"))
        .args(["8", "--runs", "1", "--bin"])
        .arg(&wrong)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("COUNTS DIFFER for n = 8"), "{err}");
}
