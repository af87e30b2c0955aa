//! Shards: one count cut into M independent parts for cluster array jobs. Shard `i` of `M`
//! owns the plan's entries whose number is `i` modulo `M`, with all the slices a run cuts each
//! into, so that one task makes a join unit's half-boards once for all of them
//! ([`crate::plan::Plan::shard_entries`]). Membership depends only on the plan and `M`, never
//! on the machine, the thread count or the slice time of the task that runs it.

pub use crate::shard::{Shard, ShardError};

use crate::plan::Plan;

/// What a shard owns of a plan (the plan decides it, `Plan::shard_entries`).
impl Shard {
    /// Whether subproblem `id` of `plan` belongs to this shard.
    pub fn owns(&self, plan: &Plan, id: u64) -> bool {
        plan.owns(*self, id)
    }

    /// The ids this shard owns in `plan`, in increasing order.
    pub fn ids<'p>(&self, plan: &'p Plan) -> impl Iterator<Item = u64> + 'p {
        plan.shard_ids(*self)
    }

    /// The number of subproblems this shard owns in `plan`.
    pub fn len(&self, plan: &Plan) -> usize {
        plan.shard_len(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;

    #[test]
    fn shards_deal_entries_round_robin_and_cover_every_id_once() {
        let plain = Plan::build(9, Algorithm::Symmetry, None).unwrap();
        let sliced = Plan::build(12, Algorithm::Join, None).unwrap().sliced(3);
        for plan in [plain, sliced] {
            let mut seen = vec![0; plan.len()];
            for index in 0..5 {
                let s = Shard::new(index, 5).unwrap();
                let ids: Vec<u64> = s.ids(&plan).collect();
                assert_eq!(ids.len(), s.len(&plan));
                assert!(ids.windows(2).all(|w| w[0] < w[1]));
                for id in ids {
                    assert!(s.owns(&plan, id));
                    seen[id as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&k| k == 1));
        }
        // Unsliced plans deal ids round-robin, as before slices.
        let plan = Plan::build(9, Algorithm::Symmetry, None).unwrap();
        let s = Shard::new(2, 5).unwrap();
        assert!(s.ids(&plan).all(|id| id % 5 == 2));
        assert!(Shard::new(5, 5).is_err());
        assert!(Shard::new(0, 0).is_err());
        assert_eq!(Shard::new(3, 16).unwrap().to_string(), "3/16");
    }
}
