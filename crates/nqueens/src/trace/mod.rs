//! The classic state-space tree walk-through of n-queens backtracking.
//!
//! Textbooks introduce backtracking with the 4-queens problem drawn as a tree
//! (Horowitz & Sahni's "tree organization of the 4-queens solution space"):
//! the tree of permutations, whose level d holds every way of putting queens
//! in rows 1..=d on distinct columns, and whose nodes are numbered depth-first.
//! The search then walks that tree, killing a node as soon as its newest queen
//! shares a diagonal with an earlier one. This module prints exactly that walk
//! for small boards, so the numbers can be compared with the figure, which is
//! a good way to understand what the fast counters are pruning.
//!
//! # Numbering
//!
//! Nodes carry their preorder index in the *full* permutation tree: the root
//! is node 1, the children of a node are its choices of column for the next
//! row in increasing column order (columns already used are not children), and
//! a killed node's subtree, although never generated, still uses up its
//! numbers. A node with d queens placed roots a subtree of
//! S(d) = 1 + (n - d) * S(d + 1) nodes (S(n) = 1), so its children are numbered
//! k + 1, k + 1 + S(d + 1), k + 1 + 2 S(d + 1), ... For n = 4 the tree has
//! 1 + 4 + 12 + 24 + 24 = 65 nodes and the two solutions are nodes 31 and 39.
//!
//! # Output format
//!
//! Rows and columns are printed 1-based. The first line is a header, then one
//! line per node the search generates, indented two spaces per queen placed:
//!
//! * `node 1: root` for the root;
//! * `node K: row R, column C` for a live node whose subtree is searched;
//! * `node K: row R, column C -- killed: DIRECTION with queen at row R', column C'`
//!   for a node whose new queen is attacked, naming the topmost attacking queen;
//! * `node K: row R, column C -- solution I: C1 C2 ... Cn` for a complete
//!   placement, I counting from 1.
//!
//! DIRECTION is `diagonal` when both queens lie on the same down-right line
//! (row - column equal, like (1, 1) and (2, 2)) and `anti-diagonal` when they
//! lie on the same down-left line (row + column equal, like (2, 3) and
//! (3, 2)). Column conflicts never occur: the permutation tree has no node
//! that reuses a column.
//!
//! The last line is `N-queens: S solutions, T nodes in the tree of
//! permutations, G generated`, where G counts the node lines printed, root
//! included (`1 solution` when there is exactly one). The trace of n = 4 is in full in the
//! tests (`tests.rs`), and its start in the user's guide.
//!
//! # Up to the first solution
//!
//! The textbook figures stop where the search first succeeds. With
//! [`TraceExtent::FirstSolution`] the walk stops there too, and the last line
//! says where: `4-queens: first solution at node 31: 2 4 1 3; the search stops
//! there, 16 nodes generated of the 65 in the tree of permutations`. A board
//! without a solution is walked whole, and its last line says so:
//! `3-queens: no solution, the whole tree walked: 16 nodes in the tree of
//! permutations, 12 generated`.
//!
//! # Constrained boards
//!
//! [`Board::write_trace`] walks the same tree on a [`Board`] (queens or rooks, up to
//! [`Board::MAX_TRACE_N`]) and names why each pruned square is pruned: `killed: blocked square`,
//! `killed: row R holds a pre-placed queen in column C`, `killed: column C holds the pre-placed
//! queen of row R`, or a diagonal with a queen above or with a pre-placed queen below; on an
//! empty queens board it prints the trace above. [`walk`] hands the nodes to any visitor (the
//! Graphviz drawing of `dot.rs`, [`Board::write_trace_dot`], is one).

mod dot;

use std::io::{self, Write};

use crate::constraint::{Board, PieceKind};

/// How much of the tree a trace walks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TraceExtent {
    /// Every node the search generates, to the end of the search.
    #[default]
    Whole,
    /// The nodes up to the first solution, where the search stops (the whole tree when there
    /// is none): the walk-through of the textbook figures.
    FirstSolution,
}

