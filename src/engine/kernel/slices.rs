//! Slices of one kernel search (or of a search of a constrained board, through [`Tree`]): a
//! subproblem of hours is cut into slices of seconds whose counts add up to it, without the
//! plan listing the pieces (they are dealt out here, on demand).
//!
//! Slice `i` of `k` deals the search tree below the start out in stages. A stage of `b`
//! buckets (`b = min(k, RADIX)`) enumerates the states a few levels down until there are at
//! least [`PER_BUCKET`] states a bucket (or the bottom levels are near), and gives every
//! `b`-th of them, in the kernel's column order, to bucket `i % b`. The slices with that
//! bucket (every `b`-th slice) deal its states out the same way among themselves in the next
//! stage, until a stage has one slice per bucket, which completes its states. So a slice
//! enumerates a few thousand states a stage, and a search of a million slices takes three
//! stages. The dealing depends on the frame and the start alone, so the slices of a piece
//! add up to it on every machine, and neighbouring states (often alike in size) go to
//! different slices, so the slices are alike in work.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Frame, Start, complete_until};
use crate::engine::{Found, Slice};

/// The most buckets a stage deals to.
const RADIX: u64 = 256;

/// States each bucket of a stage gets at least, where the levels allow: enough that the
/// buckets even out the uneven sizes of the subtrees below them.
const PER_BUCKET: usize = 16;

/// Levels kept above the bottom of the tree: a stage stops enumerating there, so that the
/// states it deals out still hold searches of some size (in the kernel, its fastest bottom:
/// the last five levels counted in bulk).
const KEEP_LEVELS: usize = 6;

/// A search tree whose states a slice deals out: the kernel's frames, the rows of a
/// constrained board (`crate::constraint`) and the top half of a half-turn search
/// (`crate::engine::half_turn`).
pub(crate) trait Tree {
    /// The levels of the tree (a stage stops [`KEEP_LEVELS`] above the last).
    fn depth(&self) -> usize;
    /// The free squares of the level that `s` is about to fill.
    fn free(&self, s: &Start) -> u64;
    /// `s` with a queen on square bit `b` of its level.
    fn descend(&self, s: &Start, b: u64) -> Start;
    /// Counts the completions of `s`, giving up (`None`) once `stop` is set.
    fn complete(&self, s: &Start, stop: &AtomicBool) -> Option<Found>;
}

/// A kernel frame as a [`Tree`].
struct FrameTree<'a>(&'a Frame);

impl Tree for FrameTree<'_> {
    fn depth(&self) -> usize {
        self.0.depth
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

/// Counts slice `slice` of the completions of `start` in `tree`, dealt out in stages as the
/// module says.
pub(crate) fn deal<T: Tree>(
    tree: &T,
    start: &Start,
    slice: Slice,
    stop: &AtomicBool,
) -> Option<Found> {
    let (mut index, mut of) = (slice.index, slice.of.max(1));
    let mut states = vec![*start];
    let mut found = Found::default();
    let floor = tree.depth().saturating_sub(KEEP_LEVELS);
    while of > 1 {
        let buckets = of.min(RADIX);
        let made = deepen(tree, &mut states, buckets as usize * PER_BUCKET, floor);
        if index == 0 {
            found.nodes += made;
        }
        let bucket = index % buckets;
        states = states
            .into_iter()
            .skip(bucket as usize)
            .step_by(buckets as usize)
            .collect();
        // The slices of this bucket: every `buckets`-th of the `of`, from `bucket`.
        of = (of - 1 - bucket) / buckets + 1;
        index /= buckets;
        if stop.load(Ordering::Relaxed) {
            return None;
        }
    }
    for s in &states {
        let f = tree.complete(s, stop)?;
        found.count += f.count;
        found.nodes += f.nodes;
    }
    Some(found)
}

/// Replaces `states` by their descendants, a level at a time, until there are at least
/// `wanted` of them or they stand at level `floor`; returns the queens placed on the way.
fn deepen<T: Tree>(tree: &T, states: &mut Vec<Start>, wanted: usize, floor: usize) -> u64 {
    let mut placed = 0;
    while states.len() < wanted && states.iter().any(|s| s.level < floor) {
        let mut next = Vec::with_capacity(states.len() * 4);
        for s in states.iter() {
            if s.level >= floor {
                next.push(*s);
                continue;
            }
            let mut free = tree.free(s);
            while free != 0 {
                let b = free & free.wrapping_neg();
                free ^= b;
                next.push(tree.descend(s, b));
                placed += 1;
            }
        }
        *states = next;
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board;

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
