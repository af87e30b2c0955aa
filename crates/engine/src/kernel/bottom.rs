//! The bulk counts of the bottom levels of a tight frame: what the lane loop does with a child
//! at the bulk level instead of entering it.
//!
//! Every target has [`LastTwo`], the count of the last two levels from the two columns left.
//! On x86-64 the child module `tables` adds [`LastFour`] and [`LastFive`], counts of the last
//! four and five levels from tables of the permutations of the columns left, made of `pext`
//! (bmi2). Kept apart from the lane loop so that a bottom is a small value with one method,
//! whatever the tables behind it.

#[cfg(target_arch = "x86_64")]
mod tables;

#[cfg(target_arch = "x86_64")]
pub(super) use tables::{LastFive, LastFour};

use super::Frame;

/// What the lane loop does with a child at the shape's bulk level instead of entering it:
/// count the ways to fill that level and every level below it.
pub(super) trait Bottom {
    /// The levels counted: the bulk level is `depth - LEVELS`.
    const LEVELS: usize;
    /// Whether children at the bulk level are queued and counted in batches (no branch in the
    /// turn) rather than counted at once behind a branch.
    const QUEUED: bool = false;
    /// The completions of a child with state `(c, d, a)` and free squares `nf` at the bulk
    /// level.
    fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64;
}

/// The bulk count of the last two levels of a tight frame; the bulk level is `last - 1`.
pub(super) struct LastTwo {
    /// Board rows between the two levels.
    k_pen: u32,
    /// [`Frame::fixed`] of the last level.
    fixed_last: u64,
}

impl LastTwo {
    /// The count of the last two levels of `frame` (depth at least 2).
    pub(super) fn new(frame: &Frame) -> LastTwo {
        let last = frame.depth - 1;
        LastTwo {
            k_pen: frame.step[last - 1],
            fixed_last: frame.fixed[last],
        }
    }
}

impl Bottom for LastTwo {
    const LEVELS: usize = 2;

    /// The ways to fill the last two levels, given the state `(c, d, a)` at the top of level
    /// `last - 1`, whose free squares are `nf`; exactly two columns are free (`mask & !c`).
    ///
    /// One queen goes in each remaining column, so there are two candidate fillings; each is
    /// possible when both of its squares are free and the two queens are not on one diagonal.
    #[inline(always)]
    fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64 {
        let k = self.k_pen;
        let f2 = mask & !(c | (d << k) | (a >> k) | self.fixed_last);
        let rem = mask & !c;
        let u = rem & rem.wrapping_neg();
        let v = rem ^ u;
        let apart = (((u << k) | (u >> k)) & v) == 0;
        let down = (nf & u != 0) & (f2 & v != 0);
        let up = (nf & v != 0) & (f2 & u != 0);
        (u64::from(down) + u64::from(up)) * u64::from(apart)
    }
}
