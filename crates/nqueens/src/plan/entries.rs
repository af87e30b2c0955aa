//! The entries of a plan, held compactly: a join plan has one entry per unit, ten million
//! at n = 28, and a [`Subproblem`] takes 64 bytes (its largest kind holds a search's
//! [`Start`](super::Start)), which made the plan alone a gigabyte in every process of a
//! cluster. A join unit's entry needs only its row set, middle queens, span, slice count (the
//! run's cut), weight and id. So the leading run of join entries is kept in 24 bytes each, and
//! any other entry as it is.

use super::{Middle, Slice, Subproblem, Unit, Work};

/// A join unit's entry in 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JoinEntry {
    id: u64,
    east_rows: u32,
    span: u32,
    slices: u32,
    /// The middle queens' column queen and row queen, where `has_middle`.
    middle: [u8; 2],
    weight: u8,
    has_middle: bool,
}

const _: () = assert!(std::mem::size_of::<JoinEntry>() == 24);
// The module's note: a subproblem takes 64 bytes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Subproblem>() == 64);

/// Makes room for one more item of a full `v` by a quarter of its length, not by doubling it:
/// a list of ten million entries then reserves at most a quarter more address space than it
/// holds while it grows (doubling reserved 384 MiB for the 240 MiB of n = 28, which a 400 MB
/// address-space limit refused before the memory check could speak).
fn grow_gently<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 4).max(1024));
    }
}

/// A plan's entries in id order: the first ones compact, the others as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Entries {
    /// Entries `0..joins.len()`.
    joins: Vec<JoinEntry>,
    /// The entries after them.
    rest: Vec<Subproblem>,
}

impl Entries {
    /// Appends `s`: compactly if it is a join unit that follows compact entries only.
    pub(super) fn push(&mut self, s: Subproblem) {
        if self.rest.is_empty()
            && let Some(e) = self.compact(&s)
        {
            grow_gently(&mut self.joins);
            self.joins.push(e);
        } else {
            grow_gently(&mut self.rest);
            self.rest.push(s);
        }
    }

    /// Lets go of the room the lists grew beyond their entries (up to half of them, for the
    /// ten million entries of n = 28).
    pub(super) fn shrink_to_fit(&mut self) {
        self.joins.shrink_to_fit();
        self.rest.shrink_to_fit();
    }

    /// Reserves room for exactly `more` entries that are not join units.
    pub(super) fn reserve_rest(&mut self, more: usize) {
        self.rest.reserve_exact(more);
    }

    /// `s` in 24 bytes, where that loses nothing.
    fn compact(&self, s: &Subproblem) -> Option<JoinEntry> {
        let Work::Join { unit, weight } = s.work else {
            return None;
        };
        let slices = u32::try_from(unit.slice.of).ok()?;
        if unit.slice.index != 0 {
            return None;
        }
        let middle = unit
            .middle
            .map_or([0, 0], |m| [m.column_queen, m.row_queen]);
        Some(JoinEntry {
            id: s.id,
            east_rows: unit.east_rows,
            span: unit.span,
            slices,
            middle,
            weight,
            has_middle: unit.middle.is_some(),
        })
    }

    /// The number of entries.
    pub(super) fn len(&self) -> usize {
        self.joins.len() + self.rest.len()
    }

    /// Entry `i` (below [`Entries::len`]).
    pub(super) fn get(&self, i: usize) -> Subproblem {
        let Some(e) = self.joins.get(i) else {
            return self.rest[i - self.joins.len()];
        };
        let unit = Unit {
            east_rows: e.east_rows,
            middle: e.has_middle.then_some(Middle {
                column_queen: e.middle[0],
                row_queen: e.middle[1],
            }),
            span: e.span,
            slice: Slice {
                index: 0,
                of: u64::from(e.slices),
            },
        };
        Subproblem {
            id: e.id,
            work: Work::Join {
                unit,
                weight: e.weight,
            },
        }
    }

