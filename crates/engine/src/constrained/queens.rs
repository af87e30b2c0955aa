//! Completing a constrained board by backtracking: the queens engine, and the rooks' engine
//! for sparse boards.
//!
//! It is the classic bitmask search (Richards 1997; Somers 2002) with one change: the free
//! squares of a row are `allowed[row] & !(cols | diag | anti)`, where `allowed` already holds
//! the blocked squares and what the pre-placed pieces attack (a pre-placed row allows one
//! square). It is a separate small loop so that the empty-board kernel (`engine::kernel`),
//! tuned for frames without per-row masks, stays as it is. Rooks run the same loop without
//! the diagonal masks.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::kernel::Start;
use crate::slicing::{Tree, deal};
use crate::{Found, Slice};

/// Nodes between two looks at the stop flag.
const POLL: u64 = 1 << 16;

/// What a search found: completions and nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completed {
    /// Completions of the start.
    pub count: u128,
    /// Pieces placed by the search.
    pub nodes: u64,
}

/// The rows of a constrained queens board as a tree whose states [`deal`] shares out.
struct Rows<'a>(&'a [u64]);

impl Tree for Rows<'_> {
    type State = Start;
    fn depth(&self) -> usize {
        self.0.len()
    }
    fn level(&self, s: &Start) -> usize {
        s.level
    }
    fn free(&self, s: &Start) -> u64 {
        self.0[s.level] & !(s.cols | s.diag | s.anti)
    }
    fn descend(&self, s: &Start, b: u64) -> Start {
        Start {
            level: s.level + 1,
            cols: s.cols | b,
            diag: (s.diag | b) << 1,
            anti: (s.anti | b) >> 1,
        }
    }
    fn complete(&self, s: &Start, stop: &AtomicBool) -> Option<Found> {
        let done = search::<true>(self.0, s, stop)?;
        Some(Found {
            // One state's completions are one search's count, which fits in 64 bits.
            count: u64::try_from(done.count).unwrap_or(u64::MAX),
            nodes: done.nodes,
        })
    }
}

/// Counts slice `slice` of the queens completions of `start` on a board whose rows allow
/// `allowed` (all of them for [`Slice::WHOLE`]): the states a few rows down dealt out as the
/// kernel deals its searches (`slicing::deal`), so that the slices add up to the whole, nodes too.
pub fn complete_slice(
    allowed: &[u64],
    start: &Start,
    slice: Slice,
    stop: &AtomicBool,
) -> Option<Completed> {
    if slice.of <= 1 {
        return search::<true>(allowed, start, stop);
    }
    let found = deal(&Rows(allowed), start, slice, stop)?;
    Some(Completed {
        count: u128::from(found.count),
        nodes: found.nodes,
    })
}

/// Counts the completions of `start` (rows `start.level..`) on a board whose rows allow
/// `allowed` (queens when `QUEENS`, else rooks), giving up (`None`) soon after `stop` rises.
pub(super) fn search<const QUEENS: bool>(
    allowed: &[u64],
    start: &Start,
    stop: &AtomicBool,
) -> Option<Completed> {
    let n = allowed.len();
    let base = start.level;
    if base >= n {
        return Some(Completed { count: 1, nodes: 0 });
    }
    let first = allowed[base] & !(start.cols | start.diag | start.anti);
    if base + 1 == n {
        return Some(Completed {
            count: u128::from(first.count_ones()),
            nodes: 0,
        });
    }
    let mut cols = vec![0u64; n];
    let mut diag = vec![0u64; n];
    let mut anti = vec![0u64; n];
    let mut free = vec![0u64; n];
    let last = n - 1;
    let mut lv = base;
    cols[lv] = start.cols;
    diag[lv] = start.diag;
    anti[lv] = start.anti;
    free[lv] = first;
    let (mut count, mut nodes) = (0u64, 0u64);
    loop {
        if nodes % POLL == 0 && stop.load(Ordering::Relaxed) {
            return None;
        }
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
        let c = cols[lv] | b;
        let (d, a) = if QUEENS {
            ((diag[lv] | b) << 1, (anti[lv] | b) >> 1)
        } else {
            (0, 0)
        };
        let next = lv + 1;
        let nf = allowed[next] & !(c | d | a);
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
    Some(Completed {
        count: u128::from(count),
        nodes,
    })
}
