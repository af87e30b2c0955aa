//! Exact counting of the solutions of the N-Queens problem, on every core.
//!
//! The data flows one way: a [`Config`] names the board and the method; a [`plan::Plan`] splits
//! the count into independent subproblems with stable ids; [`run`] spreads them over a local
//! thread pool; the [`kernel`] counts each one with an iterative bitmask backtrack (the `plain`
//! and `symmetry` algorithms), or [`join`] pairs half-boards built from quadrant lists (the
//! `join` algorithm, the default for n = 12 and 14..=23); [`tally`] adds the pieces up in `u128`. The
//! library never prints and never touches rayon's global pool, so it can be embedded anywhere.
//!
//! ```
//! let counts = nqueens::count(&nqueens::Config::new(8)).unwrap();
//! assert_eq!(counts.total, 92);
//! assert_eq!(counts.unique, Some(12));
//! ```

pub mod bench;
pub mod board;
pub mod checkpoint;
pub mod hash;
pub mod engine;
pub use engine::{join, kernel};
pub mod known;
pub mod memory;
pub mod plan;
pub mod run;
pub mod shard;
pub mod solutions;
pub mod symmetry;
pub mod tally;
pub mod trace;

#[cfg(test)]
pub(crate) mod tests_support;

use std::time::Duration;

pub use plan::{Algorithm, Plan};
pub use tally::Sums;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The board size is outside 1..=32.
    #[error("board size {0} is out of range: N must be from 1 to 32")]
    BoardSize(usize),
    /// An unknown algorithm name.
    #[error("unknown algorithm '{0}': expected plain, symmetry or join")]
    Algorithm(String),
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
    /// A split depth given to the join algorithm.
    #[error("the join algorithm has no split depth: --split-depth {0} does not apply to it")]
    JoinSplitDepth(usize),
    /// A board too large for the join algorithm's quadrant lists.
    #[error(
        "the join algorithm handles boards up to n = {largest} (its quadrant lists would not fit in memory for n = {n}); use --algorithm symmetry"
    )]
    JoinTooLarge {
        /// Asked for.
        n: usize,
        /// Largest allowed.
        largest: usize,
    },
    /// The join algorithm's lists would not fit in the available memory.
    #[error(
        "the join algorithm needs about {needed} for n = {n} on {threads} threads, but only {available} is available; use fewer threads or --algorithm symmetry"
    )]
    JoinMemory {
        /// Board size.
        n: usize,
        /// Threads asked for.
        threads: usize,
        /// Estimated need, for people.
        needed: String,
        /// Available memory, for people.
        available: String,
    },
    /// The thread pool could not be started.
    #[error("cannot start the worker threads: {0}")]
    ThreadPool(String),
}

/// What to count and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Board size, 1..=32.
    pub n: usize,
    /// Worker threads; 0 means every hardware thread.
    pub threads: usize,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Rows the plan pre-places; `None` picks a depth that gives every thread plenty of work.
    pub split_depth: Option<usize>,
}

impl Config {
    /// Counting an `n`×`n` board with the default method for its size
    /// ([`Algorithm::default_for`]) on every hardware thread.
    pub fn new(n: usize) -> Config {
        Config {
            n,
            threads: 0,
            algorithm: Algorithm::default_for(n),
            split_depth: None,
        }
    }

    /// The same configuration with `threads` worker threads.
    pub fn threads(mut self, threads: usize) -> Config {
        self.threads = threads;
        self
    }

    /// The same configuration with another algorithm.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Config {
        self.algorithm = algorithm;
        self
    }

    /// The same configuration with a fixed split depth.
    pub fn split_depth(mut self, depth: usize) -> Config {
        self.split_depth = Some(depth);
        self
    }

    /// Builds the plan this configuration describes.
    pub fn plan(&self) -> Result<Plan, Error> {
        Plan::build(
            self.n,
            self.algorithm,
            self.split_depth,
            run::resolve_threads(self.threads),
        )
    }
}

/// The result of a count.
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    /// Board size.
    pub n: usize,
    /// Number of solutions (OEIS A000170).
    pub total: u128,
    /// Number of solutions up to rotation and reflection (OEIS A002562), when the algorithm
    /// computes it.
    pub unique: Option<u128>,
    /// Search nodes visited.
    pub nodes: u128,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Subproblems in the plan.
    pub subproblems: usize,
    /// Rows the plan pre-placed.
    pub split_depth: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Wall-clock time of the count.
    pub elapsed: Duration,
    /// Time each worker spent inside subproblems.
    pub busy: Vec<Duration>,
    /// The process's peak resident memory after the count, in bytes, when known.
    pub peak_memory: Option<u64>,
}

impl Counts {
    /// Nodes per second of wall-clock time.
    pub fn nodes_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.nodes as f64 / s } else { 0.0 }
    }
}

/// Counts the solutions `config` describes.
pub fn count(config: &Config) -> Result<Counts, Error> {
    let begun = std::time::Instant::now();
    let plan = config.plan()?;
    plan.check_memory(run::resolve_threads(config.threads))?;
    let todo: Vec<u64> = plan.subproblems.iter().map(|s| s.id).collect();
    let report = run::execute(&plan, &todo, config.threads, run::Control::default())?;
    let mut sums = Sums::default();
    for piece in &report.pieces {
        sums.add(&plan, piece);
    }
    Ok(Counts {
        n: plan.n,
        total: sums.total,
        unique: sums.unique(&plan),
        nodes: sums.nodes,
        algorithm: plan.algorithm,
        subproblems: plan.subproblems.len(),
        split_depth: plan.split_depth,
        threads: report.threads,
        elapsed: begun.elapsed(),
        busy: report.busy,
        peak_memory: memory::peak(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placement below a start, counted one by one (no bulk counting), so that the
    /// comparison does not depend on the processor's kernel variant.
    fn tree_nodes(f: &kernel::Frame, s: &kernel::Start) -> u64 {
        if s.level >= f.depth {
            return 0;
        }
        plan::bits(f.free(s))
            .map(|c| 1 + tree_nodes(f, &f.descend(s, 1 << c)))
            .sum()
    }

    fn plan_tree_nodes(plan: &Plan) -> u64 {
        plan.subproblems
            .iter()
            .filter_map(|sub| match sub.work {
                plan::Work::Complete { frame, start, .. } => {
                    Some(tree_nodes(&plan.frames[frame as usize], &start))
                }
                plan::Work::Invariant { .. } | plan::Work::Join { .. } => None,
            })
            .sum()
    }

    #[test]
    fn the_symmetry_plan_walks_far_fewer_nodes() {
        let plain = Config::new(12).algorithm(Algorithm::Plain).plan().unwrap();
        let sym = Config::new(12)
            .algorithm(Algorithm::Symmetry)
            .plan()
            .unwrap();
        let (p, s) = (plan_tree_nodes(&plain), plan_tree_nodes(&sym));
        // Measured: 0.51 of the mirror-only plan's tree at n = 12 (218882 vs 425615).
        assert!(s * 5 < p * 3, "{s} vs {p}");
    }

    #[test]
    fn brute_force_agrees_for_small_boards() {
        for n in 1..=9 {
            let sols = tests_support::all_solutions(n);
            let c = count(&Config::new(n).threads(2)).unwrap();
            assert_eq!(c.total, sols.len() as u128);
            assert_eq!(
                c.unique,
                Some(tests_support::distinct_up_to_symmetry(n, &sols))
            );
        }
    }
}
