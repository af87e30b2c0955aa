//! The dealer that cuts one long search into slices whose counts add up to it: the kernel's
//! searches, those of a constrained board and the half-turn search each answer it as a
//! [`Tree`], so that a subproblem of hours becomes slices of seconds without the plan
//! listing them.
//!
//! Slice `i` of `k` deals the search tree below the start out in stages. A stage of `b`
//! buckets (`b = min(k, RADIX)`) enumerates the states a few levels down until there are at
//! least [`PER_BUCKET`] states a bucket (or the bottom levels are near), and gives every
//! `b`-th of them, in the kernel's column order, to bucket `i % b`. The slices with that
//! bucket (every `b`-th slice) deal its states out the same way among themselves in the next
//! stage, until a stage has one slice per bucket, which completes its states. So a slice
//! enumerates a few thousand states a stage, and a search of a million slices takes three
//! stages. The dealing depends on the frame and the start alone, so the slices of a subproblem
//! add up to it on every machine, and neighbouring states (often alike in size) go to
//! different slices, so the slices are alike in work.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Found, Slice};

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
/// (`crate::half_turn`).
pub(crate) trait Tree {
    /// A partly filled board of the search.
    type State: Copy;
    /// The levels of the tree (a stage stops [`KEEP_LEVELS`] above the last).
    fn depth(&self) -> usize;
    /// The level that `s` is about to fill.
    fn level(&self, s: &Self::State) -> usize;
    /// The free squares of the level that `s` is about to fill.
    fn free(&self, s: &Self::State) -> u64;
    /// `s` with a queen on square bit `b` of its level.
    fn descend(&self, s: &Self::State, b: u64) -> Self::State;
    /// Counts the completions of `s`, giving up (`None`) once `stop` is set.
    fn complete(&self, s: &Self::State, stop: &AtomicBool) -> Option<Found>;
}

/// Counts slice `slice` of the completions of `start` in `tree`, dealt out in stages as the
/// module says.
pub(crate) fn deal<T: Tree>(
    tree: &T,
    start: &T::State,
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
fn deepen<T: Tree>(tree: &T, states: &mut Vec<T::State>, wanted: usize, floor: usize) -> u64 {
    let mut placed = 0;
    while states.len() < wanted && states.iter().any(|s| tree.level(s) < floor) {
        let mut next = Vec::with_capacity(states.len() * 4);
        for s in states.iter() {
            if tree.level(s) >= floor {
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
