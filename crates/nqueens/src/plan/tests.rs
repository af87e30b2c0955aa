//! The plan's tests: entries, hashes, algorithms, depths, and a run's cut into slices.

use super::limits::{MAX_SPLIT_DEPTH, MAX_SUBPROBLEMS};
use super::*;
use nqueens_engine::join::MAX_JOIN_N;

/// Files name their plan by its hash, so a plan's hash must not drift between versions; a plan
/// of a chosen split depth too (`tests/plan_hashes.rs` pins the default plans').
#[test]
fn plans_keep_the_hashes_their_files_name() {
    let plan = Plan::build(12, Algorithm::Symmetry, Some(3)).unwrap();
    assert_eq!(plan.hash().to_string(), "77db5a5c961ae5e7");
}

#[test]
fn a_plan_hash_is_written_and_read_as_sixteen_hex_digits() {
    let plan = Plan::build(10, Algorithm::Symmetry, None).unwrap();
    let text = plan.hash().to_string();
    assert_eq!(text.len(), 16);
    assert_eq!(text.parse::<PlanHash>().unwrap(), plan.hash());
    let json = serde_json::to_string(&plan.hash()).unwrap();
    assert_eq!(json, format!("\"{text}\""));
    assert_eq!(
        serde_json::from_str::<PlanHash>(&json).unwrap(),
        plan.hash()
    );
    for bad in [
        "",
        "0123",
        &text.to_uppercase(),
        &format!("{text}0"),
        "+123456789abcdef",
        "0x23456789abcdef",
    ] {
        if bad != text {
            assert!(bad.parse::<PlanHash>().is_err(), "{bad}");
        }
    }
}

#[test]
fn plans_are_deterministic() {
    for alg in Algorithm::ALL {
        let a = Plan::build(12, alg, None).unwrap();
        let b = Plan::build(12, alg, None).unwrap();
        assert_eq!(a.families.len(), a.frames.len());
        assert_eq!(a.hash, b.hash);
        assert_eq!(a, b);
        if alg == Algorithm::Join {
            // The join plan has no split depth; asking for one is an error, 0 is its own.
            assert!(Plan::build(12, alg, Some(1)).is_err());
            assert_eq!(Plan::build(12, alg, Some(0)).unwrap().hash, a.hash);
            assert_ne!(Plan::build(13, alg, None).unwrap().hash, a.hash);
            continue;
        }
        let c = Plan::build(12, alg, Some(a.split_depth + 1)).unwrap();
        assert_ne!(a.hash, c.hash);
    }
}

#[test]
fn the_default_algorithm_is_the_measured_fastest() {
    let join: Vec<usize> = (1..=32)
        .filter(|&n| Algorithm::default_for(n) == Algorithm::Join)
        .collect();
    let mut want = vec![12];
    want.extend(14..=MAX_JOIN_N);
    assert_eq!(join, want);
}

#[test]
fn algorithm_names_round_trip_and_unknown_ones_are_refused() {
    for a in Algorithm::ALL {
        assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
    }
    // A constrained board's plan is named in files, but is not an algorithm to choose.
    assert!("constrained".parse::<Algorithm>().is_err());
    assert_eq!(
        Algorithm::from_name("constrained"),
        Some(Algorithm::Constrained)
    );
    assert_eq!(Algorithm::from_name("join"), Some(Algorithm::Join));
    assert_eq!(Algorithm::from_name("fast"), None);
    let err = "fast".parse::<Algorithm>().unwrap_err().to_string();
    assert!(err.contains("'fast'"), "{err}");
}

#[test]
fn bad_split_depths_are_refused() {
    assert!(Plan::build(8, Algorithm::Plain, Some(0)).is_err());
    assert!(Plan::build(8, Algorithm::Plain, Some(MAX_SPLIT_DEPTH + 1)).is_err());
    assert!(Plan::build(8, Algorithm::Symmetry, Some(0)).is_ok());
    let err = Plan::build(14, Algorithm::Join, Some(2))
        .unwrap_err()
        .to_string();
    assert!(err.contains("join") && !err.contains("--"), "{err}");
}

