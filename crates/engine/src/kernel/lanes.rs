//! The branch-free search of tight frames: independent depth-first searches ("lanes") of one
//! subproblem take turns, so that the processor overlaps their dependency chains.
//!
//! A turn places one queen with no data-dependent branch on the squares: the next level is the
//! highest bit of a mask of levels with squares left, and a child at the bulk level of the
//! [`Shape`] is handed to its [`Bottom`] (queued for a batch count, or counted at once) instead
//! of being entered. A lane that runs dry takes over an untried square from the shallowest live
//! level of another. The loop is compiled twice on x86-64: for the target's baseline
//! instruction set ([`portable`]) and with the bit-manipulation extensions, chosen at run time
//! through [`BitExtensions`]. Split from the module root because this is the part tuned by
//! measurement; the choice of bottom and lane count is made by the caller.

use std::sync::atomic::{AtomicBool, Ordering};

use super::bottom::Bottom;
#[cfg(target_arch = "x86_64")]
use super::extensions::BitExtensions;
use super::{Frame, Start};
use crate::Found;
use crate::MAX_N;

/// Rounds of turns between two looks at the stop flag: some millions of nodes, a few
/// milliseconds, so that a stop is seen at once and the look costs nothing measurable.
pub(super) const POLL: u32 = 1 << 20;

/// Stack slots; a level index is always below 32, its child below 33.
const SLOTS: usize = 64;

/// What every search of one frame shares: the frame's per-level tables, widened to
/// [`SLOTS`] entries so that masked level indices need no bounds checks, and the bulk count
/// of the levels from `at` down.
pub(super) struct Shape<B> {
    mask: u64,
    /// Squares a level may not take whatever the queens above: those attacked by fixed queens
    /// and those off the board (`fixed | !mask`), so that free squares are `!(c | d | a |
    /// blocked)`.
    blocked: [u64; SLOTS],
    step: [u32; SLOTS],
    /// Bit `l` set for the levels a search enters: those above `at`.
    enter: u32,
    /// The bulk level: a child there is counted by `bottom`, not entered.
    at: usize,
    bottom: B,
}

impl<B: Bottom> Shape<B> {
    /// The tables of `frame`, with its last [`Bottom::LEVELS`] levels counted by `bottom`;
    /// the frame must be deeper than that.
    pub(super) fn new(frame: &Frame, bottom: B) -> Shape<B> {
        let at = frame.depth - B::LEVELS;
        let mut sh = Shape {
            mask: frame.mask,
            blocked: [!frame.mask; SLOTS],
            step: [0; SLOTS],
            enter: (1u32 << at) - 1,
            at,
            bottom,
        };
        for (b, f) in sh.blocked.iter_mut().zip(frame.fixed) {
            *b |= f;
        }
        sh.step[..MAX_N].copy_from_slice(&frame.step);
        sh
    }
}

/// The stack of one depth-first search in progress: slot `l` holds what the queens above
/// level `l` attack there and the squares of level `l` not yet tried.
struct Lane {
    cols: [u64; SLOTS],
    diag: [u64; SLOTS],
    anti: [u64; SLOTS],
    free: [u64; SLOTS],
}

/// Where a search stands (kept apart from its [`Lane`] so that it lives in registers): bit `l`
/// of `live` says that level `l` has untried squares, `lv` is the highest such level.
#[derive(Clone, Copy)]
struct Cursor {
    live: u32,
    lv: usize,
}

impl Lane {
    fn empty() -> Lane {
        Lane {
            cols: [0; SLOTS],
            diag: [0; SLOTS],
            anti: [0; SLOTS],
            free: [0; SLOTS],
        }
    }

    /// Makes the lane search the squares `free` of level `l`, from the state `(c, d, a)`.
    #[inline(always)]
    fn begin(&mut self, l: usize, c: u64, d: u64, a: u64, free: u64) -> Cursor {
        self.cols[l & 63] = c;
        self.diag[l & 63] = d;
        self.anti[l & 63] = a;
        self.free[l & 63] = free;
        Cursor {
            live: u32::from(free != 0) << l,
            // `l` is below 32 already; the mask lets the compiler see that every cursor's `lv`
            // is, so that `turn` needs no mask of its own (a shorter chain per turn; see
            // results/kernel-log.md).
            lv: l & 31,
        }
    }

