//! The paths large boards take, forced on small boards and checked against the published
//! totals: sieved matchings (up to the widest sieve), units of one row set cut into slices of
//! their matching, units of several row sets cut into slices of row sets, streamed units (in
//! one group of table bins or in many) and their slices, and the quarter-turn ties in each of
//! them. From n = 22 on a count takes these paths by the size of its units; here test-only
//! knobs force them (the streaming limits of [`Scratch`], the forced sieve of
//! [`super::split`], the buffers of [`super::halves`]), and every count, slice by slice and unit by unit, must add up to the
//! board's total. `scripts/frontier-coverage` measures that the frontier runs execute no line
//! of counting code that these and the other tests comparing with an independent truth leave
//! out.

use super::halves::BUFFER_PATTERNS;
use super::split::{FORCED_SIEVE, SIEVED};
use super::tests::streaming;
use super::*;

/// Runs `f` on this thread with every matching sieved by `k` bits (`None`: as a run chooses,
/// by the sides' sizes), from fresh sides.
fn sieving<T>(k: Option<usize>, f: impl FnOnce() -> T) -> T {
    FORCED_SIEVE.set(k);
    SCRATCH.with(|s| s.borrow_mut().made_for = None);
    let out = f();
    FORCED_SIEVE.set(None);
    out
}

/// Every unit of an n×n board on `q`, each cut into `of` slices counted one after another on
/// this thread (so each slice after the first may start from what the one before left), times
/// its weight: the board's total.
fn sliced_total(q: &Quadrants, n: usize, of: u64) -> u128 {
    units(n)
        .iter()
        .map(|(u, w)| {
            let count: u64 = (0..of)
                .map(|index| {
                    let slice = Slice { index, of };
                    count_unit(q, &Unit { slice, ..*u }).count
                })
                .sum();
            u128::from(count) * u128::from(*w)
        })
        .sum()
}

/// The streaming limits the tests force: none (held), every unit streamed in table groups of
/// a few bins, and every unit streamed in one group.
const LIMITS: [Option<(u64, usize)>; 3] = [None, Some((0, 1 << 8)), Some((0, 1 << 30))];

/// Every unit of each board of `boards` (n, slices) counted in slices on the bounded layout,
/// with and without the quarter turns (even n), must add up to the board's total, with
/// `limits` and a sieve of `k` bits forced.
fn check_sliced(limits: Option<(u64, usize)>, k: Option<usize>, boards: &[(usize, u64)]) {
    for &(n, of) in boards {
        let turnings: &[bool] = if n % 2 == 0 { &[false, true] } else { &[false] };
        for &turning in turnings {
            let q = Quadrants::bounded_turning(n, 1 << 20, turning);
            SIEVED.set(0);
            let total = streaming(limits, || sieving(k, || sliced_total(&q, n, of)));
            let case = format!("n = {n}, {of} slices, {limits:?}, sieve {k:?}, turns {turning}");
            assert_eq!(Some(total), crate::known::total(n), "{case}");
            if k.is_some() {
                assert!(SIEVED.get() > 0, "{case}: no matching was sieved");
            }
        }
    }
}

#[test]
fn sliced_units_add_up_to_the_known_totals() {
    // Even boards with and without the quarter turns, odd boards (the centre queen's units of
    // one row set, and from n = 15 the two middle queens' units of several row sets, cut
    // into slices of row sets); held and streamed.
    for limits in LIMITS {
        check_sliced(limits, None, &[(12, 2), (13, 3), (14, 3), (15, 3)]);
    }
}

#[test]
fn sieved_units_and_their_slices_add_up_to_the_known_totals() {
    // Every matching sieved, as the large units of n = 20 on are: held, in slices of its
    // bin pairs (each slice after the first from the sides the one before sorted), streamed
    // in one group of table bins or in many (each group read off the table side anew, the
    // groups a slice has no pair of passed over), with the quarter-turn ties.
    for limits in LIMITS {
        check_sliced(limits, Some(3), &[(11, 1), (12, 3), (13, 2), (14, 4)]);
    }
}

#[test]
fn the_widest_sieve_counts_the_known_totals() {
    // As many sieve bits as the patterns allow, up to the 20 of the largest units (n = 25
    // on): as many as both sides' patterns use, up to 18 at n = 11.
    for limits in [None, Some((0, 1 << 8))] {
        check_sliced(
            limits,
            Some(20),
            &[(6, 1), (8, 2), (9, 1), (10, 3), (11, 1)],
        );
    }
}

#[test]
fn sides_read_in_many_buffers_count_the_known_totals() {
    // A streamed side is read a buffer at a time (of 65536 patterns in a run, so that only
    // sides larger than that, from n = 20 on, fill one): here of 5 patterns, every matching
    // sieved (figures, bin counts, sorted queries and table groups gathered across buffers)
    // or not, in slices.
    BUFFER_PATTERNS.set(Some(5));
    for k in [None, Some(3)] {
        check_sliced(Some((0, 1 << 8)), k, &[(10, 1), (11, 2), (12, 3), (14, 2)]);
    }
    BUFFER_PATTERNS.set(None);
}
