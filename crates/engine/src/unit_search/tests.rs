//! The search against brute force (each solution's unit and weight read off it), and the
//! join against the search: every unit of the small boards, units of several row sets, the
//! slices of units and streamed units.

use std::collections::HashMap;

use super::*;
use crate::Slice;
use crate::join::{self, Middle, Quadrants, count_unit, units};

/// The join's count of each unit of an n×n board on `q`, against the search's; the units'
/// counts, each times its weight, add up to the board's total. Returns the units with a span
/// of more than one row set.
fn agree_on_every_unit(q: &Quadrants, n: usize, quarter_turns: bool) -> usize {
    let mut total = 0u128;
    let mut spans = 0;
    for (u, w) in units(n) {
        let searched = search_unit(n, &u, quarter_turns);
        let joined = count_unit(q, &u).count;
        assert_eq!(joined, searched.count, "n = {n}, {u:?}, {quarter_turns}");
        total += u128::from(searched.count) * u128::from(w);
        spans += usize::from(u.span > 1);
    }
    assert_eq!(
        Some(total),
        crate::known::total(n),
        "n = {n}, {quarter_turns}"
    );
    spans
}

/// Units spread over the plan of an n×n board: about `k` of them, the first and the last
/// among them.
fn spread(n: usize, k: usize) -> Vec<Unit> {
    let all = units(n);
    let step = (all.len() / k).max(1);
    let mut out: Vec<Unit> = all.iter().step_by(step).map(|x| x.0).collect();
    out.push(all.last().unwrap().0);
    out
}

#[test]
fn the_search_counts_each_unit_as_brute_force_does() {
    for n in 1..=9 {
        let h = n / 2;
        let all = units(n);
        for quarter_turns in [false, true] {
            let turning = quarter_turns && n.is_multiple_of(2);
            // Each unit here is one row set: a solution is in the unit of its row set and
            // middle queens, if it is a unit of the plan.
            let mut by_unit: HashMap<(Option<Middle>, u32), (u64, u64)> = all
                .iter()
                .map(|(u, _)| {
                    assert_eq!(u.span, 1);
                    ((u.middle, u.east_rows), (0, 0))
                })
                .collect();
            for x in crate::brute::all_solutions(n) {
                let east_rows = (0..n).filter(|&r| x[r] >= n - h).fold(0, |m, r| m | 1 << r);
                let middle = (!n.is_multiple_of(2)).then(|| Middle {
                    column_queen: x.iter().position(|&c| c == h).unwrap() as u8,
                    row_queen: x[h] as u8,
                });
                let Some((count, ties)) = by_unit.get_mut(&(middle, east_rows)) else {
                    continue;
                };
                // Each solution's value against its quarter turn's, as `join/quarter.rs`
                // defines them.
                let (t, c) = (value(&x), value(&turned(&x)));
                match turning {
                    false => *count += 1,
                    true if t < c => *count += 2,
                    true if t == c => (*count, *ties) = (*count + 1, *ties + 1),
                    true => {}
                }
            }
            let mut total = 0u128;
            for (u, w) in &all {
                let (count, ties) = by_unit[&(u.middle, u.east_rows)];
                let searched = search_unit(n, u, quarter_turns);
                assert_eq!(searched, Searched { count, ties }, "n = {n}, {u:?}");
                total += u128::from(count) * u128::from(*w);
            }
            assert_eq!(Some(total), crate::known::total(n), "n = {n}");
        }
    }
}

#[test]
fn every_unit_of_the_small_boards_counts_as_the_join_counts_it() {
    for n in 1..=14 {
        agree_on_every_unit(&Quadrants::build(n), n, false);
        if n.is_multiple_of(2) {
            let q = Quadrants::bounded_turning(n, 1 << 20, true);
            agree_on_every_unit(&q, n, true);
        }
    }
}

