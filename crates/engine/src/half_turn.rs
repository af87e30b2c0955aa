//! The solutions a half turn leaves unchanged, counted row by row over the top half of the
//! board with bitmasks: the term `P` of Burnside's lemma that the unique count needs
//! ([`crate::symmetry::unique_from`]). From n = 26 on it is the longest search of a `join` or
//! `symmetry` count that the plan does not otherwise cut, so it stops when asked and is dealt
//! out to slices like the kernel's searches.
//!
//! A queen at `(r, c)` stands for its image `(n-1-r, n-1-c)` too. Filling rows `0..n/2` fills
//! the bottom half with the images (for odd n the middle row's queen is its own image, so it
//! stands on the centre square). The masks index the lines of the whole board: columns `c`,
//! sum diagonals `r + c`, difference diagonals `n-1-r+c`. Every placement takes a line and its
//! image's line at once, so each mask is symmetric about its middle, and testing one of the two
//! lines tests both. A queen is refused where it shares a line with its own image: column
//! `(n-1)/2` (odd n), the main diagonal (`c = r`) and the other one (`c = n-1-r`). The centre
//! square lies on exactly those lines, so for odd n it is always free when the top half is.

use std::sync::atomic::{AtomicBool, Ordering};

use super::slicing::{Tree, deal};
use super::{Found, Slice};

/// Placements between two looks at the stop flag (some milliseconds of work).
const POLL: u64 = 1 << 20;

/// A partly filled top half: the next row to fill and the lines taken with their images, by
/// their index on the whole board (not shifted row by row as the kernel's masks are).
#[derive(Clone, Copy, Debug, Default)]
struct State {
    /// The next row of the top half to fill.
    level: usize,
    /// Columns `c`.
    cols: u64,
    /// Sum diagonals `r + c`.
    sums: u64,
    /// Difference diagonals `n-1-r+c`.
    diffs: u64,
}

/// The board's size and the columns a queen of the top half may never take.
struct Half {
    n: usize,
    /// Rows to fill: `n / 2`.
    rows: usize,
    /// Every column but the middle one of an odd board.
    columns: u64,
}

impl Half {
    fn new(n: usize) -> Half {
        let all = (1u64 << n) - 1;
        let middle = if n % 2 == 1 { 1 << (n / 2) } else { 0 };
        Half {
            n,
            rows: n / 2,
            columns: all & !middle,
        }
    }
}

/// The top half as a search tree, so that the dealer of `engine::slicing` can share it out to slices.
impl Tree for Half {
    type State = State;

    fn depth(&self) -> usize {
        self.rows
    }

    fn level(&self, s: &State) -> usize {
        s.level
    }

    /// The columns free for a queen in `s.level`.
    #[inline]
    fn free(&self, s: &State) -> u64 {
        let (n, r) = (self.n, s.level);
        self.columns
            & !s.cols
            & !(s.sums >> r)
            & !(s.diffs >> (n - 1 - r))
            & !(1 << r)
            & !(1 << (n - 1 - r))
    }

    /// `s` with a queen in its row at column bit `b`, and the queen's image.
    #[inline]
    fn descend(&self, s: &State, b: u64) -> State {
        let (n, r) = (self.n, s.level);
        let c = b.trailing_zeros() as usize;
        State {
            level: r + 1,
            cols: s.cols | b | 1 << (n - 1 - c),
            sums: s.sums | 1 << (r + c) | 1 << (2 * n - 2 - r - c),
            diffs: s.diffs | 1 << (n - 1 - r + c) | 1 << (n - 1 + r - c),
        }
    }

    /// Counts the completions of `s`, placements as nodes (the last row's are counted in bulk
    /// and place none); `None` once `stop` is seen set.
    fn complete(&self, s: &State, stop: &AtomicBool) -> Option<Found> {
        let mut found = Found::default();
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let last = self.rows - 1;
        if s.level > last {
            found.count = 1;
            return Some(found);
        }
        if s.level == last {
            found.count = u64::from(self.free(s).count_ones());
            return Some(found);
        }
        // An explicit stack: each level's state and the columns still to try there.
        let mut stack = [(*s, 0u64); 32];
        let mut depth = 0;
        stack[0].1 = self.free(s);
        loop {
            let (state, free) = &mut stack[depth];
            if *free == 0 {
                if depth == 0 {
                    return Some(found);
                }
                depth -= 1;
                continue;
            }
            let b = *free & free.wrapping_neg();
            *free ^= b;
            let next = self.descend(state, b);
            found.nodes += 1;
            if found.nodes % POLL == 0 && stop.load(Ordering::Relaxed) {
                return None;
            }
            let options = self.free(&next);
            if next.level == last {
                // The last row of the top half: each free column is one solution.
                found.count += u64::from(options.count_ones());
            } else if options != 0 {
                depth += 1;
                stack[depth] = (next, options);
            }
        }
    }
}

/// Counts slice `slice` of the solutions of an n×n board that a half turn leaves unchanged
/// and whose row-0 queen stands in column `first` (all of them for [`Slice::WHOLE`]), giving
/// up (`None`) within milliseconds once `stop` is set. The slices deal out the states a few
/// rows down as the kernel's do (`deal`), so that they add up to the whole, nodes too.
pub fn count_half_turn_until(
    n: usize,
    first: usize,
    slice: Slice,
    stop: &AtomicBool,
) -> Option<Found> {
    let empty = Found::default();
    if n == 1 {
        return Some(Found {
            count: u64::from(first == 0 && slice.index == 0),
            nodes: 0,
        });
    }
    let half = Half::new(n);
    let top = State::default();
    if first >= n || half.free(&top) & 1 << first == 0 {
        return Some(empty);
    }
    let start = half.descend(&top, 1 << first);
    let mut found = if slice.of <= 1 {
        half.complete(&start, stop)?
    } else {
        deal(&half, &start, slice, stop)?
    };
    // The row-0 queen, placed here: the first slice counts it.
    found.nodes += u64::from(slice.index == 0);
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(n: usize, first: usize, slice: Slice) -> Found {
        count_half_turn_until(n, first, slice, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn whole_searches_agree_with_the_orbit_search() {
        for n in 1..=14 {
            for first in 0..n {
                let found = count(n, first, Slice::WHOLE).count;
                let (old, _) = crate::invariant::count_invariant(n, false, first);
                assert_eq!(found, old, "n = {n}, first {first}");
            }
        }
    }

    #[test]
    fn slices_add_up_to_the_whole_search() {
        for (n, first) in [(12, 3), (13, 5), (16, 2), (17, 3), (20, 4), (21, 6)] {
            let whole = count(n, first, Slice::WHOLE);
            assert!(whole.count > 0, "n = {n}");
            for of in [2, 7, 100, 5000] {
                let sum = (0..of).fold(Found::default(), |acc, index| {
                    let f = count(n, first, Slice { index, of });
                    Found {
                        count: acc.count + f.count,
                        nodes: acc.nodes + f.nodes,
                    }
                });
                assert_eq!(sum, whole, "n = {n}, first {first}, {of} slices");
            }
        }
        // With rows enough to deal from, every slice gets a share.
        for index in 0..7 {
            let share = count(20, 4, Slice { index, of: 7 }).count;
            assert!(share > 0, "slice {index} of 7");
        }
    }

    #[test]
    fn a_stopped_search_gives_up() {
        let stop = AtomicBool::new(true);
        assert_eq!(count_half_turn_until(22, 5, Slice::WHOLE, &stop), None);
        let slice = Slice { index: 3, of: 10 };
        assert_eq!(count_half_turn_until(22, 5, slice, &stop), None);
    }
}
