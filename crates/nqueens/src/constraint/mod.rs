//! Constrained boards: pre-placed pieces, blocked squares, and rooks as well as queens.
//!
//! The empty board is only one of the problems the backtracking texts pose. With some queens
//! placed and some squares blocked, finishing the board is n-Queens completion, which is
//! NP-complete (Gent, Jefferson and Nightingale, JAIR 2017); with rooks instead of queens, only
//! columns matter, and the count is the permanent of the 0/1 matrix of allowed squares (the
//! book-assignment exercise: n students, n books, each student accepting some of them).
//!
//! A [`Board`] holds what such a count needs: the size, the piece, one mask of open squares per
//! row and the pre-placed pieces. Its [`Board::allowed`] masks fold every constraint into one
//! `u64` per row (a pre-placed piece's row allows its own square only; the squares it attacks
//! are removed from every other row), so the engines see nothing but masks:
//!
//! * `queens` completes a partly filled board by an iterative bitmask backtrack, kept apart
//!   from the empty-board kernel so that neither slows the other (rooks use it too, without
//!   diagonals, where a board is sparse);
//! * `rooks` counts rook placements by a row-by-row dynamic programme over the columns still
//!   in use, or by Ryser's formula (1963) in Gray-code order, whichever is cheaper;
//! * `parse` reads the two file formats; `pictures` draws boards as SVG and search trees as
//!   Graphviz DOT text (the library never prints: both return or write text).
//!
//! Counts are exact `u128`. A board whose count could exceed `u128` is refused before any work
//! ([`Board::check_count_fits`], the Minc–Brègman bound); below that bound, the engines may
//! compute modulo 2^128 (Ryser's alternating sum) and are still exact. No symmetry is used for
//! constrained boards, and they have no unique count.

mod parse;
mod pictures;

use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;

pub(crate) use nqueens_engine::constrained::{Route, route};
pub use parse::{ParseError, parse_allowed, parse_board};
pub use pictures::Gallery;

use crate::board::full_mask;
use crate::hash::Fnv;

/// Which piece stands on the board.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PieceKind {
    /// Attacks along rows, columns and diagonals.
    #[default]
    Queen,
    /// Attacks along rows and columns only.
    Rook,
}

impl PieceKind {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Queen => "queen",
            PieceKind::Rook => "rook",
        }
    }

    /// The largest board of this piece (queens: the diagonal masks need room to shift in a
    /// `u64`).
    pub fn max_n(self) -> usize {
        match self {
            PieceKind::Queen => crate::board::MAX_N,
            PieceKind::Rook => Board::MAX_ROOKS_N,
        }
    }

    /// The letter a listing draws the piece with.
    pub fn letter(self) -> char {
        match self {
            PieceKind::Queen => 'Q',
            PieceKind::Rook => 'R',
        }
    }
}

impl FromStr for PieceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "queen" => Ok(PieceKind::Queen),
            "rook" => Ok(PieceKind::Rook),
            _ => Err(format!("unknown piece '{s}': expected queen or rook")),
        }
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A square board with constraints.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    n: usize,
    piece: PieceKind,
    /// Per row, the squares not blocked (pre-placed pieces stand on open squares).
    open: Vec<u64>,
    /// Per row, the column of its pre-placed piece.
    placed: Vec<Option<u8>>,
}

/// What is wrong at one place of a board file (rows and columns 0-based; the messages say
/// what each field is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParseProblem {
    /// A character the format does not know, and what it allows there.
    UnknownChar { found: char, expected: &'static str },
    /// A row of a board file of another length than the first.
    RowLength { found: usize, expected: usize },
    /// A row of an allowed file of another length than its size line says.
    RowLengthForSize { found: usize, n: usize },
    /// Not as many rows as the board is wide.
    RowCount { rows: usize, width: usize },
    /// More or fewer rows in an allowed file than its size line says.
    RowCountForSize { rows: usize, n: usize },
    /// An allowed file that starts with its first row: the size line is missing (`n`: the
    /// size the rows suggest).
    NoSizeLine { n: usize },
    /// No rows at all.
    Empty,
    /// A size outside what the piece allows.
    Size { n: usize, piece: PieceKind },
    /// The size line of an allowed file is not a number.
    NotASize,
    /// The board file (`n`) and the allowed file differ in size.
    SizeMismatch { n: usize, allowed: usize },
    /// A second pre-placed piece in one row, and the column of the first one.
    TwoInRow { column: usize },
    /// A second pre-placed piece in one column, and the row of the first one.
    SameColumn { row: usize },
    /// Two pre-placed queens on one diagonal: the other queen's square.
    Attack { row: usize, column: usize },
    /// A pre-placed piece on a blocked square.
    OnBlocked,
    /// A pre-placed piece outside the board.
    OffBoard,
}