    /// Places one queen (the lane must be live) and returns the completions it settled.
    ///
    /// The child's state is always written to its slot, and the next level is the highest bit
    /// of `live` (the child, or the nearest ancestor with squares left). A child at the bulk
    /// level `sh.at` is not entered: with a queued bottom it is written to `q` and kept when
    /// it has free squares (no branch); otherwise it is counted at once behind the only
    /// data-dependent branch (which mispredicts too often for a deeper bottom).
    #[inline(always)]
    fn turn<B: Bottom>(&mut self, at: &mut Cursor, sh: &Shape<B>, q: &mut Pending) -> u64 {
        // Below 32 (the highest bit of a `u32`), so `next` indexes a slot without a mask.
        let lv = at.lv & 31;
        let f = self.free[lv];
        let b = f & f.wrapping_neg();
        let rest = f ^ b;
        self.free[lv] = rest;
        let k = sh.step[lv];
        let c = self.cols[lv] | b;
        let d = (self.diag[lv] | b) << k;
        let a = (self.anti[lv] | b) >> k;
        let next = lv + 1;
        let nf = !(c | d | a | sh.blocked[next]);
        let bulk = if B::QUEUED {
            q.push(c, d, a, (next == sh.at) & (nf != 0));
            0
        } else if next == sh.at {
            sh.bottom.count(sh.mask, c, d, a, nf)
        } else {
            0
        };
        self.cols[next] = c;
        self.diag[next] = d;
        self.anti[next] = a;
        self.free[next] = nf;
        let mut live = at.live ^ (u32::from(rest == 0) << lv);
        live |= (u32::from(nf != 0) << next) & sh.enter;
        at.live = live;
        // `| 1` keeps the index in range when the lane has just run dry; `live` says so.
        at.lv = (31 - (live | 1).leading_zeros()) as usize;
        bulk
    }

    /// Hands one untried square of this lane's shallowest live level to `thief` (which must
    /// be empty), if this lane keeps something to do.
    /// Returns the thief's new cursor, or `None` when this lane has a single square left.
    #[inline(always)]
    fn give(&mut self, at: &mut Cursor, thief: &mut Lane) -> Option<Cursor> {
        let live = at.live;
        let l = live.trailing_zeros() as usize;
        let f = self.free[l & 63];
        if live & live.wrapping_sub(1) == 0 && f & f.wrapping_sub(1) == 0 {
            return None;
        }
        let s = 1u64 << (63 - f.leading_zeros());
        let rest = f ^ s;
        self.free[l & 63] = rest;
        if rest == 0 {
            at.live ^= 1 << l;
        }
        Some(thief.begin(
            l,
            self.cols[l & 63],
            self.diag[l & 63],
            self.anti[l & 63],
            s,
        ))
    }
}

/// Capacity of a [`Pending`] queue.
const QCAP: usize = 32;

/// Children at the bulk level waiting to be counted, for bottoms that count in batches (the
/// lane loop drains it when fewer than one round of pushes is left; the loop over a batch
/// has no data-dependent branch but its end).
#[derive(Default)]
struct Pending {
    c: [u64; QCAP],
    d: [u64; QCAP],
    a: [u64; QCAP],
    n: usize,
}

impl Pending {
    /// Writes a child to the next free entry, and keeps it when `take` (no branch: an entry
    /// not kept is overwritten by the next push). There must be room (`n < QCAP`).
    #[inline(always)]
    fn push(&mut self, c: u64, d: u64, a: u64, take: bool) {
        let i = self.n & (QCAP - 1);
        self.c[i] = c;
        self.d[i] = d;
        self.a[i] = a;
        self.n += usize::from(take);
    }

    /// Counts the completions of every queued child and empties the queue.
    #[inline(always)]
    fn drain<B: Bottom>(&mut self, sh: &Shape<B>) -> u64 {
        let mut count = 0;
        for i in 0..self.n.min(QCAP) {
            let (c, d, a) = (self.c[i], self.d[i], self.a[i]);
            let nf = !(c | d | a | sh.blocked[sh.at & 63]);
            count += sh.bottom.count(sh.mask, c, d, a, nf);
        }
        self.n = 0;
        count
    }
}

