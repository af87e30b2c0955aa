//! The adapters of the unique count's searches: the solutions a half turn or a quarter turn
//! leaves unchanged, which every plan that counts unique solutions holds besides its own work.

use std::sync::atomic::AtomicBool;

use super::engine::Engine;
use crate::plan::{Slice, Work};
use crate::run::class::Class;
use nqueens_engine::{half_turn, invariant};

/// The half-turn searches of an `n`×`n` board, one row-0 column each (seconds each at
/// large n).
#[derive(Debug)]
pub(super) struct HalfTurn(pub usize);

/// The quarter-turn searches of an `n`×`n` board (next to nothing each).
#[derive(Debug)]
pub(super) struct QuarterTurn(pub usize);

/// The ranks of the half-turn and quarter-turn searches' classes among a plan's ([`Class`]).
const HALF_TURN_RANK: u8 = 2;
const QUARTER_TURN_RANK: u8 = 3;

/// The first column of a search of the unique count.
fn first(work: &Work) -> usize {
    match *work {
        Work::HalfTurn { first } | Work::QuarterTurn { first } => first.into(),
        _ => unreachable!("the unique count is given its own searches only"),
    }
}

impl Engine for HalfTurn {
    fn count(&self, work: &Work, slice: Slice, stop: &AtomicBool) -> Option<(u128, u64)> {
        let found = half_turn::count_half_turn_until(self.0, first(work), slice.into(), stop)?;
        Some((found.count.into(), found.nodes))
    }

    fn size(&self, _: &Work) -> f64 {
        1.0
    }

    fn seconds(&self, _: &Work) -> f64 {
        half_turn_seconds(self.0)
    }

    fn class(&self, _: &Work, _: f64) -> Class {
        Class::new(HALF_TURN_RANK, 0)
    }
}

impl Engine for QuarterTurn {
    fn count(&self, work: &Work, _: Slice, _: &AtomicBool) -> Option<(u128, u64)> {
        let (count, nodes) = invariant::count_invariant(self.0, true, first(work));
        Some((count.into(), nodes))
    }

    fn size(&self, _: &Work) -> f64 {
        1.0
    }

    /// Never cut.
    fn seconds(&self, _: &Work) -> f64 {
        0.0
    }

    fn class(&self, _: &Work, _: f64) -> Class {
        Class::new(QUARTER_TURN_RANK, 0)
    }
}

/// The longest half-turn search of the unique count (one row-0 column) took 5.3 s at n = 26
/// and 0.46 s at n = 25 on the reference machine (odd boards leave the middle column to the
/// centre queen), growing about 3.5 times a row (`results/large-n.md`): its seconds at n.
fn half_turn_seconds(n: usize) -> f64 {
    let (base, seconds) = if n.is_multiple_of(2) {
        (26, 5.3)
    } else {
        (25, 0.46)
    };
    seconds * 3.5f64.powi(n as i32 - base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::cost::SLICE_SECONDS;

    #[test]
    fn half_turns_are_cut_from_n_28() {
        assert!((2..=27).all(|n| (half_turn_seconds(n) / SLICE_SECONDS).ceil() <= 1.0));
        assert!((28..=32).all(|n| half_turn_seconds(n) > SLICE_SECONDS));
    }
}
