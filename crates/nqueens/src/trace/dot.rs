//! The backtracking tree as a Graphviz DOT graph (render it with `dot -Tsvg`), written to a
//! writer; the library never prints. The graph numbers its nodes as the text trace does
//! (preorder in the tree of permutations), draws killed nodes as grey boxes labelled with the
//! reason, and solutions as green double circles.

use std::io::{self, Write};

use super::{Fate, TraceExtent, TraceSummary, kill_words, last_line, walk};
use crate::constraint::Board;

impl Board {
    /// The most inches a DOT tree of [`Board::write_trace_dot`] is drawn wide or high: 100,
    /// 7,200 points.
    pub const DOT_MOST_INCHES: u32 = 100;

    /// [`Board::write_trace`] as a Graphviz DOT digraph (n ≤ [`Board::MAX_TRACE_N`]), whole or up
    /// to its first solution: node `nK` is node K of the text trace. The reasons of killed nodes
    /// are wrapped on short lines, which keeps the drawing about half as wide as on one line.
    /// Up to the first solution, the graph's label, set again as its last statement, says where
    /// the search stopped (the text trace's last line). The drawing is at most
    /// [`Board::DOT_MOST_INCHES`] inches wide and high (Graphviz's `size`, which scales a larger
    /// one down).
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
        let summary = walk(self, extent, |node| {
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
                    wrap(&kill_words(piece, kill), LABEL_WIDTH).join("\\n")
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
            let last = last_line(self, extent, &summary);
            writeln!(out, "  label=\"{title}\\n{last}\";")?;
        }
        writeln!(out, "}}")?;
        Ok(summary)
    }
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
