//! The door between the plan and the engines: the one file of the runner that knows which
//! engine counts each kind of work (`plan::Work`), and puts the plan's work into the engine's
//! types (the `From` impls at the end). What a plan's subproblems share (the join
//! algorithm's quadrant lists) is built once per run, then every subproblem is handed to its
//! engine; and the run's cost model, schedule and memory ask here what each kind of work
//! costs, how it is cut, classed and grouped, and what its engine keeps.

use std::sync::atomic::AtomicBool;

use super::class::{Class, half_octave};
use super::cost::{CostModel, search_estimate};
use crate::constraint::PieceKind;
use crate::plan::{Algorithm, Frame, Plan, Slice, Start, Subproblem, Unit, Work};
use crate::tally::Counted;
use nqueens_engine::Found;
use nqueens_engine::join::{self, Quadrants};
use nqueens_engine::{constrained, half_turn, invariant, kernel};

/// A plan with its engines' shared state, ready to count subproblems from any thread.
#[derive(Debug)]
pub struct Prepared<'p> {
    plan: &'p Plan,
    /// The plan's frames, as the kernel takes them.
    frames: Vec<kernel::Frame>,
    /// The join algorithm's quadrant lists, shared by every thread (join plans only).
    quadrants: Option<Quadrants>,
    /// A constrained board's allowed squares per row (empty for other plans).
    allowed: Vec<u64>,
}

impl<'p> Prepared<'p> {
    /// Builds what `plan`'s subproblems share. A join plan's units make their own partitions
    /// of the quadrants (the memory-bounded layout, [`Quadrants::bounded`]), each thread
    /// keeping up to `cache` bytes of them, and count with the quarter turns where the plan
    /// says so; on the smallest boards, where that is faster, the whole quadrant lists are
    /// built once (`run::cost::join_layout`).
    pub fn new(plan: &'p Plan, cache: usize) -> Prepared<'p> {
        let quadrants = (plan.algorithm() == Algorithm::Join).then(|| {
            let turning = plan.quarter_turns();
            match super::cost::join_layout(plan.n()) {
                join::Layout::Lists if !turning => Quadrants::build(plan.n()),
                _ => Quadrants::bounded_turning(plan.n(), cache, turning),
            }
        });
        let allowed = plan.board().map_or_else(Vec::new, |b| b.allowed());
        Prepared {
            plan,
            frames: plan.frames().iter().map(kernel::Frame::from).collect(),
            quadrants,
            allowed,
        }
    }

    /// The seconds counting `sub` takes on this thread, measured (a join unit on a share of
    /// its work, [`super::engines::probe::time_unit`]); `None` if `stop` rose first.
    pub fn time(&self, sub: &Subproblem, stop: &AtomicBool) -> Option<f64> {
        if let (Work::Join { unit, .. }, Some(q)) = (sub.work, &self.quadrants) {
            let probe = join::Probe {
                row_sets: 4,
                bins: 24,
                seed: sub.id as usize,
            };
            return super::engines::probe::time_unit(q, &join_unit(unit, sub.slice), probe, stop);
        }
        let begun = std::time::Instant::now();
        self.solve_until(sub, stop)?;
        Some(begun.elapsed().as_secs_f64())
    }

    /// Counts one subproblem of the plan, giving up (`None`) soon after `stop` is raised: within
    /// milliseconds in the kernel, within a small share of a unit in the join.
    pub fn solve_until(&self, sub: &Subproblem, stop: &AtomicBool) -> Option<Counted> {
        let slice = sub.slice;
        let counted = |count, nodes| Counted {
            id: sub.id,
            entry: sub.entry,
            slice,
            count,
            nodes,
        };
        let found = match sub.work {
            Work::Complete { frame, start, .. } => {
                let frame = &self.frames[frame as usize];
                kernel::complete_slice_until(frame, &start.into(), slice.into(), stop)?
            }
            Work::QuarterTurn { first } => {
                let (count, nodes) = invariant::count_invariant(self.plan.n(), true, first.into());
                Found { count, nodes }
            }
            Work::HalfTurn { first } => {
                half_turn::count_half_turn_until(self.plan.n(), first.into(), slice.into(), stop)?
            }
            // A constrained board: queens by backtracking, rooks by the route their counter picks.
            Work::Constrained { start } => {
                let allowed = &self.allowed;
                let start = kernel::Start::from(start);
                let done = match self.plan.board()?.piece() {
                    PieceKind::Queen => {
                        constrained::complete_slice(allowed, &start, slice.into(), stop)?
                    }
                    // The plan never cuts a rook board's subproblems; were one cut, its first
                    // slice would count it whole.
                    PieceKind::Rook if slice.index > 0 => constrained::Completed::default(),
                    PieceKind::Rook => constrained::count_rooks(allowed, &start, stop)?,
                };
                return Some(counted(done.count, done.nodes));
            }
            Work::Join { unit, .. } => {
                let q = self
                    .quadrants
                    .as_ref()
                    .expect("a plan with join units is prepared with quadrant lists");
                join::count_unit_until(q, &join_unit(unit, slice), stop)?
            }
        };
        Some(counted(found.count.into(), found.nodes))
    }
}

/// What the run asks of the engines of a plan besides counting: the memory they keep and how
/// a timed probe counts. With [`Prepared::solve_until`], the only place of the runner that
/// knows which engine counts which plan.
impl Prepared<'_> {
    /// The bytes the engines of `plan` keep on `threads` threads besides the plan and its
    /// bookkeeping: the join's buffers (its memory model, `join::memory_needed`, in the layout
    /// the run uses); `None` where they keep next to nothing (the kernels' searches, a
    /// constrained board's).
    pub(super) fn engine_bytes(plan: &Plan, threads: usize) -> Option<u64> {
        let n = plan.n();
        (plan.algorithm() == Algorithm::Join)
            .then(|| join::memory_needed(n, threads, super::cost::join_layout(n)))
    }

