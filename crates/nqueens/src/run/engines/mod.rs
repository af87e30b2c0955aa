//! The engines behind one trait: the runner asks what it needs of a kind of work (count a
//! slice of it, time it, its size for the order and the cut, its class, its memory) through
//! [`Engine`] (`engine.rs`), and never names an engine. One adapter per engine, each with
//! its own measured figures beside it (`kernel.rs`, `join.rs` with the clock of its probe in
//! `probe.rs`, `constrained.rs`, `unique.rs`); this file alone knows which adapter serves
//! which kind of work ([`Engines::of`]).

mod constrained;
mod engine;
mod join;
mod kernel;
mod probe;
mod unique;

use std::sync::atomic::AtomicBool;

pub(crate) use engine::Engine;
use engine::Timed;
pub use probe::time_unit as probe_seconds;

use crate::plan::{Algorithm, Plan, Slice, Subproblem, Work};
use crate::tally::Counted;

/// The adapters of one plan's engines, one for each kind of work its entries hold.
#[derive(Debug)]
pub(crate) struct Engines {
    kernel: kernel::Kernel,
    join: Option<join::Join>,
    constrained: Option<constrained::Constrained>,
    half_turn: unique::HalfTurn,
    quarter_turn: unique::QuarterTurn,
}

/// The most slices of one entry a worker takes at a time, so that what a slice prepares is
/// made once for a block of them ([`nqueens_engine::join::SLICES_A_BLOCK`]).
pub(super) const SLICES_A_BLOCK: usize = nqueens_engine::join::SLICES_A_BLOCK;

/// Whether a count of an `n`×`n` board refused for its memory may be advised another
/// algorithm: not past the boards whose lists the plan holds, where the others would take
/// years.
pub(super) fn another_algorithm_may_fit(n: usize) -> bool {
    n <= nqueens_engine::join::MAX_LISTED_N
}

impl Engines {
    /// The adapters of `plan`'s engines, unprepared: enough for costs, classes and memory.
    pub(super) fn new(plan: &Plan) -> Engines {
        Engines {
            kernel: kernel::Kernel::new(plan),
            join: (plan.algorithm() == Algorithm::Join).then(|| join::Join::new(plan)),
            constrained: plan.board().map(constrained::Constrained::new),
            half_turn: unique::HalfTurn(plan.n()),
            quarter_turn: unique::QuarterTurn(plan.n()),
        }
    }

    /// The adapters of `plan`'s engines with what their subproblems share built, each thread
    /// keeping up to `cache` bytes between subproblems.
    pub(crate) fn prepared(plan: &Plan, cache: usize) -> Engines {
        let mut engines = Engines::new(plan);
        engines.each_mut(|e| e.prepare(cache));
        engines
    }

    /// The adapter that counts `work`.
    pub(super) fn of(&self, work: &Work) -> &dyn Engine {
        let none = "a plan's work has the engine of its kind";
        match work {
            Work::Complete { .. } => &self.kernel,
            Work::Join { .. } => self.join.as_ref().expect(none),
            Work::Constrained { .. } => self.constrained.as_ref().expect(none),
            Work::HalfTurn { .. } => &self.half_turn,
            Work::QuarterTurn { .. } => &self.quarter_turn,
        }
    }

    /// Every adapter of the plan.
    fn all(&self) -> impl Iterator<Item = &dyn Engine> {
        let optional = [
            self.join.as_ref().map(|e| e as &dyn Engine),
            self.constrained.as_ref().map(|e| e as &dyn Engine),
        ];
        [
            &self.kernel as &dyn Engine,
            &self.half_turn,
            &self.quarter_turn,
        ]
        .into_iter()
        .chain(optional.into_iter().flatten())
    }

    fn each_mut(&mut self, mut f: impl FnMut(&mut dyn Engine)) {
        f(&mut self.kernel);
        f(&mut self.half_turn);
        f(&mut self.quarter_turn);
        if let Some(e) = &mut self.join {
            f(e);
        }
        if let Some(e) = &mut self.constrained {
            f(e);
        }
    }

