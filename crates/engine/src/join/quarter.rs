//! Quarter turns for even boards: which half-boards of a unit a count takes, and at what
//! weight, so that an even board uses all eight symmetries, as an odd board does.
//!
//! An even board's unit is an east row set `S`, one per orbit of the four symmetries that keep
//! the vertical cut (the mirror, the flip and the half turn, the group `H`), weighted by the
//! orbit's size ([`super::units`]). The quarter turn `r` maps the vertical cut to a horizontal
//! one, so it relates no two row sets; it relates the solutions of one row set to those of
//! others. It is used through a value `T` of each solution that the four symmetries of `H`
//! leave unchanged:
//!
//! * a side's *split value* is read off the columns its north-half queens stand in, counted
//!   from the cut (`j` for the `j`-th column away from it): the number `v = Σ 2^j` over those
//!   columns, or over the others, whichever is larger (so the flip, which trades the north and
//!   south queens of a side, keeps it);
//! * `T` is the larger of the two sides' split values (so the mirror, which trades the sides,
//!   keeps it).
//!
//! The quarter turn takes a solution's columns to rows: `T` of the turned solution is the same
//! number made from the rows of the north half that hold a *west* queen (counted from the
//! horizontal cut) and from those of the south half, that is from the unit's row set alone
//! ([`row_set_value`], `c`). A solution is then counted twice when `T < c`, once when
//! `T = c`, and not at all when `T > c`. That is exact: `σ = sign(c − T)` is unchanged by `H`
//! and changes sign under `r`, so it adds up to zero over every board (each solution's turn
//! cancels it), and a sum of anything `H` leaves unchanged over all solutions is the sum over
//! the units' solutions, each unit weighted by its orbit; so the units' counts of `1 + σ`,
//! weighted as before, add up to the number of solutions. The unique count is not touched
//! (it comes from the Burnside searches, [`crate::symmetry`]).
//!
//! `T < c` holds exactly when both sides' split values are below `c`, so the count needs no
//! test per pair: each side keeps the half-boards of the column splits below `c` (the
//! matching proper, counted twice) and, apart, the few of the splits at `c` (the ties, counted
//! once: pairs where one side is at `c` and the other at or below it). Half the candidate
//! pairs fall away, and the half-boards of the splits above `c` are never made
//! (`results/join-log.md`, section 26).

use super::geometry::reversed;

/// Which of a side's half-boards are made, by the split value of their column split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Band {
    /// All of them (no quarter turns, or odd n).
    All,
    /// The split values below the unit's `c`.
    Below(u32),
    /// The split value equal to `c` (the ties).
    At(u32),
    /// Both of the above: `c` or below.
    UpTo(u32),
}

impl Band {
    /// Whether a column split of split value `v` is in the band.
    #[inline]
    pub(super) fn keeps(self, v: u32) -> bool {
        match self {
            Band::All => true,
            Band::Below(c) => v < c,
            Band::At(c) => v == c,
            Band::UpTo(c) => v <= c,
        }
    }
}

/// The larger of `v` and its complement in `h` bits (the flip trades a set of lines with
/// the rest).
fn folded(v: u32, h: usize) -> u32 {
    let all = (1u32 << h) - 1;
    v.max(all ^ v)
}

/// The split value of a side's column split: `north` holds the side-local columns of its
/// north-half queens (bit `c` for column `c` of the west half, or `h + c` of the east). East
/// column `h + c` is `c` columns from the cut, west column `c` is `h − 1 − c`.
#[inline]
pub(super) fn split_value(h: usize, north: u32, west: bool) -> u32 {
    folded(if west { reversed(north, h) } else { north }, h)
}

/// The unit's `c`: the split value of its solutions' quarter turns, from the east row set
/// `east_rows` of an even board of `2h` rows alone.
pub(super) fn row_set_value(h: usize, east_rows: u32) -> u32 {
    let half = (1u32 << h) - 1;
    let west_rows = !east_rows;
    // The north rows holding a west queen, counted from the horizontal cut (row h − 1 is 0),
    // and the south ones (row h is 0).
    let north = reversed(west_rows & half, h);
    let south = (west_rows >> h) & half;
    folded(north, h).max(folded(south, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `T` of a solution: the larger split value of its two sides.
    fn value(x: &[usize]) -> u32 {
        let h = x.len() / 2;
        let (mut east, mut west) = (0, 0);
        for &c in &x[..h] {
            if c >= h {
                east |= 1 << (c - h);
            } else {
                west |= 1 << c;
            }
        }
        split_value(h, east, false).max(split_value(h, west, true))
    }

    #[test]
    fn the_row_set_value_is_the_value_of_the_quarter_turn_and_kept_by_the_others() {
        for n in [4, 6, 8, 10] {
            let h = n / 2;
            for x in crate::brute::all_solutions(n) {
                // The quarter turn (row i, column c) to (row c, column n − 1 − i).
                let mut turned = vec![0; n];
                for (i, &c) in x.iter().enumerate() {
                    turned[c] = n - 1 - i;
                }
                let east_rows = (0..n).filter(|&i| x[i] >= h).fold(0, |m, i| m | 1 << i);
                assert_eq!(value(&turned), row_set_value(h, east_rows), "{x:?}");
                let mirror: Vec<usize> = x.iter().map(|&c| n - 1 - c).collect();
                let flip: Vec<usize> = x.iter().rev().copied().collect();
                assert_eq!(value(&x), value(&mirror));
                assert_eq!(value(&x), value(&flip));
            }
        }
    }

    #[test]
    fn bands_split_the_values() {
        for v in 0..8 {
            let c = 4;
            let kept = [Band::Below(c), Band::At(c)].map(|b| b.keeps(v));
            assert_eq!(Band::UpTo(c).keeps(v), kept[0] || kept[1]);
            assert!(!(kept[0] && kept[1]));
            assert!(Band::All.keeps(v));
        }
    }
}
