//! The plan's work in its own words: what one subproblem asks for ([`Work`]), what its count
//! adds to, the subproblem with its id, and the family of a kernel search for reports. The
//! runner's door (`run/prepared.rs`) is the one place outside the plan that matches on the
//! kinds of work.

use nqueens_engine::Slice;
use nqueens_engine::join::Unit;
use nqueens_engine::kernel::Start;

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

/// What one subproblem asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Work {
    /// Complete `start` within `frames[frame]`; every completion stands for `weight` solutions.
    Complete {
        /// Which of the plan's frames ([`Plan::frame`](super::Plan::frame)).
        frame: u32,
        /// The state the plan's pre-placed queens leave.
        start: Start,
        /// Solutions each completion stands for: the size of its orbit under the symmetries
        /// the plan uses.
        weight: u8,
        /// Which share of the search is counted (all of it unless the plan cuts a long
        /// search into slices, [`nqueens_engine::kernel::complete_slice_until`]).
        slice: Slice,
    },
    /// Count the pairs of fitting half-boards of one join unit; each stands for `weight`
    /// solutions.
    Join {
        /// The east rows (and, for odd n, the middle queens).
        unit: Unit,
        /// Solutions each pair stands for (orbit size of the unit).
        weight: u8,
    },
    /// Complete a constrained board ([`Plan::board`](super::Plan::board)) from `start`; weight 1.
    Constrained {
        /// The state the plan's pre-placed rows leave.
        start: Start,
        /// Which share of the search is counted (all of it unless the plan cuts a long
        /// queens search into slices; a rook board's subproblems are always whole).
        slice: Slice,
    },
    /// Count the solutions a half turn leaves unchanged whose row-0 queen stands in column
    /// `first` (for the unique count).
    HalfTurn {
        /// Column of the queen in row 0.
        first: u8,
        /// Which share of the search is counted (all of it unless the plan cuts a long one
        /// into slices, [`nqueens_engine::half_turn`]).
        slice: Slice,
    },
    /// Count the solutions a quarter turn leaves unchanged whose row-0 queen stands in column
    /// `first` (for the unique count): a small fraction of a second even at n = 32, so never
    /// cut into slices.
    QuarterTurn {
        /// Column of the queen in row 0.
        first: u8,
    },
}

/// What a count of one subproblem adds to ([`Work::adds_to`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddsTo {
    /// The solutions, each count standing for `weight` of them.
    Solutions {
        /// Solutions each count stands for.
        weight: u8,
    },
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
}

/// One independent subproblem of a count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Subproblem {
    /// Position in the plan; stable for a given n, algorithm and split depth.
    pub id: u64,
    /// What to compute.
    pub work: Work,
}

impl Subproblem {
    /// The share of its entry this subproblem counts, if it is a join unit or a kernel search
    /// (which the plan may cut into slices).
    pub(crate) fn slice(&self) -> Option<Slice> {
        let mut s = *self;
        s.slice_mut().copied()
    }

    /// [`Subproblem::slice`], to change.
    pub(super) fn slice_mut(&mut self) -> Option<&mut Slice> {
        match &mut self.work {
            Work::Join {
                unit: Unit { slice, .. },
                ..
            }
            | Work::Complete { slice, .. }
            | Work::Constrained { slice, .. }
            | Work::HalfTurn { slice, .. } => Some(slice),
            Work::QuarterTurn { .. } => None,
        }
    }

    /// The subproblem `i` ids further, where that is a slice of the same entry (the caller
    /// knows it is): the same work with the slice index moved on.
    pub(crate) fn slice_after(&self, i: u64) -> Subproblem {
        let mut s = *self;
        s.id += i;
        if let Some(slice) = s.slice_mut() {
            slice.index += i;
        }
        s
    }
}
