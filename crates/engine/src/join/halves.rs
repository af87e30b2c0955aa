//! Half-boards from the quadrant groups: a unit's west or east half-boards are the pairs of a
//! north and a south quadrant placement that fill the side's rows and columns and do not meet
//! on a diagonal. Their patterns are what the matching tables are built from and queried with.
//! For even n all four quadrants come from the north-west list: the south ones through the
//! flip, the east side as the mirror image of a west side.

use std::sync::atomic::{AtomicBool, Ordering};

use super::geometry::reversed;
use super::quadrant::{Quadrants, View};
use super::quarter::{Band, split_value};
use super::units::{Combinations, deposit};

/// The patterns of one side's half-boards: queens on exactly `rows` (board rows) and `cols`
/// (side-local columns), from the quadrants `[north, south]` of `view`, those of the column
/// splits in `band`; `None` (and `out` unfinished) if `stop` rose, which is looked at between
/// groups (a side of n = 28 takes seconds).
pub(super) fn halves(
    q: &Quadrants,
    view: &View<'_>,
    (sides, band): ([usize; 2], Band),
    (rows, cols): (u32, u32),
    out: &mut Vec<u64>,
    stop: &AtomicBool,
) -> Option<()> {
    out.clear();
    halves_onto(q, view, (sides, band), (rows, cols), out, stop)
}

/// [`halves`], appended to what `out` holds.
#[inline]
pub(super) fn halves_onto(
    q: &Quadrants,
    view: &View<'_>,
    (sides, band): ([usize; 2], Band),
    (rows, cols): (u32, u32),
    out: &mut Vec<u64>,
    stop: &AtomicBool,
) -> Option<()> {
    group_pairs(q, view, (sides, band), rows, cols, |ns, ss| {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        pair_up(ns, ss, out);
        Some(())
    })
}

/// The patterns [`halves`] makes, handed to `f` a buffer at a time (of about [`BUFFER`]
/// patterns, in the same order as [`halves`] lists them) instead of kept: a side of n = 28
/// holds up to 170 million of them, more than a thread's share of memory. `None` if `stop`
/// rose (looked at between groups).
pub(super) fn each_half(
    q: &Quadrants,
    view: &View<'_>,
    (sides, band): ([usize; 2], Band),
    (rows, cols): (u32, u32),
    buf: &mut Vec<u64>,
    stop: &AtomicBool,
    f: &mut dyn FnMut(&[u64]),
) -> Option<()> {
    buf.clear();
    group_pairs(q, view, (sides, band), rows, cols, |ns, ss| {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        for p in ns.chunks(1) {
            pair_up(p, ss, buf);
            if buf.len() >= buffer_patterns() {
                f(buf);
                buf.clear();
            }
        }
        Some(())
    })?;
    if !buf.is_empty() {
        f(buf);
    }
    buf.clear();
    Some(())
}

/// Patterns handed on at a time by [`each_half`].
const BUFFER: usize = 1 << 16;