#[test]
fn default_plans_make_enough_subproblems_and_not_too_many() {
    for (n, alg) in [(16, Algorithm::Symmetry), (12, Algorithm::Plain)] {
        assert!(Plan::build(n, alg, None).unwrap().entry_count() >= 1024);
    }
    for n in [1, 2, 3, 9, 17, 24, 28, 32] {
        for alg in [Algorithm::Plain, Algorithm::Symmetry] {
            let p = Plan::build(n, alg, None).unwrap();
            assert!(p.entries.len() <= MAX_SUBPROBLEMS, "n = {n} {alg}");
        }
    }
}

/// Checks that `cut`, counted subproblem by subproblem, gives the published counts.
fn assert_published(cut: &Cut) {
    let plan = cut.plan();
    let counted: Vec<_> = cut
        .subproblems()
        .map(|s| crate::run::solve_one(plan, &s))
        .collect();
    let sums = crate::tally::Sums::of(plan, counted.iter());
    assert_eq!(
        Some(sums.total),
        crate::known::total(plan.n),
        "n = {}",
        plan.n
    );
    if plan.algorithm != Algorithm::Plain {
        assert_eq!(sums.unique(plan), crate::known::unique(plan.n));
    }
}

#[test]
fn a_kernel_plan_cut_into_slices_gives_the_published_counts() {
    for alg in [Algorithm::Plain, Algorithm::Symmetry] {
        for slices in [3, 300] {
            let plan = Plan::build(11, alg, None).unwrap();
            // Every entry cut, the half-turn searches too; a quarter-turn search stays whole.
            let cuts = Cut::fresh(plan.clone(), |_, _, _| slices);
            let whole = if alg == Algorithm::Symmetry { 11 } else { 0 };
            let cut = plan.entry_count() - whole;
            assert_eq!(cuts.len() as u64, cut * slices + whole, "{alg} {slices}");
            assert_published(&cuts);
        }
    }
}

#[test]
fn a_sliced_plan_lists_every_slice_of_every_unit_once() {
    for n in [13, 14] {
        let whole = Plan::build(n, Algorithm::Join, None).unwrap();
        let cut = Cut::sliced(whole.clone(), 3);
        let units = whole
            .works()
            .filter(|w| matches!(w, Work::Join { .. }))
            .count();
        assert_eq!(cut.len() as u64, whole.entry_count() + 2 * units as u64);
        let mut seen = std::collections::HashSet::new();
        for (i, s) in cut.subproblems().enumerate() {
            assert_eq!(s.id, i as u64);
            match s.work {
                Work::Join { unit, .. } => {
                    assert_eq!(s.slice.of, 3);
                    assert!(seen.insert((unit, s.slice)), "{unit:?} twice");
                    assert!(i < 3 * units);
                }
                _ => assert!(i >= 3 * units),
            }
        }
        assert_eq!(seen.len(), 3 * units);
        assert_published(&cut);
    }
}

#[test]
fn boards_past_the_join_range_are_refused_before_any_list() {
    let err = Plan::build(MAX_JOIN_N + 1, Algorithm::Join, None).unwrap_err();
    assert!(matches!(err, PlanError::JoinTooLarge { .. }), "{err}");
}

