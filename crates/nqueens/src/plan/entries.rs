//! The entries of a plan, held compactly: a join plan has one entry per unit, ten million
//! at n = 28, and a [`Work`] takes 40 bytes (its largest kind holds a search's
//! [`Start`](super::Start)), which made the plan alone hundreds of megabytes in every process
//! of a cluster. A join unit's entry needs only its row set, middle queens, span and weight.
//! So the leading run of join entries is kept in 12 bytes each, and any other entry as it is.
//! No slice and no id is kept here: those are a run's ([`super::Cut`]).

use super::{Middle, Unit, Work};

/// A join unit's entry in 12 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JoinEntry {
    east_rows: u32,
    span: u32,
    /// The middle queens' column queen and row queen, where `has_middle`.
    middle: [u8; 2],
    weight: u8,
    has_middle: bool,
}

const _: () = assert!(std::mem::size_of::<JoinEntry>() == 12);
// The module's note: a kind of work takes 40 bytes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Work>() == 40);

/// Makes room for one more item of a full `v` by a quarter of its length, not by doubling it:
/// a list of ten million entries then reserves at most a quarter more address space than it
/// holds while it grows (doubling reserved 384 MiB for the 240 MiB of n = 28, which a 400 MB
/// address-space limit refused before the memory check could speak).
fn grow_gently<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 4).max(1024));
    }
}

/// A plan's entries in order: the first ones compact, the others as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Entries {
    /// Entries `0..joins.len()`.
    joins: Vec<JoinEntry>,
    /// The entries after them.
    rest: Vec<Work>,
}

impl Entries {
    /// Appends `w`: compactly if it is a join unit that follows compact entries only.
    pub(super) fn push(&mut self, w: Work) {
        if self.rest.is_empty()
            && let Some(e) = compact(&w)
        {
            grow_gently(&mut self.joins);
            self.joins.push(e);
        } else {
            grow_gently(&mut self.rest);
            self.rest.push(w);
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

    /// The number of entries.
    pub(super) fn len(&self) -> usize {
        self.joins.len() + self.rest.len()
    }

    /// Entry `i` (below [`Entries::len`]).
    pub(super) fn get(&self, i: usize) -> Work {
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
        };
        Work::Join {
            unit,
            weight: e.weight,
        }
    }

    /// Every entry in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = Work> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.joins.capacity() * std::mem::size_of::<JoinEntry>()
            + self.rest.capacity() * std::mem::size_of::<Work>()
    }
}

/// `w` in 12 bytes, if it is a join unit.
fn compact(w: &Work) -> Option<JoinEntry> {
    let Work::Join { unit, weight } = *w else {
        return None;
    };
    let middle = unit
        .middle
        .map_or([0, 0], |m| [m.column_queen, m.row_queen]);
    Some(JoinEntry {
        east_rows: unit.east_rows,
        span: unit.span,
        middle,
        weight,
        has_middle: unit.middle.is_some(),
    })
}

impl Extend<Work> for Entries {
    fn extend<T: IntoIterator<Item = Work>>(&mut self, iter: T) {
        for w in iter {
            self.push(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Algorithm, Plan};
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
                    .all(|w| matches!(w, Work::HalfTurn { .. } | Work::QuarterTurn { .. }))
            );
            assert_eq!(e.rest.len(), 2 * n, "n = {n}");
            let mut again = Entries::default();
            again.extend(e.iter());
            assert_eq!(&again, e);
        }
    }

    #[test]
    fn after_an_entry_kept_as_it_is_every_entry_is() {
        let plan = Plan::build(16, Algorithm::Join, None).unwrap();
        let unit = plan.entries.get(0);
        let search = Work::HalfTurn { first: 3 };
        let mut e = Entries::default();
        e.push(unit);
        e.push(search);
        // After an entry kept whole, every entry is kept whole, to stay in order.
        e.push(unit);
        assert_eq!((e.joins.len(), e.rest.len()), (1, 2));
        assert_eq!(e.get(1), search);
        assert_eq!(e.get(2), unit);
    }
}
