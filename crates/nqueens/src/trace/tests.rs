//! The trace against the textbook figure of 4-queens, the numbering rule, and the summaries.

use super::*;

fn queens(n: usize) -> Board {
    Board::empty(n, PieceKind::Queen).unwrap()
}

fn trace(n: usize) -> (String, TraceSummary) {
    let mut buf = Vec::new();
    let summary = queens(n)
        .write_trace(TraceExtent::Whole, &mut buf)
        .expect("trace succeeds");
    (String::from_utf8(buf).expect("utf-8"), summary)
}

fn trace_first(board: &Board) -> (String, TraceSummary) {
    let mut buf = Vec::new();
    let summary = board
        .write_trace(TraceExtent::FirstSolution, &mut buf)
        .unwrap();
    (String::from_utf8(buf).expect("utf-8"), summary)
}

fn node_lines(text: &str) -> usize {
    text.lines()
        .filter(|line| line.trim_start().starts_with("node "))
        .count()
}

const FOUR_QUEENS: &str = "\
trace of 4-queens: plain row-by-row backtracking, nodes numbered depth-first over the tree of permutations
node 1: root
  node 2: row 1, column 1
    node 3: row 2, column 2 -- killed: diagonal with queen at row 1, column 1
    node 8: row 2, column 3
      node 9: row 3, column 2 -- killed: anti-diagonal with queen at row 2, column 3
      node 11: row 3, column 4 -- killed: diagonal with queen at row 2, column 3
    node 13: row 2, column 4
      node 14: row 3, column 2
        node 15: row 4, column 3 -- killed: diagonal with queen at row 3, column 2
      node 16: row 3, column 3 -- killed: diagonal with queen at row 1, column 1
  node 18: row 1, column 2
    node 19: row 2, column 1 -- killed: anti-diagonal with queen at row 1, column 2
    node 24: row 2, column 3 -- killed: diagonal with queen at row 1, column 2
    node 29: row 2, column 4
      node 30: row 3, column 1
        node 31: row 4, column 3 -- solution 1: 2 4 1 3
      node 32: row 3, column 3 -- killed: anti-diagonal with queen at row 2, column 4
  node 34: row 1, column 3
    node 35: row 2, column 1
      node 36: row 3, column 2 -- killed: diagonal with queen at row 2, column 1
      node 38: row 3, column 4
        node 39: row 4, column 2 -- solution 2: 3 1 4 2
    node 40: row 2, column 2 -- killed: anti-diagonal with queen at row 1, column 3
    node 45: row 2, column 4 -- killed: diagonal with queen at row 1, column 3
  node 50: row 1, column 4
    node 51: row 2, column 1
      node 52: row 3, column 2 -- killed: anti-diagonal with queen at row 1, column 4
      node 54: row 3, column 3
        node 55: row 4, column 2 -- killed: anti-diagonal with queen at row 3, column 3
    node 56: row 2, column 2
      node 57: row 3, column 1 -- killed: anti-diagonal with queen at row 2, column 2
      node 59: row 3, column 3 -- killed: diagonal with queen at row 2, column 2
    node 61: row 2, column 3 -- killed: anti-diagonal with queen at row 1, column 4
4-queens: 2 solutions, 65 nodes in the tree of permutations, 33 generated
";

#[test]
fn four_queens_snapshot() {
    let (text, summary) = trace(4);
    assert_eq!(text, FOUR_QUEENS);
    assert_eq!(
        (summary.nodes, summary.solutions, summary.tree),
        (33, 2, 65)
    );
    assert_eq!(subtree_sizes(4)[..5], [65, 16, 5, 2, 1]);
}

