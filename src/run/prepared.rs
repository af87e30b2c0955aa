//! The engines made ready for one plan: what its subproblems share (the join algorithm's
//! quadrant lists) is built once per run, then every subproblem is handed to its engine.

use std::sync::atomic::AtomicBool;

use crate::constraint::{self, PieceKind};
use crate::engine::Found;
use crate::engine::join::{self, Quadrants};
use crate::engine::kernel;
use crate::plan::{Algorithm, Plan, Subproblem, Work};
use crate::symmetry;
use crate::tally::Piece;

/// A plan with its engines' shared state, ready to count subproblems from any thread.
#[derive(Debug)]
pub struct Prepared<'p> {
    plan: &'p Plan,
    /// The join algorithm's quadrant lists, shared by every thread (join plans only).
    quadrants: Option<Quadrants>,
    /// A constrained board's allowed squares per row (empty for other plans).
    allowed: Vec<u64>,
}

impl<'p> Prepared<'p> {
    /// Builds what `plan`'s subproblems share. Called inside a worker pool, the join
    /// algorithm's lists are built on that pool's threads.
    pub fn new(plan: &'p Plan) -> Prepared<'p> {
        let quadrants = (plan.algorithm == Algorithm::Join).then(|| Quadrants::build(plan.n));
        let allowed = plan.board.as_ref().map_or_else(Vec::new, |b| b.allowed());
        Prepared {
            plan,
            quadrants,
            allowed,
        }
    }

    /// The plan being counted.
    pub fn plan(&self) -> &'p Plan {
        self.plan
    }

    /// The modelled cost of a subproblem, for progress: the join algorithm's model of a unit
    /// ([`join::unit_cost`]) from the prepared lists, the plan's estimate otherwise.
    pub fn cost(&self, sub: &Subproblem) -> f64 {
        match (sub.work, &self.quadrants) {
            (Work::Join { unit, .. }, Some(q)) => join::unit_cost(q, &unit),
            _ => sub.estimate,
        }
    }

    /// Counts one subproblem of the plan.
    pub fn solve(&self, sub: &Subproblem) -> Piece {
        static NEVER: AtomicBool = AtomicBool::new(false);
        self.solve_until(sub, &NEVER)
            .expect("a count that is never stopped ends")
    }

    /// Counts one subproblem of the plan, giving up (`None`) soon after `stop` is raised: within
    /// milliseconds in the kernel; the join's units are short and end first.
    pub fn solve_until(&self, sub: &Subproblem, stop: &AtomicBool) -> Option<Piece> {
        let found = match sub.work {
            Work::Complete { frame, start, .. } => {
                kernel::complete_until(&self.plan.frames[frame as usize], &start, stop)?
            }
            Work::Invariant { quarter, first } => {
                let (count, nodes) =
                    symmetry::count_invariant(self.plan.n, quarter, usize::from(first));
                Found { count, nodes }
            }
            Work::Constrained { start } => return self.solve_constrained(sub.id, &start, stop),
            Work::Join { unit, .. } => {
                let q = self
                    .quadrants
                    .as_ref()
                    .expect("a plan with join units is prepared with quadrant lists");
                join::count_unit(q, &unit)
            }
        };
        Some(Piece {
            id: sub.id,
            count: found.count.into(),
            nodes: found.nodes,
        })
    }

    /// Counts one subproblem of a constrained board: queens by backtracking, rooks by the
    /// route their counter picks.
    fn solve_constrained(
        &self,
        id: u64,
        start: &kernel::Start,
        stop: &AtomicBool,
    ) -> Option<Piece> {
        let board = self.plan.board.as_ref()?;
        let allowed = &self.allowed;
        let done = match board.piece() {
            PieceKind::Queen => constraint::complete(allowed, true, start, stop)?,
            PieceKind::Rook => constraint::count_rooks(allowed, start, stop)?,
        };
        Some(Piece {
            id,
            count: done.count,
            nodes: done.nodes,
        })
    }
}

/// Counts one subproblem of `plan` on its own, preparing the engines for it (for tests and
/// tools; a run prepares once for all its subproblems).
pub fn solve_one(plan: &Plan, sub: &Subproblem) -> Piece {
    Prepared::new(plan).solve(sub)
}
