//! The results of subproblems and their sums: weighted totals, the rotation-invariant counts
//! and nodes, in `u128`.
//!
//! Each subproblem's own count fits a `u64`; the sums may not (Q(29) exceeds 2^64), so every
//! sum is a `u128`. Sums of disjoint sets of subproblems add, which is what resuming and
//! merging shards rely on.

use serde::{Deserialize, Serialize};

use crate::plan::{AddsTo, Plan, Slice};
use nqueens_engine::symmetry;

/// The result of one subproblem, named as files name it, by its entry of the plan and its
/// slice (stable), and by the id of the run that counted it (a run's own,
/// [`Cut`](crate::plan::Cut)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The subproblem's id in the cut of the run that counted it.
    pub id: u64,
    /// The entry of the plan it is a share of.
    pub entry: u64,
    /// Which share of the entry ([`Slice::WHOLE`] for an entry counted whole).
    pub slice: Slice,
    /// Raw count (before the subproblem's weight is applied); a `u128`, as a rook count of a
    /// constrained board may exceed 2^64 in one subproblem.
    pub count: u128,
    /// Search nodes visited.
    pub nodes: u64,
}

/// Running sums over a set of subproblems of one plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sums {
    /// Solutions: each completion times its subproblem's weight.
    pub total: u128,
    /// Solutions a half turn leaves unchanged.
    pub half_turn: u128,
    /// Solutions a quarter turn leaves unchanged.
    pub quarter_turn: u128,
    /// Search nodes visited.
    pub nodes: u128,
    /// Subproblems added (in files `counted`; formats 1 to 3 named it `pieces`).
    #[serde(alias = "pieces")]
    pub counted: u64,
}

impl Sums {
    /// The sums of `subproblems` of `plan`.
    pub fn of<'a>(plan: &Plan, subproblems: impl IntoIterator<Item = &'a Counted>) -> Sums {
        let mut sums = Sums::default();
        for p in subproblems {
            sums.add(plan, p);
        }
        sums
    }

    /// Adds one subproblem of `plan`.
    pub fn add(&mut self, plan: &Plan, subproblem: &Counted) {
        let c = subproblem.count;
        match plan.entry(subproblem.entry).adds_to() {
            AddsTo::Solutions { weight } => self.total += c * u128::from(weight),
            AddsTo::HalfTurn => self.half_turn += c,
            AddsTo::QuarterTurn => self.quarter_turn += c,
        }
        self.nodes += u128::from(subproblem.nodes);
        self.counted += 1;
    }

    /// Adds the sums of a disjoint set of subproblems.
    pub fn merge(&mut self, other: &Sums) {
        self.total += other.total;
        self.half_turn += other.half_turn;
        self.quarter_turn += other.quarter_turn;
        self.nodes += other.nodes;
        self.counted += other.counted;
    }

    /// Whether complete sums of a plan with a unique count pass the check Burnside's lemma
    /// gives for n ≥ 2: `Q + P + 2R` is a multiple of 8, and `P ≥ R` (every quarter-turn
    /// invariant solution is half-turn invariant). An altered subproblem or a miscount is caught
    /// here unless it changes the sums by a multiple of 8.
    pub fn burnside_holds(&self, n: usize) -> bool {
        n < 2
            || ((self.total + self.half_turn + 2 * self.quarter_turn).is_multiple_of(8)
                && self.half_turn >= self.quarter_turn)
    }

    /// The unique count, when the plan computes one and these sums are complete.
    pub fn unique(&self, plan: &Plan) -> Option<u128> {
        plan.has_unique()
            .then(|| symmetry::unique_from(plan.n(), self.total, self.half_turn, self.quarter_turn))
    }
}