/// Runs `L` interleaved lanes over the search below `start` (squares `first`) until all run
/// dry; returns the completions and the nodes (the queens the turns placed).
///
/// Always inlined, so that each caller ([`portable`], [`lanes_bmi`]) compiles it for its own
/// instruction set.
#[inline(always)]
fn lanes<const L: usize, B: Bottom>(
    sh: &Shape<B>,
    start: &Start,
    first: u64,
    stop: &AtomicBool,
) -> Option<Found> {
    let base = start.level;
    let mut lane: [Lane; L] = std::array::from_fn(|_| Lane::empty());
    let mut cur = [Cursor { live: 0, lv: 0 }; L];
    cur[0] = lane[0].begin(base, start.cols, start.diag, start.anti, first);
    let mut count = 0u64;
    let mut nodes = 0u64;
    let mut q = Pending::default();
    let mut poll = POLL;
    loop {
        poll -= 1;
        if poll == 0 {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            poll = POLL;
        }
        if B::QUEUED && q.n > QCAP - L {
            count += q.drain(sh);
        }
        if cur.iter().any(|c| c.live == 0) {
            if refill(&mut lane, &mut cur) {
                for i in 0..L {
                    count += lane[i].turn(&mut cur[i], sh, &mut q);
                }
                nodes += L as u64;
                continue;
            }
            if cur.iter().all(|c| c.live == 0) {
                count += q.drain(sh);
                break;
            }
            for i in 0..L {
                if cur[i].live != 0 {
                    count += lane[i].turn(&mut cur[i], sh, &mut q);
                    nodes += 1;
                }
            }
            continue;
        }
        for i in 0..L {
            count += lane[i].turn(&mut cur[i], sh, &mut q);
        }
        nodes += L as u64;
    }
    Some(Found { count, nodes })
}

/// Gives every dry lane a square from another lane that can spare one; returns whether every
/// lane is live afterwards.
#[inline(always)]
fn refill<const L: usize>(lane: &mut [Lane; L], cur: &mut [Cursor; L]) -> bool {
    for i in 0..L {
        if cur[i].live != 0 {
            continue;
        }
        for j in 0..L {
            if j == i || cur[j].live == 0 {
                continue;
            }
            let (donor, thief) = if j < i {
                let (lo, hi) = lane.split_at_mut(i);
                (&mut lo[j], &mut hi[0])
            } else {
                let (lo, hi) = lane.split_at_mut(j);
                (&mut hi[0], &mut lo[i])
            };
            if let Some(c) = donor.give(&mut cur[j], thief) {
                cur[i] = c;
                break;
            }
        }
    }
    cur.iter().all(|c| c.live != 0)
}

/// [`lanes`] compiled for the baseline instruction set of the target.
pub(super) fn portable<const L: usize, B: Bottom>(
    sh: &Shape<B>,
    start: &Start,
    first: u64,
    stop: &AtomicBool,
) -> Option<Found> {
    lanes::<L, B>(sh, start, first, stop)
}

#[cfg(target_arch = "x86_64")]
impl BitExtensions {
    /// [`lanes`] compiled with the extensions (see [`lanes_bmi`]).
    #[inline]
    pub(super) fn lanes<const L: usize, B: Bottom>(
        self,
        sh: &Shape<B>,
        start: &Start,
        first: u64,
        stop: &AtomicBool,
    ) -> Option<Found> {
        // SAFETY: `lanes_bmi` needs popcnt, lzcnt, bmi1 and bmi2, and a `BitExtensions` exists
        // only where `detect` found all four.
        unsafe { lanes_bmi::<L, B>(sh, start, first, stop) }
    }
}

/// [`lanes`] compiled with the x86-64 bit-manipulation extensions (`popcnt`, `lzcnt`, `bmi1`,
/// `bmi2`): three-operand shifts and `andn`, `blsi`, `blsr` and `lzcnt` shorten each turn.
/// Called through [`BitExtensions::lanes`]; the processor must have the extensions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
fn lanes_bmi<const L: usize, B: Bottom>(
    sh: &Shape<B>,
    start: &Start,
    first: u64,
    stop: &AtomicBool,
) -> Option<Found> {
    lanes::<L, B>(sh, start, first, stop)
}