/// Recomputes each node's number from its path alone (preorder index in
/// the full permutation tree, by counting) and checks the printed one.
#[test]
fn numbering_matches_permutation_preorder() {
    for n in 1..=6 {
        let sizes = subtree_sizes(n);
        let (text, _) = trace(n);
        let mut path: Vec<usize> = Vec::new();
        for line in text.lines().filter(|l| l.contains(": row ")) {
            let depth = (line.len() - line.trim_start().len()) / 2;
            let col: usize = line
                .split("column ")
                .nth(1)
                .unwrap()
                .split(|ch: char| !ch.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap();
            path.truncate(depth - 1);
            path.push(col - 1);
            let mut expected = 1u64;
            for (d, &c) in path.iter().enumerate() {
                let rank = (0..c).filter(|x| !path[..d].contains(x)).count() as u64;
                expected += 1 + rank * sizes[d + 1];
            }
            let printed: u64 = line.trim_start()["node ".len()..]
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(printed, expected, "n = {n}: {line}");
        }
    }
}

#[test]
fn eight_queens_finds_92() {
    let (text, summary) = trace(8);
    assert_eq!(summary.solutions, 92);
    assert_eq!(text.matches(" -- solution ").count(), 92);
    assert_eq!(node_lines(&text) as u64, summary.nodes);
    assert!(text.contains("node 2: row 1, column 1\n"));
    assert!(text.contains(" -- solution 1: 1 5 8 6 3 7 2 4\n"));
    assert!(text.contains(" -- solution 92: 8 4 1 3 6 2 7 5\n"));
    assert!(text.ends_with(&format!(
        "8-queens: 92 solutions, 109601 nodes in the tree of permutations, {} generated\n",
        summary.nodes
    )));
}

#[test]
fn one_queen() {
    let (text, summary) = trace(1);
    assert_eq!(
        text,
        "trace of 1-queens: plain row-by-row backtracking, \
         nodes numbered depth-first over the tree of permutations\n\
         node 1: root\n  node 2: row 1, column 1 -- solution 1: 1\n\
         1-queens: 1 solution, 2 nodes in the tree of permutations, 2 generated\n"
    );
    assert_eq!((summary.nodes, summary.solutions, summary.tree), (2, 1, 2));
}

#[test]
fn two_and_three_have_no_solution() {
    for n in [2, 3] {
        let (text, summary) = trace(n);
        assert_eq!(summary.solutions, 0);
        assert!(!text.contains("solution 1"));
        assert!(text.contains(&format!("{n}-queens: 0 solutions, ")));
    }
}

#[test]
fn out_of_range_is_invalid_input() {
    for n in [Board::MAX_TRACE_N + 1, 32] {
        let mut buf = Vec::new();
        let err = queens(n)
            .write_trace(TraceExtent::Whole, &mut buf)
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(buf.is_empty());
    }
}

#[test]
fn writer_errors_are_returned() {
    struct Failing;
    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let err = queens(4)
        .write_trace(TraceExtent::Whole, &mut Failing)
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
}

#[test]
fn on_constrained_boards_the_trace_finds_what_the_listing_finds() {
    use nqueens_engine::random::XorShift;
    let mut rng = XorShift::new(4);
    for piece in [PieceKind::Queen, PieceKind::Rook] {
        for n in 1..=7 {
            let open: Vec<u64> = (0..n)
                .map(|_| {
                    (0..n)
                        .filter(|_| rng.below(4) != 0)
                        .fold(0, |a, c| a | 1 << c)
                })
                .collect();
            let board = Board::new(n, piece, open, vec![None; n]).unwrap();
            let mut text = Vec::new();
            let summary = board.write_trace(TraceExtent::Whole, &mut text).unwrap();
            let mut listed = Vec::new();
            board.for_each_solution(|cols| {
                listed.push(cols.to_vec());
                std::ops::ControlFlow::Continue(())
            });
            assert_eq!(summary.solutions, listed.len() as u64, "{board:?}");
            let text = String::from_utf8(text).unwrap();
            assert_eq!(node_lines(&text) as u64, summary.nodes);
            // Every square called blocked is blocked, and every blocked square the search
            // reaches is called so.
            for line in text.lines().filter(|l| l.contains(": row ")) {
                let rc: Vec<usize> = line
                    .split(|ch: char| !ch.is_ascii_digit())
                    .filter(|w| !w.is_empty())
                    .skip(1)
                    .take(2)
                    .map(|w| w.parse().unwrap())
                    .collect();
                let open = board.open()[rc[0] - 1] >> (rc[1] - 1) & 1 == 1;
                assert_eq!(!open, line.ends_with("killed: blocked square"), "{line}");
            }
            // Up to the first solution: the listing's first.
            let (text, summary) = trace_first(&board);
            assert_eq!(summary.first.map(|f| f.1), listed.first().cloned());
            assert_eq!(node_lines(&text) as u64, summary.nodes);
        }
    }
}

#[test]
fn up_to_the_first_solution_is_the_start_of_the_whole_trace() {
    for n in 1..=8 {
        let (whole, all) = trace(n);
        let (first, summary) = trace_first(&queens(n));
        let lines: Vec<&str> = first.lines().collect();
        let (last, body) = lines.split_last().unwrap();
        assert!(
            whole.starts_with(&format!("{}\n", body.join("\n"))),
            "n = {n}"
        );
        assert_eq!(node_lines(&first) as u64, summary.nodes, "n = {n}");
        assert_eq!(summary.first, all.first, "n = {n}");
        assert!(!all.stopped);
        if all.solutions == 0 {
            assert_eq!(whole.lines().count(), lines.len(), "n = {n}");
            assert!(
                last.contains("no solution, the whole tree walked"),
                "{last}"
            );
            assert!(!summary.stopped);
        } else {
            assert_eq!(first.matches(" -- solution ").count(), 1, "n = {n}");
            assert!(body.last().unwrap().contains(" -- solution 1: "), "n = {n}");
            assert!(summary.stopped && summary.solutions == 1);
        }
    }
    // Where the textbook figures end: for 8, the first of the 92 in lexicographic order.
    for (n, first, nodes) in [
        (4, (31, vec![1, 3, 0, 2]), 16),
        (8, (7731, vec![0, 4, 7, 5, 2, 6, 1, 3]), 337),
    ] {
        let (_, summary) = trace_first(&queens(n));
        assert_eq!((summary.first, summary.nodes), (Some(first), nodes));
    }
}
