//! The plan's own error: the ways a plan cannot be made as asked (a board size, a split
//! depth, a plan too large, a board missing), so that the plan layer does not return the
//! crate's [`crate::Error`], which sits above it ([`crate::Error::Plan`] holds this one).

use crate::board::SizeError;
use crate::constraint::BoardError;

/// Why a plan cannot be made as asked.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The board size (given) is outside 1..=32.
    #[error("{}", SizeError(*.0))]
    BoardSize(usize),
    /// A constrained board that cannot be counted exactly.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// An unknown algorithm name.
    #[error("unknown algorithm '{0}': expected plain, symmetry or join")]
    UnknownAlgorithm(String),
    /// A split depth the plan cannot use.
    #[error("split depth {depth} is out of range: it must be from {lowest} to {highest}")]
    SplitDepth {
        /// Asked for.
        depth: usize,
        /// Smallest allowed.
        lowest: usize,
        /// Largest allowed.
        highest: usize,
    },
    /// The plan would hold too many subproblems.
    #[error("a split depth of {depth} makes more than {limit} subproblems; choose a smaller one")]
    PlanTooLarge {
        /// The depth that overflowed.
        depth: usize,
        /// The limit.
        limit: usize,
    },
    /// A split depth given to the join algorithm, which has none.
    #[error("the join algorithm has no split depth, so split depth {0} does not apply to it")]
    JoinSplitDepth(usize),
    /// A board too large for the join algorithm.
    #[error(
        "the join algorithm handles boards up to n = {largest} (its quadrant lists would not fit in memory for n = {n}); the symmetry algorithm counts larger boards"
    )]
    JoinTooLarge {
        /// Asked for.
        n: usize,
        /// Largest allowed.
        largest: usize,
    },
    /// Another method asked for on a constrained board, which only the constrained search
    /// counts.
    #[error(
        "a constrained board is counted by the constrained search; the {0} algorithm cannot count it"
    )]
    MethodForBoard(super::algorithm::Algorithm),
    /// A plan hash that is not 16 lowercase hex digits.
    #[error("'{0}' is not a plan hash: 16 lowercase hex digits")]
    BadHash(String),
    /// A constrained count asked for without its board.
    #[error("the constrained algorithm counts a given board: build its plan from the board")]
    BoardNeeded,
}

impl From<SizeError> for PlanError {
    fn from(e: SizeError) -> PlanError {
        PlanError::BoardSize(e.0)
    }
}
