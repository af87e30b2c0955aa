//! A run's cut of a plan: how many slices each entry is cut into, and the ids of the
//! subproblems that makes. The plan is what every file of a count agrees on; the cut is one
//! run's choice, so that a long search or join unit is counted, saved and shown in shares of
//! seconds. Ids are the run's: another cut of the same plan numbers them otherwise, so files
//! never name an id, only an entry and a slice (`[entry, count, nodes]`, and
//! `[entry, slices, index, count, nodes]` for a slice).
//!
//! A cut is made in two ways, and only here: fresh, as the run chooses for every entry
//! ([`Cut::fresh`], the cost model's slice counts), or from the files a run resumes or a merge
//! or a status reads ([`Cut::from_files`]: each entry as the first file to name it cut it, the
//! others as the run chooses).

use super::{MOST_SLICES, Plan, Slice, Subproblem, Work};

/// A plan with one run's cut of its entries into slices, and the ids of its subproblems.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    plan: Plan,
    /// The id of each entry's first subproblem, then the number of subproblems.
    first: Vec<u64>,
}

impl Cut {
    /// `plan` cut as a run chooses: entry `e` into `slices(&plan, e, work)` slices (at least 1,
    /// at most [`MOST_SLICES`]; a quarter-turn search stays whole).
    pub(crate) fn fresh(plan: Plan, mut slices: impl FnMut(&Plan, u64, &Work) -> u64) -> Cut {
        let counts = plan.works().enumerate();
        let counts = counts.map(|(e, w)| slices(&plan, e as u64, &w)).collect();
        Cut::numbered(plan, counts)
    }

    /// `plan` cut as files say: `recorded` gives `(entry, slices)` as they name them, in their
    /// order of precedence (the first word on an entry stands; entries past the plan's are
    /// left out), and `others` the slices of the entries no file names (given increasing), as
    /// the run chooses them.
    pub(crate) fn from_files(
        plan: Plan,
        recorded: impl IntoIterator<Item = (u64, u64)>,
        others: impl FnOnce(&Plan, &[u64]) -> Vec<u64>,
    ) -> Cut {
        let mut counts = vec![0; plan.entry_count() as usize];
        for (entry, slices) in recorded {
            if let Some(slot) = counts.get_mut(entry as usize).filter(|s| **s == 0) {
                *slot = slices.max(1);
            }
        }
        let unnamed: Vec<u64> = (0..counts.len() as u64)
            .filter(|&e| counts[e as usize] == 0)
            .collect();
        if !unnamed.is_empty() {
            for (&e, slices) in unnamed.iter().zip(others(&plan, &unnamed)) {
                counts[e as usize] = slices;
            }
        }
        Cut::numbered(plan, counts)
    }

    /// `plan` cut into `counts[e]` slices of each entry `e`, numbered.
    fn numbered(plan: Plan, mut counts: Vec<u64>) -> Cut {
        let mut next = 0;
        for (e, count) in counts.iter_mut().enumerate() {
            let most = if plan.entry(e as u64).can_be_cut() {
                MOST_SLICES
            } else {
                1
            };
            let of = (*count).clamp(1, most);
            (*count, next) = (next, next + of);
        }
        counts.push(next);
        counts.shrink_to_fit();
        Cut {
            plan,
            first: counts,
        }
    }

    /// The plan cut.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The plan, without the cut.
    pub fn into_plan(self) -> Plan {
        self.plan
    }

    /// The number of subproblems; their ids are `0..len`.
    pub fn len(&self) -> usize {
        self.first[self.first.len() - 1] as usize
    }

    /// Whether the cut has no subproblem at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of slices entry `entry` is cut into (1 if it is whole).
    pub fn slices_of_entry(&self, entry: u64) -> u64 {
        self.first[entry as usize + 1] - self.first[entry as usize]
    }

    /// The entry subproblem `id` belongs to, and which of its slices it is.
    pub fn entry_and_slice(&self, id: u64) -> (u64, u64) {
        // The last entry whose first id is at most `id` (entry 0's is 0; none is empty).
        let entry = self.first.partition_point(|&f| f <= id) - 1;
        (entry as u64, id - self.first[entry])
    }

    /// Whether subproblem `id` is slice `slice` of entry `entry` in this cut: the check that
    /// an id comes from this cut and no other.
    pub(crate) fn names(&self, id: u64, entry: u64, slice: Slice) -> bool {
        (id as usize) < self.len()
            && self.entry_and_slice(id) == (entry, slice.index)
            && self.slices_of_entry(entry) == slice.of
    }

    /// The id of the first subproblem of entry `entry` (below [`Plan::entry_count`]).
    pub(crate) fn first_id(&self, entry: u64) -> u64 {
        self.first[entry as usize]
    }

