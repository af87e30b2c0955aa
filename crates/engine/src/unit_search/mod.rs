//! A second opinion on the join's units: one unit of [`crate::join`] counted by another
//! engine, a backtracking search over the whole board restricted to the unit, so that what
//! the join finds for a unit can be checked against a count made without any of its machinery
//! (this module's tests, and the recorded run of `examples/second_opinion.rs`,
//! `results/second-opinion.md`).
//!
//! The join never places a whole solution: it makes half-boards out of quadrant placements,
//! pairs them by their diagonal patterns, deals the pairs out to slices, and with the quarter
//! turns keeps bands of half-boards by their column splits. This search places queens one by
//! one on the whole board and reads what a unit means off the solutions it finds:
//!
//! * a row of the unit's east row set holds its queen in the east half (the last ⌊n/2⌋
//!   columns), every other row in the west half (the first ⌊n/2⌋ columns);
//! * for odd n, the queen of the middle column stands in row `column_queen` and the queen of
//!   the middle row in column `row_queen` (one queen when both are the centre); they are
//!   placed first, and the squares they attack are closed to the others (so no other queen
//!   stands in the middle column or the middle row);
//! * a unit of `span` row sets stands for its first one and the `span − 1` subsets of the free
//!   rows of the same size that follow it in increasing value (a row set read as a number, bit
//!   `r` for row `r`), which the search steps through itself and counts one by one;
//! * with the quarter turns (even n only, as in the join), each solution counts 2, 1 or 0
//!   times as its value `T` is below, at or above the unit's value `c`, both as
//!   `join/quarter.rs` defines them: `T` from the columns of the solution's north-half
//!   queens, side by side; `c` as `T` of a solution of the unit turned a quarter (which the
//!   turn makes of the row set alone, so it is read off any placement of the row set turned,
//!   `row_set_value`). `T` is known as soon as the queens of one half of the rows stand:
//!   the other half's fill the columns left, and a solution's weight then multiplies every
//!   completion (and a weight of 0 ends the branch).
//!
//! It shares no code with the join: it reads a unit through the join's public types alone,
//! and counts the whole unit, whatever share of it the unit's `slice` names (the slices of a
//! unit add up to it). It is a bitmask backtrack in which each row is open to its side's
//! columns alone, filled most constrained first: the row with the fewest free columns, or a
//! column that only one or two rows can still take; a row with no free column or a column no
//! row can take ends a branch, and the last two rows are counted without a call. It is
//! some hundred times slower than the join: seconds for a unit of n = 22, a minute or a few
//! for one of n = 24, enough to check single units.

use crate::full_mask;
use crate::join::Unit;

/// What [`search_unit`] found for a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Searched {
    /// The unit's count: its solutions, each weighted by the quarter-turn rule where it
    /// applies (2, 1 or 0), else once. What the join counts for the whole unit, before the
    /// plan's orbit weight.
    pub count: u64,
    /// With the quarter turns, the solutions whose value is the unit's value (weight 1): the
    /// ties; 0 otherwise.
    pub ties: u64,
}

/// Counts the solutions of the whole of `unit` of an n×n board by a search over the board
/// restricted to it (see the module's doc), each weighted by the quarter-turn rule where
/// `quarter_turns` is set and n is even (odd boards never use it, as in the join), so that
/// the result is what the join counts for the unit (all its slices together).
///
/// Panics if the unit is not one of an n×n board: the middle queens given for an even board
/// or missing for an odd one, or an east row set that does not fit the rows and columns the
/// middle queens leave free.
pub fn search_unit(n: usize, unit: &Unit, quarter_turns: bool) -> Searched {
    let board = Board::new(n, unit);
    let turning = quarter_turns && n.is_multiple_of(2) && n > 0;
    let mut found = Searched::default();
    let mut east_rows = unit.east_rows;
    for i in 0..unit.span {
        if i > 0 {
            east_rows = next_subset(east_rows, board.rows).expect("a span within the row sets");
        }
        let search = board.row_set(east_rows, turning);
        let decided = search.turn.is_none();
        found.count += search.walk(board.rows, Placed::default(), decided, &mut found.ties);
    }
    found
}

/// An n×n board with the unit's middle queens placed (odd n), for the searches of its row
/// sets.
struct Board {
    n: usize,
    /// The rows left to the search: those of no middle queen.
    rows: u32,
    /// The columns the search must fill: those of no middle queen.
    need: u64,
    /// Each row's squares the middle queens leave open: the east ones, the west ones.
    east: [u64; 32],
    west: [u64; 32],
}

