//! Splitting by border constellations, the `symmetry` plan: every solution has exactly one
//! queen on each border line (row 0, the last row, column 0, the last column; a corner queen
//! serves two). Solutions with border queens `B` and `g(B)` correspond one to one under each
//! board symmetry `g`, so only the smallest constellation of each orbit is searched, counted as
//! many times as its orbit has members (8, 4 or 2). This is the start-constellation method of
//! the Q27 project (Preußer and Engelhardt) and NQueensFAF; the three families below are our
//! own arrangement of it. Further interior rows may be pre-placed by the deepening in `prefix.rs`.

use super::Family;
use super::prefix::Root;
use crate::board;
use nqueens_engine::kernel::{Frame, Start};
use nqueens_engine::symmetry::Sym;

/// A border constellation: the columns of the queens in the first and last rows (`top`,
/// `bottom`) and the rows of the queens in the first and last columns (`left`, `right`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constellation {
    /// Column of the queen in row 0.
    pub top: usize,
    /// Column of the queen in row n-1.
    pub bottom: usize,
    /// Row of the queen in column 0.
    pub left: usize,
    /// Row of the queen in column n-1.
    pub right: usize,
}

impl Constellation {
    /// Its distinct queens (a corner queen serves two border lines).
    pub fn squares(&self, n: usize) -> Vec<(usize, usize)> {
        let mut s = vec![
            (0, self.top),
            (n - 1, self.bottom),
            (self.left, 0),
            (self.right, n - 1),
        ];
        s.sort_unstable();
        s.dedup();
        s
    }

    /// Reads the constellation of a set of squares, if each border line holds exactly one.
    pub fn from_squares(n: usize, squares: &[(usize, usize)]) -> Option<Constellation> {
        let only = |hits: Vec<usize>| if hits.len() == 1 { Some(hits[0]) } else { None };
        let on = |f: &dyn Fn(&(usize, usize)) -> Option<usize>| {
            only(squares.iter().filter_map(f).collect())
        };
        Some(Constellation {
            top: on(&|&(r, c)| (r == 0).then_some(c))?,
            bottom: on(&|&(r, c)| (r == n - 1).then_some(c))?,
            left: on(&|&(r, c)| (c == 0).then_some(r))?,
            right: on(&|&(r, c)| (c == n - 1).then_some(r))?,
        })
    }

    fn code(&self, n: usize) -> usize {
        ((self.top * n + self.bottom) * n + self.left) * n + self.right
    }

    /// The images of this constellation under the eight symmetries.
    pub fn images(&self, n: usize) -> Vec<Constellation> {
        let squares = self.squares(n);
        Sym::ALL
            .iter()
            .map(|&g| {
                let moved: Vec<_> = squares.iter().map(|&s| g.apply(n, s)).collect();
                Constellation::from_squares(n, &moved).expect("symmetries keep border lines")
            })
            .collect()
    }
}

/// Whether two distinct squares attack each other.
fn attack((r1, c1): (usize, usize), (r2, c2): (usize, usize)) -> bool {
    r1 == r2 || c1 == c2 || r1.abs_diff(r2) == c1.abs_diff(c2)
}

/// Whether `k` is a peaceful constellation: one queen on each border line (a corner queen
/// serving two), no two of them attacking each other.
fn is_constellation(n: usize, k: &Constellation) -> bool {
    let s = k.squares(n);
    let apart = |(i, &a): (usize, &(usize, usize))| s[i + 1..].iter().all(|&b| !attack(a, b));
    Constellation::from_squares(n, &s) == Some(*k) && s.iter().enumerate().all(apart)
}

