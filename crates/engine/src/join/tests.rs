//! Tests of the join engine as a whole: units against the published totals, slices, streamed
//! units, the stop flag and the buffers a thread lets go of.

use super::*;

/// The counts of `u`'s `of` slices, one after another on this thread.
fn slice_counts(q: &Quadrants, u: &Unit, of: u64) -> Vec<u64> {
    let slice = |index| Slice { index, of };
    let unit = |index| Unit {
        slice: slice(index),
        ..*u
    };
    (0..of)
        .map(|index| count_unit(q, &unit(index)).count)
        .collect()
}

#[test]
fn the_bounded_layout_counts_every_unit_as_the_lists_do() {
    for n in 1..=13 {
        let lists = Quadrants::build(n);
        let bounded = Quadrants::bounded(n, 1 << 20);
        let mut total = 0;
        for (u, w) in units(n) {
            let found = count_unit(&lists, &u);
            assert_eq!(found, count_unit(&bounded, &u), "n = {n}, {u:?}");
            total += u128::from(found.count) * u128::from(w);
        }
        // The units, each times its weight, add up to the board's total.
        assert_eq!(Some(total), crate::known::total(n), "n = {n}");
    }
}

#[test]
fn the_slices_of_a_unit_add_up_to_it() {
    let mut split = 0;
    for n in [20, 21] {
        let q = Quadrants::bounded(n, 64 << 20);
        let all = units(n);
        // Units spread over the plan, and among them ones large enough to be sieved.
        for (u, _) in all.iter().step_by(all.len() / 9) {
            let whole = count_unit(&q, u).count;
            for of in [2, 3, 16] {
                let counts = slice_counts(&q, u, of);
                assert_eq!(counts.iter().sum::<u64>(), whole, "n = {n}, {u:?}, {of}");
                split += usize::from(counts.iter().filter(|&&c| c > 0).count() > 1);
            }
        }
        // Slices of different units one after another on one thread: none starts from
        // another unit's half-boards.
        let picks: Vec<Unit> = all.iter().step_by(all.len() / 9).map(|x| x.0).collect();
        let mut sums = vec![0; picks.len()];
        for index in 0..3 {
            for (u, sum) in picks.iter().zip(&mut sums) {
                let slice = Slice { index, of: 3 };
                *sum += count_unit(&q, &Unit { slice, ..*u }).count;
            }
        }
        for (u, sum) in picks.iter().zip(sums) {
            assert_eq!(sum, count_unit(&q, u).count, "n = {n}, {u:?}");
        }
        // A slice given up does not leave its unit's half-boards for the next slice.
        let stop = AtomicBool::new(true);
        for u in &picks {
            let slice = Slice { index: 1, of: 3 };
            assert_eq!(count_unit_until(&q, &Unit { slice, ..*u }, &stop), None);
            let whole: u64 = slice_counts(&q, u, 3).iter().sum();
            assert_eq!(whole, count_unit(&q, u).count, "n = {n}, {u:?}");
        }
    }
    assert!(split >= 6, "only {split} units were really cut");
}

/// Counts on this thread with units streamed from `stream_above` candidate pairs on and
/// table groups of at most `group` patterns.
pub(super) fn streaming<T>(limits: Option<(u64, usize)>, f: impl FnOnce() -> T) -> T {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.limits = limits;
        s.made_for = None;
    });
    let out = f();
    SCRATCH.with(|s| s.borrow_mut().limits = None);
    out
}

#[test]
fn streamed_units_and_their_slices_count_as_held_ones() {
    let (mut streamed_big, mut ties) = (0, 0);
    // Without the quarter turns, and with them.
    let boards = [8, 12, 16, 18].map(|n| (n, false));
    for (n, turning) in boards
        .into_iter()
        .chain([(16, true), (18, true), (20, true)])
    {
        let q = Quadrants::bounded_turning(n, 1 << 20, turning);
        let all = units(n);
        let picks: Vec<Unit> = all
            .iter()
            .step_by((all.len() / 7).max(1))
            .map(|x| x.0)
            .collect();
        for u in &picks {
            let whole = count_unit(&q, u);
            // Pairs below the value count twice, ties once: an odd count holds ties.
            ties += usize::from(turning && whole.count % 2 == 1);
            for (group, held) in [(1 << 10, 0), (1 << 25, 33), (1 << 12, 41)] {
                // The rests of the sorted queries in 32 bits, 40 and 64.
                super::stream::HELD_BITS.set(held);
                let got = streaming(Some((0, group)), || count_unit(&q, u));
                // With the quarter turns only the count is the held unit's, not the
                // half-boards made.
                assert_eq!(got.count, whole.count, "n = {n}, {u:?}, groups of {group}");
                assert!(turning || got == whole, "n = {n}, {u:?}, groups of {group}");
                streamed_big += usize::from(whole.nodes >= 8192);
                for of in [2, 3, 16] {
                    // Each slice streamed, and held.
                    let (one_by_one, alone): (Vec<u64>, Vec<u64>) = (0..of)
                        .map(|index| {
                            let unit = Unit {
                                slice: Slice { index, of },
                                ..*u
                            };
                            let held = count_unit(&q, &unit).count;
                            let next = streaming(Some((0, group)), || count_unit(&q, &unit));
                            (next.count, held)
                        })
                        .unzip();
                    assert_eq!(one_by_one, alone, "n = {n}, {u:?}, {of} slices");
                    assert_eq!(alone.iter().sum::<u64>(), whole.count);
                    // Streamed one after another, each from the last one's sorted queries
                    // and table group.
                    let chained = streaming(Some((0, group)), || slice_counts(&q, u, of));
                    assert_eq!(chained, alone, "n = {n}, {u:?}, {of} slices in a row");
                }
            }
        }
    }
    super::stream::HELD_BITS.set(0);
    let held_as = super::stream::HELD_AS.get();
    assert!(
        held_as.iter().all(|&n| n >= 4),
        "streamed sides held in 32, 40 and 64 bits: {held_as:?}"
    );
    assert!(
        streamed_big >= 4,
        "only {streamed_big} streamed units were sieved"
    );
    assert!(ties >= 3, "only {ties} units with ties");
}

