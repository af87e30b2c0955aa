//! The counting engines: the ways a subproblem's solutions are counted.
//!
//! * [`kernel`]: the iterative bitmask backtrack that completes a partly filled board (the
//!   `plain` and `symmetry` plans);
//! * [`join`]: half-boards built from quadrant lists and paired by their diagonal patterns (the
//!   `join` plan);
//! * [`half_turn`] and [`invariant`]: the solutions a half turn or a quarter turn leaves
//!   unchanged, for the unique count of every plan that gives one;
//! * [`constrained`]: boards with pre-placed pieces and blocked squares, queens or rooks;
//! * [`unit_search`]: a join unit counted by a search of the whole board restricted to it, an
//!   independent check of the join (tests and `examples/second_opinion.rs`);
//! * [`known`]: the published counts, which no engine reads to count; the tests here check
//!   against them, and the library shows them as `nqueens::known`.
//!
//! This crate is the lowest of the workspace: it depends on neither the library (`nqueens`,
//! which plans the work, runs it on threads and keeps its files) nor the program. Engines know
//! nothing of plans, files or terminals: they take one subproblem and return what they
//! [`Found`]. They run on the caller's thread, except the join's quadrant lists, built once per
//! run, which share out their rows on the rayon pool they are called from. The benchmarks and
//! the measurement tools in `examples/` use them directly.

#![deny(missing_docs)]
// Every type a public function takes or returns has a public path, so that callers can name it.
#![warn(unnameable_types)]

pub mod brute;
pub mod constrained;
pub mod half_turn;
pub mod invariant;
pub mod join;
pub mod kernel;
pub mod known;
pub mod random;
pub(crate) mod slicing;
pub mod symmetry;
pub mod unit_search;

#[cfg(test)]
mod tests_support;

/// Largest board the engines count: all searches keep one bit per column in a `u64`, and 32
/// columns leave room for 32 more bits of shifted diagonals without any bit of a real column
/// ever being lost.
pub const MAX_N: usize = 32;

/// The mask with the `n` low bits set: one bit per column of an `n`-wide board.
#[inline]
pub const fn full_mask(n: usize) -> u64 {
    if n == 0 { 0 } else { u64::MAX >> (64 - n) }
}

/// The bit of column `c`.
#[inline]
pub const fn bit(c: usize) -> u64 {
    1u64 << c
}

/// A share of one subproblem: slice `index` of `of`, about equal in work, so that a search of
/// hours is counted in slices of seconds, and the slices of a search add up to it on every
/// machine. How a search is dealt out is the engine's: a join unit of several row sets deals its
/// row sets out (every `of`-th to one slice); a unit of one row set deals out its matching (the
/// sieve deals the pairs of its bins, `join/sieve.rs`; where its matching is not sieved,
/// slice 0 counts it whole); the kernel deals out the subtrees of its search
/// ([`kernel::complete_slice_until`]), and its dealer shares out the half-turn searches
/// ([`half_turn`]) and the searches of a constrained board the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// Which slice, from 0.
    pub index: u64,
    /// How many slices the search is cut into (at least 1).
    pub of: u64,
}

impl Slice {
    /// The whole search.
    pub const WHOLE: Slice = Slice { index: 0, of: 1 };
}

/// What an engine found for one subproblem.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Solutions (before the subproblem's weight is applied).
    pub count: u64,
    /// Work done, for rates: search nodes for the kernel (queens placed one at a time; the
    /// levels counted in bulk place none, so this depends on the processor), half-boards made
    /// for the join.
    pub nodes: u64,
}
