//! Counting rook placements: the permanent of the 0/1 matrix of allowed squares, by the
//! cheapest of four exact methods.
//!
//! * **Column profile** (a dynamic programme over rows): after each row, what matters of the
//!   rows above is which of the *live* columns they used, the columns that both a row above
//!   and a row below may use. A column that no later row can use must already be used (else
//!   the state is dropped), and a column no row above could use is still free. The state count
//!   is at most 2^(live columns): tiny for banded boards at any n up to 64, and the rows are
//!   sorted by their first allowed column first (a permanent does not depend on row order).
//! * **Ryser's formula** (Ryser 1963) in Gray-code order: perm(A) = Σ over column sets S of
//!   (-1)^(m-|S|) Π_i |A_i ∩ S|, one column in or out per step, so each step costs one add
//!   per word of row sums (packed a byte each) and one product: O(2^m · m), whatever the
//!   density. The sum is cut into parts of column sets that the threads of the run's pool
//!   share, so that a dense board, one subproblem, still uses every thread.
//! * **Backtracking** (`queens::search` without diagonals) where the board is so sparse
//!   that the placements themselves are few.
//! * **The blocked squares' rook numbers** where the board is nearly full: by inclusion and
//!   exclusion over the blocked squares (the rook polynomial; Kaplansky and Riordan 1946,
//!   Riordan, *An Introduction to Combinatorial Analysis*, 1958, ch. 7),
//!   perm(A) = Σ_k (-1)^k r_k (m - k)!, where r_k counts the ways to put k rooks on blocked
//!   squares, no two in a row or column. The r_k come from walking those placements, which
//!   are few when the blocked squares are: the full board has only the empty one, and counts
//!   m! at once.
//!
//! The choice compares a cost model of each (state counts, 2^m · m, the product of the row
//! sizes, the product of one more than each row's blocked squares). The profile and Ryser's sum compute in `u128` modulo 2^128; a plan checks first
//! that the board's count fits (the library's `constraint::Board::check_count_fits`), so the result is exact
//! even where a product of Ryser's sum, or a dead-end state's tally, would not fit. (That is
//! why the counter is internal: the plan is the way in.)

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

use super::queens::{Completed, search};
use crate::full_mask;
use crate::kernel::Start;

/// How a rook count is made (a list that may grow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Route {
    /// The dynamic programme over live columns.
    Profile,
    /// Ryser's formula in Gray-code order.
    Ryser,
    /// Row-by-row backtracking.
    Backtrack,
    /// Inclusion and exclusion over the rook numbers of the blocked squares.
    Complement,
}

/// The widest profile the programme takes on (2^24 states at most, a few hundred MB).
const MAX_PROFILE_WIDTH: u32 = 24;
/// The most rows Ryser's sum takes on (2^40 steps is hours).
const MAX_RYSER_ROWS: usize = 40;
/// Steps between two looks at the stop flag.
const POLL: u64 = 1 << 16;

/// The rows left below `start` with the columns it took removed, renumbered onto the free
/// columns (bit k = the k-th free column), sorted by first and last allowed column.
fn remaining(allowed: &[u64], start: &Start) -> Vec<u64> {
    let free_cols: Vec<u32> = (0..64)
        .filter(|&c| start.cols >> c & 1 == 0)
        .take(allowed.len() - start.level.min(allowed.len()))
        .collect();
    let mut rows: Vec<u64> = allowed[start.level.min(allowed.len())..]
        .iter()
        .map(|&m| {
            free_cols
                .iter()
                .enumerate()
                .filter(|&(_, &c)| m >> c & 1 == 1)
                .fold(0u64, |acc, (k, _)| acc | 1 << k)
        })
        .collect();
    rows.sort_by_key(|&m| (m.trailing_zeros(), 64 - m.leading_zeros()));
    rows
}

/// The live columns after each row: used by a row at or above it and usable below it.
fn profile_widths(rows: &[u64]) -> Vec<u32> {
    let mut below = vec![0u64; rows.len() + 1];
    for r in (0..rows.len()).rev() {
        below[r] = below[r + 1] | rows[r];
    }
    let mut above = 0u64;
    rows.iter()
        .enumerate()
        .map(|(r, &m)| {
            above |= m;
            (above & below[r + 1]).count_ones()
        })
        .collect()
}