impl Board {
    fn new(n: usize, unit: &Unit) -> Board {
        assert!(n <= 32, "a board of at most 32 rows");
        let h = n / 2;
        let mut queens = Vec::new();
        match (!n.is_multiple_of(2), unit.middle) {
            (true, Some(m)) => {
                let (row, col) = (usize::from(m.column_queen), usize::from(m.row_queen));
                assert!(row < n && col < n, "middle queens off the board: {m:?}");
                queens.push((row, h));
                if (row, col) != (h, h) {
                    queens.push((h, col));
                }
            }
            (false, None) => {}
            _ => panic!("middle queens are given for odd boards alone: n = {n}, {unit:?}"),
        }
        let all = full_mask(n);
        // The west half is the first ⌊n/2⌋ columns, the east half the last; for odd n the
        // middle column is in neither.
        let west_cols = full_mask(h);
        let east_cols = all & !full_mask(n - h);
        let mut board = Board {
            n,
            rows: full_mask(n) as u32,
            need: all,
            east: [0; 32],
            west: [0; 32],
        };
        for &(qr, qc) in &queens {
            board.rows &= !(1 << qr);
            board.need &= !(1 << qc);
        }
        for r in 0..n {
            let mut open = all;
            for &(qr, qc) in &queens {
                let d = r.abs_diff(qr);
                open &= !((1u64 << qc) | ((1u64 << qc) << d) | ((1u64 << qc) >> d));
            }
            board.east[r] = open & east_cols;
            board.west[r] = open & west_cols;
        }
        let east_rows = unit.east_rows;
        assert_eq!(
            east_rows & !board.rows,
            0,
            "an east row of a middle queen: {unit:?}"
        );
        assert_eq!(
            east_rows.count_ones(),
            (board.need & east_cols).count_ones(),
            "as many east rows as free east columns: n = {n}, {unit:?}"
        );
        board
    }

    /// The search of the solutions of the east rows `east_rows`, with the quarter turns where
    /// `turning` says so.
    fn row_set(&self, east_rows: u32, turning: bool) -> Search {
        let mut open = [0; 32];
        for (r, o) in open.iter_mut().enumerate().take(self.n) {
            *o = if (east_rows >> r) & 1 == 1 {
                self.east[r]
            } else {
                self.west[r]
            };
        }
        let north = full_mask(self.n / 2) as u32;
        Search {
            n: self.n,
            open,
            need: self.need,
            turn: turning.then(|| (north, row_set_value(self.n, east_rows))),
        }
    }
}

/// The queens a search has placed: their columns, the columns of those in the north half,
/// and the diagonals they hold (bit `r + c` of `rising`, bit `c + n − 1 − r` of `falling`
/// for a queen on row `r`, column `c`).
#[derive(Clone, Copy, Default)]
struct Placed {
    cols: u64,
    north_cols: u64,
    rising: u64,
    falling: u64,
}

/// The search of one row set: each row's queen in its side's open columns.
struct Search {
    n: usize,
    open: [u64; 32],
    /// The columns the rows searched fill.
    need: u64,
    /// With the quarter turns, the rows of the north half and the row set's value `c`.
    turn: Option<(u32, u32)>,
}

impl Search {
    /// The columns of row `r` free of the queens `p` and open to it.
    #[inline]
    fn free(&self, r: usize, p: &Placed) -> u64 {
        self.open[r] & !(p.cols | (p.rising >> r) | (p.falling >> (self.n - 1 - r)))
    }

    /// The queens `p` with one more on row `r`, column bit `q`.
    #[inline]
    fn with(&self, p: &Placed, r: usize, q: u64) -> Placed {
        let north = self.turn.is_some_and(|(north, _)| (north >> r) & 1 == 1);
        Placed {
            cols: p.cols | q,
            north_cols: if north {
                p.north_cols | q
            } else {
                p.north_cols
            },
            rising: p.rising | (q << r),
            falling: p.falling | (q << (self.n - 1 - r)),
        }
    }