/// Summary of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceSummary {
    /// Nodes the search generated, i.e. node lines printed, root included.
    pub nodes: u64,
    /// Complete placements found.
    pub solutions: u64,
    /// Nodes in the whole tree of permutations.
    pub tree: u64,
    /// The first solution found: its node number and its columns (0-based, row by row).
    pub first: Option<(u64, Vec<u8>)>,
    /// Whether the walk stopped at the first solution ([`TraceExtent::FirstSolution`] on a
    /// board that has one), leaving the rest of the search unwalked.
    pub stopped: bool,
}

/// Why a node is killed: the square is pruned for this reason (rows and columns 0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kill {
    /// Shares a diagonal with the queen at `row`, `column`: down-left (row + column equal)
    /// where `anti`, else down-right (row - column equal); a pre-placed queen (below the
    /// square) where `placed`, else one of the search (above it).
    Attacked {
        anti: bool,
        row: usize,
        column: usize,
        placed: bool,
    },
    /// The square is blocked.
    Blocked,
    /// The row holds a pre-placed piece in another `column`.
    RowTaken { column: usize },
    /// The column holds the pre-placed piece of another `row`.
    ColumnTaken { row: usize },
}

/// What became of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Its subtree is searched.
    Live,
    /// Pruned.
    Killed(Kill),
    /// A complete placement, the i-th found (from 1).
    Solution(u64),
}

/// One node the search generates (the root is not passed): its preorder `number` in the tree of
/// permutations and its `parent`'s (1 for the root), the square of its new piece (0-based),
/// what became of it, and the columns of the pieces of the rows `above` it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node<'a> {
    pub number: u64,
    pub parent: u64,
    pub row: usize,
    pub column: usize,
    pub fate: Fate,
    pub above: &'a [usize],
}

fn too_large(n: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "the trace needs 1 <= n <= {}, got n = {n}",
            Board::MAX_TRACE_N
        ),
    )
}

/// The trace's last line: the solutions and nodes of the whole walk, or where the first
/// solution stopped it (without a line break).
pub(crate) fn last_line(board: &Board, extent: TraceExtent, summary: &TraceSummary) -> String {
    let (n, piece) = (board.n(), board.piece().name());
    let (tree, nodes) = (summary.tree, summary.nodes);
    match (&summary.first, extent) {
        (Some((node, cols)), TraceExtent::FirstSolution) => format!(
            "{n}-{piece}s: first solution at node {node}: {}; the search stops there, \
             {nodes} nodes generated of the {tree} in the tree of permutations",
            crate::solutions::format_tuple(cols)
        ),
        (None, TraceExtent::FirstSolution) => format!(
            "{n}-{piece}s: no solution, the whole tree walked: \
             {tree} nodes in the tree of permutations, {nodes} generated"
        ),
        _ => {
            let plural = if summary.solutions == 1 { "" } else { "s" };
            format!(
                "{n}-{piece}s: {} solution{plural}, {tree} nodes in the tree of permutations, \
                 {nodes} generated",
                summary.solutions
            )
        }
    }
}

/// One line of the outline.
fn write_node(out: &mut impl Write, piece: PieceKind, node: &Node<'_>) -> io::Result<()> {
    let (row, col) = (node.row, node.column);
    write!(
        out,
        "{:indent$}node {}: row {}, column {}",
        "",
        node.number,
        row + 1,
        col + 1,
        indent = 2 * (row + 1)
    )?;
    match node.fate {
        Fate::Live => writeln!(out),
        Fate::Solution(i) => {
            write!(out, " -- solution {i}:")?;
            for &c in node.above {
                write!(out, " {}", c + 1)?;
            }
            writeln!(out, " {}", col + 1)
        }
        Fate::Killed(kill) => writeln!(out, " -- killed: {}", kill_words(piece, kill)),
    }
}

