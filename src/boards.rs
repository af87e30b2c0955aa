//! Reading the constrained board that `--board`, `--allowed` and `--piece` describe, for the
//! count, `list` and `trace`: the files (or standard input), their size against N, and one
//! line naming the file, line and column for every bad input (exit code 2).

use std::io::Read;
use std::path::Path;

use nqueens::constraint::{Board, PieceKind, parse_allowed, parse_board};

use crate::args::{BoardArgs, PieceArg};
use crate::exit::{Exit, fail};

/// Whether the arguments ask for anything but an empty queens board.
pub fn wanted(args: &BoardArgs) -> bool {
    args.board.is_some() || args.allowed.is_some() || args.piece == PieceArg::Rook
}

/// The board the arguments describe, for a board size `n` if one was given: the files'
/// board (whose size must then be `n`), or an empty board of rooks. `None` for an empty
/// queens board (the fast counters' case).
pub fn load(args: &BoardArgs, n: Option<usize>) -> Result<Option<Board>, Exit> {
    if !wanted(args) {
        return Ok(None);
    }
    let piece = match args.piece {
        PieceArg::Queen => PieceKind::Queen,
        PieceArg::Rook => PieceKind::Rook,
    };
    let stdin_twice = [&args.board, &args.allowed]
        .iter()
        .all(|p| p.as_deref() == Some(Path::new("-")));
    if stdin_twice {
        return Err(fail(
            Exit::Usage,
            "--board and --allowed cannot both read standard input",
        ));
    }
    let allowed = match &args.allowed {
        Some(path) => {
            let text = read(path)?;
            Some(parse_allowed(&text, piece).map_err(|e| bad(path, e))?)
        }
        None => None,
    };
    let board = match &args.board {
        Some(path) => {
            let text = read(path)?;
            parse_board(&text, piece, allowed.as_ref()).map_err(|e| bad(path, e))?
        }
        None => match allowed {
            Some(b) => b,
            None => {
                let n = n.ok_or_else(|| fail(Exit::Usage, "give N or a board"))?;
                Board::empty(n, piece).map_err(|e| fail(Exit::Usage, e))?
            }
        },
    };
    if let Some(n) = n.filter(|&n| n != board.n()) {
        let size = board.n();
        return Err(fail(
            Exit::Usage,
            format!("N = {n} does not match the board, which is {size}x{size}"),
        ));
    }
    Ok(Some(board))
}

/// The most bytes a board file is read to: the largest board (64 rows of 64 squares) with
/// room for comments is a few KiB, and an endless input (`/dev/zero`) must not be read until
/// memory runs out.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// A file's text (`-`: standard input), a leading byte-order mark left out; an unreadable
/// or overlong file, or one that is not UTF-8 text (named by line and column), is bad input.
fn read(path: &Path) -> Result<String, Exit> {
    let mut bytes = Vec::new();
    let limited = |r: &mut dyn Read, bytes: &mut Vec<u8>| {
        r.take(MAX_FILE_BYTES + 1).read_to_end(bytes).map(|_| ())
    };
    let done = if path == Path::new("-") {
        limited(&mut std::io::stdin(), &mut bytes)
    } else {
        std::fs::File::open(path).and_then(|mut f| limited(&mut f, &mut bytes))
    };
    let cannot = |why: String| {
        fail(
            Exit::Usage,
            format!("{}: cannot be read: {why}", path.display()),
        )
    };
    done.map_err(|e| cannot(e.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(cannot(format!(
            "longer than {} KiB, far more than any board",
            MAX_FILE_BYTES >> 10
        )));
    }
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    match std::str::from_utf8(text) {
        Ok(t) => Ok(t.to_string()),
        Err(e) => {
            let good = &text[..e.valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
            Err(bad(
                path,
                format!("line {line}, column {column}: not UTF-8 text"),
            ))
        }
    }
}

/// The largest board the rook hint counts: a rook count of any board this wide takes
/// milliseconds, whichever of its methods the library picks.
const HINT_MAX_N: usize = 20;

/// The note for a queens board read from a file that has no solution but whose rooks have
/// some (the book-assignment exercise is a rook problem): one line for stderr, or `None`.
/// Only small boards are counted again, on one thread.
pub fn rook_hint(args: &BoardArgs, board: &Board, queens: u128) -> Option<String> {
    let from_file = args.board.is_some() || args.allowed.is_some();
    if queens != 0 || !from_file || board.piece() != PieceKind::Queen || board.n() > HINT_MAX_N {
        return None;
    }
    let rooks = board.with_piece(PieceKind::Rook).ok()?;
    let ways = nqueens::count(&nqueens::Config::board(rooks).threads(1))
        .ok()?
        .total;
    (ways > 0).then(|| {
        let ways = if ways == 1 {
            "is 1 way".to_string()
        } else {
            format!("are {ways} ways")
        };
        format!("note: no queens fit; with --piece rook there {ways}")
    })
}

fn bad(path: &Path, e: impl std::fmt::Display) -> Exit {
    let name = if path == Path::new("-") {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    fail(Exit::Usage, format!("{name}: {e}"))
}
