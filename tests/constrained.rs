//! Constrained boards and rooks on the command line: `--board`, `--allowed`, `--piece`, the
//! pictures, and every kind of bad board file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

use nqueens::known;
use nqueens_engine::random::XorShift;

mod common;

use common::{cmd, skip, stdout_of};

/// The `solutions` of a `--json` count.
fn solutions(args: &[&str]) -> u128 {
    let mut all = args.to_vec();
    all.extend(["--json", "--threads", "2"]);
    let row: serde_json::Value = serde_json::from_str(stdout_of(&all).trim()).unwrap();
    assert_eq!(row["unique"], serde_json::Value::Null);
    row["solutions_str"].as_str().unwrap().parse().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const BOOKS: &str = "examples/boards/books.txt";

#[test]
fn the_book_example_lists_its_one_assignment() {
    assert_eq!(
        stdout_of(&["list", "--allowed", BOOKS, "--piece", "rook"]),
        "3 1 2 4 5\n"
    );
    assert_eq!(solutions(&["--allowed", BOOKS, "--piece", "rook"]), 1);
    assert_eq!(solutions(&["5", "--allowed", BOOKS, "--piece", "rook"]), 1);
}

#[test]
fn sizes_past_32_are_for_rooks_only() {
    for args in [&["33"][..], &["8..=33"], &["list", "33"]] {
        let out = cmd().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(
                "board size 33 is out of range: N must be from 1 to 32 (to 64 with --piece rook)"
            ),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        stdout_of(&["list", "34", "--piece", "rook", "--limit", "1"]).trim(),
        (1..=34)
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    // Past 34 a rook count may pass 2^128, and is refused as a file's would be.
    let out = cmd().args(["40", "--piece", "rook"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_small_board_walks_nodes_of_its_own() {
    // The default plan leaves rows to each search, so even an 8×8 board's count walks nodes.
    let out = stdout_of(&[
        "--board",
        "examples/boards/completion.txt",
        "--json",
        "--threads",
        "2",
    ]);
    let row: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(row["solutions"], 1);
    assert!(row["nodes"].as_u64().unwrap() > 0, "{out}");
}

/// Brute force over the permutations, for a board in the `.Qx` format.
fn brute(rows: &[Vec<u8>], queens: bool) -> Vec<Vec<usize>> {
    let n = rows.len();
    let mut out = Vec::new();
    let mut perm: Vec<usize> = (0..n).collect();
    permute(&mut perm, 0, &mut |p| {
        let fits = p.iter().enumerate().all(|(r, &c)| {
            let sq = rows[r][c];
            let placed = rows[r].iter().position(|&x| x == b'Q');
            sq != b'x' && placed.is_none_or(|q| q == c)
        });
        let apart = !queens || (0..n).all(|i| (i + 1..n).all(|j| p[i].abs_diff(p[j]) != j - i));
        if fits && apart {
            out.push(p.iter().map(|c| c + 1).collect());
        }
    });
    out.sort();
    out
}

fn permute(p: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
    if k == p.len() {
        f(p);
        return;
    }
    for i in k..p.len() {
        p.swap(k, i);
        permute(p, k + 1, f);
        p.swap(k, i);
    }
}

#[test]
fn random_boards_count_and_list_what_brute_force_finds() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = XorShift::new(8);
    for (piece, queens) in [("queen", true), ("rook", false)] {
        for n in 1..=7 {
            for k in 0..3 {
                // Blocked squares at random, and a queen of a brute-force solution (when one
                // exists) pre-placed.
                let mut rows: Vec<Vec<u8>> = (0..n)
                    .map(|_| {
                        (0..n)
                            .map(|_| if rng.below(5) == 0 { b'x' } else { b'.' })
                            .collect()
                    })
                    .collect();
                if let Some(sol) = brute(&rows, queens).first()
                    && k > 0
                {
                    let r = rng.below(n);
                    rows[r][sol[r] - 1] = b'Q';
                }
                let text: String = rows
                    .iter()
                    .map(|r| format!("{}\n", String::from_utf8_lossy(r)))
                    .collect();
                let file = write(dir.path(), "b.txt", &text);
                let want = brute(&rows, queens);
                let args = ["--board", s(&file), "--piece", piece];
                assert_eq!(solutions(&args), want.len() as u128, "{piece}\n{text}");
                let mut list = vec!["list"];
                list.extend(args);
                let listed = stdout_of(&list);
                if want.is_empty() {
                    assert_eq!(listed, "no solution\n");
                } else {
                    let got: Vec<Vec<usize>> = listed
                        .lines()
                        .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
                        .collect();
                    assert_eq!(got, want, "{piece}\n{text}");
                }
            }
        }
    }
}

#[test]
fn empty_boards_through_a_file_give_the_published_totals() {
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=14 {
        let text = format!("{}\n", vec![".".repeat(n); n].join("\n"));
        let file = write(dir.path(), "empty.txt", &text);
        assert_eq!(
            Some(solutions(&["--board", s(&file)])),
            known::total(n),
            "n = {n}"
        );
    }
}

#[test]
fn full_rook_boards_count_n_factorial() {
    let mut f = 1u128;
    // N itself goes past the queens' 32 for rooks: 34! is the last factorial below 2^128.
    for n in 1..=34usize {
        f *= n as u128;
        assert_eq!(
            solutions(&[&n.to_string(), "--piece", "rook"]),
            f,
            "n = {n}"
        );
    }
}

#[test]
fn the_banded_board_of_64_counts_fibonacci_65() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..64usize)
        .map(|r| {
            let row: String = (0..64usize)
                .map(|c| if r.abs_diff(c) <= 1 { '.' } else { 'x' })
                .collect();
            row + "\n"
        })
        .collect();
    let file = write(dir.path(), "band.txt", &text);
    assert_eq!(
        solutions(&["--board", s(&file), "--piece", "rook"]),
        17_167_680_177_565
    );
}

#[test]
fn listings_include_the_pre_placed_pieces_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "b.txt",
        "# a 4x4 board\n.Q..\n....\n....\n....\n",
    );
    let b = s(&file);
    assert_eq!(stdout_of(&["list", "--board", b]), "2 4 1 3\n");
    assert_eq!(
        stdout_of(&["list", "4", "--board", b, "--format", "board"]),
        ".Q..\n...Q\nQ...\n..Q.\n"
    );
    let json: Vec<Vec<String>> =
        serde_json::from_str(&stdout_of(&["list", "--board", b, "--format", "json"])).unwrap();
    assert_eq!(json, vec![vec![".Q..", "...Q", "Q...", "..Q."]]);
    // Blocked squares stay visible.
    let file = write(dir.path(), "c.txt", "x...\n....\n....\n....\n");
    let boards = stdout_of(&["list", "--board", s(&file), "--format", "board"]);
    assert!(boards.starts_with("xQ..\n"), "{boards}");
}