/// The route the cost model picks for `rows` (as [`remaining`] makes them).
fn pick(rows: &[u64]) -> Route {
    let m = rows.len();
    let widths = profile_widths(rows);
    let widest = widths.iter().copied().max().unwrap_or(0);
    // A hash-map step costs about twenty of Ryser's multiply-adds.
    let profile = if widest <= MAX_PROFILE_WIDTH {
        let mut cost = 0.0;
        let mut states = 1.0f64;
        for (r, &w) in widths.iter().enumerate() {
            cost += states * f64::from(rows[r].count_ones());
            states = 2f64.powi(w as i32);
        }
        20.0 * cost
    } else {
        f64::INFINITY
    };
    let ryser = if m <= MAX_RYSER_ROWS {
        2f64.powi(m as i32) * m as f64
    } else {
        f64::INFINITY
    };
    let backtrack: f64 = rows
        .iter()
        .map(|r| f64::from(r.count_ones().max(1)))
        .product::<f64>()
        * 4.0;
    // The walk visits at most the product of (1 + a row's blocked squares) placements.
    let full = full_mask(m);
    let complement: f64 = rows
        .iter()
        .map(|r| f64::from(1 + (!r & full).count_ones()))
        .product::<f64>()
        * 4.0;
    [
        (backtrack, Route::Backtrack),
        (complement, Route::Complement),
        (profile, Route::Profile),
        (ryser, Route::Ryser),
    ]
    .into_iter()
    .fold((f64::INFINITY, Route::Ryser), |best, c| {
        if c.0 < best.0 { c } else { best }
    })
    .1
}

/// The route `count_rooks` takes for the rows below `start`.
pub fn route(allowed: &[u64], start: &Start) -> Route {
    pick(&remaining(allowed, start))
}

/// Counts the rook placements completing `start` on rows that allow `allowed`, by the route
/// the cost model picks (`None`: `stop` rose first).
pub fn count_rooks(allowed: &[u64], start: &Start, stop: &AtomicBool) -> Option<Completed> {
    count_by(None, allowed, start, stop)
}

/// [`count_rooks`] by a given route (`None`: the model's choice), for tests and benchmarks.
pub fn count_by(
    route: Option<Route>,
    allowed: &[u64],
    start: &Start,
    stop: &AtomicBool,
) -> Option<Completed> {
    let rows = remaining(allowed, start);
    if rows.contains(&0) {
        return Some(Completed::default());
    }
    match route.unwrap_or_else(|| pick(&rows)) {
        Route::Backtrack => search::<false>(allowed, start, stop),
        Route::Profile => profile(&rows, stop),
        Route::Ryser => ryser(&rows, stop),
        Route::Complement => complement(&rows, stop),
    }
}

/// The permanent from the rook numbers of the blocked squares (module documentation),
/// modulo 2^128 like the other routes. Its nodes are the placements on blocked squares it
/// walked.
fn complement(rows: &[u64], stop: &AtomicBool) -> Option<Completed> {
    let m = rows.len();
    let full = full_mask(m);
    let blocked: Vec<u64> = rows.iter().map(|&r| !r & full).collect();
    let mut rook_numbers = vec![0u128; m + 1];
    let mut nodes = 0u64;
    // Each placement is reached once, its rooks taken in the order of their rows.
    let mut stack = vec![(0usize, 0u64, 0usize)];
    while let Some((from, used, k)) = stack.pop() {
        nodes += 1;
        if nodes.is_multiple_of(POLL) && stop.load(Ordering::Relaxed) {
            return None;
        }
        rook_numbers[k] += 1;
        for (row, &b) in blocked.iter().enumerate().skip(from) {
            let mut free = b & !used;
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                stack.push((row + 1, used | bit, k + 1));
            }
        }
    }
    // (m - k)! for k = m down to 0, modulo 2^128.
    let mut factorial = 1u128;
    let mut count = 0u128;
    for k in (0..=m).rev() {
        if k < m {
            factorial = factorial.wrapping_mul((m - k) as u128);
        }
        let term = rook_numbers[k].wrapping_mul(factorial);
        count = if k % 2 == 0 {
            count.wrapping_add(term)
        } else {
            count.wrapping_sub(term)
        };
    }
    Some(Completed { count, nodes })
}