    /// The bytes of partitions each of `threads` threads may keep between the units of a join
    /// plan in the memory-bounded layout: half of what `available` leaves once the layout's
    /// own need is met, at most `most` a thread (also where `available` is unknown); none for
    /// the other plans.
    pub(super) fn partition_cache(
        plan: &Plan,
        threads: usize,
        available: Option<u64>,
        most: u64,
    ) -> usize {
        if plan.algorithm() != Algorithm::Join {
            return 0;
        }
        let cache = match available {
            Some(a) => {
                let need = join::memory_needed(plan.n(), threads, join::Layout::Bounded);
                (a.saturating_sub(need) / threads as u64 / 2).min(most)
            }
            None => most,
        };
        cache as usize
    }

    /// Whether [`Prepared::time`] counts a subproblem of `plan` whole: not a join unit's,
    /// which it times on a share of its work, so that even a stratum timed whole keeps an
    /// error of its own.
    pub(super) fn times_whole(plan: &Plan) -> bool {
        plan.algorithm() != Algorithm::Join
    }
}

/// What the run's cost model and schedule ask of each kind of work, by the engine that counts
/// it: its estimate and its cut (with the measured figures of [`CostModel`]), its class of
/// cost, and which subproblems share what the engines prepare. With the two `impl` blocks
/// above, the only place outside the plan that matches on the kinds of work.
///
/// A rough relative size of a whole entry, for ordering work and weighing the time left: a
/// kernel or constrained search by its free squares, a join unit by its stratum's measured
/// mean seconds where measured (else 1), a search of the unique count 1.
pub(super) fn entry_estimate(costs: &CostModel, plan: &Plan, work: &Work) -> f64 {
    match *work {
        Work::Complete { frame, start, .. } => search_estimate(plan.frame(frame), &start),
        Work::Join { unit, .. } => costs.unit_estimate(&unit.into()),
        Work::Constrained { start, .. } => costs.constrained_estimate(&start),
        Work::HalfTurn { .. } | Work::QuarterTurn { .. } => 1.0,
    }
}

/// [`entry_estimate`] of the entry `s` belongs to, shared among its slices.
pub(super) fn estimate(costs: &CostModel, plan: &Plan, s: &Subproblem) -> f64 {
    entry_estimate(costs, plan, &s.work) / s.slice.of.max(1) as f64
}

/// How many slices a run cuts an entry of `work` into: one where it takes seconds, else
/// enough that each slice stays near the slice time ([`CostModel`]); a quarter-turn search
/// never.
pub(crate) fn entry_slices(costs: &CostModel, plan: &Plan, work: &Work) -> u64 {
    match *work {
        Work::Complete { frame, start, .. } => costs.search_slices(plan.frame(frame), &start),
        Work::Join { unit, .. } => costs.unit_slices(&unit.into()),
        Work::Constrained { start, .. } => costs.constrained_slices(plan, &start),
        Work::HalfTurn { .. } => costs.half_turn_slices(),
        Work::QuarterTurn { .. } => 1,
    }
}

