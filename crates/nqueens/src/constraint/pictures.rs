//! Pictures as text: solutions drawn as one SVG grid of boards, and the backtracking tree as a
//! Graphviz DOT graph (render it with `dot -Tsvg`).
//!
//! Both are plain strings or writes to a writer; the library never prints. The SVG marks
//! blocked squares with a grey cross and pre-placed pieces in another colour than the ones the
//! search placed; the DOT graph numbers its nodes as the text trace does (preorder in the tree
//! of permutations), draws killed nodes as grey boxes labelled with the reason, and solutions
//! as green double circles.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::Board;
use crate::trace::{self, Fate};

/// Side of a square, in SVG user units.
const SQUARE: usize = 24;
/// Space around and between the boards.
const GAP: usize = 16;

impl Board {
    /// The solutions `solutions` (each `cols[r]` = column of row `r`) as one SVG picture, at
    /// most `per_line` boards side by side, each captioned with its number from 1, with the
    /// pre-placed pieces and the blocked squares marked.
    pub fn svg(&self, solutions: &[Vec<u8>], per_line: usize) -> String {
        let n = self.n();
        let per_line = per_line.clamp(1, solutions.len().max(1));
        let lines = solutions.len().div_ceil(per_line).max(1);
        let side = n * SQUARE;
        let (cell_w, cell_h) = (side + GAP, side + GAP + 14);
        let (width, height) = (GAP + per_line * cell_w, GAP + lines * cell_h);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
        );
        let plural = if solutions.len() == 1 { "" } else { "s" };
        let _ = writeln!(
            s,
            "<title>the first {} solution{plural} of the {n}x{n} {} board</title>",
            solutions.len(),
            self.piece().name()
        );
        if solutions.is_empty() {
            let _ = writeln!(s, r#"<text x="{GAP}" y="{}">no solution</text>"#, GAP + 12);
        }
        for (k, cols) in solutions.iter().enumerate() {
            let x0 = GAP + (k % per_line) * cell_w;
            let y0 = GAP + (k / per_line) * cell_h + 14;
            let _ = writeln!(
                s,
                r#"<g id="solution-{}"><text x="{x0}" y="{}" font-size="12">{}</text>"#,
                k + 1,
                y0 - 4,
                k + 1
            );
            for r in 0..n {
                for c in 0..n {
                    let (x, y) = (x0 + c * SQUARE, y0 + r * SQUARE);
                    let fill = ["#f0d9b5", "#b58863"][(r + c) % 2];
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>"#
                    );
                    if self.open()[r] >> c & 1 == 0 {
                        let (x1, y1) = (x + SQUARE, y + SQUARE);
                        let _ = writeln!(
                            s,
                            r##"<path d="M{x} {y}L{x1} {y1}M{x1} {y}L{x} {y1}" stroke="#555" stroke-width="2"/>"##
                        );
                    }
                    if cols.get(r).is_some_and(|&q| usize::from(q) == c) {
                        let pre = self.placed()[r].is_some();
                        let color = if pre { "#c0392b" } else { "#1a1a1a" };
                        let (cx, cy) = (x + SQUARE / 2, y + SQUARE / 2);
                        let _ = writeln!(
                            s,
                            r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="{color}"/><text x="{cx}" y="{}" font-size="11" fill="white" text-anchor="middle">{}</text>"#,
                            SQUARE / 2 - 3,
                            cy + 4,
                            self.piece().letter()
                        );
                    }
                }
            }
            let _ = writeln!(
                s,
                r##"<rect x="{x0}" y="{y0}" width="{side}" height="{side}" fill="none" stroke="#333"/></g>"##
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// [`Board::write_trace`] as a Graphviz DOT digraph (n ≤ [`Board::MAX_TRACE_N`]): node `nK` is
    /// node K of the text trace.
    pub fn write_trace_dot(&self, out: &mut impl Write) -> io::Result<()> {
        let (n, piece) = (self.n(), self.piece());
        writeln!(out, "digraph trace {{")?;
        writeln!(
            out,
            "  label=\"{n}-{}s: state-space tree of row-by-row backtracking (nodes numbered depth-first over the tree of permutations)\";",
            piece.name()
        )?;
        writeln!(out, "  labelloc=t;")?;
        writeln!(
            out,
            "  node [shape=circle, fontname=\"Helvetica\", fontsize=10, style=filled, fillcolor=white];"
        )?;
        writeln!(out, "  edge [fontsize=9];")?;
        writeln!(out, "  n1 [label=\"1\\nroot\"];")?;
        trace::walk(self, |node| {
            let k = node.number;
            let place = format!("r{} c{}", node.row + 1, node.column + 1);
            match node.fate {
                Fate::Live => writeln!(out, "  n{k} [label=\"{k}\\n{place}\"];")?,
                Fate::Solution(i) => writeln!(
                    out,
                    "  n{k} [label=\"{k}\\n{place}\\nsolution {i}\", shape=doublecircle, fillcolor=\"#b8e0b8\"];"
                )?,
                Fate::Killed(kill) => writeln!(
                    out,
                    "  n{k} [label=\"{k}\\n{place}\\n{}\", shape=box, fillcolor=\"#dddddd\", fontcolor=\"#666666\", color=\"#999999\", style=\"filled,dashed\"];",
                    trace::kill_words(piece, kill)
                )?,
            }
            let style = if matches!(node.fate, Fate::Killed(_)) {
                ", style=dashed, color=\"#999999\""
            } else {
                ""
            };
            writeln!(
                out,
                "  n{} -> n{k} [label=\"{}\"{style}];",
                node.parent,
                node.column + 1
            )
        })?;
        writeln!(out, "}}")
    }
}