/// A multiplicative hash for the profile's `u64` states.
#[derive(Default)]
struct StateHash(u64);

impl Hasher for StateHash {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

type States = HashMap<u64, u128, BuildHasherDefault<StateHash>>;

/// The dynamic programme over live columns (module documentation).
fn profile(rows: &[u64], stop: &AtomicBool) -> Option<Completed> {
    let m = rows.len();
    let mut below = vec![0u64; m + 1];
    for r in (0..m).rev() {
        below[r] = below[r + 1] | rows[r];
    }
    let mut states = States::default();
    states.insert(0, 1);
    let (mut above, mut closed) = (0u64, 0u64);
    let mut nodes = 0u64;
    for (r, &row) in rows.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        above |= row;
        let now_closed = above & !below[r + 1];
        let closing = now_closed & !closed;
        closed = now_closed;
        let keep = below[r + 1];
        let mut next = States::default();
        for (&used, &ways) in &states {
            let mut free = row & !used;
            while free != 0 {
                let b = free & free.wrapping_neg();
                free ^= b;
                nodes += 1;
                let u = used | b;
                if u & closing == closing {
                    let e = next.entry(u & keep).or_insert(0);
                    *e = e.wrapping_add(ways);
                }
            }
        }
        states = next;
        if states.is_empty() {
            break;
        }
    }
    let count = states.values().fold(0u128, |a, &w| a.wrapping_add(w));
    Some(Completed { count, nodes })
}

/// Ryser's formula over the Gray code of the column sets (module documentation).
///
/// The column sets are cut into 2^k parts by their last k columns, each part a Gray code of
/// the others from its own start. Inside a worker pool (a run's), the parts are shared out
/// among the pool's threads, so that a dense board counted as one subproblem still uses every
/// thread; elsewhere they are counted one after the other (rayon's global pool is never used).
/// The parts' signed partial sums are added modulo 2^128 here, so the count returned is the
/// exact count.
fn ryser(rows: &[u64], stop: &AtomicBool) -> Option<Completed> {
    let m = rows.len();
    if m == 0 {
        return Some(Completed { count: 1, nodes: 0 });
    }
    let k = m.saturating_sub(RYSER_PART_BITS).min(RYSER_SPLIT_BITS);
    let part = |h: u64| ryser_part(rows, k, h, stop);
    let parts: Option<Vec<u128>> = if rayon::current_thread_index().is_some() {
        use rayon::prelude::*;
        (0..1u64 << k).into_par_iter().map(part).collect()
    } else {
        (0..1u64 << k).map(part).collect()
    };
    let count = parts?.into_iter().fold(0u128, u128::wrapping_add);
    Some(Completed {
        count,
        nodes: (1u64 << m) - 1,
    })
}

/// Parts of Ryser's sum: up to 2^6, where each holds at least 2^18 column sets.
const RYSER_SPLIT_BITS: usize = 6;

/// The most parts one rook subproblem's sum is cut into, which the threads of a run's pool
/// share: a pool for such a subproblem needs no more threads than this.
pub const MOST_PARTS: usize = 1 << RYSER_SPLIT_BITS;
/// The fewest columns a part's own Gray code runs over.
const RYSER_PART_BITS: usize = 18;

