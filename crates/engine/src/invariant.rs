//! The solutions a rotation leaves unchanged, for Burnside's lemma
//! ([`crate::symmetry::unique_from`]): a search in which every placed queen brings its rotated
//! partners along, so it walks about n/2 (half turn) or n/4 (quarter turn) levels only. Runs
//! count the quarter turns with it; the half turns, a search of hours from n = 26 on, have
//! the bitmask search of [`crate::half_turn`], checked against this one.

use crate::symmetry::Sym;

/// Number of solutions left unchanged by a half turn (`quarter == false`) or by a quarter turn
/// (`quarter == true`), among those whose queen in row 0 stands in column `first`.
///
/// The search fills the rows from the top; a queen placed at `(r, c)` places its images under
/// the rotation's powers at once, and a row already filled by an image is skipped. Each
/// invariant solution is reached exactly once, because the queen chosen in the topmost empty row
/// is the solution's own queen there.
pub fn count_invariant(n: usize, quarter: bool, first: usize) -> (u64, u64) {
    let mut board = Occupancy {
        n,
        ..Default::default()
    };
    let images = if quarter { 4 } else { 2 };
    let mut nodes = 0;
    let count = if board.place_orbit((0, first), images) {
        nodes += 1;
        let c = search_invariant(&mut board, images, 1, &mut nodes);
        board.remove_orbit((0, first), images);
        c
    } else {
        0
    };
    (count, nodes)
}

fn search_invariant(board: &mut Occupancy, images: usize, from: usize, nodes: &mut u64) -> u64 {
    let n = board.n;
    let mut row = from;
    while row < n && board.rows & (1 << row) != 0 {
        row += 1;
    }
    if row == n {
        return 1;
    }
    let mut total = 0;
    for c in 0..n {
        // Most squares are attacked already: test the square itself before its orbit.
        if board.attacked(row, c) {
            continue;
        }
        if board.place_orbit((row, c), images) {
            *nodes += 1;
            total += search_invariant(board, images, row + 1, nodes);
            board.remove_orbit((row, c), images);
        }
    }
    total
}

/// Queens on the board as line masks: rows, columns and the two diagonal directions.
#[derive(Default)]
struct Occupancy {
    n: usize,
    rows: u64,
    cols: u64,
    /// Indexed by `r + c`.
    sums: u64,
    /// Indexed by `r + n - 1 - c`.
    diffs: u64,
}

impl Occupancy {
    /// Whether a queen on the board attacks `(r, c)` (or stands there).
    #[inline]
    fn attacked(&self, r: usize, c: usize) -> bool {
        let (rb, cb, sb, db) = line_bits(self.n, r, c);
        (self.rows & rb) | (self.cols & cb) | (self.sums & sb) | (self.diffs & db) != 0
    }

    fn orbit(&self, sq: (usize, usize), images: usize) -> [(usize, usize); 4] {
        let mut out = [sq; 4];
        let step = if images == 4 { Sym::Rot90 } else { Sym::Rot180 };
        for i in 1..images {
            out[i] = step.apply(self.n, out[i - 1]);
        }
        out
    }

    /// Places the orbit of `sq` if its distinct squares attack neither each other nor any
    /// queen on the board; returns whether it did.
    fn place_orbit(&mut self, sq: (usize, usize), images: usize) -> bool {
        let orbit = self.orbit(sq, images);
        let distinct = orbit_len(&orbit[..images]);
        let (mut rows, mut cols, mut sums, mut diffs) =
            (self.rows, self.cols, self.sums, self.diffs);
        for &(r, c) in &orbit[..distinct] {
            let (rb, cb, sb, db) = line_bits(self.n, r, c);
            if (rows & rb) | (cols & cb) | (sums & sb) | (diffs & db) != 0 {
                return false;
            }
            rows |= rb;
            cols |= cb;
            sums |= sb;
            diffs |= db;
        }
        (self.rows, self.cols, self.sums, self.diffs) = (rows, cols, sums, diffs);
        true
    }

    fn remove_orbit(&mut self, sq: (usize, usize), images: usize) {
        let orbit = self.orbit(sq, images);
        for &(r, c) in &orbit[..orbit_len(&orbit[..images])] {
            let (rb, cb, sb, db) = line_bits(self.n, r, c);
            self.rows &= !rb;
            self.cols &= !cb;
            self.sums &= !sb;
            self.diffs &= !db;
        }
    }
}

/// The orbit of a square under a rotation's powers repeats after its period: the centre square
/// is its own image. Returns how many leading entries are distinct.
fn orbit_len(orbit: &[(usize, usize)]) -> usize {
    (1..orbit.len())
        .find(|&i| orbit[i] == orbit[0])
        .unwrap_or(orbit.len())
}

#[inline]
fn line_bits(n: usize, r: usize, c: usize) -> (u64, u64, u64, u64) {
    (1 << r, 1 << c, 1 << (r + c), 1 << (r + n - 1 - c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symmetry::unique_from;
    use std::collections::HashSet;

    fn invariant_total(n: usize, quarter: bool) -> u64 {
        (0..n).map(|c| count_invariant(n, quarter, c).0).sum()
    }

    #[test]
    fn invariant_counts_match_a_brute_force_filter() {
        for n in 1..=8 {
            let mut p = 0;
            let mut r = 0;
            for sol in crate::brute::all_solutions(n) {
                let set: HashSet<_> = sol.iter().enumerate().map(|(r, &c)| (r, c)).collect();
                let fixed = |g: Sym| set.iter().all(|&s| set.contains(&g.apply(n, s)));
                p += u64::from(fixed(Sym::Rot180));
                r += u64::from(fixed(Sym::Rot90));
            }
            assert_eq!(invariant_total(n, false), p, "P({n})");
            assert_eq!(invariant_total(n, true), r, "R({n})");
        }
    }

    #[test]
    fn burnside_gives_the_published_uniques() {
        for n in 1..=12 {
            let q = crate::known::total(n).unwrap();
            let p = invariant_total(n, false) as u128;
            let r = invariant_total(n, true) as u128;
            assert_eq!(
                Some(unique_from(n, q, p, r)),
                crate::known::unique(n),
                "n = {n}"
            );
        }
    }
}