    /// The solutions that complete the queens `p` on the rows `rows`: weighted by the
    /// quarter-turn rule once the weight is known (`decided`), or as soon as it is (every
    /// queen of the north half, or of the south half, placed: the others then fill the
    /// columns left), the ties added to `ties` there.
    ///
    /// The row with the fewest free columns is filled first, or a column that one or two rows
    /// alone can take where no row has fewer choices; a row with no free column, or a column
    /// no row can take, ends the branch.
    fn walk(&self, rows: u32, p: Placed, decided: bool, ties: &mut u64) -> u64 {
        if !decided {
            let (north, c) = self.turn.expect("undecided with the quarter turns alone");
            let north_cols = if rows & north == 0 {
                Some(p.north_cols)
            } else if rows & !north == 0 {
                Some(self.need & !(p.cols & !p.north_cols))
            } else {
                None
            };
            if let Some(north_cols) = north_cols {
                let t = value_of_north(self.n, north_cols);
                if t > c {
                    return 0;
                }
                let found = self.walk(rows, p, true, ties);
                if t == c {
                    *ties += found;
                    return found;
                }
                return 2 * found;
            }
        }
        if rows == 0 {
            return 1;
        }
        let mut free = [0u64; 32];
        // The row of the fewest free columns, and the columns free to one row or more, to
        // two or more, to three or more.
        let (mut fewest, mut row) = (u32::MAX, 0);
        let (mut once, mut twice, mut thrice) = (0u64, 0u64, 0u64);
        let mut left = rows;
        while left != 0 {
            let r = left.trailing_zeros() as usize;
            left &= left - 1;
            let f = self.free(r, &p);
            if f == 0 {
                return 0;
            }
            free[r] = f;
            thrice |= twice & f;
            twice |= once & f;
            once |= f;
            if f.count_ones() < fewest {
                (fewest, row) = (f.count_ones(), r);
            }
        }
        let needed = self.need & !p.cols;
        if once & needed != needed {
            return 0;
        }
        match rows.count_ones() {
            1 => return u64::from(fewest),
            // The last two rows (the weight known): each free square of one against the
            // squares of the other it leaves free.
            2 if decided => {
                let other = (rows & !(1 << row)).trailing_zeros() as usize;
                let d = row.abs_diff(other);
                let mut f = free[row];
                let mut count = 0;
                while f != 0 {
                    let q = f & f.wrapping_neg();
                    f ^= q;
                    count += u64::from((free[other] & !(q | (q << d) | (q >> d))).count_ones());
                }
                return count;
            }
            _ => {}
        }
        let alone = needed & !twice;
        let paired = needed & twice & !thrice;
        let column = if fewest > 1 && alone != 0 {
            alone
        } else if fewest > 2 && paired != 0 {
            paired
        } else {
            0
        };
        let mut total = 0;
        if column != 0 {
            // A column few rows can take: each of them in turn.
            let q = column & column.wrapping_neg();
            let mut left = rows;
            while left != 0 {
                let r = left.trailing_zeros() as usize;
                left &= left - 1;
                if free[r] & q != 0 {
                    total += self.walk(rows & !(1 << r), self.with(&p, r, q), decided, ties);
                }
            }
        } else {
            let mut f = free[row];
            while f != 0 {
                let q = f & f.wrapping_neg();
                f ^= q;
                total += self.walk(rows & !(1 << row), self.with(&p, row, q), decided, ties);
            }
        }
        total
    }
}

/// The subset of `free` after `s` in increasing order of value among those of its size, if
/// any: the lowest member of `s` that can move up one place of `free` moves up, and the
/// members below it move down to the lowest places.
fn next_subset(s: u32, free: u32) -> Option<u32> {
    let places: Vec<u32> = (0..32).filter(|b| (free >> b) & 1 == 1).collect();
    let member = |k: usize| (s >> places[k]) & 1 == 1;
    let k = (0..places.len().saturating_sub(1)).find(|&k| member(k) && !member(k + 1))?;
    let below = (0..k).filter(|&j| member(j)).count();
    let mut next = s;
    for &p in &places[..=k] {
        next &= !(1 << p);
    }
    next |= 1 << places[k + 1];
    for &p in &places[..below] {
        next |= 1 << p;
    }
    Some(next)
}

/// The value `T` of a solution of an even n×n board whose north-half queens (rows
/// `0..n/2`) stand in the columns `north`: each side's split value, `Σ 2^j` over the columns
/// of its north queens counted from the cut (`j` for the `j`-th column away from it) or over
/// its other columns, whichever is larger; the larger of the two sides'.
fn value_of_north(n: usize, north: u64) -> u32 {
    let h = n / 2;
    let (mut east, mut west) = (0u32, 0u32);
    for col in (0..n).filter(|&col| (north >> col) & 1 == 1) {
        if col >= h {
            east |= 1 << (col - h);
        } else {
            west |= 1 << (h - 1 - col);
        }
    }
    let side = |v: u32| v.max(v ^ full_mask(h) as u32);
    side(east).max(side(west))
}

/// The value `T` of a placement of an even board, one queen per row and column (`columns[r]`
/// is row `r`'s column).
fn value(columns: &[usize]) -> u32 {
    let n = columns.len();
    let north = columns[..n / 2].iter().fold(0u64, |m, &c| m | 1 << c);
    value_of_north(n, north)
}

/// A placement turned a quarter: row `r`'s queen in column `c` goes to row `c`, column
/// `n − 1 − r`.
fn turned(columns: &[usize]) -> Vec<usize> {
    let n = columns.len();
    let mut out = vec![0; n];
    for (r, &c) in columns.iter().enumerate() {
        out[c] = n - 1 - r;
    }
    out
}

/// The value `c` of an east row set of an even n×n board: the value of its solutions turned
/// a quarter, read off one placement of the row set (its east rows on the east columns, the
/// others on the west ones, in order) turned: a turned placement's north queens stand in
/// columns `n − 1 − r` for the rows `r` of its west queens, whatever their columns.
fn row_set_value(n: usize, east_rows: u32) -> u32 {
    let h = n / 2;
    let (mut next_east, mut next_west) = (h, 0);
    let columns: Vec<usize> = (0..n)
        .map(|r| {
            let side = if (east_rows >> r) & 1 == 1 {
                &mut next_east
            } else {
                &mut next_west
            };
            *side += 1;
            *side - 1
        })
        .collect();
    value(&turned(&columns))
}

#[cfg(test)]
mod tests;
