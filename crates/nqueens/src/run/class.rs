//! The classes of subproblems alike in cost: one classing for the two places that group subproblems
//! by cost, the estimate (which samples each class apart, stratified sampling) and the pool's time
//! left (which paces each class by its own measured rate). A run-time matter: the kernel's classes
//! follow the cost model's estimates ([`super::cost`]).

use crate::plan::Family;
use nqueens_engine::join::Stratum;

/// A class of subproblems alike in cost ([`super::prepared::class_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Join units of one stratum: their row sets split alike between the quadrants.
    Join(Stratum),
    /// Kernel searches of one family whose estimates lie in one half-octave.
    Search {
        /// The family of the search's frame (none for plans without frames).
        family: Option<Family>,
        /// `floor(2 log2 estimate)`: the half-octave of the estimate.
        size: u32,
    },
    /// The half-turn searches of the unique count (seconds each at large n).
    HalfTurn,
    /// The quarter-turn searches of the unique count (next to nothing each).
    QuarterTurn,
    /// Searches of a constrained board whose estimates lie in one half-octave.
    Constrained {
        /// `floor(2 log2 estimate)`.
        size: u32,
    },
}

/// The half-octave of an estimate: estimates within a factor of √2 share it.
pub(super) fn half_octave(estimate: f64) -> u32 {
    (2.0 * estimate.max(1.0).log2()).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::super::cost::CostModel;
    use super::super::prepared::class_of;
    use super::*;
    use crate::plan::{Algorithm, Cut, Plan, Subproblem};

    fn classes(plan: &Plan) -> impl Fn(&Subproblem) -> Class + '_ {
        let costs = CostModel::new(plan, super::super::cost::SLICE_SECONDS);
        move |s| class_of(plan, &costs, s)
    }

    #[test]
    fn estimates_within_a_half_octave_share_a_class() {
        assert_eq!(half_octave(0.0), 0);
        assert_eq!(half_octave(1.0), 0);
        assert_eq!(half_octave(1.4), 0);
        assert_eq!(half_octave(1.5), 1);
        assert_eq!(half_octave(4.0), 4);
        assert_eq!(half_octave(5.0), 4);
    }

    #[test]
    fn every_kind_of_work_has_its_class() {
        let join = Cut::whole(Plan::build(15, Algorithm::Join, None).unwrap());
        let (first, _) = join.entries().next().unwrap();
        assert!(matches!(classes(join.plan())(&first), Class::Join(_)));
        let symmetry = Cut::whole(Plan::build(12, Algorithm::Symmetry, None).unwrap());
        let class = classes(symmetry.plan());
        let classes: std::collections::BTreeSet<Class> =
            symmetry.entries().map(|(s, _)| class(&s)).collect();
        assert!(classes.contains(&Class::HalfTurn));
        assert!(classes.contains(&Class::QuarterTurn));
        assert!(classes.iter().any(|c| matches!(
            c,
            Class::Search {
                family: Some(Family::Corner),
                ..
            }
        )));
    }
}
