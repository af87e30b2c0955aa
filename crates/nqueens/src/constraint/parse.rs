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

use super::{Board, Conflict, ParseProblem, PieceKind};

/// A board file that cannot be read: where, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {problem}")]
pub struct ParseError {
    pub(crate) line: usize,
    pub(crate) column: usize,
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

/// The error at `line` and `column` (1-based).
fn at(line: usize, column: usize, problem: ParseProblem) -> ParseError {
    ParseError {
        line,
        column,
        problem,
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
    let conflict = |c: Conflict| at(line_of(c.row), c.column + 1, c.problem);
    board.check().map_err(conflict)?;
    Ok(board)
}
