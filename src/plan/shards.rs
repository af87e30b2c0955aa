//! Which subproblems a shard owns: shard `I` of `M` owns every `M`-th *lot* of the plan from
//! lot `I`, where a lot is one entry of the plan (a subproblem, or all the slices of a join
//! unit or of a kernel search), except that an entry of more than [`LOT_SLICES`] slices is
//! owned in lots of that many. The slices of one lot stay together, so that a worker makes a
//! join unit's half-boards once for many of them; the cap on a lot keeps what one shard must
//! hold for it (the bookkeeping of its pieces) to about a gigabyte, however long the search
//! it comes from (the largest searches of n = 32 are cut into some 2 × 10^10 slices).
//!
//! Membership depends only on the plan, the index and the count, so every task of an array
//! job agrees on it without talking to the others ([`crate::persist::Shard`]). Where no entry
//! reaches the cap, a lot is an entry.

use super::{Plan, Subproblem, slices_of};
use crate::shard::Shard;

/// The most slices of one entry a lot holds: 2^23, whose bookkeeping (about 1 GiB at 128
/// bytes a piece) fits in a shard.
pub const LOT_SLICES: u64 = 1 << 23;

impl Plan {
    /// Numbers the lots: where some entry passes [`LOT_SLICES`], records where each entry's
    /// lots begin.
    pub(super) fn number_lots(&mut self) {
        let lots_of = |s: &Subproblem| slices_of(s).div_ceil(LOT_SLICES).max(1);
        self.lot_starts.clear();
        if self.entries.iter().all(|e| lots_of(&e) == 1) {
            self.lot_starts.shrink_to_fit();
            self.lots = self.entries.len() as u64;
            return;
        }
        self.lot_starts.reserve_exact(self.entries.len());
        let mut next = 0;
        for e in self.entries.iter() {
            self.lot_starts.push(next);
            next += lots_of(&e);
        }
        self.lots = next;
    }

    /// The number of lots.
    pub fn lots(&self) -> u64 {
        self.lots
    }

    /// The number of the first lot of entry `entry`.
    fn first_lot(&self, entry: usize) -> u64 {
        self.lot_starts.get(entry).copied().unwrap_or(entry as u64)
    }

    /// The lot subproblem `id` (below [`Plan::len`]) belongs to.
    pub fn lot_of(&self, id: u64) -> u64 {
        let entry = self.entry_of(id);
        self.first_lot(entry) + (id - self.entries.id(entry)) / LOT_SLICES
    }

