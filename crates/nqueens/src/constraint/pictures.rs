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
use crate::trace::{self, Fate, TraceExtent, TraceSummary};

/// Side of a square, in SVG user units.
const SQUARE: usize = 24;
/// Space around and between the boards.
const GAP: usize = 16;

/// What an SVG picture of solutions shows besides the boards: the words above each board and
/// the picture's title and caption. The program writes them; [`Board::svg_gallery`] draws.
#[derive(Clone, Debug, Default)]
pub struct Gallery {
    /// The label above each board, in order; a board without one is labelled with its
    /// number from 1.
    pub labels: Vec<String>,
    /// The picture's `<title>`.
    pub title: String,
    /// Lines of text under the boards (how many of how many are drawn, how to see the rest).
    pub caption: Vec<String>,
    /// Boards side by side, at most.
    pub per_line: usize,
}

/// Height of a line of the caption.
const CAPTION_LINE: usize = 16;

impl Board {
    /// The most inches a DOT tree of [`Board::write_trace_dot`] is drawn wide or high: 100,
    /// 7,200 points.
    pub const DOT_MOST_INCHES: u32 = 100;

    /// The solutions `solutions` (each `cols[r]` = column of row `r`) as one SVG picture, at
    /// most `per_line` boards side by side, each captioned with its number from 1, with the
    /// pre-placed pieces and the blocked squares marked.
    pub fn svg(&self, solutions: &[Vec<u8>], per_line: usize) -> String {
        let plural = if solutions.len() == 1 { "" } else { "s" };
        let n = self.n();
        self.svg_gallery(
            solutions,
            &Gallery {
                title: format!(
                    "the first {} solution{plural} of the {n}x{n} {} board",
                    solutions.len(),
                    self.piece().name()
                ),
                per_line,
                ..Gallery::default()
            },
        )
    }

