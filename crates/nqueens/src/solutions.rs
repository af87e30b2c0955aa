//! Streaming the n-queens solutions themselves, not just their count.
//!
//! The counting kernels only need to know *how many* placements exist, so they
//! never materialise a board. Listing solutions (the `list` command: its
//! `--limit` and board pictures) needs the actual column tuples, in a stable and predictable order,
//! without holding them all in memory: n = 16 alone has 14 772 512 of them.
//!
//! [`for_each_placement`] therefore walks the search tree of a board
//! ([`crate::constraint::Board::for_each_solution`]) iteratively with bit masks, hands each solution to a callback as a borrowed
//! slice of one reused buffer, and lets the callback stop the walk early. The
//! order is lexicographic in the column tuple, so "the first k solutions" is a
//! well-defined answer. [`format_tuple`] renders a solution, and the tests check
//! the walk with a deliberately naive checker that shares no code with the search.

use std::ops::ControlFlow;

#[cfg(test)]
use crate::board::{self, SizeError};

/// Calls `visit` with each solution of the n-queens problem, in lexicographic
/// order of the column tuple (`cols[r]` = 0-based column of the queen in row
/// `r`). Stops early when `visit` returns [`ControlFlow::Break`]. Returns the
/// number of solutions visited (including the one that asked to stop).
///
/// It is the walk of a constrained board ([`crate::constraint::Board::for_each_solution`])
/// on a board whose every square is allowed. Memory
/// use is constant: every solution is passed as a slice of one reused buffer, so
/// `visit` must copy the slice if it wants to keep it.
///
/// A board size outside `1..=32` is an error.
#[cfg(test)]
pub(crate) fn for_each_solution(
    n: usize,
    visit: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> Result<u64, SizeError> {
    board::validate(n)?;
    let full: u64 = (1u64 << n) - 1;
    Ok(for_each_placement(&vec![full; n], true, visit))
}

/// Calls `visit` with each placement of one piece a row (`cols[r]` = 0-based column of the
/// piece in row `r`) on the squares `allowed` (bit `c` of `allowed[r]`), no two in a column
/// and, with `diagonals` (queens), none in a diagonal, in lexicographic order of the column
/// tuple, until it returns [`ControlFlow::Break`]; returns how many it was given. Both the
/// empty board's `list` and a constrained board's ([`crate::constraint::Board`]) walk here.
///
/// The walk is an iterative depth-first backtracking search over rows, with one
/// `u64` mask each for occupied columns and the two diagonal directions (shifted
/// so that bit c means "column c of this row is attacked"). Candidate columns are
/// taken lowest first, which is what makes the output lexicographic.
pub(crate) fn for_each_placement(
    allowed: &[u64],
    diagonals: bool,
    mut visit: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> u64 {
    let n = allowed.len();
    let mut visited = 0;
    if n == 0 {
        return visited;
    }
    let mut tuple = vec![0u8; n];
    // Per row: the squares not yet tried, and the attacks it was entered with.
    let mut untried = vec![0u64; n];
    let mut state = vec![(0u64, 0u64, 0u64); n];
    untried[0] = allowed[0];
    let mut row = 0usize;
    loop {
        let f = untried[row];
        if f == 0 {
            if row == 0 {
                return visited;
            }
            row -= 1;
            continue;
        }
        let b = f & f.wrapping_neg();
        untried[row] ^= b;
        // `b` is a single bit below position 64, so this fits in a u8.
        tuple[row] = b.trailing_zeros() as u8;
        if row + 1 == n {
            visited += 1;
            if visit(&tuple).is_break() {
                return visited;
            }
            continue;
        }
        let (cols, diag, anti) = state[row];
        let next = if diagonals {
            (cols | b, (diag | b) << 1, (anti | b) >> 1)
        } else {
            (cols | b, 0, 0)
        };
        row += 1;
        state[row] = next;
        untried[row] = allowed[row] & !(next.0 | next.1 | next.2);
    }
}

/// Formats a solution as `2 4 1 3` (1-based columns, single spaces).
#[must_use]
pub fn format_tuple(cols: &[u8]) -> String {
    let mut text = String::with_capacity(cols.len() * 3);
    for (i, &c) in cols.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&(u32::from(c) + 1).to_string());
    }
    text
}

