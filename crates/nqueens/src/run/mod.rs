//! Running a plan: the one pipeline every count goes through, whatever calls it (the one-line
//! [`crate::count`], the command line, benchmarks, checkpoints, shards).
//!
//! A [`Job`] (`job.rs`) is a plan with the choices of one run: its cut of the entries into
//! slices (a [`crate::plan::Cut`], whose ids are this run's), the threads, the shard it
//! covers, the subproblems it resumes from and the checkpoint it keeps. [`Job::run`] counts
//! what is left on a local pool ([`pool`]), with the engines prepared once ([`engines`]),
//! lets the caller observe every finished subproblem and cancel between subproblems, and
//! returns an [`Outcome`]: the sums of every finished subproblem, resumed ones included, from
//! which the [`Counts`] of a whole count or the result file of a shard are made.

mod allocation;
mod budget;
mod class;
mod cost;
mod engines;
mod estimate;
mod job;
mod outcome;
mod pool;
mod recount;
mod rules;
mod status;
mod survey;
mod watch;

pub use budget::MemoryNeeds;
#[cfg(test)]
pub(crate) use cost::{CostModel, SLICE_SECONDS};
pub use engines::probe_seconds;
#[cfg(test)]
pub(crate) use engines::solve_one;
pub use estimate::{Estimate, MACHINE_SPREAD};
pub use job::Job;
pub use outcome::{Counts, Outcome};
pub use pool::Control;
pub use recount::{MergeChecks, Recount, Recounted};
pub use rules::{file_rules, most_file_bytes};
pub use status::Status;
pub use survey::{DamagedFile, Survey};

use crate::config::Config;
use crate::error::Error;

/// Counts the solutions `config` describes, on the calling thread's behalf (it blocks).
pub fn count(config: &Config) -> Result<Counts, Error> {
    let outcome = Job::new(config)?.run(Control::default())?;
    Ok(outcome
        .counts()
        .expect("an uncancelled whole run finishes every subproblem"))
}

#[cfg(test)]
mod tests;
