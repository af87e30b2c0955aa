//! What the kernel searches: a [`Frame`], the empty rows of a subproblem family, and a
//! [`Start`], what the rows the plan placed left behind. In a file of their own because the
//! lane loop and the bottoms read them and the entry point ([`super::complete`]) calls the lane
//! loop and the bottoms: in the entry point's file, the types would make those files import
//! each other.

use crate::MAX_N;

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
            mask: crate::full_mask(n),
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