/// True when `cols` is a valid n-queens solution for n = `cols.len()`
/// (independent, naive O(n^2) check: every column on the board, distinct
/// columns, no shared diagonal). Used by tests as an independent checker.
///
/// The empty tuple is vacuously accepted.
#[cfg(test)]
fn is_solution(cols: &[u8]) -> bool {
    let n = cols.len();
    if cols.iter().any(|&c| usize::from(c) >= n) {
        return false;
    }
    for r1 in 0..n {
        for r2 in (r1 + 1)..n {
            let c1 = usize::from(cols[r1]);
            let c2 = usize::from(cols[r2]);
            if c1 == c2 || c1.abs_diff(c2) == r2 - r1 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(n: usize) -> Vec<Vec<u8>> {
        let mut all = Vec::new();
        let visited = for_each_solution(n, |cols| {
            all.push(cols.to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(visited, all.len() as u64);
        all
    }

    fn one_based(cols: &[u8]) -> Vec<u8> {
        cols.iter().map(|&c| c + 1).collect()
    }

    #[test]
    fn four_queens_exact() {
        assert_eq!(collect(4), vec![vec![1, 3, 0, 2], vec![2, 0, 3, 1]]);
    }

    #[test]
    fn eight_queens_first_and_last() {
        let all = collect(8);
        assert_eq!(all.len(), 92);
        assert_eq!(one_based(&all[0]), vec![1, 5, 8, 6, 3, 7, 2, 4]);
        assert_eq!(one_based(&all[91]), vec![8, 4, 1, 3, 6, 2, 7, 5]);
        assert_eq!(format_tuple(&all[0]), "1 5 8 6 3 7 2 4");
    }

    #[test]
    fn counts_up_to_ten() {
        let expected = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724];
        for (i, &want) in expected.iter().enumerate() {
            let n = i + 1;
            let got = for_each_solution(n, |_| ControlFlow::Continue(())).unwrap();
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn valid_and_strictly_increasing() {
        for n in 1..=9 {
            let all = collect(n);
            for cols in &all {
                assert_eq!(cols.len(), n);
                assert!(is_solution(cols), "n = {n}: {cols:?}");
            }
            for pair in all.windows(2) {
                assert!(pair[0] < pair[1], "n = {n}: {:?} !< {:?}", pair[0], pair[1]);
            }
        }
    }

    #[test]
    fn early_stop_after_k() {
        let all = collect(8);
        for k in [1usize, 2, 5, 91, 92] {
            let mut seen = Vec::new();
            let visited = for_each_solution(8, |cols| {
                seen.push(cols.to_vec());
                if seen.len() == k {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .unwrap();
            assert_eq!(visited, k as u64);
            assert_eq!(seen, all[..k].to_vec());
        }
    }

    #[test]
    fn out_of_range_n_is_an_error_and_visits_nothing() {
        let mut calls = 0;
        let err = for_each_solution(0, |_| {
            calls += 1;
            ControlFlow::Continue(())
        })
        .unwrap_err();
        assert!(matches!(err, SizeError(0)), "{err}");
        assert_eq!(calls, 0);
        assert!(for_each_solution(33, |_| ControlFlow::Continue(())).is_err());
    }

    #[test]
    fn large_n_first_solution_is_valid() {
        for n in [20usize, 32] {
            let mut first = Vec::new();
            let visited = for_each_solution(n, |cols| {
                first = cols.to_vec();
                ControlFlow::Break(())
            })
            .unwrap();
            assert_eq!(visited, 1);
            assert_eq!(first.len(), n);
            assert!(is_solution(&first));
        }
    }

    #[test]
    fn is_solution_rejects_bad_tuples() {
        assert!(is_solution(&[1, 3, 0, 2]));
        assert!(is_solution(&[0]));
        // same column
        assert!(!is_solution(&[1, 3, 1, 2]));
        // same down-right diagonal only (rows 2 and 3, columns 1 and 2)
        assert!(!is_solution(&[0, 3, 1, 2]));
        // same down-left diagonal only (rows 1 and 2, columns 3 and 2)
        assert!(!is_solution(&[1, 3, 2, 0]));
        // column off the board
        assert!(!is_solution(&[1, 3, 0, 4]));
        assert!(!is_solution(&[0, 1]));
    }

    #[test]
    fn formatting_of_four_queens_solution() {
        let cols = [1u8, 3, 0, 2];
        assert_eq!(format_tuple(&cols), "2 4 1 3");
        assert_eq!(format_tuple(&[]), "");
    }
}
