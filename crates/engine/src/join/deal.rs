//! How the pairs of a sieved matching are dealt out to the slices of a unit: every pair of a
//! table bin and a run of query bins that fit it weighs the candidate pairs it holds, and
//! goes to the slice its midpoint falls in, so slices are about equal in work, each pair is
//! matched by exactly one, and the dealing depends on the patterns alone
//! (`results/join-log.md`, sections 17 and 21). Kept apart from [`super::sieve`], whose loop
//! asks the dealer which pairs are its slice's.

use crate::Slice;

/// The dealer of one slice (see the module): the pairs are laid end to end in the order the
/// matching takes them, and a pair is the slice's if its midpoint falls in the slice's span.
pub(super) struct Dealer {
    of: u64,
    index: u64,
    /// Twice the total weight.
    total2: u128,
}

impl Dealer {
    /// The dealer of `slice` over a total weight of `total`.
    fn new(slice: Slice, total: u128) -> Dealer {
        Dealer {
            of: slice.of,
            index: slice.index,
            total2: 2 * total,
        }
    }

    /// The slice a midpoint (doubled) falls in.
    fn slice_of(&self, mid2: u128) -> u64 {
        if self.total2 == 0 {
            return 0;
        }
        let of = u128::from(self.of);
        (mid2 * of / self.total2).min(of - 1) as u64
    }

    /// The doubled midpoints slice `s` takes: from the first of them to the first of the
    /// next slice (the last slice takes every midpoint from its first on).
    fn span(&self, s: u64) -> (u128, u128) {
        if self.total2 == 0 {
            return (0, u128::MAX);
        }
        let of = u128::from(self.of);
        let first = |s: u64| (u128::from(s) * self.total2).div_ceil(of);
        let end = if s + 1 >= self.of {
            u128::MAX
        } else {
            first(s + 1)
        };
        (first(s), end)
    }

    /// Whether the pair of weight `w` that starts at `before` is this slice's; `at` holds the
    /// slice of the midpoints met last, so that a walk along the pairs (midpoints in
    /// increasing order) divides only where it crosses into another slice.
    pub(super) fn owns(&self, before: u128, w: u128, at: &mut Cursor) -> bool {
        let mid2 = 2 * before + w;
        if !(at.from..at.to).contains(&mid2) {
            let s = self.slice_of(mid2);
            (at.from, at.to) = self.span(s);
            at.owned = s == self.index;
        }
        at.owned
    }

    /// Whether any pair between `from` and `to` may be this slice's.
    pub(super) fn may_own(&self, from: u128, to: u128) -> bool {
        (self.slice_of(2 * from)..=self.slice_of(2 * to)).contains(&self.index)
    }
}

/// The doubled midpoints of the slice a [`Dealer`] found last, and whether it is the
/// share's ([`Dealer::owns`]); the default is on no slice.
#[derive(Clone, Copy, Default)]
pub(super) struct Cursor {
    from: u128,
    to: u128,
    owned: bool,
}

/// For each bin mask `m`, the number of queries in the bins that are subsets of `m` (a
/// subset-sum transform of the bin sizes): the queries that fit a table bin `a` are those
/// of the subsets of its complement.
pub(super) fn fitting_queries(starts: &[usize], bins: usize) -> Vec<u64> {
    let mut sums: Vec<u64> = (0..bins)
        .map(|c| (starts[c + 1] - starts[c]) as u64)
        .collect();
    let mut bit = 1;
    while bit < bins {
        for m in 0..bins {
            if m & bit != 0 {
                sums[m] += sums[m ^ bit];
            }
        }
        bit <<= 1;
    }
    sums
}

/// The dealer of `slice` with the fitting queries of every bin mask, or `None` where every
/// pair is matched (a whole unit).
pub(super) fn deal(
    slice: Slice,
    table_starts: &[usize],
    query_starts: &[usize],
    bins: usize,
) -> Option<(Dealer, Vec<u64>)> {
    if slice.of <= 1 {
        return None;
    }
    let fitting = fitting_queries(query_starts, bins);
    let total = (0..bins)
        .map(|a| bin_weight(table_starts, &fitting, a))
        .sum();
    Some((Dealer::new(slice, total), fitting))
}

/// The weight of table bin `a`'s pairs: its patterns times the queries that fit it
/// (`fitting` from [`fitting_queries`], one entry per bin).
pub(super) fn bin_weight(table_starts: &[usize], fitting: &[u64], a: usize) -> u128 {
    let all = fitting.len() - 1;
    (table_starts[a + 1] - table_starts[a]) as u128 * u128::from(fitting[all & !a])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_spans_exactly_the_midpoints_it_is_dealt() {
        for (of, total) in [
            (1, 0),
            (3, 0),
            (1, 5),
            (2, 1),
            (7, 3),
            (7, 100),
            (64, 1000),
            (5, 5),
            (9, 2),
        ] {
            let d = Dealer::new(Slice { index: 0, of }, total);
            for mid2 in 0..=2 * total + 3 {
                let s = d.slice_of(mid2);
                let (from, to) = d.span(s);
                assert!(
                    (from..to).contains(&mid2),
                    "of {of}, total {total}: midpoint {mid2} in slice {s}, spanning {from}..{to}"
                );
                if to < u128::MAX {
                    assert!(d.slice_of(to) > s, "of {of}, total {total}, slice {s}");
                }
                if from > 0 {
                    assert!(
                        d.slice_of(from - 1) < s,
                        "of {of}, total {total}, slice {s}"
                    );
                }
            }
        }
    }
}