#[test]
fn units_of_several_row_sets_count_as_the_join_counts_them() {
    // Every unit of n = 15 (the two-middle-queen pairs' row sets four to a unit).
    let spans = agree_on_every_unit(&Quadrants::bounded(15, 1 << 20), 15, false);
    assert!(spans > 1000, "{spans} units of several row sets");
    // Some of n = 17 (thirteen row sets to a unit).
    let q = Quadrants::bounded(17, 1 << 20);
    let picks: Vec<Unit> = spread(17, 6).into_iter().filter(|u| u.span > 1).collect();
    assert!(picks.len() >= 4);
    for u in &picks {
        assert_eq!(
            count_unit(&q, u).count,
            search_unit(17, u, false).count,
            "{u:?}"
        );
    }
    // The row sets the search steps through from each unit of two middle queens end where
    // the next unit of the same queens begins, and the last unit's at the last row set (the
    // centre queen's row sets are one per orbit, each a unit).
    for n in [15, 17] {
        let all = units(n);
        for (i, (u, _)) in all.iter().enumerate() {
            let m = u.middle.unwrap();
            if usize::from(m.column_queen) == n / 2 {
                continue;
            }
            let free = (0..n)
                .filter(|&r| r != n / 2 && r != usize::from(m.column_queen))
                .fold(0u32, |f, r| f | 1 << r);
            let after = (0..u.span).try_fold(u.east_rows, |s, _| next_subset(s, free));
            let next = all.get(i + 1).filter(|x| x.0.middle == u.middle);
            assert_eq!(after, next.map(|x| x.0.east_rows), "n = {n}, {u:?}");
        }
    }
}

#[test]
fn the_slices_of_a_unit_add_up_to_the_search() {
    let mut cut = 0;
    for (n, k) in [(18, 5), (19, 4), (20, 2)] {
        let q = Quadrants::bounded_turning(n, 1 << 20, true);
        for u in spread(n, k) {
            let searched = search_unit(n, &u, true).count;
            for of in [2, 3, 16] {
                let counts: Vec<u64> = (0..of)
                    .map(|index| {
                        let slice = Slice { index, of };
                        count_unit(&q, &Unit { slice, ..u }).count
                    })
                    .collect();
                assert_eq!(counts.iter().sum::<u64>(), searched, "n = {n}, {u:?}, {of}");
                cut += usize::from(counts.iter().filter(|&&c| c > 0).count() > 1);
            }
        }
    }
    assert!(cut >= 10, "only {cut} units were really cut");
}

#[test]
fn streamed_units_and_their_slices_count_as_the_search() {
    let mut ties = 0;
    for n in [11, 12, 15, 16, 18, 20] {
        let q = Quadrants::bounded_turning(n, 1 << 20, true);
        for u in spread(n, if n < 20 { 12 } else { 3 }) {
            let searched = search_unit(n, &u, true);
            ties += usize::from(searched.ties > 0);
            // Every unit streamed in table groups of a few bins: whole, and in slices one
            // after another (each from the last one's sorted sides).
            join::with_stream_limits((0, 1 << 8), || {
                assert_eq!(count_unit(&q, &u).count, searched.count, "n = {n}, {u:?}");
                let slices: u64 = (0..3)
                    .map(|index| {
                        let slice = Slice { index, of: 3 };
                        count_unit(&q, &Unit { slice, ..u }).count
                    })
                    .sum();
                assert_eq!(slices, searched.count, "n = {n}, {u:?}, in slices");
            });
        }
    }
    assert!(ties >= 3, "only {ties} units with ties");
}

#[test]
fn row_sets_follow_in_increasing_order() {
    for free in [0b1011_0110u32, 0b1111, 0b1_0000_0001, 0] {
        let places = free.count_ones();
        for k in 0..=places {
            let mut expected = (0..=free)
                .filter(|&s| s & !free == 0 && s.count_ones() == k)
                .collect::<Vec<u32>>()
                .into_iter();
            let mut s = expected.next();
            while let Some(x) = s {
                let next = expected.next();
                assert_eq!(next_subset(x, free), next, "{free:b}, {x:b}");
                s = next;
            }
        }
    }
}

#[test]
fn the_row_set_value_is_the_value_of_every_solution_turned() {
    for n in [4, 6, 8, 10] {
        for x in crate::brute::all_solutions(n) {
            let east_rows = (0..n).filter(|&r| x[r] >= n / 2).fold(0, |m, r| m | 1 << r);
            assert_eq!(value(&turned(&x)), row_set_value(n, east_rows), "{x:?}");
        }
    }
}

#[test]
#[should_panic(expected = "middle queens")]
fn a_unit_of_another_board_is_refused() {
    let u = units(9)[3].0;
    search_unit(10, &u, false);
}