/// The class of subproblem or entry `s` of `plan`, whose estimates `costs` gives
/// ([`Class`]).
pub(super) fn class_of(plan: &Plan, costs: &CostModel, s: &Subproblem) -> Class {
    match s.work {
        Work::Join { unit, .. } => Class::Join(join::stratum(plan.n(), &unit.into())),
        Work::Complete { frame, .. } => Class::Search {
            family: plan.family(frame),
            size: half_octave(estimate(costs, plan, s)),
        },
        Work::HalfTurn { .. } => Class::HalfTurn,
        Work::QuarterTurn { .. } => Class::QuarterTurn,
        Work::Constrained { .. } => Class::Constrained {
            size: half_octave(estimate(costs, plan, s)),
        },
    }
}

/// Which subproblems share what a thread prepares for them, for the schedule to keep them
/// together: the join units of one middle-queen pair (lists filtered for that pair) share a
/// number other than 0.
pub(super) fn shares_with(s: &Subproblem) -> u32 {
    match s.work {
        Work::Join { unit, .. } => unit.middle.map_or(0, |m| {
            1 + (u32::from(m.column_queen) << 8 | u32::from(m.row_queen))
        }),
        Work::Complete { .. }
        | Work::HalfTurn { .. }
        | Work::QuarterTurn { .. }
        | Work::Constrained { .. } => 0,
    }
}

/// The plan's work in the engines' types: a frame and a start for the kernel (and a
/// constrained board's search), a unit for the join, a slice for every engine that deals one.
impl From<&Frame> for kernel::Frame {
    fn from(f: &Frame) -> kernel::Frame {
        kernel::Frame {
            mask: f.mask,
            depth: f.depth,
            fixed: f.fixed,
            step: f.step,
        }
    }
}

impl From<Start> for kernel::Start {
    fn from(s: Start) -> kernel::Start {
        kernel::Start {
            level: s.level,
            cols: s.cols,
            diag: s.diag,
            anti: s.anti,
        }
    }
}

impl From<Slice> for nqueens_engine::Slice {
    fn from(s: Slice) -> nqueens_engine::Slice {
        nqueens_engine::Slice {
            index: s.index,
            of: s.of,
        }
    }
}

/// A whole join unit, for its stratum and estimates.
impl From<Unit> for join::Unit {
    fn from(u: Unit) -> join::Unit {
        join_unit(u, Slice::WHOLE)
    }
}

/// Slice `slice` of join unit `u`, in the engine's type.
fn join_unit(u: Unit, slice: Slice) -> join::Unit {
    join::Unit {
        east_rows: u.east_rows,
        middle: u.middle.map(|m| join::Middle {
            column_queen: m.column_queen,
            row_queen: m.row_queen,
        }),
        span: u.span,
        slice: slice.into(),
    }
}

/// Counts one subproblem of `plan` on its own, preparing the engines for it (for tests and
/// tools; a run prepares once for all its subproblems).
#[cfg(test)]
pub(crate) fn solve_one(plan: &Plan, sub: &Subproblem) -> Counted {
    let never = AtomicBool::new(false);
    let counted = Prepared::new(plan, 0).solve_until(sub, &never);
    counted.expect("a count that is never stopped ends")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plans_work_goes_to_the_engines_and_back_unchanged() {
        for (n, algorithm) in [
            (13, Algorithm::Symmetry),
            (11, Algorithm::Plain),
            (17, Algorithm::Join),
        ] {
            let plan = Plan::build(n, algorithm, None).unwrap();
            for f in plan.frames() {
                assert_eq!(&Frame::from(&kernel::Frame::from(f)), f);
            }
            let mut units = 0;
            let slice = Slice { index: 2, of: 5 };
            let engine = nqueens_engine::Slice::from(slice);
            assert_eq!((engine.index, engine.of), (slice.index, slice.of));
            for work in plan.works() {
                match work {
                    Work::Complete { start, .. } => {
                        assert_eq!(Start::from(kernel::Start::from(start)), start);
                    }
                    Work::Join { unit, .. } => {
                        assert_eq!(Unit::from(join::Unit::from(unit)), unit);
                        let share = join_unit(unit, slice);
                        assert_eq!((share.slice.index, share.slice.of), (2, 5));
                        units += usize::from(unit.middle.is_some());
                    }
                    _ => {}
                }
            }
            assert_eq!(units > 0, algorithm == Algorithm::Join, "n = {n}");
        }
    }
}
