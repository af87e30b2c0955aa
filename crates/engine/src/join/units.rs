//! The units of work of the join: which east row sets (and, for odd n, which middle queens)
//! are counted, with the symmetry weights that make one count stand for several, and the
//! subset enumeration they are listed and walked with.

use super::geometry::{Geometry, reversed};
use crate::Slice;
use crate::symmetry::Sym;

/// Queens placed before the join: none for even n; for odd n the queen of the middle column
/// (row `column_queen`) and the queen of the middle row (column `row_queen`), one queen when
/// both are the centre square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Middle {
    /// Row of the middle column's queen.
    pub column_queen: u8,
    /// Column of the middle row's queen.
    pub row_queen: u8,
}

impl Middle {
    /// The squares of the two queens (the same square twice for the centre).
    pub(super) fn squares(self, n: usize) -> [(usize, usize); 2] {
        let h = n / 2;
        [
            (usize::from(self.column_queen), h),
            (h, usize::from(self.row_queen)),
        ]
    }
}

/// The lines the middle queens leave free: board rows, and the west and east columns
/// (side-local masks, bit `c` for column `c` of the west half or `far + c` of the east).
pub(super) struct Free {
    pub(super) rows: u32,
    pub(super) west_cols: u32,
    pub(super) east_cols: u32,
}

/// The lines free of the queens of `middle` (all of them without).
pub(super) fn free_lines(geo: &Geometry, middle: Option<Middle>) -> Free {
    let side_cols = (1u32 << geo.h) - 1;
    let mut free = Free {
        rows: ((1u64 << geo.n) - 1) as u32,
        west_cols: side_cols,
        east_cols: side_cols,
    };
    for (r, c) in middle.map(|m| m.squares(geo.n)).into_iter().flatten() {
        free.rows &= !(1 << r);
        if c < geo.h {
            free.west_cols &= !(1 << c);
        } else if c >= geo.far {
            free.east_cols &= !(1 << (c - geo.far));
        }
    }
    free
}

/// One unit of the join: the rows of the east half, and the middle queens for odd n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Board rows whose queen stands in the east half (the first of `span` row sets).
    pub east_rows: u32,
    /// The middle queens (odd n only).
    pub middle: Option<Middle>,
    /// How many row sets the unit counts: `east_rows` and the next ones in increasing order of
    /// the subsets of the free rows. More than one only for middle-queen pairs whose row sets
    /// are not reduced by symmetry (odd n, two middle queens), to keep the plan to some
    /// thousands of units per family of pairs.
    pub span: u32,
    /// Which share of the unit is counted (all of it unless the plan cuts large units into
    /// slices). Every slice of a unit of one row set needs the unit's half-boards: a thread
    /// keeps them from one slice of a unit to the next, a small share of a large unit's time
    /// anyway.
    pub slice: Slice,
}

/// The row sets of a middle-queen pair that are not reduced are cut into about this many
/// units up to n = 23, and eight times more per two rows past it (a row set costs some fifty
/// times more per two rows, so units stay within minutes of one core up to n = 27).
fn units_per_middle(n: usize) -> usize {
    512 << (3 * (n.saturating_sub(23) / 2))
}

/// The units of an n×n board with their weights: each stands for that many equal counts.
pub fn units(n: usize) -> Vec<(Unit, u8)> {
    let mut out = Vec::new();
    for_each_unit(n, |unit, weight| out.push((unit, weight)));
    out
}

/// Calls `f` with each unit of an n×n board and its weight, in the order of [`units`],
/// without holding them all (ten million at n = 28).
pub fn for_each_unit(n: usize, mut f: impl FnMut(Unit, u8)) {
    let geo = Geometry::new(n);
    if n.is_multiple_of(2) {
        push_row_sets(&geo, free_lines(&geo, None).rows, None, true, &mut f);
        return;
    }
    let h = geo.h as u8;
    for (middle, weight) in middles(n) {
        let centre = middle.column_queen == h;
        let free = free_lines(&geo, Some(middle)).rows;
        push_row_sets(&geo, free, Some(middle), centre, &mut |u, w| {
            f(u, w * weight)
        });
    }
}

