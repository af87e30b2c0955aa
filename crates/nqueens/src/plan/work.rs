//! The plan's work in its own words: what one entry asks for ([`Work`]), in the plan's own
//! types (a search's [`Frame`] and [`Start`], a join [`Unit`]), what its count adds to, and
//! the family of a kernel search for reports; and, apart from the plan, the share of an entry
//! a run counts ([`Slice`]) and one subproblem of a run ([`Subproblem`]: an entry's work, the
//! slice of it and the run's id), which only a [`Cut`](super::Cut) makes.
//!
//! The plan's identity is a hash of the work's fields, so they are the plan's and change
//! only with it: the builders make their work with the engines' geometry and keep it here
//! (the conversions below), and the runner's door (`run/engines/`) hands it to the engines
//! in theirs. The door is the one place outside the plan that matches on the kinds of work.

use crate::board::MAX_N;
use nqueens_engine::{join, kernel};

/// A share of one entry: slice `index` of `of`, about equal in work. How many slices a run
/// cuts an entry into is the run's choice ([`Cut`](super::Cut)), recorded in its files
/// (`[entry, slices, index, count, nodes]`) and never in the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slice {
    /// Which slice, from 0.
    pub index: u64,
    /// How many slices the entry is cut into (at least 1).
    pub of: u64,
}

impl Slice {
    /// The whole entry.
    pub const WHOLE: Slice = Slice { index: 0, of: 1 };
}

/// The rows a kernel search fills below the queens a plan placed: the board's columns, how
/// many rows (levels) are left, the columns of each level that queens fixed beforehand attack,
/// and how many board rows lie between one level and the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    /// One bit per column of the board.
    pub mask: u64,
    /// How many empty rows the search fills (levels `0..depth`).
    pub depth: usize,
    /// Columns of each level attacked by the queens fixed before the search.
    pub fixed: [u64; MAX_N],
    /// Board rows between level `l` and level `l + 1` (1 where they are adjacent).
    pub step: [u32; MAX_N],
}

/// The queens a plan placed before a search, as what they leave: the next level to fill, the
/// columns taken, and the squares of that level attacked along each diagonal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Start {
    /// The next level to fill.
    pub level: usize,
    /// Columns taken.
    pub cols: u64,
    /// Squares of the level attacked along the down-right diagonals.
    pub diag: u64,
    /// Squares of the level attacked along the down-left diagonals.
    pub anti: u64,
}

/// A join unit: the rows whose queen stands in the east half (the first of `span` row sets),
/// and for odd n the middle queens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Unit {
    /// Board rows whose queen stands in the east half.
    pub east_rows: u32,
    /// The middle queens (odd n only).
    pub middle: Option<Middle>,
    /// How many consecutive row sets the unit counts, from `east_rows`.
    pub span: u32,
}

/// The middle queens of an odd board's join unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Middle {
    /// Row of the middle column's queen.
    pub column_queen: u8,
    /// Column of the middle row's queen.
    pub row_queen: u8,
}

impl From<&kernel::Frame> for Frame {
    fn from(f: &kernel::Frame) -> Frame {
        Frame {
            mask: f.mask,
            depth: f.depth,
            fixed: f.fixed,
            step: f.step,
        }
    }
}

impl From<kernel::Start> for Start {
    fn from(s: kernel::Start) -> Start {
        Start {
            level: s.level,
            cols: s.cols,
            diag: s.diag,
            anti: s.anti,
        }
    }
}

impl From<join::Unit> for Unit {
    fn from(u: join::Unit) -> Unit {
        Unit {
            east_rows: u.east_rows,
            middle: u.middle.map(|m| Middle {
                column_queen: m.column_queen,
                row_queen: m.row_queen,
            }),
            span: u.span,
        }
    }
}

/// The family of a kernel frame, for reports and diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Family {
    /// Plain: prefixes of the first rows.
    Prefix,
    /// Symmetry: a queen in a corner.
    Corner,
    /// Symmetry: one border queen strictly nearest a corner.
    Nearest,
    /// Symmetry: another border queen as near a corner as the row-0 queen.
    Tie,
}

impl Family {
    /// A short description.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Family::Prefix => "plain prefixes",
            Family::Corner => "corner queen",
            Family::Nearest => "one border queen nearest a corner",
            Family::Tie => "tie constellations",
        }
    }
}

/// What one entry of a plan asks for (a run counts it whole or in slices, [`Subproblem`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Work {
    /// Complete `start`, the state the plan's pre-placed queens leave, within the plan's frame
    /// `frame` ([`Plan::frame`](super::Plan::frame)); every completion stands for `weight`
    /// solutions, the size of its orbit under the symmetries the plan uses.
    Complete {
        frame: u32,
        start: Start,
        weight: u8,
    },
    /// Count the pairs of fitting half-boards of one join `unit`; each stands for `weight`
    /// solutions (the unit's orbit size).
    Join { unit: Unit, weight: u8 },
    /// Complete a constrained board ([`Plan::board`](super::Plan::board)) from `start`, the
    /// state the plan's pre-placed rows leave; weight 1.
    Constrained { start: Start },
    /// Count the solutions a half turn leaves unchanged whose row-0 queen stands in column
    /// `first` (for the unique count).
    HalfTurn { first: u8 },
    /// The same for a quarter turn, never cut into slices ([`Work::can_be_cut`]).
    QuarterTurn { first: u8 },
}

/// What a count of one subproblem adds to ([`Work::adds_to`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddsTo {
    /// The solutions, each count standing for `weight` of them.
    Solutions { weight: u8 },
    /// The solutions a half turn leaves unchanged (the unique count's searches).
    HalfTurn,
    /// The solutions a quarter turn leaves unchanged.
    QuarterTurn,
}

impl Work {
    /// What a count of this work adds to: the solutions, or one of the unique count's sums.
    pub(crate) fn adds_to(&self) -> AddsTo {
        match *self {
            Work::Complete { weight, .. } | Work::Join { weight, .. } => {
                AddsTo::Solutions { weight }
            }
            Work::Constrained { .. } => AddsTo::Solutions { weight: 1 },
            Work::HalfTurn { .. } => AddsTo::HalfTurn,
            Work::QuarterTurn { .. } => AddsTo::QuarterTurn,
        }
    }

    /// Solutions each raw count of this work stands for (1 for the invariant searches, whose
    /// counts are kept apart).
    pub(crate) fn weight(&self) -> u8 {
        match self.adds_to() {
            AddsTo::Solutions { weight } => weight,
            AddsTo::HalfTurn | AddsTo::QuarterTurn => 1,
        }
    }

    /// Whether a run may cut this work into slices: every kind but the quarter-turn search,
    /// a small fraction of a second even at n = 32.
    pub(crate) fn can_be_cut(&self) -> bool {
        !matches!(self, Work::QuarterTurn { .. })
    }
}

/// One subproblem of a run: an entry of the plan, the slice of it counted, and the id the
/// run's [`Cut`](super::Cut) numbers it by. Entries are the plan's and stable; slices and ids
/// are the run's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Subproblem {
    /// Position in the run's cut (ids are the run's, [`Cut`](super::Cut)).
    pub id: u64,
    /// The entry of the plan it is a share of.
    pub entry: u64,
    /// Which share of the entry.
    pub slice: Slice,
    /// What to compute.
    pub work: Work,
}

impl Subproblem {
    /// The subproblem `i` ids further, where that is a slice of the same entry (the caller
    /// knows it is): the same work with the slice index moved on.
    pub(crate) fn slice_after(&self, i: u64) -> Subproblem {
        let mut s = *self;
        s.id += i;
        s.slice.index += i;
        s
    }
}
