//! Exact counting of the solutions of the N-Queens problem, on every core.
//!
//! The data flows one way, and the modules follow it: a [`Config`] names the board and the
//! method; a [`Plan`] splits the count into independent entries, numbered stably: what every
//! run, file and shard of the count agrees on (`plan`); a [`Job`] cuts the long entries into
//! slices for its own run (a [`Cut`], whose subproblem ids are that run's and not stable) and
//! runs them on a local thread pool, with cancellation, progress, checkpoints and shards
//! (`run`, `persist`); the engines count each subproblem: an iterative bitmask backtrack
//! for the `plain` and `symmetry` plans, half-boards from quadrant lists paired by diagonal
//! patterns for `join`, the default from n = 14 on and for 12 ([`Algorithm::default_for`]);
//! [`Sums`] add the subproblems up in `u128`. The library never prints and never touches rayon's
//! global pool, so it can be embedded anywhere. `ARCHITECTURE.md` maps each stage to its files.
//!
//! One line counts a board:
//!
//! ```
//! let counts = nqueens::count(&nqueens::Config::new(8)).unwrap();
//! assert_eq!(counts.total, 92);
//! assert_eq!(counts.unique, Some(12));
//! ```
//!
//! A constrained board (pre-placed pieces, blocked squares, queens or rooks; [`constraint`])
//! is counted by the same pipeline, without symmetry and without a unique count. The
//! book-assignment exercise, five students each accepting some of five books, has one answer:
//!
//! ```
//! use nqueens::constraint::{PieceKind, parse_allowed};
//!
//! let books = parse_allowed("5\n00110\n11000\n01100\n00010\n01001\n", PieceKind::Rook).unwrap();
//! let counts = nqueens::count(&nqueens::Config::board(books.clone())).unwrap();
//! assert_eq!((counts.total, counts.unique), (1, None));
//! let mut answers = Vec::new();
//! books.for_each_solution(|cols| {
//!     answers.push(books.tuple_of(cols));
//!     std::ops::ControlFlow::Continue(())
//! });
//! assert_eq!(answers, ["3 1 2 4 5"]);
//! ```
//!
//! A [`Job`] lets the caller watch the subproblems as they finish, cancel, and resume:
//!
//! ```
//! use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
//! use nqueens::{Config, Control, Job, Counted, Status};
//!
//! let job = Job::new(&Config::new(12).threads(2)).unwrap();
//! let (stop, done) = (AtomicBool::new(false), AtomicUsize::new(0));
//! let observe = |_: &Counted, _: &Status| {
//!     // Stop after ten subproblems; those in flight are dropped and counted again on resume.
//!     if done.fetch_add(1, Ordering::SeqCst) + 1 == 10 {
//!         stop.store(true, Ordering::SeqCst);
//!     }
//! };
//! let control = Control { cancel: Some(&stop), observer: Some(&observe), save_failed: None };
//! let first = job.run(control).unwrap();
//! assert!(first.cancelled && first.counts().is_none());
//!
//! // Later, perhaps in another process: resume from the finished subproblems.
//! let rest = Job::new(&Config::new(12)).unwrap().resume(first.counted.into_values()).unwrap();
//! let counts = rest.run(Control::default()).unwrap().counts().unwrap();
//! assert_eq!((counts.total, counts.unique), (14200, Some(1787)));
//! ```
//!
//! A count shared out in shards, one per task of a cluster's array job, each writing its
//! result file, then merged (the files are checked: every shard once, intact, of one plan):
//!
//! ```
//! use nqueens::persist::{self, Shard};
//! use nqueens::{Config, Control, Job};
//!
//! let dir = std::env::temp_dir().join(format!("nqueens-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let mut files = Vec::new();
//! for index in 0..4 {
//!     let job = Job::new(&Config::new(12).threads(1))?.shard(Shard::new(index, 4)?);
//!     let outcome = job.run(Control::default())?;
//!     let path = dir.join(format!("shard-{index}.json"));
//!     job.shard_result(&outcome).write(&path)?;
//!     files.push(path);
//! }
//! let merged = persist::merge(&files, persist::MergeOptions::default())?.merged;
//! assert_eq!((merged.sums.total, merged.unique), (14200, Some(1787)));
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The library is the package `nqueens`, beside the program `nqueens-count` and the engines
//! `nqueens-engine`, which it uses and does not show, but for their table of published counts
//! ([`known`]).

#![deny(missing_docs)]
// Every type a public function takes or returns has a public path, so that callers can name it.
#![warn(unnameable_types)]

// The Rust examples of the README and the guide are compiled and run as doc tests, so that
// they stay true (their commands run in `tests/docs.rs`).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
struct GuideExamples;

mod board;
mod config;
pub mod constraint;
mod error;
mod hash;
pub mod persist;
pub mod plan;
mod run;
mod shard;
mod solutions;
mod system;
mod tally;
mod trace;

#[cfg(test)]
pub(crate) mod tests_support;

pub use nqueens_engine::known;

pub use config::Config;
pub use error::{Error, MemoryAdvice};
pub use plan::{Algorithm, Cut, Plan};
/// The seconds a join unit takes, projected from a probe of it as `--estimate` projects it
/// (for the measurement tools that time the join's units one by one).
pub use run::probe_seconds as time_join_unit;
pub use run::{
    Control, Counts, DamagedFile, Estimate, Job, MACHINE_SPREAD, MemoryNeeds, MergeChecks, Outcome,
    Recount, Recounted, Status, Survey, count, file_rules, most_file_bytes,
};
pub use system::Bytes;
pub use tally::{Counted, Sums};
pub use trace::{TraceExtent, TraceSummary};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Work;
    use nqueens_engine::kernel::{Frame, Start};

    /// Every placement below a start, counted one by one (no bulk counting), so that the
    /// comparison does not depend on the processor's kernel variant.
    fn tree_nodes(f: &Frame, s: &Start) -> u64 {
        if s.level >= f.depth {
            return 0;
        }
        plan::bits(f.free(s))
            .map(|c| 1 + tree_nodes(f, &f.descend(s, 1 << c)))
            .sum()
    }

    fn plan_tree_nodes(plan: &Plan) -> u64 {
        plan.works()
            .filter_map(|work| match work {
                Work::Complete { frame, start, .. } => {
                    Some(tree_nodes(&plan.frame(frame).into(), &start.into()))
                }
                _ => None,
            })
            .sum()
    }

    #[test]
    fn the_symmetry_plan_walks_far_fewer_nodes() {
        let plain = Plan::build(12, Algorithm::Plain, None).unwrap();
        let sym = Plan::build(12, Algorithm::Symmetry, None).unwrap();
        let (p, s) = (plan_tree_nodes(&plain), plan_tree_nodes(&sym));
        // About half of the mirror-only plan's tree at n = 12.
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