#[test]
fn no_honest_subproblem_passes_its_bound() {
    use crate::constraint::{Board, PieceKind};
    use crate::run::solve_one;
    let cuts = [
        Cut::whole(Plan::build(9, Algorithm::Plain, None).unwrap()),
        Cut::whole(Plan::build(10, Algorithm::Symmetry, None).unwrap()),
        Cut::whole(Plan::build(11, Algorithm::Symmetry, Some(3)).unwrap()),
        Cut::whole(Plan::build(12, Algorithm::Join, None).unwrap()),
        Cut::whole(Plan::build(13, Algorithm::Join, None).unwrap()),
        Cut::sliced(Plan::build(13, Algorithm::Join, None).unwrap(), 3),
        Cut::whole(Plan::constrained(&Board::empty(8, PieceKind::Rook).unwrap(), None).unwrap()),
        Cut::whole(
            Plan::constrained(&Board::empty(9, PieceKind::Queen).unwrap(), Some(2)).unwrap(),
        ),
    ];
    for cut in &cuts {
        let plan = cut.plan();
        let whole_board = (1..=plan.n as u128).product::<u128>();
        for id in 0..cut.len() as u64 {
            let s = cut.subproblem(id);
            let (count, bound) = (solve_one(plan, &s).count, plan.count_bound(&s.work));
            assert!(
                count <= bound,
                "n = {}, {}: subproblem {id}",
                plan.n,
                plan.algorithm
            );
            assert!(bound <= whole_board, "n = {}: subproblem {id}", plan.n);
        }
    }
}

/// Every subproblem of the plans that the kernel completes, counted every way the kernel can
/// (`kernel::check::cross_check`): the plain and the branch-free backtrack, the portable and
/// the bit-instruction lanes, and the bulk counts of the last four and five levels, on the
/// frames only the plans make (border queens, skipped rows).
#[test]
fn the_kernels_ways_of_counting_agree_on_every_subproblem() {
    use nqueens_engine::kernel::check::{Checked, cross_check};
    let (mut compared, mut bulk, mut spread, mut fast) = (0, [0; 2], 0, 0);
    for n in 4..=12 {
        for alg in Algorithm::ALL {
            for depth in [None, Some(1usize), Some(2)] {
                let Ok(plan) = Plan::build(n, alg, depth) else {
                    continue;
                };
                for (entry, work) in plan.works().enumerate() {
                    let Work::Complete { frame, start, .. } = work else {
                        continue;
                    };
                    let f = plan.frame(frame);
                    if start.level + 3 > f.depth {
                        continue;
                    }
                    let at = format!("n = {n} {alg} depth {depth:?} entry {entry}");
                    let c: Checked = cross_check(&f.into(), &start.into())
                        .unwrap_or_else(|e| panic!("{e}: {at}"));
                    compared += 1;
                    fast += usize::from(c.bit_extensions);
                    bulk[0] += usize::from(c.bulk[0]);
                    bulk[1] += usize::from(c.bulk[1]);
                    spread += usize::from(c.spread);
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
    if fast == 0 {
        return crate::tests_support::skip(
            "no popcnt/lzcnt/bmi1/bmi2 here, only the portable variant ran",
        );
    }
    assert!(bulk.iter().all(|&b| b > 100), "{bulk:?}");
    // Tie frames (border queens in the bottom rows) whose four bottom levels span skipped
    // rows. The five-level count is made only over adjacent rows (see `LastFive::new`).
    assert!(spread > 10, "{spread}");
}

#[test]
fn an_even_join_plan_names_its_plan_before_the_quarter_turns() {
    let plan = Plan::build(18, Algorithm::Join, None).unwrap();
    // The hash format version 2 gave n = 18 (`tests/data/plan-hashes.txt` of that version).
    let v2: PlanHash = "ebefe7d0cf94fdc2".parse().unwrap();
    let before = plan.before_quarter_turns(v2).expect("the version-2 plan");
    assert_eq!(before.hash(), v2);
    assert!(!before.quarter_turns() && plan.quarter_turns());
    assert_eq!(before.entry_count(), plan.entry_count());
    // Not for its own hash, another hash, or a plan without quarter turns.
    assert!(plan.before_quarter_turns(plan.hash()).is_none());
    assert!(
        plan.before_quarter_turns("0123456789abcdef".parse().unwrap())
            .is_none()
    );
    let odd = Plan::build(17, Algorithm::Join, None).unwrap();
    assert!(odd.before_quarter_turns(v2).is_none());
}
