//! The constrained counts against brute force, the published totals and closed forms.

use std::ops::ControlFlow;

use super::*;
use crate::{Config, Error, Job, count};
use nqueens_engine::random::XorShift;

/// Every placement of one piece per row and column, kept where the board allows it:
/// permutations, deliberately unlike the bitmask searches.
fn brute(board: &Board) -> Vec<Vec<u8>> {
    fn go(b: &Board, row: usize, cols: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        let n = b.n();
        if row == n {
            out.push(cols.clone());
            return;
        }
        for c in 0..n as u8 {
            let ok = b.open()[row] >> c & 1 == 1
                && b.placed()[row].is_none_or(|p| p == c)
                && !cols.contains(&c)
                && (b.piece() == PieceKind::Rook
                    || cols
                        .iter()
                        .enumerate()
                        .all(|(r, &q)| row - r != usize::from(c.abs_diff(q))));
            if ok {
                cols.push(c);
                go(b, row + 1, cols, out);
                cols.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(board, 0, &mut Vec::new(), &mut out);
    out
}

fn listed(board: &Board) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    board.for_each_solution(|c| {
        all.push(c.to_vec());
        ControlFlow::Continue(())
    });
    all
}

fn counted(board: &Board, threads: usize) -> u128 {
    count(&Config::board(board.clone()).threads(threads))
        .unwrap()
        .total
}

/// A random board: some squares blocked, up to two pieces pre-placed (pairs that attack are
/// dropped).
fn random_board(rng: &mut XorShift, n: usize, piece: PieceKind) -> Board {
    let density = 1 + rng.below(4);
    let open: Vec<u64> = (0..n)
        .map(|_| {
            (0..n)
                .filter(|_| rng.below(5) < density + 1)
                .fold(0u64, |a, c| a | 1 << c)
        })
        .collect();
    let mut placed = vec![None; n];
    for _ in 0..rng.below(3) {
        let (r, c) = (rng.below(n), rng.below(n));
        let mut trial = placed.clone();
        trial[r] = Some(c as u8);
        let mut o = open.clone();
        o[r] |= 1 << c;
        if Board::new(n, piece, o.clone(), trial.clone()).is_ok() {
            placed = trial;
        }
    }
    let mut open = open;
    for (r, p) in placed.iter().enumerate() {
        if let Some(c) = p {
            open[r] |= 1 << c;
        }
    }
    Board::new(n, piece, open, placed).unwrap()
}

#[test]
fn random_boards_agree_with_brute_force() {
    let mut rng = XorShift::new(2017);
    for piece in [PieceKind::Queen, PieceKind::Rook] {
        for n in 1..=8 {
            for _ in 0..12 {
                let b = random_board(&mut rng, n, piece);
                let want = brute(&b);
                assert_eq!(listed(&b), want, "{b:?}");
                assert_eq!(counted(&b, 2), want.len() as u128, "{b:?}");
            }
        }
    }
}

#[test]
fn counts_that_might_not_fit_are_refused_and_others_kept() {
    let err = Job::new(&Config::board(Board::empty(40, PieceKind::Rook).unwrap())).unwrap_err();
    assert!(
        matches!(err, Error::Board(BoardError::CountTooLarge { n: 40, .. })),
        "{err}"
    );
    // 34! is below 2^128; it is planned (not counted here).
    assert!(Job::new(&Config::board(Board::empty(34, PieceKind::Rook).unwrap())).is_ok());
}

#[test]
fn the_plan_fingerprints_the_board() {
    let a = parse_board("....\n.x..\n....\n....\n", PieceKind::Queen, None).unwrap();
    let b = parse_board("....\n..x.\n....\n....\n", PieceKind::Queen, None).unwrap();
    let plan = |b: &Board| crate::Plan::constrained(b, None).unwrap().hash();
    assert_ne!(plan(&a), plan(&b));
    assert_ne!(plan(&a), plan(&a.with_piece(PieceKind::Rook).unwrap()));
    assert_eq!(plan(&a), plan(&a.clone()));
    let q = |n| Board::empty(n, PieceKind::Queen).unwrap();
    assert_ne!(
        plan(&q(8)),
        crate::Plan::build(8, crate::Algorithm::Plain, None)
            .unwrap()
            .hash()
    );
}

#[test]
fn split_depths_count_the_same() {
    let mut rng = XorShift::new(5);
    for piece in [PieceKind::Queen, PieceKind::Rook] {
        let b = random_board(&mut rng, 9, piece);
        let want = brute(&b).len() as u128;
        for d in 0..=4 {
            let c = count(&Config::board(b.clone()).threads(2).split_depth(d)).unwrap();
            assert_eq!(c.total, want, "{piece} depth {d}");
            assert_eq!(c.unique, None);
        }
    }
}

#[test]
fn blank_lines_and_comments_are_skipped_but_counted() {
    let err = |text| parse_board(text, PieceKind::Queen, None).unwrap_err();
    let e = err("\n\n");
    assert_eq!((e.line, e.column, e.problem), (2, 1, ParseProblem::Empty));
    let e = err("# c\n..\n.z\n");
    assert_eq!((e.line, e.column), (3, 2));
    let text = "# top\n\n..x  # blocked\n...\n.Q.\n";
    let b = parse_board(text, PieceKind::Queen, None).unwrap();
    assert_eq!(b.open(), &[0b011, 0b111, 0b111]);
    assert_eq!(b.placed(), &[None, None, Some(1)]);
}

/// A board of `n` with two squares blocked, a queen pre-placed in row 3 and its row left free
/// elsewhere.
fn blocked_board(n: usize) -> Board {
    let mut rows: Vec<String> = (0..n).map(|_| ".".repeat(n)).collect();
    rows[0] = format!("x{}", ".".repeat(n - 1));
    rows[n / 2] = format!("{}x", ".".repeat(n - 1));
    rows[3] = format!("{}Q{}", ".".repeat(n / 3), ".".repeat(n - n / 3 - 1));
    parse_board(&rows.join("\n"), PieceKind::Queen, None).unwrap()
}

#[test]
fn the_slices_of_a_constrained_search_add_up_to_it() {
    use nqueens_engine::Slice;
    use nqueens_engine::constrained::{Completed, complete_slice};
    use nqueens_engine::kernel::Start;
    let stop = std::sync::atomic::AtomicBool::new(false);
    for n in [9, 13] {
        let b = blocked_board(n);
        let allowed = b.allowed();
        let start = Start::default();
        let whole = complete_slice(&allowed, &start, Slice::WHOLE, &stop).unwrap();
        assert!(whole.count > 0, "n = {n}");
        for of in [2, 37, 1000] {
            let mut sum = Completed::default();
            for index in 0..of {
                let s = complete_slice(&allowed, &start, Slice { index, of }, &stop).unwrap();
                sum.count += s.count;
                sum.nodes += s.nodes;
            }
            assert_eq!(sum, whole, "n = {n}, {of} slices");
        }
    }
    // A stopped slice gives up.
    let b = blocked_board(13);
    let stop = std::sync::atomic::AtomicBool::new(true);
    let slice = Slice { index: 1, of: 5 };
    assert_eq!(
        complete_slice(&b.allowed(), &Start::default(), slice, &stop),
        None
    );
}

#[test]
fn long_constrained_searches_are_cut_into_slices_that_count_the_same() {
    use crate::plan::{Cut, Plan, Work};
    use crate::run::{CostModel, SLICE_SECONDS};
    // How a run cuts the plan's searches by default.
    let slices = |p: &Plan| -> Vec<u64> {
        let costs = CostModel::new(p, SLICE_SECONDS);
        p.works()
            .map(|w| {
                assert!(matches!(w, Work::Constrained { .. }));
                costs.slices(&w)
            })
            .collect()
    };
    // Short searches stay whole.
    assert!(
        slices(&Plan::constrained(&blocked_board(16), None).unwrap())
            .iter()
            .all(|&k| k == 1)
    );
    // n = 24: searches of minutes are cut; a rook board's are not.
    let b = blocked_board(24);
    assert!(
        slices(&Plan::constrained(&b, None).unwrap())
            .iter()
            .any(|&k| k > 1)
    );
    let rooks = Board::new(24, PieceKind::Rook, b.open().to_vec(), b.placed().to_vec()).unwrap();
    assert!(
        slices(&Plan::constrained(&rooks, None).unwrap())
            .iter()
            .all(|&k| k == 1)
    );
    // A plan whose searches are cut into 3 counts what the whole searches count.
    let b = blocked_board(11);
    let plan = Plan::constrained(&b, None).unwrap();
    let (whole, cut) = (Cut::whole(plan.clone()), Cut::sliced(plan, 3));
    assert_eq!(cut.len(), 3 * whole.len());
    let total = |c: &Cut| -> u128 {
        c.subproblems()
            .map(|s| crate::run::solve_one(c.plan(), &s).count)
            .sum()
    };
    assert_eq!(total(&cut), total(&whole));
    assert_eq!(total(&whole), counted(&b, 2));
}

#[test]
fn the_symmetric_boards_are_those_every_symmetry_keeps() {
    assert!(Board::empty(7, PieceKind::Queen).unwrap().is_symmetric());
    assert!(Board::empty(5, PieceKind::Rook).unwrap().is_symmetric());
    // On a 5x5 board the centre blocked is kept by all eight, a corner by two only; a queen in
    // the centre stays there, one on the edge moves.
    let board = |blocked: Option<(usize, usize)>, queen: Option<(usize, u8)>| {
        let (mut open, mut placed) = (vec![0b11111u64; 5], vec![None; 5]);
        if let Some((r, c)) = blocked {
            open[r] &= !(1 << c);
        }
        if let Some((r, c)) = queen {
            placed[r] = Some(c);
        }
        Board::new(5, PieceKind::Queen, open, placed).unwrap()
    };
    let cases = [
        (Some((2, 2)), None, true),
        (Some((0, 0)), None, false),
        (None, Some((2, 2)), true),
        (None, Some((0, 2)), false),
    ];
    for (blocked, queen, symmetric) in cases {
        let b = board(blocked, queen);
        assert_eq!(b.is_symmetric(), symmetric, "{b:?}");
    }
    let refused =
        board(Some((0, 0)), None).for_each_unique_solution(|_, _| ControlFlow::Continue(()));
    assert_eq!(refused, Err(BoardError::NotSymmetric { n: 5 }));
}

#[test]
fn one_of_each_orbit_covers_every_solution_once() {
    // Empty boards of both pieces, and a board with its centre blocked.
    let mut boards: Vec<Board> = (1..=8)
        .flat_map(|n| [PieceKind::Queen, PieceKind::Rook].map(|p| Board::empty(n, p).unwrap()))
        .collect();
    let mut open = vec![0b1111111u64; 7];
    open[3] = 0b1110111;
    boards.push(Board::new(7, PieceKind::Queen, open, vec![None; 7]).unwrap());
    for board in boards {
        let n = board.n();
        let all = brute(&board);
        let mut covered = std::collections::HashSet::new();
        let mut reps: Vec<Vec<u8>> = Vec::new();
        let given = board
            .for_each_unique_solution(|cols, size| {
                // The orbit, made here by turning and mirroring the board's squares.
                let mut orbit = std::collections::HashSet::new();
                for turn in 0..4 {
                    for mirror in [false, true] {
                        let mut image = vec![0u8; n];
                        for (r, &c) in cols.iter().enumerate() {
                            let (mut r, mut c) = (r, usize::from(c));
                            for _ in 0..turn {
                                (r, c) = (c, n - 1 - r);
                            }
                            if mirror {
                                c = n - 1 - c;
                            }
                            image[r] = c as u8;
                        }
                        orbit.insert(image);
                    }
                }
                assert_eq!(orbit.len(), usize::from(size), "{cols:?}");
                assert!(orbit.iter().all(|o| cols <= o.as_slice()), "{cols:?}");
                assert!(orbit.iter().all(|o| covered.insert(o.clone())), "{cols:?}");
                reps.push(cols.to_vec());
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(given, reps.len() as u64);
        assert!(reps.windows(2).all(|w| w[0] < w[1]), "{board:?}");
        let all: std::collections::HashSet<Vec<u8>> = all.into_iter().collect();
        assert_eq!(covered, all, "{board:?}");
        if board.is_empty() && board.piece() == PieceKind::Queen {
            assert_eq!(Some(u128::from(given)), crate::known::unique(n));
        }
    }
}