/// A class of units of similar cost ([`stratum`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stratum {
    /// Whether two middle queens are placed (odd n, off the centre).
    pub two_middles: bool,
    /// How many east rows lie in the north half: the split of the row set between the
    /// quadrants decides the sizes of its groups.
    pub north_rows: u8,
}

impl std::fmt::Display for Stratum {
    /// `north_rows`, with a `+2` for two middle queens: `5`, `5+2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let two = if self.two_middles { "+2" } else { "" };
        write!(f, "{}{two}", self.north_rows)
    }
}

/// The class of units of similar cost that `unit` is in, for sampling them and for cutting
/// them into slices.
pub fn stratum(n: usize, unit: &Unit) -> Stratum {
    let geo = Geometry::new(n);
    let two_middles = unit
        .middle
        .is_some_and(|m| usize::from(m.column_queen) != geo.h);
    let north = unit.east_rows & ((1u32 << geo.h) - 1);
    Stratum {
        two_middles,
        north_rows: north.count_ones() as u8,
    }
}

/// The canonical middle-queen pairs of an odd board with their orbit sizes.
fn middles(n: usize) -> Vec<(Middle, u8)> {
    let h = n / 2;
    let mut out = vec![(
        Middle {
            column_queen: h as u8,
            row_queen: h as u8,
        },
        1,
    )];
    for m in (0..n).filter(|&m| m != h) {
        for k in (0..n).filter(|&k| k != h && m.abs_diff(h) != k.abs_diff(h)) {
            let me = Middle {
                column_queen: m as u8,
                row_queen: k as u8,
            };
            let mut images: Vec<Middle> = Sym::ALL
                .iter()
                .map(|s| {
                    let [a, b] = me.squares(n).map(|q| s.apply(n, q));
                    // One image square is in the middle column, the other in the middle row.
                    let (col, row) = if a.1 == h { (a, b) } else { (b, a) };
                    Middle {
                        column_queen: col.0 as u8,
                        row_queen: row.1 as u8,
                    }
                })
                .collect();
            images.sort_unstable_by_key(|x| (x.column_queen, x.row_queen));
            images.dedup();
            if images[0] == me {
                out.push((me, images.len() as u8));
            }
        }
    }
    out
}

/// The east row sets of one middle-queen pair (or of the whole board for even n): subsets of
/// `free` as large as the east half has free columns; with `reduce`, one per orbit of
/// {complement, upside down} weighted by its size.
fn push_row_sets(
    geo: &Geometry,
    free: u32,
    middle: Option<Middle>,
    reduce: bool,
    out: &mut impl FnMut(Unit, u8),
) {
    let n = geo.n;
    let east_cols = geo.h - usize::from(middle.is_some_and(|m| usize::from(m.row_queen) > geo.h));
    let slots = free.count_ones() as usize;
    let flip = |s: u32| reversed(s, n);
    if !reduce {
        // Runs of `span` row sets in increasing order, each unit named by its first: found
        // by rank, not by walking every row set (tens of millions at n = 27, seconds).
        let pascal = pascal(slots, east_cols);
        let total = pascal[slots][east_cols];
        let span = total.div_ceil(units_per_middle(n) as u64).max(1);
        for first in (0..total).step_by(span as usize) {
            let unit = Unit {
                east_rows: deposit(nth_combination(east_cols, first, &pascal), free),
                middle,
                span: span.min(total - first) as u32,
                slice: Slice::WHOLE,
            };
            out(unit, 1);
        }
        return;
    }
    for i in Combinations::new(slots, east_cols) {
        let s = deposit(i, free);
        let c = free & !s;
        let mut orbit = [s, c, flip(s), flip(c)];
        orbit.sort_unstable();
        if orbit[0] < s {
            continue;
        }
        let weight = 1 + orbit.windows(2).filter(|w| w[0] != w[1]).count() as u8;
        let unit = Unit {
            east_rows: s,
            middle,
            span: 1,
            slice: Slice::WHOLE,
        };
        out(unit, weight);
    }
}