/// The words after `killed: `.
pub(crate) fn kill_words(piece: PieceKind, kill: Kill) -> String {
    let piece = piece.name();
    match kill {
        Kill::Attacked {
            anti,
            row,
            column,
            placed,
        } => format!(
            "{} with {}queen at row {}, column {}",
            if anti { "anti-diagonal" } else { "diagonal" },
            if placed { "pre-placed " } else { "" },
            row + 1,
            column + 1
        ),
        Kill::Blocked => "blocked square".to_string(),
        Kill::RowTaken { column } => {
            format!("row holds a pre-placed {piece} in column {}", column + 1)
        }
        Kill::ColumnTaken { row } => {
            format!("column holds the pre-placed {piece} of row {}", row + 1)
        }
    }
}

/// Walks the tree on `board` (n ≤ [`Board::MAX_TRACE_N`]), whole or up to its first solution,
/// handing each generated node to `visit` in preorder; stops at the first error `visit`
/// returns.
pub(crate) fn walk(
    board: &Board,
    extent: TraceExtent,
    mut visit: impl FnMut(&Node<'_>) -> io::Result<()>,
) -> io::Result<TraceSummary> {
    let n = board.n();
    if n > Board::MAX_TRACE_N {
        return Err(too_large(n));
    }
    let sizes = subtree_sizes(n);
    let mut w = Walk {
        board,
        sizes,
        queens: [0; Board::MAX_TRACE_N],
        generated: 1,
        solutions: 0,
        first: None,
        stop_at_first: extent == TraceExtent::FirstSolution,
    };
    w.expand(0, 1, &mut visit)?;
    Ok(TraceSummary {
        nodes: w.generated,
        solutions: w.solutions,
        tree: sizes[0],
        stopped: w.stopped(),
        first: w.first,
    })
}

/// `sizes[d]` = number of nodes in the permutation subtree below (and
/// including) a node with d queens placed; `sizes[0]` is the whole tree.
fn subtree_sizes(n: usize) -> [u64; Board::MAX_TRACE_N + 1] {
    let mut sizes = [0u64; Board::MAX_TRACE_N + 1];
    sizes[n] = 1;
    for d in (0..n).rev() {
        sizes[d] = 1 + (n - d) as u64 * sizes[d + 1];
    }
    sizes
}

/// State of the recursive walk (depth is at most `Board::MAX_TRACE_N`).
struct Walk<'a> {
    board: &'a Board,
    sizes: [u64; Board::MAX_TRACE_N + 1],
    /// `queens[r]` = 0-based column of the queen in row r, for rows above
    /// the node being expanded.
    queens: [usize; Board::MAX_TRACE_N],
    generated: u64,
    solutions: u64,
    /// The first solution's node and columns, once found.
    first: Option<(u64, Vec<u8>)>,
    /// Whether the walk ends at the first solution.
    stop_at_first: bool,
}

