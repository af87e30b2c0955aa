//! `list` and `trace` on a constrained board, a rook board, or as pictures: the solutions in
//! every list format (pre-placed pieces included) and as one SVG grid, and the search tree as
//! an outline or a Graphviz DOT graph.

use std::io::{self, Write};
use std::ops::ControlFlow;

use nqueens::TraceExtent;
use nqueens::constraint::{Board, Gallery, PieceKind};

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

/// `list`: stream the solutions of any board (`--json` is `--format json`), or one of each
/// orbit under the symmetries of the square (`--unique`), or draw them.
pub fn list(args: &ListArgs) -> Result<Exit, Exit> {
    let board = board_of(&args.constraints, args.n)?;
    if args.unique && !board.is_symmetric() {
        return Err(fail(
            Exit::Usage,
            "--unique needs a board that every rotation and reflection of the square leaves \
             unchanged, such as the empty board: this one's blocked squares or pre-placed \
             pieces would move",
        ));
    }
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
    // What a picture that leaves solutions out says of their number: the published count of
    // the empty queens board, or on a small board the rest of the walk counted; on a larger
    // one, the walk looks for one more (the walk's pace varies too much to count on).
    let published = published(&board, args.unique);
    let count_rest = svg && published.is_none() && board.n() <= SVG_COUNT_MAX_N;
    let mut seen = 0u64;
    let mut kept: Vec<(Vec<u8>, Option<u8>)> = Vec::new();
    if format == ListFormat::Json {
        out_raw("[");
    }
    let mut visit = |cols: &[u8], orbit: Option<u8>| {
        let first = seen == 0;
        seen += 1;
        if seen > limit {
            // Only a picture walks past its limit, to count what it leaves out or to see that
            // there is more.
            return if count_rest {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            };
        }
        match format {
            ListFormat::Tuple => out(&match orbit {
                Some(size) => format!("{} (orbit of {size})", board.tuple_of(cols)),
                None => board.tuple_of(cols),
            }),
            ListFormat::Board => {
                let mut rows = board.rows_of(cols).join("\n");
                if let Some(size) = orbit {
                    rows = format!("orbit of {size}:\n{rows}");
                }
                out(&if first { rows } else { format!("\n{rows}") });
            }
            ListFormat::Json => {
                let rows = board.rows_of(cols);
                let item = match orbit {
                    Some(size) => serde_json::json!({
                        "columns": cols.iter().map(|&c| u32::from(c) + 1).collect::<Vec<_>>(),
                        "rows": rows,
                        "orbit": size,
                    }),
                    None => serde_json::json!(rows),
                };
                out_raw(&format!("{}{item}", if first { "" } else { ",\n" }));
            }
            ListFormat::Svg => kept.push((cols.to_vec(), orbit)),
        }
        let past = svg && published.is_none();
        if seen >= limit && !past {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    if args.unique {
        board
            .for_each_unique_solution(|cols, size| visit(cols, Some(size)))
            .map_err(|e| fail(Exit::Usage, e))?;
    } else {
        board.for_each_solution(|cols| visit(cols, None));
    }
    match format {
        ListFormat::Json => out("]"),
        ListFormat::Svg => {
            // The number of what the walk lists: all of it, where the walk ended; the
            // published one; or unknown, when the walk stopped at one past those drawn.
            let total = published.or((count_rest || seen == kept.len() as u64).then_some(seen));
            draw(&board, args, &kept, total);
        }
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

/// The largest board whose solutions an SVG picture counts to the end of the walk, past
/// those it draws, to say how many it leaves out when the number is not published: 10! rook
/// placements are walked in about a second.
const SVG_COUNT_MAX_N: usize = 10;

/// The published number of what `list` walks (solutions, or unique ones), for the empty
/// queens board where OEIS has it.
fn published(board: &Board, unique: bool) -> Option<u64> {
    if !board.is_empty() || board.piece() != PieceKind::Queen {
        return None;
    }
    let n = board.n();
    let count = if unique {
        nqueens::known::unique(n)
    } else {
        nqueens::known::total(n)
    }?;
    u64::try_from(count).ok()
}

/// Writes the SVG picture of the solutions `kept` (with their orbits' sizes under `--unique`)
/// of the `total` there are (`None`: more than those drawn, how many unknown), captioned with
/// how many of how many it draws; when it leaves some out, says so on stderr too, and how to
/// see them.
fn draw(board: &Board, args: &ListArgs, kept: &[(Vec<u8>, Option<u8>)], total: Option<u64>) {
    let n = board.n();
    let drawn = kept.len() as u64;
    let what = if args.unique {
        "unique solutions (one of each orbit under the 8 symmetries of the square)"
    } else {
        "solutions"
    };
    let board_name = format!("the {n}x{n} {} board", board.piece().name());
    let mut caption = Vec::new();
    let first = match total {
        _ if drawn == 0 => None,
        Some(total) if total == drawn => {
            caption.push(format!(
                "all {drawn} {what} of {board_name}, in lexicographic order"
            ));
            None
        }
        Some(total) => Some((
            format!("the first {drawn} of the {total} {what} of {board_name}"),
            format!("--limit {total} draws them all"),
        )),
        None => Some((
            format!("the first {drawn} {what} of {board_name} (there are more)"),
            "a larger --limit draws more".to_string(),
        )),
    };
    if let Some((which, how)) = first {
        caption.push(format!("{which}, in lexicographic order"));
        caption.push(format!(
            "to see the rest: {how}; --format tuple lists them as text"
        ));
        say(format!(
            "note: the picture draws {which}; {how}, --format tuple lists them as text"
        ));
    }
    let title = caption
        .first()
        .cloned()
        .unwrap_or_else(|| format!("no solution of {board_name}"));
    let labels = kept
        .iter()
        .enumerate()
        .map(|(k, (_, orbit))| match orbit {
            Some(size) => format!("{}: orbit of {size}", k + 1),
            None => (k + 1).to_string(),
        })
        .collect();
    let solutions: Vec<Vec<u8>> = kept.iter().map(|(cols, _)| cols.clone()).collect();
    let gallery = Gallery {
        labels,
        title,
        caption,
        per_line: SVG_PER_LINE,
    };
    out_raw(&board.svg_gallery(&solutions, &gallery));
}

/// Nodes past which a whole tree drawn as DOT is too wide to read as one picture (the 5x5
/// board's tree has 102, and Graphviz lays it out about 3,400 points wide).
const DOT_READABLE_NODES: u64 = 100;

/// `trace`: the tree of the row-by-row search, whole or up to its first solution (`--first`),
/// as an outline or a DOT graph, on any board up to [`MAX_TRACE_N`]; a DOT graph of more than
/// [`DOT_READABLE_NODES`] nodes comes with a note on stderr saying what reads better.
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
    let extent = if args.first {
        TraceExtent::FirstSolution
    } else {
        TraceExtent::Whole
    };
    let mut summary = None;
    let done = to_stdout("trace", |out| {
        let mut buffered = io::BufWriter::new(out);
        summary = Some(match args.format {
            TraceFormat::Text => board.write_trace(extent, &mut buffered)?,
            TraceFormat::Dot => board.write_trace_dot(extent, &mut buffered)?,
        });
        buffered.flush()
    });
    if let Some(s) = summary
        && args.format == TraceFormat::Dot
        && s.nodes > DOT_READABLE_NODES
    {
        let instead = if args.first {
            "dot -Grankdir=LR lays it out down the page instead, the text trace (--format text) \
             reads it line by line, or trace a smaller board"
        } else {
            "--first draws the search up to its first solution, or trace a smaller board"
        };
        say(format!(
            "note: this tree has {} nodes, too wide to read as one picture; {instead} \
             (4 draws 33 nodes)",
            s.nodes
        ));
    }
    Ok(done)
}