    /// The id of entry `i`'s first subproblem.
    pub(super) fn id(&self, i: usize) -> u64 {
        match self.joins.get(i) {
            Some(e) => e.id,
            None => self.rest[i - self.joins.len()].id,
        }
    }

    /// Every entry in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = Subproblem> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The index of the last entry whose id is at most `id` (there is one: entry 0 has id 0).
    pub(super) fn last_at_or_before(&self, id: u64) -> usize {
        let in_joins = self.joins.partition_point(|e| e.id <= id);
        if in_joins < self.joins.len() || self.rest.is_empty() {
            return in_joins - 1;
        }
        self.joins.len() + self.rest.partition_point(|e| e.id <= id) - 1
    }

    /// Gives each entry the id of its first subproblem, `slices(entry)` ids after the one
    /// before; returns the number of subproblems.
    pub(super) fn number(&mut self, slices: impl Fn(&Subproblem) -> u64) -> u64 {
        let mut next = 0;
        for e in &mut self.joins {
            e.id = next;
            next += u64::from(e.slices.max(1));
        }
        for s in &mut self.rest {
            s.id = next;
            next += slices(s);
        }
        next
    }

    /// Sets the slice count of every entry to `slices(index, entry)` (at least 1; as many as a
    /// compact entry holds, 2^32 - 1, at most); a quarter-turn search stays whole.
    pub(super) fn set_slices(&mut self, mut slices: impl FnMut(usize, &Subproblem) -> u64) {
        for i in 0..self.joins.len() {
            let of = slices(i, &self.get(i)).clamp(1, u64::from(u32::MAX));
            self.joins[i].slices = of as u32;
        }
        let first = self.joins.len();
        for (i, s) in self.rest.iter_mut().enumerate() {
            let of = slices(first + i, s).max(1);
            if let Some(slice) = s.slice_mut() {
                *slice = Slice { index: 0, of };
            }
        }
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.joins.capacity() * std::mem::size_of::<JoinEntry>()
            + self.rest.capacity() * std::mem::size_of::<Subproblem>()
    }
}

impl Extend<Subproblem> for Entries {
    fn extend<T: IntoIterator<Item = Subproblem>>(&mut self, iter: T) {
        for s in iter {
            self.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Algorithm, Plan, slices_of};
    use super::*;

    #[test]
    fn join_entries_are_kept_compactly_and_read_back_as_they_were() {
        for n in [12, 15, 16, 19] {
            let plan = Plan::build(n, Algorithm::Join, None).unwrap();
            let e = &plan.entries;
            // Every unit compact; the unique count's searches after them as they are.
            assert!(
                e.rest
                    .iter()
                    .all(|s| matches!(s.work, Work::HalfTurn { .. } | Work::QuarterTurn { .. }))
            );
            assert_eq!(e.rest.len(), 2 * n, "n = {n}");
            let mut again = Entries::default();
            let mut next = 0;
            for (i, s) in e.iter().enumerate() {
                assert_eq!(s.id, next);
                assert_eq!(e.id(i), next);
                assert_eq!(e.last_at_or_before(next), i);
                assert_eq!(e.last_at_or_before(next + slices_of(&s) - 1), i);
                next += slices_of(&s);
                again.push(s);
            }
            assert_eq!(&again, e);
        }
    }

    #[test]
    fn an_entry_that_would_lose_something_is_kept_whole() {
        let plan = Plan::build(16, Algorithm::Join, None).unwrap();
        let first = plan.entries.get(0);
        let mut odd = first;
        if let Work::Join { unit, .. } = &mut odd.work {
            unit.slice.index = 1;
        }
        let mut e = Entries::default();
        e.push(first);
        e.push(odd);
        // After an entry kept whole, every entry is kept whole, to stay in order.
        e.push(first);
        assert_eq!((e.joins.len(), e.rest.len()), (1, 2));
        assert_eq!(e.get(1), odd);
        assert_eq!(e.get(2), first);
        let mut big = first;
        if let Work::Join { unit, .. } = &mut big.work {
            unit.slice.of = 1 << 40;
        }
        assert!(e.compact(&big).is_none());
    }
}
