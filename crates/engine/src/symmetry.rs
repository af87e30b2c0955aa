//! The eight symmetries of the square board (the dihedral group D4) and Burnside's lemma,
//! which turns the counts of solutions that rotations leave unchanged into the unique count.
//!
//! The full-symmetry plan uses the group to keep one border constellation per orbit. The unique
//! count (OEIS A002562) comes from Burnside's lemma: no solution of a board with n ≥ 2 is its own
//! mirror image (a reflection in a middle line would put two queens in one line; one in a
//! diagonal would put two on one anti-diagonal), so
//! `unique = (total + P + 2R) / 8`, where `P` counts the solutions that a half turn leaves
//! unchanged (the quarter-turn ones included) and `R` those that a quarter turn leaves
//! unchanged. `P` and `R` are found by the searches of `engine::invariant` and
//! `engine::half_turn`.

/// One of the eight symmetries of an n×n board, acting on (row, column) squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    /// Leaves every square where it is.
    Identity,
    /// Quarter turn clockwise.
    Rot90,
    /// Half turn.
    Rot180,
    /// Quarter turn counter-clockwise.
    Rot270,
    /// Left-right mirror.
    MirrorColumns,
    /// Top-bottom mirror.
    MirrorRows,
    /// Reflection in the main diagonal.
    Transpose,
    /// Reflection in the anti-diagonal.
    AntiTranspose,
}

impl Sym {
    /// The whole group, identity first.
    pub const ALL: [Sym; 8] = [
        Sym::Identity,
        Sym::Rot90,
        Sym::Rot180,
        Sym::Rot270,
        Sym::MirrorColumns,
        Sym::MirrorRows,
        Sym::Transpose,
        Sym::AntiTranspose,
    ];

    /// Where square `(r, c)` of an `n`×`n` board goes.
    #[inline]
    pub fn apply(self, n: usize, (r, c): (usize, usize)) -> (usize, usize) {
        let m = n - 1;
        match self {
            Sym::Identity => (r, c),
            Sym::Rot90 => (c, m - r),
            Sym::Rot180 => (m - r, m - c),
            Sym::Rot270 => (m - c, r),
            Sym::MirrorColumns => (r, m - c),
            Sym::MirrorRows => (m - r, c),
            Sym::Transpose => (c, r),
            Sym::AntiTranspose => (m - c, m - r),
        }
    }
}

/// Unique solutions from the total and the rotation-invariant counts (Burnside's lemma).
///
/// `p` counts the half-turn-invariant solutions (quarter-turn ones included), `r` the
/// quarter-turn-invariant ones. For n = 1 the single solution is fixed by all eight symmetries.
pub fn unique_from(n: usize, total: u128, p: u128, r: u128) -> u128 {
    if n == 1 {
        return total;
    }
    (total + p + 2 * r) / 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn squares(n: usize) -> Vec<(usize, usize)> {
        (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect()
    }

    #[test]
    fn every_symmetry_is_a_bijection_of_the_board() {
        for n in 1..=7 {
            for g in Sym::ALL {
                let image: HashSet<_> = squares(n).into_iter().map(|s| g.apply(n, s)).collect();
                assert_eq!(image.len(), n * n, "{g:?} on {n}");
                assert!(image.iter().all(|&(r, c)| r < n && c < n));
            }
        }
    }

    #[test]
    fn the_group_is_closed_under_composition_and_has_inverses() {
        // So an orbit's size divides eight.
        let n = 6;
        let table = |g: Sym| squares(n).into_iter().map(move |s| g.apply(n, s));
        for a in Sym::ALL {
            for b in Sym::ALL {
                let composed: Vec<_> = squares(n)
                    .into_iter()
                    .map(|s| b.apply(n, a.apply(n, s)))
                    .collect();
                let matches = Sym::ALL
                    .iter()
                    .filter(|&&g| table(g).eq(composed.iter().copied()))
                    .count();
                assert_eq!(matches, 1, "{a:?} then {b:?}");
            }
            let has_inverse = Sym::ALL.iter().any(|&b| {
                squares(n)
                    .into_iter()
                    .all(|s| b.apply(n, a.apply(n, s)) == s)
            });
            assert!(has_inverse, "{a:?}");
        }
    }
}
