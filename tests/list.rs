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

/// Stdout and stderr of a successful run.
fn both_of(args: &[&str]) -> (String, String) {
    let out = Command::cargo_bin("nqueens-count")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

#[test]
fn trace_first_stops_where_the_textbook_figure_does() {
    let whole = stdout_of(&["trace", "4"]);
    let first = stdout_of(&["trace", "4", "--first"]);
    let lines: Vec<&str> = first.lines().collect();
    let (last, body) = lines.split_last().unwrap();
    assert_eq!(
        *last,
        "4-queens: first solution at node 31: 2 4 1 3; the search stops there, \
         16 nodes generated of the 65 in the tree of permutations"
    );
    // The same lines as the whole trace up to node 31, the first solution.
    assert!(whole.starts_with(&format!("{}\n", body.join("\n"))));
    assert_eq!(
        body.last().unwrap().trim(),
        "node 31: row 4, column 3 -- solution 1: 2 4 1 3"
    );
    // n = 8: the first solution in lexicographic order, and nothing after it.
    let eight = stdout_of(&["trace", "8", "--first"]);
    assert_eq!(eight.matches(" -- solution ").count(), 1);
    let last = eight.lines().last().unwrap();
    assert!(
        last.starts_with("8-queens: first solution at node 7731: 1 5 8 6 3 7 2 4; "),
        "{last}"
    );
    assert!(
        stdout_of(&["trace", "8"])
            .contains("node 7731: row 8, column 4 -- solution 1: 1 5 8 6 3 7 2 4\n")
    );
    // No solution: the whole tree, said so.
    let three = stdout_of(&["trace", "3", "--first"]);
    assert!(three.trim_end().ends_with(
        "3-queens: no solution, the whole tree walked: 16 nodes in the tree of permutations, 12 generated"
    ));
    assert_eq!(
        three.lines().count(),
        stdout_of(&["trace", "3"]).lines().count()
    );
}

#[test]
fn trace_first_as_dot_ends_with_the_first_solution_and_large_trees_get_a_note() {
    let (dot, err) = both_of(&["trace", "4", "--first", "--format", "dot"]);
    assert!(err.is_empty(), "{err}");
    assert_eq!(dot.matches("shape=doublecircle").count(), 1);
    let lines: Vec<&str> = dot.lines().collect();
    assert_eq!(lines[lines.len() - 1], "}");
    assert!(
        lines[lines.len() - 2].contains("first solution at node 31: 2 4 1 3"),
        "{dot}"
    );
    // A small whole tree draws quietly; a large one says what reads better, in one line.
    assert!(both_of(&["trace", "4", "--format", "dot"]).1.is_empty());
    let (_, err) = both_of(&["trace", "8", "--format", "dot"]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("note: this tree has 5509 nodes, too wide to read as one picture; --first"),
        "{err}"
    );
    let (_, err) = both_of(&["trace", "8", "--first", "--format", "dot"]);
    assert!(err.starts_with("note: this tree has 337 nodes"), "{err}");
    // The text trace never needs the note.
    assert!(both_of(&["trace", "8"]).1.is_empty());
}

/// The 8 images of a solution (1-based columns) under the rotations and reflections of the
/// square, made here from the squares' coordinates.
fn orbit(cols: &[usize]) -> std::collections::BTreeSet<Vec<usize>> {
    let n = cols.len();
    let mut images = std::collections::BTreeSet::new();
    for turn in 0..4 {
        for mirror in [false, true] {
            let mut image = vec![0; n];
            for (r, &c) in cols.iter().enumerate() {
                let (mut r, mut c) = (r, c - 1);
                for _ in 0..turn {
                    (r, c) = (c, n - 1 - r);
                }
                if mirror {
                    c = n - 1 - c;
                }
                image[r] = c + 1;
            }
            images.insert(image);
        }
    }
    images
}

/// The lines of `list --unique` (tuple format): each solution and its orbit's size.
fn unique_of(n: usize, more: &[&str]) -> Vec<(Vec<usize>, usize)> {
    let n = n.to_string();
    let mut args = vec!["list", &n, "--unique"];
    args.extend(more);
    let text = stdout_of(&args);
    if text == "no solution\n" {
        return vec![];
    }
    text.lines()
        .map(|l| {
            let (cols, size) = l.split_once(" (orbit of ").expect(l);
            let cols = cols.split(' ').map(|x| x.parse().unwrap()).collect();
            (cols, size.trim_end_matches(')').parse().unwrap())
        })
        .collect()
}

#[test]
fn list_unique_gives_one_of_each_orbit_as_the_published_counts_say() {
    for n in 1..=10 {
        let reps = unique_of(n, &[]);
        let unique = nqueens::known::unique(n).unwrap();
        let total = nqueens::known::total(n).unwrap();
        assert_eq!(reps.len() as u128, unique, "n = {n}");
        let sizes: usize = reps.iter().map(|r| r.1).sum();
        assert_eq!(sizes as u128, total, "n = {n}");
        // Each is the least of its orbit, the orbit's size is right, and the orbits together
        // are the listing.
        let mut covered = std::collections::BTreeSet::new();
        for (cols, size) in &reps {
            let images = orbit(cols);
            assert!(valid(cols), "{cols:?}");
            assert_eq!(images.len(), *size, "{cols:?}");
            assert_eq!(images.first(), Some(cols), "{cols:?}");
            covered.extend(images);
        }
        let listed = stdout_of(&["list", &n.to_string()]);
        let all: std::collections::BTreeSet<_> = if listed == "no solution\n" {
            Default::default()
        } else {
            tuples(&listed).into_iter().collect()
        };
        assert_eq!(covered, all, "n = {n}");
    }
    let eight = unique_of(8, &[]);
    assert_eq!(eight.len(), 12);
    assert_eq!(eight.iter().filter(|r| r.1 == 8).count(), 11);
    assert_eq!(eight.iter().filter(|r| r.1 == 4).count(), 1);
    assert_eq!(eight[0], (vec![1, 5, 8, 6, 3, 7, 2, 4], 8));
    assert_eq!(unique_of(8, &["--limit", "3"]), eight[..3]);
}

#[test]
fn list_unique_in_every_format() {
    let boards = stdout_of(&["list", "8", "--unique", "--format", "board", "--limit", "2"]);
    assert_eq!(boards.matches("orbit of 8:\n").count(), 2);
    assert!(
        boards.starts_with("orbit of 8:\nQ.......\n....Q...\n"),
        "{boards}"
    );
    assert_eq!(boards.lines().count(), 2 * 9 + 1);
    let json = stdout_of(&["list", "8", "--unique", "--json", "--limit", "3"]);
    let parsed: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed.len(), 3);
    assert_eq!(
        parsed[0]["columns"],
        serde_json::json!([1, 5, 8, 6, 3, 7, 2, 4])
    );
    assert_eq!(parsed[0]["orbit"], 8);
    assert_eq!(parsed[0]["rows"][0], "Q.......");
    let (svg, err) = both_of(&["list", "8", "--unique", "--format", "svg"]);
    assert!(err.is_empty(), "{err}");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .filter(|t| t.contains(": orbit of "))
        .collect();
    assert_eq!(labels.len(), 12);
    assert_eq!(
        labels.iter().filter(|t| t.ends_with("orbit of 4")).count(),
        1
    );
    assert!(svg.contains("all 12 unique solutions"), "{svg}");
    let (_, err) = both_of(&["list", "8", "--unique", "--format", "svg", "--limit", "5"]);
    assert!(
        err.contains("the first 5 of the 12 unique solutions"),
        "{err}"
    );
    // A board the symmetries move is refused in one line; the empty rook board is not.
    let out = Command::cargo_bin("nqueens-count")
        .unwrap()
        .args([
            "list",
            "--board",
            "examples/boards/completion.txt",
            "--unique",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: --unique needs a board"), "{err}");
    assert_eq!(
        stdout_of(&["list", "3", "--piece", "rook", "--unique"]),
        "1 2 3 (orbit of 2)\n1 3 2 (orbit of 4)\n"
    );
}

/// The caption lines of an SVG picture.
fn caption(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("caption"))
        .map(|n| n.text().unwrap().to_string())
        .collect()
}

#[test]
fn a_picture_says_how_many_of_how_many_it_draws() {
    let (svg, err) = both_of(&["list", "8", "--format", "svg"]);
    assert_eq!(
        caption(&svg),
        [
            "the first 16 of the 92 solutions of the 8x8 queen board, in lexicographic order",
            "to see the rest: --limit 92 draws them all; --format tuple lists them as text"
        ]
    );
    assert_eq!(
        err,
        "note: the picture draws the first 16 of the 92 solutions of the 8x8 queen board; \
         --limit 92 draws them all, --format tuple lists them as text\n"
    );
    let (svg, err) = both_of(&["list", "8", "--format", "svg", "--limit", "92"]);
    assert!(err.is_empty(), "{err}");
    assert_eq!(svg.matches("<g id=\"solution-").count(), 92);
    assert_eq!(
        caption(&svg),
        ["all 92 solutions of the 8x8 queen board, in lexicographic order"]
    );
    // A board without a published count: the walk counts the rest on a small board, and
    // says there are more on a large one.
    let (svg, _) = both_of(&[
        "list", "5", "--piece", "rook", "--format", "svg", "--limit", "3",
    ]);
    assert!(caption(&svg)[0].starts_with("the first 3 of the 120 solutions"));
    let (svg, err) = both_of(&["list", "30", "--format", "svg", "--limit", "2"]);
    assert!(caption(&svg)[0].contains("(there are more)"), "{svg}");
    assert!(err.contains("a larger --limit draws more"), "{err}");
}