    /// The lots shard `index` of `count` owns, in increasing order: the first subproblem of
    /// each and the number of its subproblems (slices of one entry, all alike but for the
    /// slice; at most [`LOT_SLICES`]).
    pub fn shard_lots(&self, shard: Shard) -> impl Iterator<Item = (Subproblem, u32)> + '_ {
        let Shard { index, count } = shard;
        let step = usize::try_from(count).unwrap_or(usize::MAX).max(1);
        // A count of no shards owns nothing (as [`Plan::owns`] says).
        let end = if count == 0 { 0 } else { self.lots };
        let mut entry = 0;
        (index.min(end)..end).step_by(step).map(move |lot| {
            entry = if self.lot_starts.is_empty() {
                lot as usize
            } else {
                // The lots increase: search on from the last entry.
                entry + self.lot_starts[entry..].partition_point(|&f| f <= lot) - 1
            };
            let e = self.entries.get(entry);
            let skipped = (lot - self.first_lot(entry)) * LOT_SLICES;
            let slices = (slices_of(&e) - skipped).min(LOT_SLICES);
            (
                self.subproblem_of_entry(entry, e.id + skipped),
                slices as u32,
            )
        })
    }

    /// The number of lots shard `index` of `count` owns.
    pub fn shard_lot_count(&self, Shard { index, count }: Shard) -> u64 {
        match count {
            0 => 0,
            _ if index >= self.lots => 0,
            _ => (self.lots - index - 1) / count + 1,
        }
    }

    /// The ids of the subproblems shard `index` of `count` owns, in increasing order.
    pub fn shard_ids(&self, shard: Shard) -> impl Iterator<Item = u64> + '_ {
        self.shard_lots(shard)
            .flat_map(|(first, slices)| first.id..first.id + u64::from(slices))
    }

    /// The number of subproblems shard `index` of `count` owns.
    pub fn shard_len(&self, shard: Shard) -> usize {
        if shard == Shard::WHOLE {
            return self.len();
        }
        self.shard_lots(shard)
            .map(|(_, slices)| slices as usize)
            .sum()
    }

    /// Whether subproblem `id` belongs to shard `index` of `count`.
    pub fn owns(&self, Shard { index, count }: Shard, id: u64) -> bool {
        id < self.pieces && count > 0 && self.lot_of(id) % count == index
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{Algorithm, Plan};

    /// Shard `index` of `count`, unchecked (a count of 0 included).
    fn sh(index: u64, count: u64) -> Shard {
        Shard { index, count }
    }

    use super::*;

    /// Checks that the shards of `count` share out the lots of `plan` and their slices, each
    /// once, and agree with [`Plan::owns`] and [`Plan::lot_of`] at the ends of every lot.
    fn shards_share_out(plan: &Plan, count: u64) {
        let mut lots: Vec<(u64, u64, u64)> = Vec::new();
        for index in 0..count {
            let mut len = 0;
            let mut lot = index;
            for (first, slices) in plan.shard_lots(sh(index, count)) {
                assert!(u64::from(slices) <= LOT_SLICES && slices > 0);
                let last = first.id + u64::from(slices) - 1;
                for id in [first.id, last] {
                    assert!(plan.owns(sh(index, count), id));
                    assert!(!plan.owns(sh((index + 1) % count, count), id) || count == 1);
                    assert_eq!(plan.lot_of(id), lot);
                }
                assert_eq!(plan.subproblem(first.id), first);
                lots.push((lot, first.id, u64::from(slices)));
                len += slices as usize;
                lot += count;
            }
            assert_eq!(plan.shard_len(sh(index, count)), len);
            assert_eq!(
                plan.shard_lot_count(sh(index, count)),
                (lot - index) / count,
                "shard {index} of {count}"
            );
        }
        lots.sort_unstable();
        let mut next_id = 0;
        for (i, &(lot, first, slices)) in lots.iter().enumerate() {
            assert_eq!(lot, i as u64);
            assert_eq!(first, next_id);
            next_id += slices;
        }
        assert_eq!(next_id, plan.len() as u64);
        assert_eq!(lots.len() as u64, plan.lots());
    }

    #[test]
    fn up_to_the_cap_a_lot_is_an_entry() {
        let plan = Plan::build(12, Algorithm::Join, None).unwrap().sliced(5);
        assert!(plan.lot_starts.is_empty());
        assert_eq!(plan.lots(), plan.entries.len() as u64);
        for count in [1, 2, 7] {
            shards_share_out(&plan, count);
        }
    }

    #[test]
    fn an_entry_past_the_cap_is_owned_in_lots() {
        // Every search of a small plan cut into 2.5 lots' worth of slices: three lots each,
        // the last half full; the invariant searches one each.
        let plan = Plan::build(8, Algorithm::Symmetry, None)
            .unwrap()
            .sliced(2 * LOT_SLICES + LOT_SLICES / 2);
        let searches = plan.entries.iter().filter(|e| slices_of(e) > 1).count() as u64;
        let others = plan.entries.len() as u64 - searches;
        assert!(searches > 1 && others > 0);
        assert_eq!(plan.lots(), 3 * searches + others);
        for count in [1, 2, 3, 5, 1000] {
            shards_share_out(&plan, count);
        }
        // A shard past the last lot owns nothing, nor does any of no shards.
        assert_eq!(plan.shard_lots(sh(plan.lots(), plan.lots() + 1)).count(), 0);
        assert_eq!(plan.shard_lots(sh(0, 0)).count(), 0);
        assert_eq!(plan.shard_lot_count(sh(0, 0)), 0);
        assert_eq!(plan.shard_lot_count(sh(plan.lots(), plan.lots() + 1)), 0);
    }
}
