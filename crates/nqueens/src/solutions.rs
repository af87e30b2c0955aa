//! Streaming the n-queens solutions themselves, not just their count.
//!
//! The counting kernels only need to know *how many* placements exist, so they never
//! materialise a board. Listing solutions (the `list` command: its `--limit` and board pictures)
//! needs the actual column tuples, in a stable and predictable order, without holding them all
//! in memory: n = 16 alone has 14 772 512 of them.
//!
//! [`for_each_placement`] therefore walks the search tree of a board
//! ([`crate::constraint::Board::for_each_solution`]) iteratively with bit masks, hands each
//! solution to a callback as a borrowed slice of one reused buffer, and lets the callback stop
//! the walk early. The order is lexicographic in the column tuple, so "the first k solutions" is
//! a well-defined answer. [`format_tuple`] renders a solution, and the tests check the walk
//! against the brute-force enumeration over permutations, which shares no code with it.
//!
//! The unique count (OEIS A002562) counts the orbits of the solutions under the eight symmetries
//! of the square. [`orbit`] places one solution in its orbit: whether it is the
//! lexicographically least of its images, and how many distinct images it has. Keeping the
//! solutions that are least of their orbits lists one of each orbit, in the same order and
//! with the same streaming walk, without holding any solution but the current one.

use std::ops::ControlFlow;

use nqueens_engine::symmetry::Sym;

/// Where a solution stands in its orbit under the eight symmetries of the square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Orbit {
    /// Whether the solution is the lexicographically least of its orbit (its representative).
    pub least: bool,
    /// How many distinct solutions the orbit holds: 8, 4, 2 or 1 (a divisor of 8).
    pub size: u8,
}

/// The orbit of `cols` (`cols[r]` = column of the piece of row `r`, one piece a row and a
/// column) under [`Sym::ALL`]: each symmetry maps the placement to another placement of one
/// piece a row and a column, compared with `cols` in lexicographic order of the column tuple.
pub(crate) fn orbit(cols: &[u8]) -> Orbit {
    let n = cols.len();
    let mut images: Vec<Vec<u8>> = Vec::with_capacity(Sym::ALL.len());
    let mut least = true;
    for g in Sym::ALL {
        let mut image = vec![0u8; n];
        for (r, &c) in cols.iter().enumerate() {
            let (r2, c2) = g.apply(n, (r, usize::from(c)));
            // c2 < n <= 64, so it fits in a u8.
            image[r2] = c2 as u8;
        }
        least &= cols <= image.as_slice();
        if !images.contains(&image) {
            images.push(image);
        }
    }
    Orbit {
        least,
        // At most 8 images.
        size: images.len() as u8,
    }
}

/// Calls `visit` with each placement of one piece a row (`cols[r]` = 0-based column of the
/// piece in row `r`) on the squares `allowed` (bit `c` of `allowed[r]`), no two in a column
/// and, with `diagonals` (queens), none in a diagonal, in lexicographic order of the column
/// tuple, until it returns [`ControlFlow::Break`]; returns how many it was given. Both the
/// empty board's `list` and a constrained board's ([`crate::constraint::Board`]) walk here.
/// Candidate columns are taken lowest first, which is what makes the order lexicographic.
pub(crate) fn for_each_placement(
    allowed: &[u64],
    diagonals: bool,
    mut visit: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> u64 {
    let n = allowed.len();
    let mut visited = 0;
    if n == 0 {
        return visited;
    }
    let mut tuple = vec![0u8; n];
    // Per row: the squares not yet tried, and the attacks it was entered with.
    let mut untried = vec![0u64; n];
    let mut state = vec![(0u64, 0u64, 0u64); n];
    untried[0] = allowed[0];
    let mut row = 0usize;
    loop {
        let f = untried[row];
        if f == 0 {
            if row == 0 {
                return visited;
            }
            row -= 1;
            continue;
        }
        let b = f & f.wrapping_neg();
        untried[row] ^= b;
        // `b` is a single bit below position 64, so this fits in a u8.
        tuple[row] = b.trailing_zeros() as u8;
        if row + 1 == n {
            visited += 1;
            if visit(&tuple).is_break() {
                return visited;
            }
            continue;
        }
        let (cols, diag, anti) = state[row];
        let next = if diagonals {
            (cols | b, (diag | b) << 1, (anti | b) >> 1)
        } else {
            (cols | b, 0, 0)
        };
        row += 1;
        state[row] = next;
        untried[row] = allowed[row] & !(next.0 | next.1 | next.2);
    }
}

/// Formats a solution as `2 4 1 3` (1-based columns, single spaces).
#[must_use]
pub fn format_tuple(cols: &[u8]) -> String {
    let mut text = String::with_capacity(cols.len() * 3);
    for (i, &c) in cols.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&(u32::from(c) + 1).to_string());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::full_mask;
    use crate::tests_support::all_solutions;

    /// The first `k` solutions of the empty n×n board, and how many the walk visited.
    fn first(n: usize, k: usize) -> (Vec<Vec<usize>>, u64) {
        let mut seen = Vec::new();
        let visited = for_each_placement(&vec![full_mask(n); n], true, |cols| {
            seen.push(cols.iter().map(|&c| usize::from(c)).collect());
            if seen.len() == k {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        (seen, visited)
    }

    #[test]
    fn the_walk_gives_every_solution_in_lexicographic_order_and_stops_when_told() {
        for n in 1..=8 {
            let (all, visited) = first(n, usize::MAX);
            assert_eq!(all, all_solutions(n), "n = {n}");
            assert_eq!(visited, all.len() as u64);
        }
        let all = all_solutions(8);
        for k in [1usize, 2, 5, 91, 92] {
            assert_eq!(first(8, k), (all[..k].to_vec(), k as u64));
        }
    }

    #[test]
    fn orbits_split_the_solutions_as_the_published_unique_counts_say() {
        for n in 1..=9 {
            let all = all_solutions(n);
            let (mut reps, mut covered) = (0u128, 0u128);
            for s in &all {
                let cols: Vec<u8> = s.iter().map(|&c| c as u8).collect();
                let o = orbit(&cols);
                assert!([1, 2, 4, 8].contains(&o.size), "n = {n}: {s:?}");
                if o.least {
                    reps += 1;
                    covered += u128::from(o.size);
                }
            }
            assert_eq!(Some(reps), crate::known::unique(n), "n = {n}");
            assert_eq!(Some(covered), crate::known::total(n), "n = {n}");
        }
    }

    #[test]
    fn the_four_queens_orbit_is_one_of_two() {
        // 2 4 1 3 is turned into itself by a quarter turn; its mirror image is 3 1 4 2.
        for (cols, least, size) in [
            (&[1, 3, 0, 2][..], true, 2),
            (&[2, 0, 3, 1], false, 2),
            (&[0], true, 1),
        ] {
            assert_eq!(orbit(cols), Orbit { least, size });
        }
    }

    #[test]
    fn formatting_of_four_queens_solution() {
        assert_eq!(format_tuple(&[1, 3, 0, 2]), "2 4 1 3");
        assert_eq!(format_tuple(&[]), "");
    }
}