/// Every canonical border constellation with its orbit size, in increasing order of
/// `(top, bottom, left, right)`.
pub fn canonical_constellations(n: usize) -> Vec<(Constellation, u8)> {
    let mut out = Vec::new();
    // A canonical constellation's row-0 queen is the nearest of all four to a corner (every
    // border queen is carried to row 0, at its distance or its mirror's, by some symmetry), so
    // the loops skip every other one before looking at the images.
    let dist = |x: usize| corner_distance(n, x);
    for top in (0..n).filter(|&t| t <= n - 1 - t) {
        let near = dist(top);
        for bottom in (0..n).filter(|&x| dist(x) >= near) {
            for left in (0..n).filter(|&x| dist(x) >= near) {
                for right in (0..n).filter(|&x| dist(x) >= near) {
                    let k = Constellation {
                        top,
                        bottom,
                        left,
                        right,
                    };
                    if !is_constellation(n, &k) {
                        continue;
                    }
                    let mut codes: Vec<usize> = k.images(n).iter().map(|g| g.code(n)).collect();
                    let own = k.code(n);
                    if codes.iter().any(|&c| c < own) {
                        continue;
                    }
                    codes.sort_unstable();
                    codes.dedup();
                    out.push((k, codes.len() as u8));
                }
            }
        }
    }
    out
}

/// The kernel frame of a constellation: its empty rows with the squares its queens attack.
pub fn constellation_frame(n: usize, k: &Constellation) -> (Frame, Start) {
    let squares = k.squares(n);
    let rows: Vec<usize> = (0..n)
        .filter(|&r| squares.iter().all(|&(qr, _)| qr != r))
        .collect();
    let mut frame = Frame::open(n, rows.len());
    for (l, &r) in rows.iter().enumerate() {
        let mut attacked = 0u64;
        for &(qr, qc) in &squares {
            let d = r.abs_diff(qr);
            if qc + d < n {
                attacked |= board::bit(qc + d);
            }
            if qc >= d {
                attacked |= board::bit(qc - d);
            }
        }
        frame.fixed[l] = attacked;
        if l + 1 < rows.len() {
            frame.step[l] = (rows[l + 1] - r) as u32;
        }
    }
    let cols = squares.iter().fold(0, |m, &(_, c)| m | board::bit(c));
    let start = Start {
        cols,
        ..Start::default()
    };
    (frame, start)
}

/// Distance of a border square from the nearest corner along its border line.
fn corner_distance(n: usize, x: usize) -> usize {
    x.min(n - 1 - x)
}

/// Family 2 with the nearest queen in row 0, column `i`: columns 0 and n-1 are closed where a
/// queen there would be as near a corner as `i`, and so are the last row's columns near its
/// corners.
fn nearest_in_row_0(n: usize, i: usize) -> Frame {
    let edges = board::bit(0) | board::bit(n - 1);
    let mut frame = Frame::open(n, n);
    for r in 1..n {
        if corner_distance(n, r) <= i {
            frame.fixed[r] |= edges;
        }
    }
    for c in 0..n {
        if corner_distance(n, c) <= i {
            frame.fixed[n - 1] |= board::bit(c);
        }
    }
    frame
}

/// Family 2 turned a quarter: the nearest queen fixed in column 0, row `i`; every other row is
/// searched. The queen's diagonals close column `|r - i|` of each row `r`; rows 0 and n-1 are
/// closed near their corners, and column n-1 near its corners.
fn nearest_in_column_0(n: usize, i: usize) -> Frame {
    let rows: Vec<usize> = (0..n).filter(|&r| r != i).collect();
    let mut frame = Frame::open(n, rows.len());
    let near_corner: u64 = (0..n)
        .filter(|&c| corner_distance(n, c) <= i)
        .fold(0, |m, c| m | board::bit(c));
    for (l, &r) in rows.iter().enumerate() {
        frame.fixed[l] |= board::bit(r.abs_diff(i));
        if corner_distance(n, r) <= i {
            frame.fixed[l] |= board::bit(n - 1);
        }
        if r == 0 || r == n - 1 {
            frame.fixed[l] |= near_corner;
        }
        if l + 1 < rows.len() {
            frame.step[l] = (rows[l + 1] - r) as u32;
        }
    }
    frame
}