#[test]
fn unsatisfiable_boards_count_zero_and_list_no_solution() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "b.txt", "Q...\nx.xx\n....\n....\n");
    assert_eq!(solutions(&["--board", s(&file)]), 0);
    assert_eq!(stdout_of(&["list", "--board", s(&file)]), "no solution\n");
}

#[test]
fn a_board_is_read_from_standard_input() {
    let out = cmd()
        .args(["list", "--board", "-", "--format", "tuple"])
        .write_stdin("..Q.\n....\n....\n....\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "3 1 4 2\n");
}

/// Runs with a bad board and returns the one line of stderr (exit code 2).
fn refused(args: &[&str], stdin: &str) -> String {
    let out = cmd().args(args).write_stdin(stdin).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?} {stdin:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn bad_boards_are_refused_with_the_line_and_column() {
    let cases = [
        ("..\n.?\n", "line 2, column 2: unknown character '?'"),
        ("...\n..\n...\n", "line 2, column 3: this row has 2 squares"),
        ("QQ\n..\n", "line 1, column 2: a second piece in this row"),
        (
            "Q..\n...\nQ..\n",
            "line 3, column 1: a second piece in this column",
        ),
        (
            ".Q.\n..Q\n...\n",
            "line 2, column 3: this queen and the queen at row 1",
        ),
        (
            "...\n...\n",
            "line 3, column 1: 2 rows for a board 3 squares wide",
        ),
    ];
    for (text, want) in cases {
        let err = refused(&["--board", "-"], text);
        assert!(err.contains(want), "{text:?}: {err}");
        assert!(err.starts_with("error: standard input: "), "{err}");
    }
    let big = format!("{}\n", vec![".".repeat(33); 33].join("\n"));
    assert!(refused(&["--board", "-"], &big).contains("out of range"));
    let err = refused(&["--allowed", "-", "--piece", "rook"], "65\n");
    assert!(
        err.contains("line 1, column 1: board size 65 is out of range"),
        "{err}"
    );
    let err = refused(&["list", "--allowed", "-"], "2\n10\n1x\n");
    assert!(
        err.contains("line 3, column 2: unknown character 'x'"),
        "{err}"
    );
    // A queen on a square the allowed file blocks.
    let dir = tempfile::tempdir().unwrap();
    let allowed = write(dir.path(), "a.txt", "2\n01\n11\n");
    let err = refused(&["--allowed", s(&allowed), "--board", "-"], "Q.\n..\n");
    assert!(
        err.contains("line 1, column 1: a pre-placed piece on a blocked square"),
        "{err}"
    );
    // N must match; trace takes boards up to 8.
    let err = refused(&["7", "--allowed", BOOKS], "");
    assert!(err.contains("N = 7 does not match"), "{err}");
    let nine = format!("{}\n", vec![".".repeat(9); 9].join("\n"));
    assert!(refused(&["trace", "--board", "-"], &nine).contains("up to 8"));
    assert!(refused(&["--board", "missing-file.txt"], "").contains("cannot be read"));
}

#[test]
fn a_byte_order_mark_is_skipped_and_bytes_that_are_not_text_are_refused_by_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let bom = file("bom.txt", b"\xef\xbb\xbf4\n1111\n1111\n1111\n1111\n");
    assert_eq!(solutions(&["--allowed", s(&bom), "--piece", "rook"]), 24);
    let bom = file("bomb.txt", b"\xef\xbb\xbf....\n....\n....\n....\n");
    assert_eq!(solutions(&["--board", s(&bom)]), 2);
    for (args, bytes, place) in [
        (
            ["--allowed", "--piece", "rook"],
            &b"4\n1111\n11\xff1\n1111\n1111\n"[..],
            "line 3, column 3",
        ),
        (
            ["--board", "--piece", "queen"],
            &b"....\n\xc3(..\n....\n....\n"[..],
            "line 2, column 1",
        ),
    ] {
        let path = file("bad.txt", bytes);
        let out = cmd()
            .args([args[0], s(&path), args[1], args[2]])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("{place}: not UTF-8 text")), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_checkpoint_of_another_board_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.txt",
        "........\n.x......\n........\n........\n........\n........\n........\n........\n",
    );
    let b = write(
        dir.path(),
        "b.txt",
        "........\n..x.....\n........\n........\n........\n........\n........\n........\n",
    );
    let ck = dir.path().join("ck.json");
    let first = solutions(&["--board", s(&a), "--checkpoint", s(&ck)]);
    assert!(ck.exists());
    assert_eq!(
        solutions(&["--board", s(&a), "--checkpoint", s(&ck)]),
        first
    );
    let out = cmd()
        .args(["--board", s(&b), "--checkpoint", s(&ck)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another plan"));
    // On the empty board it is a file of another count too: exit 1, and what to give.
    let out = cmd().args(["8", "--checkpoint", s(&ck)]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("written for a constrained board: give its --board"),
        "{err}"
    );
}

#[test]
fn shards_of_a_board_merge_to_its_count() {
    let dir = tempfile::tempdir().unwrap();
    let board = write(
        dir.path(),
        "b.txt",
        "..........\n...x......\n..........\n.....x....\n..........\n..........\n..........\n..........\n..........\n..........\n",
    );
    let whole = solutions(&["--board", s(&board)]);
    let mut files = Vec::new();
    for i in 0..3 {
        let out = dir.path().join(format!("s{i}.json"));
        stdout_of(&[
            "--board",
            s(&board),
            "--shard",
            &format!("{i}/3"),
            "--out",
            s(&out),
        ]);
        files.push(out);
    }
    let mut args = vec!["merge", "--json", "--board", s(&board)];
    args.extend(files.iter().map(|f| s(f)));
    let merged: serde_json::Value = serde_json::from_str(stdout_of(&args).trim()).unwrap();
    assert_eq!(merged["solutions"].to_string(), whole.to_string());
    // Without the board, or with another, the plan cannot be rebuilt: the message says what
    // to pass. Shards of the empty board merge without a board.
    let other = write(
        dir.path(),
        "o.txt",
        &format!("x{}\n", ".".repeat(9)).repeat(10),
    );
    let empty: Vec<PathBuf> = (0..2)
        .map(|i| {
            let out = dir.path().join(format!("e{i}.json"));
            stdout_of(&["10", "--shard", &format!("{i}/2"), "--out", s(&out)]);
            out
        })
        .collect();
    for (files, board, says) in [
        (
            &files,
            None,
            "the shards count a constrained board: give the --board",
        ),
        (
            &files,
            Some(&other),
            "the shards were counted for another board",
        ),
        (
            &empty,
            Some(&board),
            "the shards count the empty board, not the board given",
        ),
    ] {
        let mut c = cmd();
        c.arg("merge").args(files.iter());
        if let Some(b) = board {
            c.arg("--board").arg(b);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(out.stdout.is_empty());
        assert!(err.contains(says), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // An empty rook board's shards merge with --piece rook alone.
    let mut files = Vec::new();
    for i in 0..2 {
        let out = dir.path().join(format!("r{i}.json"));
        let shard = format!("{i}/2");
        stdout_of(&[
            "9",
            "--piece",
            "rook",
            "--split-depth",
            "1",
            "--shard",
            &shard,
            "--out",
            s(&out),
        ]);
        files.push(out);
    }
    let mut args = vec!["merge", "--json", "--piece", "rook"];
    args.extend(files.iter().map(|f| s(f)));
    let merged: serde_json::Value = serde_json::from_str(stdout_of(&args).trim()).unwrap();
    assert_eq!(merged["solutions"], 362_880);
}

#[test]
fn the_trace_marks_pruned_squares() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "b.txt", "....\nx...\nQ...\n....\n");
    let text = stdout_of(&["trace", "--board", s(&file)]);
    assert!(text.contains("killed: blocked square"), "{text}");
    assert!(
        text.contains("killed: row holds a pre-placed queen in column 1"),
        "{text}"
    );
    assert!(
        text.contains(
            "node 2: row 1, column 1 -- killed: column holds the pre-placed queen of row 3"
        ),
        "{text}"
    );
    assert!(text.contains("node 34: row 1, column 3 -- killed: anti-diagonal with pre-placed queen at row 3, column 1"), "{text}");
    assert!(text.contains("solution 1: 2 4 1 3"), "{text}");
    let solutions_line = text.lines().last().unwrap();
    assert!(
        solutions_line.starts_with("4-queens: 1 solution, 65 nodes"),
        "{solutions_line}"
    );
    let rooks = stdout_of(&["trace", "3", "--piece", "rook"]);
    assert!(
        rooks
            .trim_end()
            .ends_with("3-rooks: 6 solutions, 16 nodes in the tree of permutations, 16 generated")
    );
}

#[test]
fn the_svg_picture_is_well_formed_and_draws_the_first_k_boards() {
    let svg = stdout_of(&["list", "8", "--format", "svg"]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let boards = doc
        .descendants()
        .filter(|n| {
            n.attribute("id")
                .is_some_and(|id| id.starts_with("solution-"))
        })
        .count();
    assert_eq!(boards, 16);
    let svg = stdout_of(&[
        "list",
        "--allowed",
        BOOKS,
        "--piece",
        "rook",
        "--format",
        "svg",
        "--limit",
        "3",
    ]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(circles, 5);
    let none = stdout_of(&["list", "2", "--format", "svg"]);
    assert!(
        roxmltree::Document::parse(&none)
            .unwrap()
            .root_element()
            .has_tag_name("svg")
    );
    assert!(none.contains("no solution"));
}

#[test]
fn the_dot_tree_is_well_formed_and_renders_where_graphviz_is_installed() {
    let dot = stdout_of(&["trace", "4", "--format", "dot"]);
    assert!(dot.starts_with("digraph trace {\n") && dot.ends_with("}\n"));
    // One node statement per generated node (33 with the root), one edge per non-root node.
    let nodes = dot
        .lines()
        .filter(|l| l.trim_start().starts_with('n') && l.contains(" [label=") && !l.contains("->"))
        .count();
    let edges = dot.lines().filter(|l| l.contains(" -> ")).count();
    assert_eq!((nodes, edges), (33, 32));
    assert_eq!(
        dot.matches("shape=box").count(),
        16,
        "killed nodes are boxes"
    );
    assert_eq!(dot.matches("shape=doublecircle").count(), 2);
    let has_dot = Std::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_dot {
        skip("Graphviz `dot` is not on PATH, so the tree was not rendered");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "t.dot", &dot);
    let out = Std::new("dot").arg("-Tsvg").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    // Graphviz writes the SVG 1.1 doctype.
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&svg, options).unwrap();
    let titles = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("node"))
        .count();
    assert_eq!(titles, 33);
    // A wider tree is scaled down to a width a viewer takes: 6 queens' whole tree, laid out
    // some 11,800 points wide, is drawn within 100 inches (7,200 points).
    let wide = write(
        dir.path(),
        "t6.dot",
        &stdout_of(&["trace", "6", "--format", "dot"]),
    );
    let out = Std::new("dot").arg("-Tsvg").arg(&wide).output().unwrap();
    let svg = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &svg,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let width = doc.root_element().attribute("width").unwrap();
    let points: f64 = width.strip_suffix("pt").unwrap().parse().unwrap();
    assert!(points > 5000.0 && points <= 7200.0, "{width}");
}

#[test]
fn an_endless_board_file_is_refused_not_read_forever() {
    // /dev/zero never ends; the read stops at a size no board comes near.
    if !Path::new("/dev/zero").exists() {
        return skip("no /dev/zero here");
    }
    let out = cmd().args(["--board", "/dev/zero"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("longer than"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_queens_board_with_no_solution_says_when_rooks_have_some() {
    let books = fs::read_to_string(BOOKS).unwrap();
    for args in [
        &["list", "--allowed", "-"][..],
        &["--allowed", "-", "--threads", "2"],
    ] {
        let out = cmd()
            .args(args)
            .write_stdin(books.as_str())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err, "note: no queens fit; with --piece rook there is 1 way\n",
            "{args:?}"
        );
    }
    // Two ways for rooks: the plural, through --board.
    let out = cmd()
        .args(["--board", "-", "--json"])
        .write_stdin(".x.\nx.x\n.x.\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "note: no queens fit; with --piece rook there are 2 ways\n"
    );
    // No note where the queens fit, where the rooks do not either, or for the empty board.
    for (args, stdin) in [
        (&["list", "--allowed", "-"][..], "2\n11\n00\n"),
        (&["list", "--board", "-"], "..Q.\n....\n....\n....\n"),
        (&["list", "3"], ""),
        (&["list", "--allowed", BOOKS, "--piece", "rook"], ""),
    ] {
        let out = cmd().args(args).write_stdin(stdin).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {:?}", out.stderr);
    }
}

#[test]
fn allowed_file_errors_name_the_size_line_and_the_rows() {
    let cases = [
        (
            "00110\n11000\n01100\n00010\n01001\n",
            "line 1, column 1: the size line is missing: an allowed file starts with a line \
             holding n alone (here 5), then n rows of n digits",
        ),
        (
            "5\n00110\n11000\n01100\n0010\n01001\n",
            "line 5, column 5: this row has 4 squares, but the size line says n = 5",
        ),
        (
            "5\n00110\n11000\n01100\n000101\n01001\n",
            "line 5, column 6: this row has 6 squares, but the size line says n = 5",
        ),
        (
            "5\n00110\n11000\n01100\n00010\n",
            "line 6, column 1: 4 rows, but the size line says n = 5",
        ),
        (
            "2\n10\n01\n11\n",
            "line 4, column 1: 3 rows, but the size line says n = 2",
        ),
        (
            "five\n",
            "line 1, column 1: expected the size line: the board size n, alone on the first line",
        ),
    ];
    for (text, want) in cases {
        let err = refused(&["list", "--allowed", "-"], text);
        assert_eq!(err, format!("error: standard input: {want}\n"), "{text:?}");
    }
    // A size line of 0s and 1s is still a size when the rows follow it.
    let ten = format!("10\n{}", "1111111111\n".repeat(10));
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "ten.txt", &ten);
    assert_eq!(
        solutions(&["--allowed", s(&file), "--piece", "rook"]),
        3628800
    );
}

#[test]
fn both_formats_take_spaces_between_squares() {
    // The same board, with and without spaces, in both formats.
    let board = "..Q.\n....\n....\n....\n";
    let spaced = ". . Q .\n. . . .\n.\t. . .\n. . . .  \n";
    for text in [board, spaced] {
        assert_eq!(
            stdout_of_stdin(&["list", "--board", "-"], text),
            "3 1 4 2\n"
        );
    }
    let allowed = "4\n1111\n1111\n1111\n1111\n";
    let spaced = "4\n1 1 1 1\n1 1 1 1\n1\t1 1 1\n 1 1 1 1\n";
    for text in [allowed, spaced] {
        assert_eq!(
            stdout_of_stdin(&["list", "--allowed", "-"], text),
            "2 4 1 3\n3 1 4 2\n"
        );
    }
    // Errors still point at the character.
    let err = refused(&["--board", "-"], ". . Q ?\n");
    assert!(
        err.contains("line 1, column 7: unknown character '?'"),
        "{err}"
    );
    let err = refused(&["--board", "-"], ". . . .\n. . .\n. . . .\n. . . .\n");
    assert!(
        err.contains("line 2, column 6: this row has 3 squares, the first row has 4"),
        "{err}"
    );
}

fn stdout_of_stdin(args: &[&str], stdin: &str) -> String {
    let out = cmd().args(args).write_stdin(stdin).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} {stdin:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