#[test]
fn buffers_let_go_between_units_change_no_count() {
    let mut s = Scratch::default();
    s.east.reserve_exact(1000);
    s.south.reserve_exact(10);
    s.tables.table.reserve_exact(1000);
    s.release_above(100);
    assert_eq!((s.east.capacity(), s.tables.table.capacity()), (0, 0));
    assert!(s.south.capacity() >= 10, "a small buffer stays");
    // Every buffer let go before each unit, held and streamed: the totals are the known
    // ones.
    SCRATCH.with(|s| s.borrow_mut().release = Some(0));
    for limits in [None, Some((0, 1 << 8))] {
        streaming(limits, || {
            for n in [13, 14, 16] {
                let q = Quadrants::bounded(n, 1 << 20);
                let total: u128 = units(n)
                    .iter()
                    .map(|(u, w)| u128::from(count_unit(&q, u).count) * u128::from(*w))
                    .sum();
                assert_eq!(Some(total), crate::known::total(n), "n = {n}, {limits:?}");
            }
        });
    }
    SCRATCH.with(|s| s.borrow_mut().release = None);
}

#[test]
fn a_raised_stop_gives_up_the_unit() {
    let stop = AtomicBool::new(true);
    for q in [Quadrants::build(16), Quadrants::bounded(16, 0)] {
        let big = units(16)
            .into_iter()
            .map(|(u, _)| u)
            .max_by_key(|u| count_unit(&q, u).nodes)
            .unwrap();
        assert_eq!(count_unit_until(&q, &big, &stop), None);
    }
}

#[test]
fn units_counted_with_quarter_turns_are_not_the_plain_ones() {
    // Some solutions count twice, some not. (Their totals, held and streamed, whole or in
    // slices: `frontier_tests.rs` and the second opinion's tests, `unit_search`.)
    let (plain, turning) = (
        Quadrants::bounded(12, 1 << 20),
        Quadrants::bounded_turning(12, 1 << 20, true),
    );
    let differ = units(12)
        .iter()
        .filter(|(u, _)| count_unit(&plain, u).count != count_unit(&turning, u).count)
        .count();
    assert!(differ > 10, "{differ}");
}

#[test]
fn a_whole_probe_counts_the_unit_and_stands_for_itself() {
    // What `Probe::WHOLE` finds is the unit's count, and every scale it settles is 1 (none
    // for the partitions), so that timing it times the unit as a run counts it.
    #[derive(Default)]
    struct Scales(Vec<(Phase, f64)>);
    impl Phases for Scales {
        fn begin(&mut self, _: Phase) {}
        fn settle(&mut self, scales: &[(Phase, f64)]) {
            self.0.extend_from_slice(scales);
        }
    }
    let never = AtomicBool::new(false);
    let mut sieved = 0;
    for (n, turning) in [
        (15, false),
        (16, false),
        (16, true),
        (17, false),
        (18, true),
    ] {
        let q = Quadrants::bounded_turning(n, 1 << 20, turning);
        let all = units(n);
        for (u, _) in all.iter().step_by((all.len() / 12).max(1)) {
            let mut scales = Scales::default();
            let found = probe_unit(&q, u, Probe::WHOLE, &mut scales, &never).expect("never");
            assert_eq!(found, count_unit(&q, u), "n = {n}, {u:?}");
            for &(phase, scale) in &scales.0 {
                assert_ne!(phase, Phase::Partitions, "n = {n}, {u:?}");
                assert!((scale - 1.0).abs() < 1e-9, "n = {n}, {u:?}: {:?}", scales.0);
                sieved += usize::from(phase == Phase::Queries);
            }
        }
    }
    assert!(sieved >= 4, "only {sieved} row sets were sieved");
}
