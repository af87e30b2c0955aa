//! The run's cost model: how the run orders its work, cuts it into slices and tells time, from
//! the measured figures each engine's adapter holds ([`super::engines`]). None of it is part of
//! a plan's identity (a plan is fixed by the board alone, [`crate::plan`]): a run cuts each
//! entry of its plan into slices of about [`SLICE_SECONDS`] (or what `--slice-seconds` asks),
//! records the cut in its files where a resume needs it, and orders its work and weighs its
//! progress by the estimates; retuning any figure changes how a run goes, never what files
//! agree on.
//!
//! Each figure says where it was measured; `results/large-n.md` and `results/eta-checks.md`
//! hold the runs.

use super::class::Class;
use super::engines::Engines;
use crate::config::Config;
use crate::plan::{Plan, Subproblem, Work};

/// How long a slice of a long entry takes by default ([`Config::SLICE_SECONDS`]).
pub(crate) const SLICE_SECONDS: f64 = Config::SLICE_SECONDS;

pub use crate::plan::MOST_SLICES;

/// The costs of one plan's entries, for a run that cuts its slices to `slice_seconds`.
#[derive(Debug)]
pub struct CostModel {
    engines: Engines,
    slice_seconds: f64,
}

impl CostModel {
    /// The model of `plan`'s entries, cutting slices of about `slice_seconds` (positive).
    pub fn new(plan: &Plan, slice_seconds: f64) -> CostModel {
        CostModel {
            engines: Engines::new(plan),
            slice_seconds: if slice_seconds > 0.0 {
                slice_seconds
            } else {
                SLICE_SECONDS
            },
        }
    }

    /// The adapters of the plan's engines, unprepared.
    pub(super) fn engines(&self) -> &Engines {
        &self.engines
    }

    /// The slice time the run cuts to, in seconds.
    pub(super) fn slice_seconds(&self) -> f64 {
        self.slice_seconds
    }

    /// How many slices a run cuts an entry of `work` into: one where it takes seconds, else
    /// enough that each slice stays near the slice time, as finely as its engine allows.
    pub(crate) fn slices(&self, work: &Work) -> u64 {
        let engine = self.engines.of(work);
        let slices = (engine.seconds(work) / self.slice_seconds)
            .ceil()
            .clamp(1.0, MOST_SLICES as f64) as u64;
        slices.min(engine.finest(work))
    }

    /// A rough relative size of subproblem `s`: its entry's, shared among its slices.
    pub(super) fn estimate(&self, s: &Subproblem) -> f64 {
        self.engines.of(&s.work).size(&s.work) / s.slice.of.max(1) as f64
    }

    /// The class of subproblem `s` ([`Class`]).
    pub(super) fn class(&self, s: &Subproblem) -> Class {
        self.engines.of(&s.work).class(&s.work, self.estimate(s))
    }

    /// The class `s` is paced with for the time left: its class, or `None` where its engine
    /// paces all its work together.
    pub(super) fn pace(&self, s: &Subproblem) -> Option<Class> {
        self.engines
            .of(&s.work)
            .paced_apart()
            .then(|| self.class(s))
    }

    /// Which subproblems share what a thread prepares for them (0: none).
    pub(super) fn shares(&self, s: &Subproblem) -> u32 {
        self.engines.of(&s.work).shares(&s.work)
    }
}
