//! The adapter of a constrained board's searches: queens by backtracking over the board's
//! allowed squares, rooks by the route their counter picks (a sum it shares among the pool's
//! threads), with the measured figures that size them.

use std::sync::atomic::AtomicBool;

use super::engine::Engine;
use super::kernel::{SECONDS_PER_ESTIMATE, SHRINK};
use crate::constraint::{Board, PieceKind};
use crate::plan::{Slice, Start, Work};
use crate::run::class::{Class, half_octave};
use nqueens_engine::{constrained, kernel};

/// The searches of one constrained board: its allowed squares per row and its piece.
#[derive(Debug)]
pub(super) struct Constrained {
    allowed: Vec<u64>,
    piece: PieceKind,
}

impl Constrained {
    pub(super) fn new(board: &Board) -> Constrained {
        Constrained {
            allowed: board.allowed(),
            piece: board.piece(),
        }
    }
}

/// The rank of a constrained board's classes among a plan's ([`Class`]).
const RANK: u8 = 4;

/// The start of a constrained search.
fn start_of(work: &Work) -> Start {
    let Work::Constrained { start } = *work else {
        unreachable!("a constrained board's engine is given its searches only")
    };
    start
}

impl Engine for Constrained {
    fn count(&self, work: &Work, slice: Slice, stop: &AtomicBool) -> Option<(u128, u64)> {
        let (allowed, start) = (&self.allowed, kernel::Start::from(start_of(work)));
        let done = match self.piece {
            PieceKind::Queen => constrained::complete_slice(allowed, &start, slice.into(), stop)?,
            // A rook board's subproblems are never cut; were one cut, its first slice would
            // count it whole.
            PieceKind::Rook if slice.index > 0 => constrained::Completed::default(),
            PieceKind::Rook => constrained::count_rooks(allowed, &start, stop)?,
        };
        Some((done.count, done.nodes))
    }

    /// The one size of the piece's search, which both orders and cuts it: a queens search in
    /// the kernel's measure ([`queens_size`]), a rook board's by its columns
    /// ([`rooks_size`]).
    fn size(&self, work: &Work) -> f64 {
        let start = start_of(work);
        match self.piece {
            PieceKind::Queen => queens_size(&self.allowed, &start),
            PieceKind::Rook => rooks_size(&self.allowed, &start),
        }
    }

    /// A queens search by its size; a rook board's subproblems are counted whole (its engine
    /// shares a long sum among the threads instead).
    fn seconds(&self, work: &Work) -> f64 {
        match self.piece {
            PieceKind::Queen => CONSTRAINED_RATE * self.size(work) * SECONDS_PER_ESTIMATE,
            PieceKind::Rook => 0.0,
        }
    }

    /// Searches whose estimates lie in one half-octave.
    fn class(&self, _: &Work, size: f64) -> Class {
        Class::new(RANK, u64::from(half_octave(size)))
    }

    /// A rook board's sum is shared among the pool's threads, up to its parts.
    fn parts(&self) -> usize {
        match self.piece {
            PieceKind::Queen => 1,
            PieceKind::Rook => constrained::MOST_PARTS,
        }
    }
}

/// How much slower a constrained queens search runs than the kernel, per unit of the
/// kernel's size estimate ([`queens_size`]): it has no bulk bottom levels and reads a
/// mask a row: measured 0.8 to 2.3 times the kernel's slowest rate on boards of n = 18 to 23
/// with two blocked squares (`results/large-n.md`).
const CONSTRAINED_RATE: f64 = 3.0;

/// The size of the constrained queens search below `start` in the kernel's measure
/// ([`search_estimate`](super::kernel::search_estimate)).
fn queens_size(allowed: &[u64], start: &Start) -> f64 {
    let (mut diag, mut anti) = (start.diag, start.anti);
    let mut log = 0.0f64;
    for &row in &allowed[start.level..] {
        let free = row & !(start.cols | diag | anti);
        log += f64::from(free.count_ones().max(1)).ln();
        diag <<= 1;
        anti >>= 1;
    }
    (SHRINK * log).exp()
}

/// A rough size of a rook search: the product of the free squares left in each row (columns
/// only, as rooks see no diagonal).
fn rooks_size(allowed: &[u64], start: &Start) -> f64 {
    allowed
        .get(start.level..)
        .unwrap_or(&[])
        .iter()
        .map(|&m| f64::from((m & !start.cols).count_ones().max(1)).ln())
        .sum::<f64>()
        .min(600.0)
        .exp()
}