    /// The solutions `solutions` as one SVG picture laid out and worded as `gallery` says: the
    /// boards in lines of at most `gallery.per_line`, each under its label, the pre-placed
    /// pieces and the blocked squares marked, and the caption's lines under them all.
    pub fn svg_gallery(&self, solutions: &[Vec<u8>], gallery: &Gallery) -> String {
        let n = self.n();
        let per_line = gallery.per_line.clamp(1, solutions.len().max(1));
        let lines = solutions.len().div_ceil(per_line).max(1);
        let side = n * SQUARE;
        let (cell_w, cell_h) = (side + GAP, side + GAP + 14);
        let caption_h = gallery.caption.len() * CAPTION_LINE;
        // A caption's line is about 7 units a character wide at its font size: the picture is
        // widened to hold the longest.
        let caption_w = gallery.caption.iter().map(|l| l.chars().count() * 7).max();
        let width = (GAP + per_line * cell_w).max(2 * GAP + caption_w.unwrap_or(0));
        let height = GAP + lines * cell_h + caption_h;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
        );
        let _ = writeln!(s, "<title>{}</title>", xml_text(&gallery.title));
        if solutions.is_empty() {
            let _ = writeln!(s, r#"<text x="{GAP}" y="{}">no solution</text>"#, GAP + 12);
        }
        for (k, cols) in solutions.iter().enumerate() {
            let x0 = GAP + (k % per_line) * cell_w;
            let y0 = GAP + (k / per_line) * cell_h + 14;
            let label = gallery
                .labels
                .get(k)
                .map_or_else(|| (k + 1).to_string(), |l| xml_text(l));
            let _ = writeln!(
                s,
                r#"<g id="solution-{}"><text x="{x0}" y="{}" font-size="12">{label}</text>"#,
                k + 1,
                y0 - 4,
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
        for (i, line) in gallery.caption.iter().enumerate() {
            let y = GAP + lines * cell_h + i * CAPTION_LINE + 4;
            let _ = writeln!(
                s,
                r#"<text class="caption" x="{GAP}" y="{y}" font-size="13">{}</text>"#,
                xml_text(line)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// [`Board::write_trace`] as a Graphviz DOT digraph (n ≤ [`Board::MAX_TRACE_N`]), whole or up
    /// to its first solution: node `nK` is node K of the text trace. The reasons of killed nodes
    /// are wrapped on short lines, which keeps the drawing about half as wide as on one line.
    /// Up to the first solution, the graph's label, set again as its last statement, says where
    /// the search stopped (the text trace's last line). The drawing is at most
    /// [`Board::DOT_MOST_INCHES`] inches wide and high (Graphviz's `size`, which scales a larger one
    /// down).
    pub fn write_trace_dot(
        &self,
        extent: TraceExtent,
        out: &mut impl Write,
    ) -> io::Result<TraceSummary> {
        let (n, piece) = (self.n(), self.piece());
        let title = format!(
            "{n}-{}s: state-space tree of row-by-row backtracking{} (nodes numbered depth-first over the tree of permutations)",
            piece.name(),
            match extent {
                TraceExtent::Whole => "",
                TraceExtent::FirstSolution => " up to the first solution",
            }
        );
        writeln!(out, "digraph trace {{")?;
        writeln!(out, "  label=\"{title}\";")?;
        writeln!(out, "  labelloc=t;")?;
        // An upper bound, in inches, on the drawing: Graphviz scales a larger one down to
        // fit (8 queens' whole tree is some 200,000 points wide), so that every viewer opens
        // it; a vector format still zooms in. Smaller drawings keep their natural size.
        writeln!(out, "  size=\"{0},{0}\";", Self::DOT_MOST_INCHES)?;
        writeln!(
            out,
            "  node [shape=circle, fontname=\"Helvetica\", fontsize=10, style=filled, fillcolor=white];"
        )?;
        writeln!(out, "  edge [fontsize=9];")?;
        writeln!(out, "  n1 [label=\"1\\nroot\"];")?;
        let summary = trace::walk(self, extent, |node| {
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
                    wrap(&trace::kill_words(piece, kill), LABEL_WIDTH).join("\\n")
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
        if extent == TraceExtent::FirstSolution {
            let last = trace::last_line(self, extent, &summary);
            writeln!(out, "  label=\"{title}\\n{last}\";")?;
        }
        writeln!(out, "}}")?;
        Ok(summary)
    }
}

/// `text` with the characters XML gives a meaning escaped.
fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The longest line of a killed node's reason in the DOT graph, in characters.
const LABEL_WIDTH: usize = 20;

/// `text` cut at spaces into lines of at most `width` characters (a longer word stands alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::PieceKind;

    #[test]
    fn the_dot_graph_up_to_the_first_solution_says_where_it_stopped() {
        let board = Board::empty(4, PieceKind::Queen).unwrap();
        let mut out = Vec::new();
        let summary = board
            .write_trace_dot(TraceExtent::FirstSolution, &mut out)
            .unwrap();
        let dot = String::from_utf8(out).unwrap();
        assert_eq!(summary.nodes, 16);
        let node = |l: &&str| {
            l.strip_prefix("  n")
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        };
        let nodes = dot.lines().filter(node).filter(|l| !l.contains(" -> "));
        assert_eq!(nodes.count(), 16);
        assert_eq!(dot.matches(" -> ").count(), 15);
        assert_eq!(dot.matches("shape=doublecircle").count(), 1);
        let lines: Vec<&str> = dot.lines().collect();
        assert_eq!(lines[lines.len() - 1], "}");
        let label = lines[lines.len() - 2];
        assert!(
            label.starts_with("  label=\"4-queens: state-space tree"),
            "{label}"
        );
        assert!(
            label.ends_with("\\n4-queens: first solution at node 31: 2 4 1 3; the search stops there, 16 nodes generated of the 65 in the tree of permutations\";"),
            "{label}"
        );
    }

    #[test]
    fn a_caption_widens_the_picture_and_labels_replace_the_numbers() {
        let board = Board::empty(4, PieceKind::Queen).unwrap();
        let sols = [vec![1, 3, 0, 2]];
        let plain = board.svg(&sols, 4);
        assert!(plain.contains(">1</text>") && !plain.contains("caption"));
        let gallery = Gallery {
            labels: vec!["1: orbit of 2".into()],
            title: "a & b".into(),
            caption: vec!["x".repeat(60), "<y>".into()],
            per_line: 4,
        };
        let svg = board.svg_gallery(&sols, &gallery);
        assert!(svg.contains(">1: orbit of 2</text>"), "{svg}");
        assert!(svg.contains("<title>a &amp; b</title>") && svg.contains(">&lt;y&gt;</text>"));
        assert_eq!(svg.matches("class=\"caption\"").count(), 2);
        // 60 characters at 7 units each, and the margins: wider than one 4x4 board's 128.
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="452""#),
            "{svg}"
        );
    }

    #[test]
    fn reasons_wrap_at_spaces_within_the_width() {
        assert_eq!(
            wrap("diagonal with queen at row 3, column 2", 20),
            ["diagonal with queen", "at row 3, column 2"]
        );
        assert_eq!(wrap("blocked square", 20), ["blocked square"]);
        assert_eq!(
            wrap("anti-diagonal-without-spaces x", 5),
            ["anti-diagonal-without-spaces", "x"]
        );
    }
}