#[cfg(test)]
thread_local! {
    /// Tests: the patterns [`each_half`] hands on at a time, in place of [`BUFFER`], so that
    /// the sides of small boards are read in many buffers as those of large ones are.
    pub(super) static BUFFER_PATTERNS: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// [`BUFFER`] (or, in tests, [`BUFFER_PATTERNS`]).
#[inline(always)]
fn buffer_patterns() -> usize {
    #[cfg(test)]
    if let Some(b) = BUFFER_PATTERNS.get() {
        return b;
    }
    BUFFER
}

/// The north and south pairs [`halves`] tests for the same side: the sum over the column
/// splits of the two groups' sizes multiplied.
pub(super) fn side_pairs(
    q: &Quadrants,
    view: &View<'_>,
    sides: ([usize; 2], Band),
    rows: u32,
    cols: u32,
) -> u64 {
    let mut pairs = 0;
    group_pairs(q, view, sides, rows, cols, |ns, ss| {
        pairs += (ns.len() * ss.len()) as u64;
        Some(())
    });
    pairs
}

/// Calls `f` with each way to split the side's columns `cols` between the north rows and the
/// south rows of `rows` whose split value is in `band` ([`super::quarter`]): the north group
/// and the south group that fill them (skipping empty north groups); never when the rows and
/// columns cannot match. Stops at the first `None` from `f`, and returns it. A loop with a
/// closure rather than an iterator: this is the half-boards' inner loop over groups, and
/// compiles to one loop in each caller.
#[inline(always)]
fn group_pairs<'v>(
    q: &'v Quadrants,
    view: &'v View<'_>,
    ([north, south], band): ([usize; 2], Band),
    rows: u32,
    cols: u32,
    mut f: impl FnMut(&'v [u64], &'v [u64]) -> Option<()>,
) -> Option<()> {
    let geo = &q.geo;
    let side = (1u32 << geo.h) - 1;
    let north_rows = rows & side;
    let south_rows = (rows >> geo.far) & side;
    let a = north_rows.count_ones() as usize;
    let m = cols.count_ones() as usize;
    if a + south_rows.count_ones() as usize != m {
        return Some(());
    }
    for i in Combinations::new(m, a) {
        let x = deposit(i, cols);
        // The split value only where a band asks for it (odd boards and the lists never do).
        if band != Band::All && !band.keeps(split_value(geo.h, x, north == 0)) {
            continue;
        }
        let ns = view.group(&q.index, north, north_rows, x);
        if !ns.is_empty() {
            f(ns, view.group(&q.index, south, south_rows, cols & !x))?;
        }
    }
    Some(())
}

/// Even n: the patterns of one side's half-boards (queens on exactly `rows`, board rows, and
/// `cols`, side-local columns), made from the north-west list alone. An east side is the mirror
/// image of the west side with the mirrored columns (same rows); a south quadrant placement is
/// the flip of a north-west one with the flipped rows. `south` is a buffer for the flipped
/// groups.
pub(super) fn halves_even(
    q: &Quadrants,
    east: bool,
    rows: u32,
    cols: u32,
    south: &mut Vec<u64>,
    out: &mut Vec<u64>,
) {
    out.clear();
    let w = q.geo.width;
    // The flip turns the board upside down: diagonal `r + c` becomes `r - c + n - 1` counted
    // from the other end, and the window onto itself, so a pattern is reversed as a whole.
    let flip = |p: u64| {
        if w == 0 {
            0
        } else {
            p.reverse_bits() >> (64 - 2 * w)
        }
    };
    for (ns, ss) in even_group_pairs(q, east, rows, cols) {
        south.clear();
        south.extend(ss.iter().map(|&p| flip(p)));
        pair_up(ns, south, out);
    }
    if east {
        // The mirror trades the two diagonal directions.
        let field = (1u64 << w) - 1;
        for p in out.iter_mut() {
            *p = *p >> w | (*p & field) << w;
        }
    }
}

/// Even n: the pairs [`halves_even`] tests for the same side (see [`side_pairs`]).
#[cfg(test)]
fn side_pairs_even(q: &Quadrants, east: bool, rows: u32, cols: u32) -> u64 {
    even_group_pairs(q, east, rows, cols)
        .map(|(ns, ss)| (ns.len() * ss.len()) as u64)
        .sum()
}

/// Even n: for each way to split the side's columns between its north and south rows, the
/// north-west groups that make the north and (before the flip) the south quadrant placements,
/// skipping empty north groups; nothing when the rows and columns cannot match.
#[inline]
fn even_group_pairs(
    q: &Quadrants,
    east: bool,
    rows: u32,
    cols: u32,
) -> impl Iterator<Item = (&[u64], &[u64])> {
    let geo = &q.geo;
    let h = geo.h;
    let side = (1u32 << h) - 1;
    let reverse = move |m: u32| reversed(m, h);
    let north_rows = rows & side;
    let south_rows = reverse((rows >> geo.far) & side);
    let a = north_rows.count_ones() as usize;
    let fits = a + south_rows.count_ones() as usize == cols.count_ones() as usize;
    let cols = if east { reverse(cols) } else { cols };
    let splits = fits.then(|| Combinations::new(cols.count_ones() as usize, a));
    splits.into_iter().flatten().filter_map(move |i| {
        let x = deposit(i, cols);
        let ns = q.north_west(north_rows, x);
        (!ns.is_empty()).then(|| (ns, q.north_west(south_rows, cols & !x)))
    })
}