    /// Counts one subproblem, giving up (`None`) soon after `stop` is raised.
    pub(crate) fn count(&self, sub: &Subproblem, stop: &AtomicBool) -> Option<Counted> {
        let (count, nodes) = self.of(&sub.work).count(&sub.work, sub.slice, stop)?;
        Some(Counted {
            id: sub.id,
            entry: sub.entry,
            slice: sub.slice,
            count,
            nodes,
        })
    }

    /// The seconds counting `sub` takes on this thread in a count on `workers` threads
    /// ([`Engine::time`]).
    pub(super) fn time(&self, sub: &Subproblem, workers: usize, stop: &AtomicBool) -> Option<f64> {
        let how = Timed {
            seed: sub.id,
            workers,
        };
        self.of(&sub.work).time(&sub.work, sub.slice, how, stop)
    }

    /// Whether [`Engines::time`] counts every subproblem whole.
    pub(super) fn times_whole(&self) -> bool {
        self.all().all(|e| e.times_whole())
    }

    /// The bytes the engines keep on `threads` threads besides the plan and its bookkeeping;
    /// `None` where they keep next to nothing.
    pub(super) fn bytes(&self, threads: usize) -> Option<u64> {
        self.all()
            .filter_map(|e| e.bytes(threads))
            .reduce(u64::saturating_add)
    }

    /// The bytes each of `threads` threads may keep between subproblems, given `available`.
    pub(super) fn cache(&self, threads: usize, available: Option<u64>) -> usize {
        self.all().map(|e| e.cache(threads, available)).sum()
    }

    /// The threads one subproblem of the plan can keep busy.
    pub(super) fn parts(&self) -> usize {
        self.all().map(|e| e.parts()).max().unwrap_or(1)
    }
}

/// Counts one subproblem of `plan` on its own, preparing the engines for it (for tests; a run
/// prepares once for all its subproblems).
#[cfg(test)]
pub(crate) fn solve_one(plan: &Plan, sub: &Subproblem) -> Counted {
    let never = AtomicBool::new(false);
    let counted = Engines::prepared(plan, 0).count(sub, &never);
    counted.expect("a count that is never stopped ends")
}

/// The plan's slices in the engines' type.
impl From<Slice> for nqueens_engine::Slice {
    fn from(s: Slice) -> nqueens_engine::Slice {
        nqueens_engine::Slice {
            index: s.index,
            of: s.of,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Cut;
    use crate::run::class::Class;
    use crate::run::cost::{CostModel, SLICE_SECONDS};

    #[test]
    fn every_kind_of_work_has_its_engine_and_class() {
        let n = |plan: &Plan| {
            let costs = CostModel::new(plan, SLICE_SECONDS);
            let cut = Cut::whole(plan.clone());
            let classes: std::collections::BTreeSet<Class> =
                cut.entries().map(|(s, _)| costs.class(&s)).collect();
            classes.len()
        };
        // The join: strata; the unique count's half- and quarter-turn searches; the kernel's
        // families by size; a constrained board's sizes.
        let join = Plan::build(15, Algorithm::Join, None).unwrap();
        assert!(n(&join) > 3);
        let symmetry = Plan::build(12, Algorithm::Symmetry, None).unwrap();
        assert!(n(&symmetry) > 3);
        let engines = Engines::new(&symmetry);
        assert!(engines.times_whole() && engines.bytes(4).is_none());
        assert!(!Engines::new(&join).times_whole());
        assert!(Engines::new(&join).bytes(4).is_some());
        assert_eq!(Engines::new(&join).parts(), 1);
    }

    #[test]
    fn the_plans_slices_go_to_the_engines_unchanged() {
        let slice = Slice { index: 2, of: 5 };
        let engine = nqueens_engine::Slice::from(slice);
        assert_eq!((engine.index, engine.of), (slice.index, slice.of));
    }
}
