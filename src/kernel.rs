//! The hot loop: an iterative bit-parallel backtrack that counts the completions of one
//! subproblem.
//!
//! Every algorithm in the crate reduces its work to the same shape: a [`Frame`] lists the rows
//! that are still empty, top to bottom, each with the columns that fixed queens (border queens,
//! for the full-symmetry plan) already attack in it, and a [`Start`] says what the rows placed by
//! the plan left behind. The kernel fills the remaining rows one queen at a time with the
//! classic bitmask method (Richards 1997; Somers 2002): free squares are
//! `mask & !(cols | diag | anti | fixed)`, the lowest free bit is taken with
//! `free & free.wrapping_neg()`, and going one row down shifts the two diagonal masks by one bit
//! (by `k` bits when the next empty row is `k` rows further, so rows that already hold a queen
//! cost nothing).
//!
//! Two cheap prunes are built in: the last empty row is never entered (its completions are the
//! popcount of its free squares, 0 or 1), and a child whose row has no free square is never
//! pushed. There is no I/O, no allocation and no threading here.

use crate::board::MAX_N;

/// The empty rows of a subproblem family, as the kernel sees them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// One bit per column of the board.
    pub mask: u64,
    /// How many empty rows the search fills (levels `0..depth`).
    pub depth: usize,
    /// Columns of each level attacked by queens that were fixed before the search (any
    /// direction, any distance). Zero for the plain search.
    pub fixed: [u64; MAX_N],
    /// Board rows between level `l` and level `l + 1` (1 when they are adjacent); the diagonal
    /// masks are shifted by this much when the search goes down.
    pub step: [u32; MAX_N],
}

impl Frame {
    /// A frame of `depth` adjacent rows with nothing fixed, on an `n`-wide board.
    pub fn open(n: usize, depth: usize) -> Frame {
        Frame {
            mask: crate::board::full_mask(n),
            depth,
            fixed: [0; MAX_N],
            step: [1; MAX_N],
        }
    }

    /// The state after placing a queen on column bit `b` at level `level` of state `s`.
    #[inline]
    pub fn descend(&self, s: &Start, b: u64) -> Start {
        let k = self.step[s.level];
        Start {
            level: s.level + 1,
            cols: s.cols | b,
            diag: (s.diag | b) << k,
            anti: (s.anti | b) >> k,
        }
    }

    /// The free squares of the level that `s` is about to fill.
    #[inline]
    pub fn free(&self, s: &Start) -> u64 {
        self.mask & !(s.cols | s.diag | s.anti | self.fixed[s.level])
    }
}

/// The search state at the top of a level: what the rows above have attacked there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Start {
    /// The next level to fill.
    pub level: usize,
    /// Columns already taken.
    pub cols: u64,
    /// Squares of this level attacked along the down-right diagonals (shifted left each row).
    pub diag: u64,
    /// Squares of this level attacked along the down-left diagonals (shifted right each row).
    pub anti: u64,
}

/// What one kernel call found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Number of ways to fill every remaining level.
    pub count: u64,
    /// Queens placed on the way (every level but the last, which is counted in bulk).
    pub nodes: u64,
}

/// Counts the ways to complete `start` within `frame`.
///
/// The loop keeps one free-square mask per level on a fixed stack; the column and diagonal
/// masks of the level are stored beside it so that going back up costs nothing.
pub fn complete(frame: &Frame, start: &Start) -> Tally {
    let depth = frame.depth;
    if start.level >= depth {
        return Tally { count: 1, nodes: 0 };
    }
    let mask = frame.mask;
    let first_free = frame.free(start);
    let last = depth - 1;
    if start.level == last {
        return Tally {
            count: u64::from(first_free.count_ones()),
            nodes: 0,
        };
    }

    let mut cols = [0u64; MAX_N];
    let mut diag = [0u64; MAX_N];
    let mut anti = [0u64; MAX_N];
    let mut free = [0u64; MAX_N];
    let base = start.level;
    let mut lv = base;
    cols[lv] = start.cols;
    diag[lv] = start.diag;
    anti[lv] = start.anti;
    free[lv] = first_free;
    let mut count = 0u64;
    let mut nodes = 0u64;

    loop {
        let f = free[lv];
        if f == 0 {
            if lv == base {
                break;
            }
            lv -= 1;
            continue;
        }
        let b = f & f.wrapping_neg();
        free[lv] = f ^ b;
        nodes += 1;
        let k = frame.step[lv];
        let c = cols[lv] | b;
        let d = (diag[lv] | b) << k;
        let a = (anti[lv] | b) >> k;
        let next = lv + 1;
        let nf = mask & !(c | d | a | frame.fixed[next]);
        if next == last {
            count += u64::from(nf.count_ones());
        } else if nf != 0 {
            lv = next;
            cols[lv] = c;
            diag[lv] = d;
            anti[lv] = a;
            free[lv] = nf;
        }
    }
    Tally { count, nodes }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain recursive count, no tricks, for cross-checking.
    fn naive(n: usize, row: usize, cols: u64, d: u64, a: u64) -> u64 {
        if row == n {
            return 1;
        }
        let full = crate::board::full_mask(n);
        let mut free = full & !(cols | d | a);
        let mut total = 0;
        while free != 0 {
            let b = free & free.wrapping_neg();
            free ^= b;
            total += naive(n, row + 1, cols | b, (d | b) << 1, (a | b) >> 1);
        }
        total
    }

    #[test]
    fn open_frame_counts_whole_boards() {
        let known = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680];
        for (i, &q) in known.iter().enumerate() {
            let n = i + 1;
            let t = complete(&Frame::open(n, n), &Start::default());
            assert_eq!(t.count, q, "n = {n}");
            assert_eq!(t.count, naive(n, 0, 0, 0, 0));
        }
    }

    #[test]
    fn counts_from_a_prefix_match_the_recursive_count() {
        let n = 9;
        let frame = Frame::open(n, n);
        let root = Start::default();
        let mut sum = 0;
        for c in 0..n {
            let s = frame.descend(&root, 1 << c);
            let t = complete(&frame, &s);
            assert_eq!(t.count, naive(n, 1, s.cols, s.diag, s.anti));
            sum += t.count;
        }
        assert_eq!(sum, 352);
    }

    #[test]
    fn fixed_squares_and_steps_are_honoured() {
        // A 5x5 board whose middle row (row 2) already holds a queen in column 2: the search
        // fills rows 0, 1, 3, 4, and must jump two rows between levels 1 and 2.
        let n = 5;
        let mut frame = Frame::open(n, 4);
        let rows = [0usize, 1, 3, 4];
        for (l, &r) in rows.iter().enumerate() {
            let dist = r.abs_diff(2);
            let mut attacked = 0u64;
            if 2 + dist < n {
                attacked |= 1 << (2 + dist);
            }
            if dist <= 2 {
                attacked |= 1 << (2 - dist);
            }
            frame.fixed[l] = attacked;
            if l + 1 < rows.len() {
                frame.step[l] = (rows[l + 1] - r) as u32;
            }
        }
        let start = Start {
            cols: 1 << 2,
            ..Start::default()
        };
        // Solutions of 5-queens with a queen at (2, 2): 2 of them (the two with the centre).
        assert_eq!(complete(&frame, &start).count, 2);
    }

    #[test]
    fn a_finished_start_counts_one() {
        let frame = Frame::open(4, 4);
        let s = Start {
            level: 4,
            ..Start::default()
        };
        assert_eq!(complete(&frame, &s), Tally { count: 1, nodes: 0 });
    }
}