/// The part of Ryser's sum over the column sets whose last `k` columns are the bits of `h`,
/// modulo 2^128 (`None`: `stop` rose).
fn ryser_part(rows: &[u64], k: usize, h: u64, stop: &AtomicBool) -> Option<u128> {
    let m = rows.len();
    let low = m - k;
    // The row sums |A_i ∩ S| packed one byte each, eight rows to a word (they never pass 40);
    // the bytes past the last row hold 1, so that they are never zero and multiply by 1.
    // A column in or out of S adds or takes its column of 0/1 bytes from every word at once.
    let words = m.div_ceil(BYTES);
    let column: Vec<[u64; MAX_WORDS]> = (0..m)
        .map(|c| {
            let mut v = [0u64; MAX_WORDS];
            for (i, &r) in rows.iter().enumerate() {
                v[i / BYTES] |= (r >> c & 1) << (8 * (i % BYTES));
            }
            v
        })
        .collect();
    let mut sums = [0u64; MAX_WORDS];
    for i in m..words * BYTES {
        sums[i / BYTES] |= 1 << (8 * (i % BYTES));
    }
    let mut set = h << low;
    let mut size = set.count_ones() as usize;
    for (c, col) in column.iter().enumerate().skip(low) {
        if set >> c & 1 == 1 {
            for w in 0..words {
                sums[w] += col[w];
            }
        }
    }
    let mut total = 0u128;
    let mut g = 0u64;
    loop {
        if !sums[..words].iter().any(|&x| has_zero_byte(x)) {
            let term = sums[..words]
                .iter()
                .fold(1u128, |p, &x| p.wrapping_mul(u128::from(byte_product(x))));
            total = if (m - size).is_multiple_of(2) {
                total.wrapping_add(term)
            } else {
                total.wrapping_sub(term)
            };
        }
        g += 1;
        if g == 1 << low {
            return Some(total);
        }
        if g.is_multiple_of(POLL) && stop.load(Ordering::Relaxed) {
            return None;
        }
        let c = g.trailing_zeros() as usize;
        let bit = 1u64 << c;
        let add = set & bit == 0;
        set ^= bit;
        let col = &column[c];
        for w in 0..words {
            // No carry or borrow crosses a byte: each stays within 0..=m.
            sums[w] = if add {
                sums[w] + col[w]
            } else {
                sums[w] - col[w]
            };
        }
        size = if add { size + 1 } else { size - 1 };
    }
}

/// Row sums packed in a word.
const BYTES: usize = 8;
/// Words of packed row sums (40 rows at most).
const MAX_WORDS: usize = MAX_RYSER_ROWS.div_ceil(BYTES);

/// Whether a byte of `x` is zero (every byte of a packed sum is below 128).
#[inline]
fn has_zero_byte(x: u64) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    x.wrapping_sub(LOW) & !x & HIGH != 0
}