/// Appends `p | q` for every pair of north and south patterns that share no diagonal. The
/// north and south queens of one side can only meet on diagonals inside the pattern window, so
/// one AND decides.
#[inline]
fn pair_up(north: &[u64], south: &[u64], out: &mut Vec<u64>) {
    for &p in north {
        let len = out.len();
        out.resize(len + south.len(), 0);
        let tail = &mut out[len..];
        let mut k = 0;
        // Written unconditionally, kept by advancing: no branch on the data.
        for &q in south {
            tail[k] = p | q;
            k += usize::from(p & q == 0);
        }
        out.truncate(len + k);
    }
}

#[cfg(test)]
mod tests {
    use super::super::geometry::Geometry;
    use super::super::units::{free_lines, single_row_sets, units};
    use super::*;

    /// East or west half-boards of `rows`, by a direct column-by-column search around the
    /// queens `fixed` (the middle queens).
    fn brute_halves(geo: &Geometry, west: bool, rows: u32, fixed: &[(usize, usize)]) -> Vec<u64> {
        let cols: Vec<usize> = if west {
            (0..geo.h).collect()
        } else {
            (geo.far..geo.n).collect()
        };
        let cols: Vec<usize> = cols
            .into_iter()
            .filter(|&c| fixed.iter().all(|f| f.1 != c))
            .collect();
        let mut out = Vec::new();
        fn go(
            geo: &Geometry,
            cols: &[usize],
            rows: u32,
            placed: &mut Vec<(usize, usize)>,
            fixed: &[(usize, usize)],
            out: &mut Vec<u64>,
        ) {
            let Some((&c, rest)) = cols.split_first() else {
                let (mut d1, mut d2) = (0, 0);
                for &(r, c) in placed.iter() {
                    let (a, b) = geo.diagonals(r, c);
                    d1 |= a;
                    d2 |= b;
                }
                out.push(geo.pattern(d1, d2));
                return;
            };
            for r in 0..geo.n {
                let free = rows >> r & 1 == 1
                    && placed
                        .iter()
                        .chain(fixed)
                        .all(|&(pr, pc)| pr != r && pr.abs_diff(r) != pc.abs_diff(c));
                if free {
                    placed.push((r, c));
                    go(geo, rest, rows, placed, fixed, out);
                    placed.pop();
                }
            }
        }
        go(geo, &cols, rows, &mut Vec::new(), fixed, &mut out);
        out
    }

    #[test]
    fn half_boards_match_a_direct_search() {
        for n in [4, 5, 6, 7, 8, 9, 10, 11] {
            let q = Quadrants::build(n);
            for unit in units(n)
                .into_iter()
                .flat_map(|(u, _)| single_row_sets(n, u))
            {
                let fixed: Vec<(usize, usize)> = unit
                    .middle
                    .map(|m| m.squares(n).to_vec())
                    .unwrap_or_default();
                let free = free_lines(&q.geo, unit.middle);
                let filtered = unit.middle.map(|m| q.filtered(m));
                for (west, rows, cols) in [
                    (false, unit.east_rows, free.east_cols),
                    (true, free.rows & !unit.east_rows, free.west_cols),
                ] {
                    let sides = if west { [0, 2] } else { [1, 3] };
                    let mut got = Vec::new();
                    match &filtered {
                        Some(lists) => {
                            let never = AtomicBool::new(false);
                            let view = View::of(lists);
                            halves(
                                &q,
                                &view,
                                (sides, Band::All),
                                (rows, cols),
                                &mut got,
                                &never,
                            )
                            .unwrap();
                        }
                        None => halves_even(&q, !west, rows, cols, &mut Vec::new(), &mut got),
                    }
                    let mut want = brute_halves(&q.geo, west, rows, &fixed);
                    got.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(got, want, "n = {n}, {unit:?}, west = {west}");
                    // The pairs counted are the ones tested, a superset.
                    let pairs = match &filtered {
                        Some(lists) => {
                            side_pairs(&q, &View::of(lists), (sides, Band::All), rows, cols)
                        }
                        None => side_pairs_even(&q, !west, rows, cols),
                    };
                    assert!(pairs >= got.len() as u64, "n = {n}, {unit:?}");
                }
            }
        }
    }
}