/// The `k`-subsets of `0..m` as bit masks, in increasing order (Gosper's hack).
pub(super) struct Combinations {
    next: Option<u64>,
    limit: u64,
}

impl Combinations {
    pub(super) fn new(m: usize, k: usize) -> Combinations {
        Combinations {
            next: (k <= m).then(|| (1u64 << k) - 1),
            limit: 1u64 << m,
        }
    }
}

impl Iterator for Combinations {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let x = self.next?;
        self.next = if x == 0 {
            None
        } else {
            let c = x & x.wrapping_neg();
            let r = x + c;
            let y = (((r ^ x) >> 2) / c) | r;
            (y < self.limit).then_some(y)
        };
        Some(x)
    }
}

/// The number of `k`-subsets of an `m`-set.
pub(super) fn binomial(m: u64, k: u64) -> u64 {
    (0..k).fold(1u64, |c, i| c * (m - i) / (i + 1))
}

/// The `rank`-th (from 0) of the `k`-subsets of `0..m` in [`Combinations`] order, increasing
/// as bit masks (`rank` below `binomial(m, k)`): its highest element is the largest `c` with
/// `binomial(c, k) <= rank`, and the rest is the `rank - binomial(c, k)`-th `(k - 1)`-subset
/// (the combinatorial number system). `pascal[c][j]` is `binomial(c, j)` for `c <= m`.
pub(super) fn nth_combination(k: usize, mut rank: u64, pascal: &[Vec<u64>]) -> u64 {
    let mut x = 0;
    for j in (1..=k).rev() {
        let mut c = j - 1;
        while pascal.get(c + 1).is_some_and(|row| row[j] <= rank) {
            c += 1;
        }
        x |= 1 << c;
        rank -= pascal[c][j];
    }
    x
}

/// `binomial(c, j)` for `c` up to `m` and `j` up to `k`, as rows of Pascal's triangle.
pub(super) fn pascal(m: usize, k: usize) -> Vec<Vec<u64>> {
    let mut rows: Vec<Vec<u64>> = Vec::with_capacity(m + 1);
    for c in 0..=m {
        let row = (0..=k)
            .map(|j| match j {
                0 => 1,
                _ if c == 0 => 0,
                _ => rows[c - 1][j - 1] + rows[c - 1][j],
            })
            .collect();
        rows.push(row);
    }
    rows
}

/// Spreads the low bits of `x` over the set bits of `mask` (a portable `pdep`).
pub(super) fn deposit(mut x: u64, mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    while m != 0 && x != 0 {
        let b = m & m.wrapping_neg();
        if x & 1 == 1 {
            out |= b;
        }
        x >>= 1;
        m &= m - 1;
    }
    out
}

/// Gathers the bits of `x` at the set bits of `mask` into the low bits (a portable `pext`).
fn extract(x: u32, mask: u32) -> u64 {
    let mut out = 0;
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let b = m & m.wrapping_neg();
        if x & b != 0 {
            out |= 1 << i;
        }
        i += 1;
        m &= m - 1;
    }
    out
}

/// The row set after `s` among the subsets of `free` of the same size, in increasing order.
pub(super) fn next_row_set(s: u32, free: u32) -> Option<u32> {
    let x = extract(s, free);
    let mut it = Combinations {
        next: Some(x),
        limit: 1u64 << free.count_ones(),
    };
    it.next();
    it.next().map(|y| deposit(y, free))
}