impl fmt::Display for ParseProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ParseProblem::UnknownChar { found, expected } => {
                write!(f, "unknown character {found:?}: expected {expected}")
            }
            ParseProblem::RowLength { found, expected } => write!(
                f,
                "this row has {found} squares, the first row has {expected}"
            ),
            ParseProblem::RowLengthForSize { found, n } => write!(
                f,
                "this row has {found} squares, but the size line says n = {n}"
            ),
            ParseProblem::RowCount { rows, width } => write!(
                f,
                "{rows} rows for a board {width} squares wide: a board is square"
            ),
            ParseProblem::RowCountForSize { rows, n } => {
                write!(f, "{rows} rows, but the size line says n = {n}")
            }
            ParseProblem::NoSizeLine { n } => write!(
                f,
                "the size line is missing: an allowed file starts with a line holding n alone \
                 (here {n}), then n rows of n digits"
            ),
            ParseProblem::Empty => f.write_str("the file has no rows"),
            ParseProblem::Size { n, piece } => write!(
                f,
                "board size {n} is out of range: {piece} boards are from 1 to {}",
                piece.max_n()
            ),
            ParseProblem::NotASize => {
                f.write_str("expected the size line: the board size n, alone on the first line")
            }
            ParseProblem::SizeMismatch { n, allowed } => write!(
                f,
                "the board is {n} squares wide but the allowed file is for n = {allowed}"
            ),
            ParseProblem::TwoInRow { column } => write!(
                f,
                "a second piece in this row (the first is in column {})",
                column + 1
            ),
            ParseProblem::SameColumn { row } => write!(
                f,
                "a second piece in this column (the first is in row {})",
                row + 1
            ),
            ParseProblem::Attack { row, column } => write!(
                f,
                "this queen and the queen at row {}, column {} attack each other along a diagonal",
                row + 1,
                column + 1
            ),
            ParseProblem::OnBlocked => f.write_str("a pre-placed piece on a blocked square"),
            ParseProblem::OffBoard => f.write_str("a pre-placed piece off the board"),
        }
    }
}

/// Why a set of rows is not a board: the row and column (0-based) where it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub(crate) row: usize,
    pub(crate) column: usize,
    pub(crate) problem: ParseProblem,
}

impl Conflict {
    /// The row (0-based) of the offending square.
    pub fn row(&self) -> usize {
        self.row
    }

    /// Its column (0-based).
    pub fn column(&self) -> usize {
        self.column
    }
}

/// Why a board cannot be made or counted: the constrained boards' own error.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// A size outside what the piece allows.
    #[error("not a valid board: {}", ParseProblem::Size { n: *.n, piece: *.piece })]
    Size {
        /// The size.
        n: usize,
        /// The piece.
        piece: PieceKind,
    },
    /// Rows of open squares or of pieces that do not match the board's size.
    #[error(
        "not a valid board: {open} rows of open squares and {placed} of pieces for a board of {n} rows"
    )]
    Rows {
        /// The board's size.
        n: usize,
        /// Rows of open squares given.
        open: usize,
        /// Rows of pieces given.
        placed: usize,
    },
    /// Pre-placed pieces that break the rules.
    #[error("not a valid board: row {}, column {}: {}", .0.row + 1, .0.column + 1, .0.problem)]
    Conflict(Conflict),
    /// A board whose count could exceed the exact range of the sums.
    #[error(
        "the count of this {n}x{n} board may need up to {bits} bits, more than the 128 an exact count keeps: block more squares or place more pieces"
    )]
    CountTooLarge {
        /// Board size.
        n: usize,
        /// log2 of the bound on the count, rounded up.
        bits: u32,
    },
    /// A board that a rotation or reflection of the square changes, whose solutions therefore
    /// have no orbits under the eight symmetries.
    #[error(
        "the {n}x{n} board is not symmetric: a rotation or reflection of the square moves its blocked squares or pre-placed pieces"
    )]
    NotSymmetric {
        /// Board size.
        n: usize,
    },
}