impl Walk<'_> {
    /// Whether the walk is over before the end of the search: it stops at the first solution
    /// and has found it.
    fn stopped(&self) -> bool {
        self.stop_at_first && self.first.is_some()
    }

    /// Generates the children of the live node `number`, which has queens in
    /// rows `0..row`, and searches below each child that survives.
    fn expand(
        &mut self,
        row: usize,
        number: u64,
        visit: &mut impl FnMut(&Node<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        let n = self.board.n();
        let mut child = number + 1;
        for col in 0..n {
            if self.queens[..row].contains(&col) {
                // Not a node of the permutation tree: no number used.
                continue;
            }
            self.generated += 1;
            let fate = if let Some(kill) = self.kill(row, col) {
                Fate::Killed(kill)
            } else if row + 1 == n {
                self.solutions += 1;
                if self.first.is_none() {
                    let cols = self.queens[..row].iter().chain([&col]);
                    // Columns are below Board::MAX_TRACE_N, so each fits in a u8.
                    self.first = Some((child, cols.map(|&c| c as u8).collect()));
                }
                Fate::Solution(self.solutions)
            } else {
                Fate::Live
            };
            visit(&Node {
                number: child,
                parent: number,
                row,
                column: col,
                fate,
                above: &self.queens[..row],
            })?;
            if fate == Fate::Live {
                self.queens[row] = col;
                self.expand(row + 1, child, visit)?;
            }
            if self.stopped() {
                return Ok(());
            }
            child += self.sizes[row + 1];
        }
        Ok(())
    }

    /// Why square (`row`, `col`) is pruned, if it is: the row's pre-placed piece, a blocked
    /// square, another row's pre-placed piece in the column, then (queens) the topmost queen
    /// above on a diagonal, then the nearest pre-placed queen below.
    fn kill(&self, row: usize, col: usize) -> Option<Kill> {
        let b = self.board;
        if let Some(p) = b.placed()[row].map(usize::from).filter(|&p| p != col) {
            return Some(Kill::RowTaken { column: p });
        }
        if b.open()[row] >> col & 1 == 0 {
            return Some(Kill::Blocked);
        }
        let placed = |r: usize| b.placed()[r].map(usize::from);
        if let Some(r) = (row + 1..b.n()).find(|&r| placed(r) == Some(col)) {
            return Some(Kill::ColumnTaken { row: r });
        }
        if b.piece() == PieceKind::Rook {
            return None;
        }
        let line = |row, column, anti, placed| Kill::Attacked {
            anti,
            row,
            column,
            placed,
        };
        if let Some(r) = (0..row).find(|&r| row - r == col.abs_diff(self.queens[r])) {
            // Above the square: `anti` when the queen stands to its right.
            return Some(line(r, self.queens[r], self.queens[r] > col, false));
        }
        (row + 1..b.n()).find_map(|r| {
            let c = placed(r)?;
            // Below the square the directions turn: a queen down-left shares row + column.
            (r - row == col.abs_diff(c)).then_some(line(r, c, c < col, true))
        })
    }
}

impl Board {
    /// The largest board whose search tree [`Board::write_trace`] writes (the tree is too big
    /// to read beyond it).
    pub const MAX_TRACE_N: usize = 8;

    /// Writes the tree of the row-by-row backtracking on this board (up to
    /// [`Board::MAX_TRACE_N`] squares wide), whole or up to its first solution (`extent`), to
    /// `out` as an indented outline: every piece tried, and why each dead end died
    /// (`crate::trace`'s format); returns what the walk found. Errors: the board is too wide
    /// (`InvalidInput`, nothing written), or what `out` reports.
    pub fn write_trace(
        &self,
        extent: TraceExtent,
        out: &mut impl Write,
    ) -> io::Result<TraceSummary> {
        let n = self.n();
        if n > Board::MAX_TRACE_N {
            return Err(too_large(n));
        }
        let piece = self.piece().name();
        if self.is_empty() && self.piece() == PieceKind::Queen {
            writeln!(
                out,
                "trace of {n}-queens: plain row-by-row backtracking, \
                 nodes numbered depth-first over the tree of permutations"
            )?;
        } else {
            let placed = self.placed().iter().flatten().count();
            let blocked: u32 = self.open().iter().map(|m| n as u32 - m.count_ones()).sum();
            writeln!(
                out,
                "trace of {n}-{piece}s on a constrained board ({placed} pre-placed, {blocked} blocked): \
                 plain row-by-row backtracking, nodes numbered depth-first over the tree of permutations"
            )?;
        }
        writeln!(out, "node 1: root")?;
        let summary = walk(self, extent, |node| write_node(out, self.piece(), node))?;
        writeln!(out, "{}", last_line(self, extent, &summary))?;
        Ok(summary)
    }
}

#[cfg(test)]
mod tests;