/// The one-row-set units a unit stands for.
#[cfg(test)]
pub(super) fn single_row_sets(n: usize, u: Unit) -> Vec<Unit> {
    let free = free_lines(&Geometry::new(n), u.middle).rows;
    let mut out = vec![Unit { span: 1, ..u }];
    while out.len() < u.span as usize {
        let s = next_row_set(out.last().unwrap().east_rows, free).unwrap();
        out.push(Unit {
            east_rows: s,
            ..out[0]
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_every_row_set_once() {
        for n in [9, 11, 13] {
            let mut seen = std::collections::HashSet::new();
            for (u, _) in units(n) {
                for one in single_row_sets(n, u) {
                    assert!(seen.insert(one), "{one:?} twice");
                }
            }
            let pairs = middles(n).len() - 1;
            let h = n / 2;
            // Each pair of two middle queens: all h- or (h-1)-subsets of the 2h-1 free rows;
            // the centre queen: one per orbit.
            let centre = seen
                .iter()
                .filter(|u| u.middle.unwrap().column_queen as usize == h);
            let two = seen.len() - centre.count();
            assert_eq!(
                two as u64,
                pairs as u64 * binomial(2 * h as u64 - 1, h as u64),
                "n = {n}"
            );
        }
    }

    #[test]
    fn a_combination_found_by_rank_is_the_one_walked_to() {
        for m in 0..=12 {
            for k in 0..=m {
                let pascal = pascal(m, k);
                assert_eq!(pascal[m][k], binomial(m as u64, k as u64));
                for (rank, x) in Combinations::new(m, k).enumerate() {
                    let found = nth_combination(k, rank as u64, &pascal);
                    assert_eq!(found, x, "m {m}, k {k}, {rank}");
                }
            }
        }
    }

    #[test]
    fn runs_of_row_sets_are_those_of_a_walk_over_all() {
        // n = 25 (4,096 units a pair of middle queens) and 27 (32,768): runs of many row sets.
        for n in [25, 27] {
            let geo = Geometry::new(n);
            for (middle, _) in middles(n).into_iter().take(3) {
                let free = free_lines(&geo, Some(middle)).rows;
                let east = geo.h - usize::from(usize::from(middle.row_queen) > geo.h);
                let sets: Vec<u32> = Combinations::new(free.count_ones() as usize, east)
                    .map(|i| deposit(i, free))
                    .collect();
                let span = sets.len().div_ceil(units_per_middle(n)).max(1);
                let walked: Vec<(u32, u32)> =
                    sets.chunks(span).map(|c| (c[0], c.len() as u32)).collect();
                let mut ranked = Vec::new();
                push_row_sets(&geo, free, Some(middle), false, &mut |u: Unit, w| {
                    assert_eq!(w, 1);
                    ranked.push((u.east_rows, u.span));
                });
                assert!(span > 1 && walked.len() > 1);
                assert_eq!(ranked, walked, "n = {n}, {middle:?}");
            }
        }
    }

    #[test]
    fn middle_pairs_cover_every_placement_once() {
        for n in [5, 7, 9, 11] {
            let h = n / 2;
            let mut weighted = 0usize;
            for (m, w) in middles(n) {
                weighted += usize::from(w);
                let [a, b] = m.squares(n);
                assert!(
                    a == b || (a.0 != b.0 && a.1 != b.1 && a.0.abs_diff(b.0) != a.1.abs_diff(b.1))
                );
            }
            // All non-attacking pairs (m, k) off the centre, plus the centre.
            let pairs = (0..n)
                .filter(|&m| m != h)
                .flat_map(|m| (0..n).map(move |k| (m, k)))
                .filter(|&(m, k)| k != h && m.abs_diff(h) != k.abs_diff(h))
                .count();
            assert_eq!(weighted, pairs + 1, "n = {n}");
        }
    }

    #[test]
    fn row_set_weights_add_up_to_every_row_set() {
        for n in [4, 6, 8, 10] {
            let total: usize = units(n).iter().map(|&(_, w)| usize::from(w)).sum();
            let h = n / 2;
            let all = (0u32..1 << n)
                .filter(|s| s.count_ones() as usize == h)
                .count();
            assert_eq!(total, all, "n = {n}");
        }
    }
}
