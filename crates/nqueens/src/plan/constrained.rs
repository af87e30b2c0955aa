//! The plan of a constrained board: every placement of its first free rows is a subproblem
//! (a run may cut a long queens search into slices, as it does the kernel's).
//!
//! The split depth counts free rows (rows without a pre-placed piece); the pre-placed rows
//! among and before them are forced and cost nothing. A rook board whose whole count goes to
//! the dynamic programme or to Ryser's formula is one subproblem by default: splitting such a
//! count by rows multiplies its work instead of sharing it out (Ryser's sum shares its own
//! parts among the run's threads instead).

use super::PlanError;
use super::limits::{MAX_SPLIT_DEPTH, MAX_SUBPROBLEMS, target_subproblems};
use super::{Start, Work};
use crate::constraint::{self, Board, PieceKind, Route};
use nqueens_engine::kernel;

/// The split depth and the entries of `board`.
pub(super) fn subproblems(
    board: &Board,
    split_depth: Option<usize>,
) -> Result<(usize, Vec<Work>), PlanError> {
    let allowed = board.allowed();
    let free_rows = board.placed().iter().filter(|p| p.is_none()).count();
    let highest = free_rows.min(MAX_SPLIT_DEPTH);
    let depth = match split_depth {
        Some(d) if d > highest => {
            return Err(PlanError::SplitDepth {
                depth: d,
                lowest: 0,
                highest,
            });
        }
        Some(d) => d,
        // A default plan leaves at least two free rows to each search, so that even a tiny
        // board's count walks nodes of its own (its last row is counted in bulk).
        None => default_depth(board, &allowed, highest.min(free_rows.saturating_sub(2))),
    };
    let starts = prefixes(board, &allowed, depth).ok_or(PlanError::PlanTooLarge {
        depth,
        limit: MAX_SUBPROBLEMS,
    })?;
    let subproblems = starts
        .into_iter()
        .map(|start| Work::Constrained { start })
        .collect();
    Ok((depth, subproblems))
}

/// The shallowest depth that makes enough pieces (0 for a rook board counted at once).
fn default_depth(board: &Board, allowed: &[u64], highest: usize) -> usize {
    if board.piece() == PieceKind::Rook
        && constraint::route(allowed, &kernel::Start::default()) != Route::Backtrack
    {
        return 0;
    }
    let target = target_subproblems(board.n().min(crate::board::MAX_N));
    let mut depth = 0;
    while depth < highest {
        match prefixes(board, allowed, depth) {
            Some(p) if p.len() >= target => break,
            None => return depth.saturating_sub(1),
            Some(_) => depth += 1,
        }
    }
    depth
}

/// Rows of the prefix with `depth` free rows: up to and including the depth-th free row.
fn prefix_rows(board: &Board, depth: usize) -> usize {
    let mut free = (0..board.n()).filter(|&r| board.placed()[r].is_none());
    match depth {
        0 => 0,
        d => free.nth(d - 1).map_or(board.n(), |r| r + 1),
    }
}

/// Every placement of the prefix's rows, in lexicographic order, as search states (`None`:
/// more than [`MAX_SUBPROBLEMS`]).
fn prefixes(board: &Board, allowed: &[u64], depth: usize) -> Option<Vec<Start>> {
    let rows = prefix_rows(board, depth);
    let queens = board.piece() == PieceKind::Queen;
    let mut out = Vec::new();
    let mut stack = vec![Start::default()];
    // Depth-first, children pushed highest column first so that the lowest comes out first.
    while let Some(s) = stack.pop() {
        if s.level == rows {
            if out.len() == MAX_SUBPROBLEMS {
                return None;
            }
            out.push(s);
            continue;
        }
        let mut free = allowed[s.level] & !(s.cols | s.diag | s.anti);
        while free != 0 {
            let b = 1 << (63 - free.leading_zeros());
            free ^= b;
            let (diag, anti) = if queens {
                ((s.diag | b) << 1, (s.anti | b) >> 1)
            } else {
                (0, 0)
            };
            stack.push(Start {
                level: s.level + 1,
                cols: s.cols | b,
                diag,
                anti,
            });
        }
    }
    Some(out)
}
