//! Slices of one kernel search: a subproblem of hours is cut into slices of seconds whose
//! counts add up to it, without the plan listing the subproblems (they are dealt out on demand, by
//! the dealer of [`crate::slicing`], which the frame answers as a [`Tree`]).

use std::sync::atomic::AtomicBool;

use super::{Frame, Start, complete_until};
use crate::slicing::{Tree, deal};
use crate::{Found, Slice};

/// A kernel frame as a [`Tree`].
struct FrameTree<'a>(&'a Frame);

impl Tree for FrameTree<'_> {
    type State = Start;
    fn depth(&self) -> usize {
        self.0.depth
    }
    fn level(&self, s: &Start) -> usize {
        s.level
    }
    fn free(&self, s: &Start) -> u64 {
        self.0.free(s)
    }
    fn descend(&self, s: &Start, b: u64) -> Start {
        self.0.descend(s, b)
    }
    fn complete(&self, s: &Start, stop: &AtomicBool) -> Option<Found> {
        complete_until(self.0, s, stop)
    }
}

/// Counts slice `slice` of the completions of `start` within `frame` (all of them for
/// [`Slice::WHOLE`]), giving up (`None`) within milliseconds once `stop` is set. The nodes
/// of the levels a stage enumerates are counted by the first slice that shares them, so the
/// nodes of all the slices add up to the nodes of the whole search.
pub fn complete_slice_until(
    frame: &Frame,
    start: &Start,
    slice: Slice,
    stop: &AtomicBool,
) -> Option<Found> {
    if slice.of <= 1 {
        return complete_until(frame, start, stop);
    }
    deal(&FrameTree(frame), start, slice, stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate as board;

    fn whole(frame: &Frame, start: &Start) -> Found {
        complete_until(frame, start, &AtomicBool::new(false)).unwrap()
    }

    /// The slices of `of` of a search, summed.
    fn sum_of_slices(frame: &Frame, start: &Start, of: u64) -> Found {
        let stop = AtomicBool::new(false);
        (0..of).fold(Found::default(), |acc, index| {
            let f = complete_slice_until(frame, start, Slice { index, of }, &stop).unwrap();
            Found {
                count: acc.count + f.count,
                nodes: acc.nodes + f.nodes,
            }
        })
    }

    #[test]
    fn the_slices_of_a_search_add_up_to_it() {
        // A plain board's first row, at n = 8 (the levels run out before the buckets are
        // full, so most slices are empty) and at n = 14 (several stages from 257 slices on).
        for (n, slices) in [
            (8, &[1, 2, 3, 64, 1000][..]),
            (14, &[2, 7, 256, 257, 600][..]),
        ] {
            let frame = Frame::open(n, n);
            let start = frame.descend(&Start::default(), board::bit(1));
            let all = whole(&frame, &start);
            assert!(all.count > 0);
            for &of in slices {
                assert_eq!(
                    sum_of_slices(&frame, &start, of),
                    all,
                    "n = {n}, {of} slices"
                );
            }
        }
    }

    #[test]
    fn the_slices_of_a_large_search_are_alike_in_work() {
        // 16 slices of a search of about a second: each holds a few hundred subtrees, so none
        // is far from a sixteenth of the nodes.
        let frame = Frame::open(15, 15);
        let start = frame.descend(&Start::default(), board::bit(4));
        let stop = AtomicBool::new(false);
        let nodes: Vec<u64> = (0..16)
            .map(|index| {
                complete_slice_until(&frame, &start, Slice { index, of: 16 }, &stop)
                    .unwrap()
                    .nodes
            })
            .collect();
        let mean = nodes.iter().sum::<u64>() as f64 / 16.0;
        for (i, &x) in nodes.iter().enumerate() {
            assert!(
                (x as f64 - mean).abs() < 0.5 * mean,
                "slice {i}: {x} of {mean}"
            );
        }
    }

    #[test]
    fn a_stopped_slice_gives_up() {
        let frame = Frame::open(12, 12);
        let start = Start::default();
        let stop = AtomicBool::new(true);
        assert_eq!(
            complete_slice_until(&frame, &start, Slice { index: 1, of: 3 }, &stop),
            None
        );
    }
}
