//! Which entries of a plan a shard owns: shard `I` of `M` owns every `M`-th entry of the plan
//! from entry `I` (an entry is a join unit, a kernel search, a constrained search or a search
//! of the unique count), with all the slices a run cuts it into. The slices of an entry stay
//! together, so that a worker makes a join unit's half-boards once for many of them.
//!
//! Membership depends only on the plan's entries, the index and the count, never on how a run
//! cuts the entries, so every task of an array job, and every release of the same plan format,
//! agrees on it without talking to the others ([`crate::persist::Shard`]).

use super::{Cut, Plan, Subproblem};
use crate::shard::Shard;

impl Plan {
    /// The entries shard `index` of `count` owns, in increasing order.
    pub(crate) fn shard_entry_numbers(&self, shard: Shard) -> impl Iterator<Item = u64> + use<> {
        let Shard { index, count } = shard;
        let step = usize::try_from(count).unwrap_or(usize::MAX).max(1);
        // A count of no shards owns nothing (as [`Plan::owns_entry`] says).
        let end = if count == 0 { 0 } else { self.entry_count() };
        (index.min(end)..end).step_by(step)
    }

    /// Whether entry `entry` belongs to shard `index` of `count`.
    pub(crate) fn owns_entry(&self, Shard { index, count }: Shard, entry: u64) -> bool {
        entry < self.entry_count() && count > 0 && entry % count == index
    }
}

/// What a shard owns of a run's cut: the slices of its entries, by the run's ids.
impl Cut {
    /// The entries shard `index` of `count` owns, in increasing order: the first subproblem of
    /// each and the number of its subproblems (slices of one entry, all alike but for the
    /// slice).
    pub(crate) fn shard_entries(
        &self,
        shard: Shard,
    ) -> impl Iterator<Item = (Subproblem, u64)> + '_ {
        self.plan()
            .shard_entry_numbers(shard)
            .map(move |entry| (self.slice(entry, 0), self.slices_of_entry(entry)))
    }

    /// The ids of the subproblems shard `index` of `count` owns, in increasing order.
    pub(crate) fn shard_ids(&self, shard: Shard) -> impl Iterator<Item = u64> + '_ {
        self.shard_entries(shard)
            .flat_map(|(first, slices)| first.id..first.id + slices)
    }

    /// The number of subproblems shard `index` of `count` owns.
    pub(crate) fn shard_len(&self, shard: Shard) -> usize {
        if shard == Shard::WHOLE {
            return self.len();
        }
        self.shard_entries(shard)
            .map(|(_, slices)| slices as usize)
            .sum()
    }

    /// Whether subproblem `id` belongs to shard `index` of `count`.
    pub(crate) fn owns(&self, shard: Shard, id: u64) -> bool {
        (id as usize) < self.len() && self.plan().owns_entry(shard, self.entry_and_slice(id).0)
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{Algorithm, Cut, Plan};
    use crate::shard::Shard;

    /// Shard `index` of `count`, unchecked (a count of 0 included).
    fn sh(index: u64, count: u64) -> Shard {
        Shard { index, count }
    }

    /// Checks that the shards of `count` share out the entries of `plan` and their slices,
    /// each once, and agree with [`Cut::owns`] at the ends of every entry.
    fn shards_share_out(plan: &Cut, count: u64) {
        let mut entries: Vec<(u64, u64, u64)> = Vec::new();
        for index in 0..count {
            let mut len = 0;
            let mut entry = index;
            for (first, slices) in plan.shard_entries(sh(index, count)) {
                assert!(slices > 0);
                let last = first.id + slices - 1;
                for id in [first.id, last] {
                    assert!(plan.owns(sh(index, count), id));
                    assert!(!plan.owns(sh((index + 1) % count, count), id) || count == 1);
                    assert_eq!(plan.entry_and_slice(id).0, entry);
                }
                assert_eq!(plan.subproblem(first.id), first);
                entries.push((entry, first.id, slices));
                len += slices as usize;
                entry += count;
            }
            assert_eq!(plan.shard_len(sh(index, count)), len);
        }
        entries.sort_unstable();
        let mut next_id = 0;
        for (i, &(entry, first, slices)) in entries.iter().enumerate() {
            assert_eq!(entry, i as u64);
            assert_eq!(first, next_id);
            next_id += slices;
        }
        assert_eq!(next_id, plan.len() as u64);
        assert_eq!(entries.len() as u64, plan.plan().entry_count());
    }

    #[test]
    fn shards_own_whole_entries_however_a_run_cuts_them() {
        let plan = Plan::build(12, Algorithm::Join, None).unwrap();
        let whole = Cut::whole(plan.clone());
        let sliced = Cut::sliced(plan, 5);
        for count in [1, 2, 7] {
            shards_share_out(&whole, count);
            shards_share_out(&sliced, count);
            // The same entries, however they are cut.
            let entries = |p: &Cut| -> Vec<u64> {
                p.shard_entries(sh(1 % count, count))
                    .map(|(s, _)| p.entry_and_slice(s.id).0)
                    .collect()
            };
            assert_eq!(entries(&whole), entries(&sliced));
        }
        let plan = Cut::sliced(Plan::build(8, Algorithm::Symmetry, None).unwrap(), 3);
        for count in [1, 2, 3, 5, 1000] {
            shards_share_out(&plan, count);
        }
        // A shard past the last entry owns nothing, nor does any of no shards.
        let e = plan.plan().entry_count();
        assert_eq!(plan.shard_entries(sh(e, e + 1)).count(), 0);
        assert_eq!(plan.shard_entries(sh(0, 0)).count(), 0);
    }
}
