//! Pictures as text: solutions drawn as one SVG grid of boards, a plain string (the library
//! never prints). The SVG marks blocked squares with a grey cross and pre-placed pieces in
//! another colour than the ones the search placed. The backtracking tree's picture, a Graphviz
//! DOT graph, is drawn by the trace (`crate::trace`), which walks the tree of a board: here it
//! would make the boards and the trace import each other.

use std::fmt::Write as _;

use super::Board;

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
    /// The solutions `solutions` (each `cols[r]` = column of row `r`) as one SVG picture laid
    /// out and worded as `gallery` says: the boards in lines of at most `gallery.per_line`, each
    /// under its label, the pre-placed pieces and the blocked squares marked, and the caption's
    /// lines under them all.
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
}

/// `text` with the characters XML gives a meaning escaped.
fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::PieceKind;

    #[test]
    fn a_caption_widens_the_picture_and_labels_replace_the_numbers() {
        let board = Board::empty(4, PieceKind::Queen).unwrap();
        let sols = [vec![1, 3, 0, 2]];
        let plain = board.svg_gallery(&sols, &Gallery::default());
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
}
