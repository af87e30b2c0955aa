//! `list` and `trace`: the solutions themselves and the classic walk-through.

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;
use std::io::Read;
use std::process::{Command as Std, Stdio};

fn stdout_of(args: &[&str]) -> String {
    let out = Command::cargo_bin("nqueens-count")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// An independent check: distinct columns, no two queens on one diagonal.
fn valid(cols: &[usize]) -> bool {
    let n = cols.len();
    let mut seen = vec![false; n];
    for (r, &c) in cols.iter().enumerate() {
        if c == 0 || c > n || seen[c - 1] {
            return false;
        }
        seen[c - 1] = true;
        for (r2, &c2) in cols.iter().enumerate().skip(r + 1) {
            if (r2 - r) == c.abs_diff(c2) {
                return false;
            }
        }
    }
    true
}

fn tuples(text: &str) -> Vec<Vec<usize>> {
    text.lines()
        .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
        .collect()
}

#[test]
fn four_queens_snapshots_in_every_format() {
    assert_eq!(stdout_of(&["list", "4"]), "2 4 1 3\n3 1 4 2\n");
    assert_eq!(
        stdout_of(&["list", "4", "--format", "board"]),
        ".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n"
    );
    let json = stdout_of(&["list", "4", "--format", "json"]);
    // --json is the same, as `count` and `merge` take it; with another --format, a usage error.
    assert_eq!(stdout_of(&["list", "4", "--json"]), json);
    Command::cargo_bin("nqueens-count")
        .unwrap()
        .args(["list", "4", "--json", "--format", "board"])
        .assert()
        .code(2);
    assert_eq!(
        json,
        "[[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"],\n[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]]\n"
    );
    let parsed: Vec<Vec<String>> = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed.len(), 2);
}

#[test]
fn eight_queens_list_matches_hand_checked_data() {
    let sols = tuples(&stdout_of(&["list", "8"]));
    assert_eq!(sols.len(), 92);
    // The first and last in lexicographic order, and the twelfth, checked by hand.
    assert_eq!(sols[0], [1, 5, 8, 6, 3, 7, 2, 4]);
    assert_eq!(sols[1], [1, 6, 8, 3, 7, 4, 2, 5]);
    assert_eq!(sols[91], [8, 4, 1, 3, 6, 2, 7, 5]);
    assert!(
        sols.windows(2).all(|w| w[0] < w[1]),
        "not in lexicographic order"
    );
    assert!(sols.iter().all(|s| valid(s)));
}

#[test]
fn list_counts_equal_the_counted_totals() {
    for n in 1..=10 {
        let listed = stdout_of(&["list", &n.to_string()]);
        let sols = if listed == "no solution\n" {
            vec![]
        } else {
            tuples(&listed)
        };
        assert!(sols.iter().all(|s| s.len() == n && valid(s)), "n = {n}");
        let counted: serde_json::Value =
            serde_json::from_str(stdout_of(&[&n.to_string(), "--json"]).trim()).unwrap();
        assert_eq!(
            counted["solutions"].as_u64(),
            Some(sols.len() as u64),
            "n = {n}"
        );
    }
}

#[test]
fn no_solution_and_limits() {
    assert_eq!(stdout_of(&["list", "2"]), "no solution\n");
    assert_eq!(
        stdout_of(&["list", "3", "--format", "board"]),
        "no solution\n"
    );
    assert_eq!(stdout_of(&["list", "8", "--limit", "3"]).lines().count(), 3);
    let first = tuples(&stdout_of(&["list", "30", "--limit", "1"]));
    assert_eq!(first.len(), 1);
    assert!(valid(&first[0]));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Std::cargo_bin("nqueens-count")
        .unwrap()
        .args(["list", "14"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 64];
    stdout.read_exact(&mut buf).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn trace_of_four_queens_numbers_the_nodes_like_the_textbook() {
    let text = stdout_of(&["trace", "4"]);
    assert!(
        text.contains("node 31: row 4, column 3 -- solution 1: 2 4 1 3"),
        "{text}"
    );
    assert!(text.contains("node 39:") && text.contains("solution 2: 3 1 4 2"));
    assert!(
        text.trim_end()
            .ends_with("4-queens: 2 solutions, 65 nodes in the tree of permutations, 33 generated")
    );
    let eight = stdout_of(&["trace", "8"]);
    assert!(eight.contains("8-queens: 92 solutions"));
}