/// The full-symmetry plan's roots. Every solution orbit is counted through exactly one of
/// three families (see the module notes above and `docs/internals.md`, "The empty board"):
///
/// 1. a queen in a corner: it is placed at (0, 0), the queen of row 1 in column `a`, and the
///    queen of column 1 is kept below row `a`, which picks one of each transposed pair;
///    weight 8;
/// 2. no corner queen, and one border queen strictly nearer a corner than every other: turned
///    so that it stands in row 0, column `i` (or, for `i >= 3`, in column 0, row `i`), with
///    masks keeping the other border queens further out; weight 8, and the other border
///    queens are found by the search itself so that all of them share one tree;
/// 3. no corner queen, and another border queen exactly as near a corner as the row-0 queen:
///    the canonical constellations of all four border queens, weighted by orbit size.
pub(super) fn roots(n: usize) -> (Vec<Frame>, Vec<Family>, Vec<Root>) {
    let mut frames = Vec::new();
    let mut families = Vec::new();
    let mut subproblems = Vec::new();
    let root = Start::default();
    if n == 1 {
        let frame = Frame::open(1, 1);
        subproblems.push(Root::new(0, frame.descend(&root, 1), 1));
        return (vec![frame], vec![Family::Corner], subproblems);
    }
    // 1. A corner queen at (0, 0); row 1 in column a >= 2; column 1 empty in rows 2..=a.
    for a in 2..n {
        let mut frame = Frame::open(n, n);
        for r in 2..=a.min(n - 1) {
            frame.fixed[r] |= board::bit(1);
        }
        let s0 = frame.descend(&root, board::bit(0));
        if frame.free(&s0) & board::bit(a) != 0 {
            subproblems.push(Root::new(
                frames.len() as u32,
                frame.descend(&s0, board::bit(a)),
                8,
            ));
            frames.push(frame);
            families.push(Family::Corner);
        }
    }
    // 2. The nearest queen at distance i, every other border queen strictly further from its
    //    corners (so 2i + 2 < n: some column of the last row must be further still). The
    //    same solutions can be searched in two orientations: with the nearest queen in row 0
    //    (the search meets the other border lines at its bottom), or, turned a quarter, in
    //    column 0 at row i (the first and the last row are then both restricted, and the
    //    fixed queen's diagonals prune the rows above it). Measured node counts for
    //    n = 13..=18 favour the first for i < 3 and the second from i = 3 on.
    for i in (1..n).take_while(|&i| 2 * i + 2 < n) {
        let (frame, start) = if i < 3 {
            let frame = nearest_in_row_0(n, i);
            let start = frame.descend(&root, board::bit(i));
            (frame, start)
        } else {
            let cols = board::bit(0);
            let start = Start { cols, ..root };
            (nearest_in_column_0(n, i), start)
        };
        subproblems.push(Root::new(frames.len() as u32, start, 8));
        frames.push(frame);
        families.push(Family::Nearest);
    }
    // 3. Ties: canonical constellations with another border queen at the row-0 queen's
    //    distance from a corner.
    for (k, weight) in canonical_constellations(n) {
        let d = k.top;
        let ties = [k.bottom, k.left, k.right]
            .iter()
            .any(|&x| corner_distance(n, x) == d);
        if d == 0 || !ties {
            continue;
        }
        let (frame, start) = constellation_frame(n, &k);
        subproblems.push(Root::new(frames.len() as u32, start, weight));
        frames.push(frame);
        families.push(Family::Tie);
    }
    (frames, families, subproblems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbits_cover_every_constellation_once() {
        // The weights of the canonical constellations, each 8, 4 or 2, add up to the number
        // of all peaceful constellations.
        for n in 4..=12 {
            let all = (0..n * n * n * n)
                .map(|c| Constellation {
                    top: c / n / n / n,
                    bottom: c / n / n % n,
                    left: c / n % n,
                    right: c % n,
                })
                .filter(|k| is_constellation(n, k))
                .count();
            let canonical = canonical_constellations(n);
            assert!(
                canonical.iter().all(|(_, w)| [2, 4, 8].contains(w)),
                "n = {n}"
            );
            let weighted: usize = canonical.iter().map(|&(_, w)| usize::from(w)).sum();
            assert_eq!(weighted, all, "n = {n}");
        }
    }
}
