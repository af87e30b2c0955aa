//! `list` and `trace` on a constrained board, a rook board, or as pictures: the solutions in
//! every list format (pre-placed pieces included) and as one SVG grid, and the search tree as
//! an outline or a Graphviz DOT graph.

use std::io::{self, Write};
use std::ops::ControlFlow;

use nqueens::constraint::{Board, PieceKind};

use crate::args::{ListArgs, ListFormat, TraceArgs, TraceFormat};
use crate::boards;
use crate::exit::{Exit, fail, out, out_raw, say, to_stdout};

/// The widest board `trace` draws.
const MAX_TRACE_N: usize = Board::MAX_TRACE_N;

/// Boards an SVG picture draws unless `--limit` says otherwise.
const SVG_BOARDS: u64 = 16;
/// Boards side by side in an SVG picture.
const SVG_PER_LINE: usize = 4;

/// The board the arguments describe, or the empty queens board of size `n`.
fn board_of(args: &crate::args::BoardArgs, n: Option<usize>) -> Result<Board, Exit> {
    match boards::load(args, n)? {
        Some(b) => Ok(b),
        None => {
            let n = n.ok_or_else(|| fail(Exit::Usage, "give the board size N"))?;
            let n = crate::args::queens_size(n).map_err(|e| fail(Exit::Usage, e))?;
            Board::empty(n, PieceKind::Queen).map_err(|e| fail(Exit::Usage, e))
        }
    }
}

/// `list`: stream the solutions of any board (`--json` is `--format json`), or draw them.
pub fn list(args: &ListArgs) -> Result<Exit, Exit> {
    let board = board_of(&args.constraints, args.n)?;
    let format = if args.json {
        ListFormat::Json
    } else {
        args.format
    };
    let svg = format == ListFormat::Svg;
    let limit = args
        .limit
        .unwrap_or(if svg { SVG_BOARDS } else { u64::MAX });
    if limit == 0 {
        return Ok(Exit::Ok);
    }
    let mut seen = 0u64;
    let mut kept: Vec<Vec<u8>> = Vec::new();
    if format == ListFormat::Json {
        out_raw("[");
    }
    board.for_each_solution(|cols| {
        let first = seen == 0;
        seen += 1;
        match format {
            ListFormat::Tuple => out(&board.tuple_of(cols)),
            ListFormat::Board => {
                let rows = board.rows_of(cols).join("\n");
                out(&if first { rows } else { format!("\n{rows}") });
            }
            ListFormat::Json => {
                let rows = serde_json::to_string(&board.rows_of(cols)).expect("strings");
                out_raw(&format!("{}{rows}", if first { "" } else { ",\n" }));
            }
            ListFormat::Svg => kept.push(cols.to_vec()),
        }
        if seen >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    match format {
        ListFormat::Json => out("]"),
        ListFormat::Svg => out_raw(&board.svg(&kept, SVG_PER_LINE)),
        _ if seen == 0 => out("no solution"),
        _ => {}
    }
    if seen == 0
        && let Some(note) = boards::rook_hint(&args.constraints, &board, 0)
    {
        say(note);
    }
    Ok(Exit::Ok)
}

/// `trace`: the tree of the row-by-row search, as an outline or a DOT graph, on any board up
/// to [`MAX_TRACE_N`].
pub fn trace(args: &TraceArgs) -> Result<Exit, Exit> {
    let board = board_of(&args.constraints, args.n)?;
    if board.n() > MAX_TRACE_N {
        return Err(fail(
            Exit::Usage,
            format!(
                "trace is for boards up to {MAX_TRACE_N} squares wide: the tree of a {}x{} board is too big to read",
                board.n(),
                board.n()
            ),
        ));
    }
    Ok(to_stdout("trace", |out| {
        let mut buffered = io::BufWriter::new(out);
        match args.format {
            TraceFormat::Text => board.write_trace(&mut buffered)?,
            TraceFormat::Dot => board.write_trace_dot(&mut buffered)?,
        };
        buffered.flush()
    }))
}