impl Board {
    /// The largest board of rooks (one `u64` per row).
    pub const MAX_ROOKS_N: usize = 64;
    /// An `n`×`n` board with nothing placed or blocked (`n` must be from 1 to the piece's
    /// largest board).
    pub fn empty(n: usize, piece: PieceKind) -> Result<Board, BoardError> {
        Board::new(n, piece, vec![full_mask(n); n], vec![None; n])
    }

    /// A board from its open squares and pre-placed pieces (one entry per row each).
    pub fn new(
        n: usize,
        piece: PieceKind,
        open: Vec<u64>,
        placed: Vec<Option<u8>>,
    ) -> Result<Board, BoardError> {
        if n == 0 || n > piece.max_n() {
            return Err(BoardError::Size { n, piece });
        }
        if open.len() != n || placed.len() != n {
            return Err(BoardError::Rows {
                n,
                open: open.len(),
                placed: placed.len(),
            });
        }
        let board = Board {
            n,
            piece,
            open: open.iter().map(|&m| m & full_mask(n)).collect(),
            placed,
        };
        board.check().map_err(BoardError::Conflict)?;
        Ok(board)
    }

    /// Checks the pre-placed pieces: on the board, on open squares, one per column, and (for
    /// queens) not attacking each other along a diagonal. The conflict names the lower piece.
    pub(crate) fn check(&self) -> Result<(), Conflict> {
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for (row, p) in self.placed.iter().enumerate() {
            let Some(c) = *p else { continue };
            let column = usize::from(c);
            let at = |problem| Conflict {
                row,
                column: column.min(self.n - 1),
                problem,
            };
            if column >= self.n {
                return Err(at(ParseProblem::OffBoard));
            }
            if self.open[row] >> column & 1 == 0 {
                return Err(at(ParseProblem::OnBlocked));
            }
            for &(r, c) in &seen {
                if c == column {
                    return Err(at(ParseProblem::SameColumn { row: r }));
                }
                if self.piece == PieceKind::Queen && row - r == column.abs_diff(c) {
                    return Err(at(ParseProblem::Attack { row: r, column: c }));
                }
            }
            seen.push((row, column));
        }
        Ok(())
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The piece.
    pub fn piece(&self) -> PieceKind {
        self.piece
    }

    /// The open squares of each row.
    pub fn open(&self) -> &[u64] {
        &self.open
    }

    /// The pre-placed piece of each row.
    pub fn placed(&self) -> &[Option<u8>] {
        &self.placed
    }

    /// Whether nothing is placed or blocked.
    pub fn is_empty(&self) -> bool {
        self.placed.iter().all(Option::is_none) && self.open.iter().all(|&m| m == full_mask(self.n))
    }

    /// The same board with `piece` instead (the pre-placed pieces must still not attack each
    /// other).
    pub fn with_piece(&self, piece: PieceKind) -> Result<Board, BoardError> {
        Board::new(self.n, piece, self.open.clone(), self.placed.clone())
    }

    /// Where a search may put the piece of each row: its pre-placed square, or the open squares
    /// that no pre-placed piece attacks.
    pub fn allowed(&self) -> Vec<u64> {
        let mut allowed = self.open.clone();
        for (row, p) in self.placed.iter().enumerate() {
            let Some(c) = *p else { continue };
            let c = usize::from(c);
            for (r, mask) in allowed.iter_mut().enumerate() {
                if r == row {
                    *mask &= 1 << c;
                    continue;
                }
                *mask &= !(1u64 << c);
                if self.piece == PieceKind::Queen {
                    let d = r.abs_diff(row);
                    if c + d < 64 {
                        *mask &= !(1u64 << (c + d));
                    }
                    if d <= c {
                        *mask &= !(1u64 << (c - d));
                    }
                }
            }
        }
        allowed
    }

    /// Adds the board to a plan's fingerprint.
    pub(crate) fn fingerprint(&self, h: &mut Fnv) {
        h.write_str("board-1");
        h.write_str(self.piece.name());
        h.write_u64(self.n as u64);
        for (m, p) in self.open.iter().zip(&self.placed) {
            h.write_u64(*m);
            h.write_u64(p.map_or(u64::MAX, u64::from));
        }
    }

    /// log2 of an upper bound of the count: the rook placements on the allowed squares, at
    /// most the product over rows of (r!)^(1/r) for r allowed squares (Minc's conjecture,
    /// proved by Brègman 1973). Queens are a subset of rooks. `-inf` when a row allows nothing.
    pub fn count_bound_log2(&self) -> f64 {
        self.allowed()
            .iter()
            .map(|m| {
                let r = m.count_ones();
                (1..=r).map(|k| f64::from(k).log2()).sum::<f64>() / f64::from(r.max(1))
                    + if r == 0 { f64::NEG_INFINITY } else { 0.0 }
            })
            .sum()
    }

    /// Refuses a board whose count might not fit a `u128` (by the bound above, with a margin
    /// for rounding), so that every sum of a count of it is exact.
    pub fn check_count_fits(&self) -> Result<(), BoardError> {
        let bits = self.count_bound_log2();
        if bits > 127.999 {
            return Err(BoardError::CountTooLarge {
                n: self.n,
                bits: bits.ceil() as u32,
            });
        }
        Ok(())
    }

    /// Calls `visit` with each solution (`cols[r]` = column of the piece in row `r`), in
    /// lexicographic order, until it breaks; returns how many it was given.
    pub fn for_each_solution(&self, visit: impl FnMut(&[u8]) -> ControlFlow<()>) -> u64 {
        let queens = self.piece == PieceKind::Queen;
        crate::solutions::for_each_placement(&self.allowed(), queens, visit)
    }

    /// Whether each of the eight symmetries of the square (rotations and reflections) maps the
    /// board to itself: its open squares to open squares, its pre-placed pieces to pre-placed
    /// pieces. The empty board is; a board blocked or filled alike in every direction is too.
    pub fn is_symmetric(&self) -> bool {
        let n = self.n;
        let open = |(r, c): (usize, usize)| self.open[r] >> c & 1 == 1;
        let placed = |(r, c): (usize, usize)| self.placed[r].map(usize::from) == Some(c);
        nqueens_engine::symmetry::Sym::ALL.iter().all(|&g| {
            (0..n).all(|r| {
                (0..n).all(|c| {
                    let to = g.apply(n, (r, c));
                    open((r, c)) == open(to) && placed((r, c)) == placed(to)
                })
            })
        })
    }

    /// Calls `visit` with one solution of each orbit under the eight symmetries of the square
    /// (the unique solutions of OEIS A002562 on the empty queens board): the lexicographically
    /// least of its orbit, with the orbit's size (8, 4 or 2; 1 on a 1x1 board), in
    /// lexicographic order, until it breaks; returns how many it was given. Only for a board
    /// the symmetries map to itself ([`Board::is_symmetric`]), refused otherwise.
    pub fn for_each_unique_solution(
        &self,
        mut visit: impl FnMut(&[u8], u8) -> ControlFlow<()>,
    ) -> Result<u64, BoardError> {
        if !self.is_symmetric() {
            return Err(BoardError::NotSymmetric { n: self.n });
        }
        let mut given = 0;
        self.for_each_solution(|cols| {
            let orbit = crate::solutions::orbit(cols);
            if !orbit.least {
                return ControlFlow::Continue(());
            }
            given += 1;
            visit(cols, orbit.size)
        });
        Ok(given)
    }

    /// A solution as a line of its columns, 1-based, in row order: `2 4 1 3`.
    pub fn tuple_of(&self, cols: &[u8]) -> String {
        crate::solutions::format_tuple(cols)
    }

    /// A solution as rows of text: the piece's letter, `x` on blocked squares, `.` elsewhere.
    pub fn rows_of(&self, cols: &[u8]) -> Vec<String> {
        (0..self.n)
            .map(|r| {
                (0..self.n)
                    .map(|c| {
                        if cols.get(r).is_some_and(|&q| usize::from(q) == c) {
                            self.piece.letter()
                        } else if self.open[r] >> c & 1 == 0 {
                            'x'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