    /// The subproblem with id `id` (below [`Cut::len`]).
    pub(crate) fn subproblem(&self, id: u64) -> Subproblem {
        let (entry, index) = self.entry_and_slice(id);
        self.slice(entry, index)
    }

    /// Slice `index` of entry `entry`.
    pub(super) fn slice(&self, entry: u64, index: u64) -> Subproblem {
        let of = self.slices_of_entry(entry);
        Subproblem {
            id: self.first_id(entry) + index,
            entry,
            slice: Slice { index, of },
            work: self.plan.entry(entry),
        }
    }

    /// The cut's entries: the first subproblem of each and the number of its subproblems
    /// (its slices, all alike but for the slice).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (Subproblem, u64)> + '_ {
        (0..self.plan.entry_count()).map(|e| (self.slice(e, 0), self.slices_of_entry(e)))
    }

    /// Every subproblem in id order.
    #[cfg(test)]
    pub(crate) fn subproblems(&self) -> impl Iterator<Item = Subproblem> + '_ {
        self.subproblems_at(0..self.len() as u64)
    }

    /// The subproblems of `ids` (each below [`Cut::len`]): where the ids increase, found by
    /// walking the entries once rather than by a search each.
    pub(crate) fn subproblems_at<'a>(
        &'a self,
        ids: impl Iterator<Item = u64> + 'a,
    ) -> impl Iterator<Item = Subproblem> + 'a {
        let mut entry = 0;
        let last = self.first.len().saturating_sub(2);
        ids.map(move |id| {
            if self.first[entry] > id {
                // Out of order after all: search.
                entry = self.entry_and_slice(id).0 as usize;
            }
            while entry < last && self.first[entry + 1] <= id {
                entry += 1;
            }
            self.slice(entry as u64, id - self.first[entry])
        })
    }

    /// Bytes the plan and the cut hold, about.
    pub(crate) fn bytes(&self) -> u64 {
        self.plan.bytes() + (self.first.capacity() * std::mem::size_of::<u64>()) as u64
    }
}

#[cfg(test)]
impl Cut {
    /// `plan` with every entry a run may cut cut into `slices` (for tests at small n), the
    /// searches of the unique count whole.
    pub(crate) fn sliced(plan: Plan, slices: u64) -> Cut {
        let unique = |w: &Work| matches!(w, Work::HalfTurn { .. } | Work::QuarterTurn { .. });
        Cut::fresh(plan, |_, _, w| if unique(w) { 1 } else { slices })
    }

    /// `plan` with every entry whole.
    pub(crate) fn whole(plan: Plan) -> Cut {
        Cut::fresh(plan, |_, _, _| 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;

    #[test]
    fn a_cut_from_files_keeps_the_first_word_on_each_entry_and_asks_for_the_others() {
        let plan = Plan::build(25, Algorithm::Symmetry, None).unwrap();
        let entries = plan.entry_count();
        let recorded = [(2, 3), (0, 1), (2, 5), (entries + 9, 4)];
        let mut asked = Vec::new();
        let cut = Cut::from_files(plan.clone(), recorded, |_, e| {
            asked = e.to_vec();
            e.iter().map(|e| 1 + e % 5).collect()
        });
        assert_eq!(asked.len() as u64, entries - 2);
        assert!(!asked.contains(&0) && !asked.contains(&2));
        // The first word on entry 2 stands; made fresh, the same cut numbers the same ids.
        assert_eq!(
            (1..4).map(|e| cut.slices_of_entry(e)).collect::<Vec<_>>(),
            [2, 3, 4]
        );
        assert_eq!(Cut::fresh(plan.clone(), |_, e, _| 1 + e % 5), cut);
        assert_eq!(cut.plan(), &plan);
        // Ids found one by one and walking the entries agree.
        let ids: Vec<u64> = (0..cut.len() as u64).step_by(97).collect();
        let walked = cut.subproblems_at(ids.iter().copied());
        assert!(walked.zip(&ids).all(|(s, &id)| s == cut.subproblem(id)));
    }

    #[test]
    fn ids_name_an_entry_and_slice_of_one_cut_only() {
        let plan = Plan::build(10, Algorithm::Symmetry, None).unwrap();
        let (whole, sliced) = (Cut::whole(plan.clone()), Cut::sliced(plan, 3));
        assert!((0..sliced.len() as u64).all(|id| {
            let s = sliced.subproblem(id);
            s.id == id && sliced.names(id, s.entry, s.slice)
        }));
        // Slice 0 of 3 of entry 1 is id 3 of the sliced cut; no id of the whole cut names it.
        let s = sliced.subproblem(3);
        assert_eq!((s.entry, s.slice), (1, Slice { index: 0, of: 3 }));
        assert!((0..whole.len() as u64).all(|id| !whole.names(id, s.entry, s.slice)));
    }
}