/// The product of the eight bytes of `x` (each at most 40: below 2^43).
#[inline]
fn byte_product(x: u64) -> u64 {
    (0..BYTES).map(|k| x >> (8 * k) & 0xff).product()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::XorShift;

    static NEVER: AtomicBool = AtomicBool::new(false);

    /// An `n`×`n` board, row by row, each square allowed where `allow` says so.
    fn random_rows(
        rng: &mut XorShift,
        n: usize,
        allow: impl Fn(&mut XorShift) -> bool,
    ) -> Vec<u64> {
        let mut rows = vec![0u64; n];
        for row in &mut rows {
            for c in 0..n {
                if allow(rng) {
                    *row |= 1 << c;
                }
            }
        }
        rows
    }

    fn all(route: Route, rows: &[u64]) -> u128 {
        count_by(Some(route), rows, &Start::default(), &NEVER)
            .unwrap()
            .count
    }

    #[test]
    fn the_four_routes_agree_on_random_boards() {
        let mut rng = XorShift::new(17);
        for _ in 0..300 {
            let n = 1 + rng.below(10);
            let density = 1 + rng.below(4);
            let rows = random_rows(&mut rng, n, |r| r.below(4) < density);
            let b = all(Route::Backtrack, &rows);
            assert_eq!(all(Route::Profile, &rows), b, "{rows:?}");
            assert_eq!(all(Route::Ryser, &rows), b, "{rows:?}");
            assert_eq!(all(Route::Complement, &rows), b, "{rows:?}");
        }
    }

    #[test]
    fn ryser_and_the_profile_agree_on_dense_boards_too_large_to_search() {
        let mut rng = XorShift::new(16);
        for n in [14usize, 16] {
            let rows = random_rows(&mut rng, n, |r| r.below(5) != 0);
            let r = all(Route::Ryser, &rows);
            assert!(r > 1_000_000, "n = {n}: {r}");
            assert_eq!(all(Route::Profile, &rows), r, "n = {n}");
        }
    }

    #[test]
    fn the_parts_of_ryser_add_up_to_the_whole_sum() {
        let mut rng = XorShift::new(12);
        for m in [3usize, 8, 12] {
            let rows = random_rows(&mut rng, m, |r| r.below(3) != 0);
            let whole = ryser_part(&rows, 0, 0, &NEVER).unwrap();
            for k in 1..=3.min(m) {
                let parts = (0..1u64 << k)
                    .map(|h| ryser_part(&rows, k, h, &NEVER).unwrap())
                    .fold(0u128, u128::wrapping_add);
                assert_eq!(parts, whole, "m = {m}, k = {k}");
            }
            assert_eq!(whole, all(Route::Backtrack, &rows), "m = {m}");
        }
    }

    #[test]
    fn full_boards_count_factorials() {
        let mut f = 1u128;
        for n in 1..=12usize {
            f *= n as u128;
            let rows = vec![(1u64 << n) - 1; n];
            assert_eq!(all(Route::Ryser, &rows), f, "n = {n}");
            assert_eq!(all(Route::Profile, &rows), f, "n = {n}");
            assert_eq!(all(Route::Complement, &rows), f, "n = {n}");
        }
    }

    #[test]
    fn nearly_full_boards_go_to_the_rook_numbers_of_their_blocked_squares() {
        // The full board walks one placement, the empty one.
        let full = vec![u64::MAX >> 30; 34];
        assert_eq!(route(&full, &Start::default()), Route::Complement);
        let done = count_rooks(&full, &Start::default(), &NEVER).unwrap();
        assert_eq!(done.count, (1..=34u128).product::<u128>());
        assert_eq!(done.nodes, 1);
        // Derangements: the diagonal blocked, D(n) = n D(n-1) + (-1)^n.
        let mut d = 1i128;
        for n in 1..=14usize {
            d = n as i128 * d + if n % 2 == 0 { 1 } else { -1 };
            let rows: Vec<u64> = (0..n).map(|r| full_mask(n) & !(1 << r)).collect();
            if n >= 8 {
                assert_eq!(
                    route(&rows, &Start::default()),
                    Route::Complement,
                    "n = {n}"
                );
            }
            assert_eq!(all(Route::Complement, &rows) as i128, d, "n = {n}");
            assert_eq!(all(Route::Ryser, &rows) as i128, d, "n = {n}");
        }
        // Counts that wrap past 2^128 on the way come out exact: 33! - (two squares of
        // one row blocked) = 33! - 2 * 32!.
        let mut rows = vec![full_mask(33); 33];
        rows[5] &= !0b110;
        let f32: u128 = (1..=32u128).product();
        assert_eq!(all(Route::Complement, &rows), 33 * f32 - 2 * f32);
    }

    #[test]
    fn a_banded_board_counts_fibonacci_numbers_by_the_profile() {
        // |row - column| <= 1: F(n + 1) placements.
        for (n, want) in [
            (1usize, 1u128),
            (2, 2),
            (3, 3),
            (10, 89),
            (64, 17_167_680_177_565),
        ] {
            let rows: Vec<u64> = (0..n)
                .map(|r| (r.saturating_sub(1)..=(r + 1).min(n - 1)).fold(0, |a, c| a | 1 << c))
                .collect();
            if n >= 10 {
                assert_eq!(route(&rows, &Start::default()), Route::Profile, "n = {n}");
            }
            assert_eq!(
                count_rooks(&rows, &Start::default(), &NEVER).unwrap().count,
                want
            );
        }
    }

    #[test]
    fn dense_boards_go_to_ryser_and_sparse_ones_are_searched() {
        // Each square allowed with probability 4/5: too many blocked squares to walk.
        let mut rng = XorShift::new(20);
        let dense = random_rows(&mut rng, 20, |r| r.below(5) != 0);
        assert_eq!(route(&dense, &Start::default()), Route::Ryser);
        let diagonal: Vec<u64> = (0..30).map(|r| 1u64 << r).collect();
        assert_eq!(route(&diagonal, &Start::default()), Route::Backtrack);
    }

    #[test]
    fn a_raised_stop_flag_ends_ryser() {
        let stop = AtomicBool::new(true);
        let full = vec![(1u64 << 22) - 1; 22];
        assert!(count_by(Some(Route::Ryser), &full, &Start::default(), &stop).is_none());
        // The rook numbers' walk looks at the flag too, every 2^16 placements.
        let diagonal: Vec<u64> = (0..22).map(|r| full_mask(22) & !(1 << r)).collect();
        assert!(count_by(Some(Route::Complement), &diagonal, &Start::default(), &stop).is_none());
    }
}
