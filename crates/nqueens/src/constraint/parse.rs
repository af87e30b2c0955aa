//! The two file formats of a constrained board, read into a [`Board`] with errors that name
//! the line and the column.
//!
//! * A board file (`--board`): one line per row, `.` a free square, `Q` a pre-placed piece,
//!   `x` a blocked square. The size is the number of rows, which must equal every row's length.
//! * An allowed file (`--allowed`), the format of the book-assignment exercise: the size line,
//!   n alone, then n lines of n digits, `1` where the piece may stand, `0` where it may not.
//!
//! In both, blank lines are skipped, `#` starts a comment that runs to the end of its line,
//! and spaces or tabs between the squares are allowed (columns in errors count characters).

use std::fmt;

use super::{Board, Conflict, PieceKind};

/// What is wrong at one place of a board file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseProblem {
    /// A character the format does not know.
    UnknownChar {
        /// The character found.
        found: char,
        /// What the format allows there.
        expected: &'static str,
    },
    /// A row of a board file of another length than the first.
    RowLength {
        /// Squares in this row.
        found: usize,
        /// Squares in the first row.
        expected: usize,
    },
    /// A row of an allowed file of another length than its size line says.
    RowLengthForSize {
        /// Squares in this row.
        found: usize,
        /// The size line's n.
        n: usize,
    },
    /// Not as many rows as the board is wide.
    RowCount {
        /// Rows found.
        rows: usize,
        /// Squares per row.
        width: usize,
    },
    /// More or fewer rows in an allowed file than its size line says.
    RowCountForSize {
        /// Rows found.
        rows: usize,
        /// The size line's n.
        n: usize,
    },
    /// An allowed file that starts with its first row: the size line is missing.
    NoSizeLine {
        /// The size the rows suggest.
        n: usize,
    },
    /// No rows at all.
    Empty,
    /// A size outside what the piece allows.
    Size {
        /// The size.
        n: usize,
        /// The piece.
        piece: PieceKind,
    },
    /// The size line of an allowed file is not a number.
    NotASize,
    /// The board file and the allowed file differ in size.
    SizeMismatch {
        /// The board file's size.
        n: usize,
        /// The allowed file's size.
        allowed: usize,
    },
    /// A second pre-placed piece in one row.
    TwoInRow {
        /// The column (0-based) of the first one.
        column: usize,
    },
    /// A second pre-placed piece in one column.
    SameColumn {
        /// The row (0-based) of the first one.
        row: usize,
    },
    /// Two pre-placed queens on one diagonal.
    Attack {
        /// Row (0-based) of the other queen.
        row: usize,
        /// Column (0-based) of the other queen.
        column: usize,
    },
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

/// A board file that cannot be read: where, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {problem}")]
pub struct ParseError {
    /// 1-based line of the file.
    pub(crate) line: usize,
    /// 1-based column (character) of the line.
    pub(crate) column: usize,
    /// What is wrong.
    pub(crate) problem: ParseProblem,
}

impl ParseError {
    /// The 1-based line of the file where the problem shows.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column (character) of that line.
    pub fn column(&self) -> usize {
        self.column
    }
}

/// The lines that hold rows: (1-based line number, the characters before any `#`), blank ones
/// left out; and the number of the line after the last.
fn content_lines(text: &str) -> (Vec<(usize, Vec<char>)>, usize) {
    let mut rows = Vec::new();
    let mut last = 0;
    for (i, line) in text.lines().enumerate() {
        last = i + 1;
        let body = line.split('#').next().unwrap_or("");
        if !body.trim().is_empty() {
            rows.push((i + 1, body.trim_end().chars().collect()));
        }
    }
    (rows, last + 1)
}

/// The squares of a row: its characters but spaces and tabs, each with its 0-based position
/// in the line.
fn squares(chars: &[char]) -> impl Iterator<Item = (usize, char)> + '_ {
    chars
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, ch)| ch != ' ' && ch != '\t')
}

