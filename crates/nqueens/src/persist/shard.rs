//! Shards: one count cut into M independent parts for cluster array jobs. Which entries a
//! shard owns, and why so, is the plan's to say (`plan/shards.rs`); the ids it owns are those
//! of a run's [`Cut`].

pub use crate::shard::{Shard, ShardError};

use crate::plan::Cut;

/// What a shard owns of a run's cut of a plan (the plan decides which entries,
/// `plan/shards.rs`; the cut numbers their slices).
impl Shard {
    /// Whether subproblem `id` of `cut` belongs to this shard.
    pub fn owns(&self, cut: &Cut, id: u64) -> bool {
        cut.owns(*self, id)
    }

    /// The ids this shard owns in `cut`, in increasing order.
    pub fn ids<'c>(&self, cut: &'c Cut) -> impl Iterator<Item = u64> + 'c {
        cut.shard_ids(*self)
    }

    /// The number of subproblems this shard owns in `cut`.
    pub fn len(&self, cut: &Cut) -> usize {
        cut.shard_len(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Algorithm, Plan};

    #[test]
    fn shards_deal_the_ids_of_an_unsliced_plan_round_robin() {
        // Every id once, however a run cuts: `plan/shards.rs`.
        let plan = Cut::whole(Plan::build(9, Algorithm::Symmetry, None).unwrap());
        let s = Shard::new(2, 5).unwrap();
        let ids: Vec<u64> = s.ids(&plan).collect();
        assert_eq!(ids.len(), s.len(&plan));
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids.iter().all(|&id| id % 5 == 2 && s.owns(&plan, id)));
        assert!(!s.owns(&plan, 3));
        assert!(Shard::new(5, 5).is_err());
        assert!(Shard::new(0, 0).is_err());
        assert_eq!(Shard::new(3, 16).unwrap().to_string(), "3/16");
    }
}
