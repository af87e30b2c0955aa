//! The counting engines: the two ways a subproblem's solutions are counted.
//!
//! * [`kernel`]: the iterative bitmask backtrack that completes a partly filled board (the
//!   `plain` and `symmetry` plans);
//! * [`join`]: half-boards built from quadrant lists and paired by their diagonal patterns (the
//!   `join` plan).
//!
//! Engines know nothing of plans, threads, files or terminals: they take one piece of work
//! and return what they [`Found`]. They are internal; benchmarks and the tools in `examples/`
//! reach them through [`crate::internals`].

pub mod join;
pub mod kernel;

/// What an engine found for one piece of work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Solutions (before the subproblem's weight is applied).
    pub count: u64,
    /// Work done, for rates: search nodes for the kernel (queens placed one at a time; the
    /// levels counted in bulk place none, so this depends on the processor), half-boards made
    /// for the join.
    pub nodes: u64,
}