/// Reads a board file of `piece`s; with `within`, the squares it blocks are blocked too (a
/// pre-placed piece on one of them is an error), and the sizes must agree.
pub fn parse_board(
    text: &str,
    piece: PieceKind,
    within: Option<&Board>,
) -> Result<Board, ParseError> {
    let (lines, end) = content_lines(text);
    let at = |line, column, problem| ParseError {
        line,
        column,
        problem,
    };
    let Some((first_line, first)) = lines.first() else {
        return Err(at(end.saturating_sub(1).max(1), 1, ParseProblem::Empty));
    };
    let width = squares(first).count();
    if width > piece.max_n() {
        return Err(at(*first_line, 1, ParseProblem::Size { n: width, piece }));
    }
    let mut open = Vec::with_capacity(width);
    let mut placed = Vec::with_capacity(width);
    for (row, (line, chars)) in lines.iter().take(width).enumerate() {
        let found = squares(chars).count();
        if found != width {
            let problem = ParseProblem::RowLength {
                found,
                expected: width,
            };
            // At the first square too many, or after the row's last character.
            let column = squares(chars).nth(width).map_or(chars.len(), |(at, _)| at);
            return Err(at(*line, column + 1, problem));
        }
        let (mut mask, mut queen) = (0u64, None);
        for (c, (at_char, ch)) in squares(chars).enumerate() {
            match ch {
                '.' => mask |= 1 << c,
                'x' => {}
                'Q' => {
                    if let Some(first) = queen {
                        let problem = ParseProblem::TwoInRow { column: first };
                        return Err(at(*line, at_char + 1, problem));
                    }
                    queen = Some(c);
                    mask |= 1 << c;
                }
                found => {
                    let expected = "'.' (free), 'Q' (pre-placed piece) or 'x' (blocked)";
                    return Err(at(
                        *line,
                        at_char + 1,
                        ParseProblem::UnknownChar { found, expected },
                    ));
                }
            }
        }
        if let Some(w) = within {
            if w.n() != width {
                let problem = ParseProblem::SizeMismatch {
                    n: width,
                    allowed: w.n(),
                };
                return Err(at(*line, 1, problem));
            }
            mask &= w.open()[row];
            if let Some(c) = queen.filter(|&c| w.open()[row] >> c & 1 == 0) {
                let column = squares(chars).nth(c).map_or(c, |(at, _)| at);
                return Err(at(*line, column + 1, ParseProblem::OnBlocked));
            }
        }
        open.push(mask);
        placed.push(queen.map(|c| c as u8));
    }
    if lines.len() != width {
        // At the first row too many, or after the last line.
        let line = lines.get(width).map_or(end, |(line, _)| *line);
        let rows = lines.len();
        return Err(at(line, 1, ParseProblem::RowCount { rows, width }));
    }
    finish(width, piece, open, placed, |r| lines[r].0)
}

/// Reads an allowed file: n, then n rows of n digits (`1` allowed).
pub fn parse_allowed(text: &str, piece: PieceKind) -> Result<Board, ParseError> {
    let (lines, end) = content_lines(text);
    let at = |line, column, problem| ParseError {
        line,
        column,
        problem,
    };
    let Some((size_line, size)) = lines.first() else {
        return Err(at(end.saturating_sub(1).max(1), 1, ParseProblem::Empty));
    };
    let size_text: String = size.iter().collect();
    let lead = size_text.len() - size_text.trim_start().len();
    let n = size_text.trim().parse::<usize>();
    // A first line of 0s and 1s as long as the file has lines is the first row of a square:
    // the size line was left out (`00110` would otherwise read as n = 110).
    let digits = squares(size).count();
    let row_like = digits > 1 && squares(size).all(|(_, ch)| ch == '0' || ch == '1');
    if row_like && digits == lines.len() && n.as_ref().map_or(true, |&n| n != lines.len() - 1) {
        let problem = ParseProblem::NoSizeLine { n: digits };
        return Err(at(*size_line, lead + 1, problem));
    }
    let n = n.map_err(|_| at(*size_line, lead + 1, ParseProblem::NotASize))?;
    if n == 0 || n > piece.max_n() {
        return Err(at(*size_line, lead + 1, ParseProblem::Size { n, piece }));
    }
    let mut open = Vec::with_capacity(n);
    for (line, chars) in lines[1..].iter().take(n) {
        let (mut mask, mut filled) = (0u64, 0usize);
        for (c, &ch) in chars.iter().enumerate() {
            match ch {
                ' ' | '\t' => continue,
                '0' | '1' if filled == n => {
                    let found = chars[c..]
                        .iter()
                        .filter(|&&ch| ch == '0' || ch == '1')
                        .count();
                    let problem = ParseProblem::RowLengthForSize {
                        found: filled + found,
                        n,
                    };
                    return Err(at(*line, c + 1, problem));
                }
                '0' => {}
                '1' => mask |= 1 << filled,
                found => {
                    let expected = "'0' or '1'";
                    return Err(at(
                        *line,
                        c + 1,
                        ParseProblem::UnknownChar { found, expected },
                    ));
                }
            }
            filled += 1;
        }
        if filled != n {
            let problem = ParseProblem::RowLengthForSize { found: filled, n };
            return Err(at(*line, chars.len() + 1, problem));
        }
        open.push(mask);
    }
    if lines.len() - 1 != n {
        let line = lines.get(n + 1).map_or(end, |(line, _)| *line);
        let rows = lines.len() - 1;
        return Err(at(line, 1, ParseProblem::RowCountForSize { rows, n }));
    }
    finish(n, piece, open, vec![None; n], |r| lines[r + 1].0)
}

/// The board, with its pieces checked; a conflict is reported at its line.
fn finish(
    n: usize,
    piece: PieceKind,
    open: Vec<u64>,
    placed: Vec<Option<u8>>,
    line_of: impl Fn(usize) -> usize,
) -> Result<Board, ParseError> {
    let board = Board {
        n,
        piece,
        open,
        placed,
    };
    let conflict = |c: Conflict| ParseError {
        line: line_of(c.row),
        column: c.column + 1,
        problem: c.problem,
    };
    board.check().map_err(conflict)?;
    Ok(board)
}
