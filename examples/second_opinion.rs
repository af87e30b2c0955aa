//! A second opinion on the join's units: draws units of the n×n join plan, counts each with
//! the join and again with the search of the whole board restricted to the unit
//! (`nqueens_engine::unit_search`, which shares no code with the join), and prints both
//! (`results/second-opinion.md`). Exits 1 if any unit's counts differ.
//!
//! `second_opinion N SAMPLE SEED [KINDS] [--pool P] [--group G]`: SAMPLE units of each kind
//! drawn from SEED (the same units for the same arguments), KINDS a comma-separated list
//! among:
//!
//! * `held`: counted whole, as a run counts it;
//! * `streamed`: a unit of one row set whose sides are read anew for each group of at most G
//!   table patterns instead of held (`join::with_stream_limits`): the path of the largest
//!   units of n = 26 and 28, forced here. By default G is an eighth of the larger side, so
//!   that the table side (about half of it below the unit's value with the quarter turns) is
//!   read in some four groups;
//! * `sliced`: counted in 2, 3 and 16 slices, one after another, each sum against the search;
//! * `ties`: a held unit of an even board with the quarter turns whose solutions include ties
//!   (a value equal to the unit's, weight 1), which the join counts apart; a candidate
//!   without is reported as `held`;
//!
//! all of them by default (`ties` for the boards with the quarter turns alone). On odd
//! boards each kind takes units of two middle queens (of several row sets each) and of the
//! centre queen in turn, the streamed ones of the centre queen alone. With
//! `--pool P`, each unit is the smallest of P drawn (by the sizes of its two sides), for
//! boards whose searches are long.
//!
//! The units and weights are the plan's (`nqueens::Plan::build`, the join's units one for
//! one, checked here by their weights and kinds), counted on one thread as a run counts them:
//! the quarter turns for even n from 18 on (`plan::join::QUARTER_TURNS_FROM`), the whole
//! quadrant lists up to n = 17, else the memory-bounded layout (`LISTS_UNTIL` in the
//! library's `run/engines/join.rs`).
//! The counts compared are raw, before the plan's orbit weight.

use std::collections::HashSet;
use std::process::ExitCode;
use std::time::Instant;

use nqueens::{Algorithm, Plan};
use nqueens_engine::Slice;
use nqueens_engine::join::{self, Quadrants, Unit};
use nqueens_engine::random::XorShift;
use nqueens_engine::unit_search::search_unit;

/// The kinds of units, in the order they are drawn.
const KINDS: [&str; 4] = ["held", "streamed", "sliced", "ties"];

/// The bytes of partitions the join keeps from unit to unit (as a run's thread may).
const CACHE: usize = 64 << 20;

/// What one unit gave.
struct Line {
    kind: &'static str,
    join: Vec<u64>,
    search: u64,
    ties: u64,
    seconds: (f64, f64),
    /// How the join counted it: the slices, or the sides and the groups streamed.
    note: String,
}

fn main() -> ExitCode {
    let usage = "usage: second_opinion N SAMPLE SEED [KINDS] [--pool P] [--group G]";
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |name: &str, default: usize| -> usize {
        match args.iter().position(|a| a == name) {
            Some(i) => {
                let v = args.get(i + 1).and_then(|s| s.parse().ok()).expect(usage);
                args.drain(i..i + 2);
                v
            }
            None => default,
        }
    };
    let pool = option("--pool", 1).max(1);
    let group = option("--group", 0);
    let n: usize = args.first().and_then(|s| s.parse().ok()).expect(usage);
    let sample: usize = args.get(1).and_then(|s| s.parse().ok()).expect(usage);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).expect(usage);
    let turning = n.is_multiple_of(2) && n >= 18;
    let kinds: Vec<&'static str> = match args.get(3) {
        Some(list) => list
            .split(',')
            .map(|k| *KINDS.iter().find(|&&x| x == k).expect("a kind"))
            .collect(),
        None => KINDS
            .iter()
            .copied()
            .filter(|&k| k != "ties" || turning)
            .collect(),
    };
    let units = join::units(n);
    check_plan(n, &units);
    let q = if n <= 17 && !turning {
        Quadrants::build(n)
    } else {
        Quadrants::bounded_turning(n, CACHE, turning)
    };
    // Streaming needs the memory-bounded layout.
    let bounded = Quadrants::bounded_turning(n, CACHE, turning);
    println!(
        "n = {n}: {} units, quarter turns {}, sample {sample} a kind, seed {seed}, pool {pool}",
        units.len(),
        if turning { "on" } else { "off" },
    );
    println!("kind\tunit\tjoin\tsearch\tties\tjoin s\tsearch s\tresult\tnote");
    let mut rng = XorShift::new(seed);
    let mut drawn = HashSet::new();
    let mut lines = Vec::new();
    for &kind in &kinds {
        if kind == "ties" && !turning {
            println!("# no ties: the quarter turns are off for n = {n}");
            continue;
        }
        // Odd boards: units of two middle queens (of several row sets each) and of the centre
        // queen (most of the plan) taken in turn; only units of one row set stream.
        let two_middles = |i: usize| {
            units[i]
                .0
                .middle
                .is_some_and(|m| usize::from(m.column_queen) != n / 2)
        };
        let groups: Vec<Vec<usize>> = [true, false]
            .into_iter()
            .filter(|&two| !(two && kind == "streamed"))
            .map(|two| {
                (0..units.len())
                    .filter(|&i| n.is_multiple_of(2) || two_middles(i) == two)
                    .filter(|&i| kind != "streamed" || units[i].0.span == 1)
                    .collect::<Vec<usize>>()
            })
            .filter(|g| !g.is_empty())
            .collect();
        let (mut found, mut tries) = (0, 0);
        while found < sample && tries < 50 * sample.max(1) {
            let eligible = &groups[tries % groups.len()];
            tries += 1;
            let Some(i) = draw(eligible, pool, &mut drawn, &mut rng, &bounded, &units) else {
                break;
            };
            let u = units[i].0;
            let line = count(&q, &bounded, n, u, kind, group, turning);
            found += usize::from(line.kind == kind);
            print_line(n, &u, &line);
            lines.push(line);
        }
    }
    summary(n, &lines)
}

/// The plan's join units are the engine's: as many, each of the same kind and weight.
fn check_plan(n: usize, units: &[(Unit, u8)]) {
    let plan = Plan::build(n, Algorithm::Join, None).expect("a join plan");
    assert!(plan.entry_count() >= units.len() as u64);
    for (i, (u, w)) in units.iter().enumerate() {
        let id = i as u64;
        assert_eq!(plan.weight_of(id), *w, "unit {i}");
        let kind = match u.middle {
            None => "join: row sets",
            Some(m) if usize::from(m.column_queen) == n / 2 => "join: centre queen",
            Some(_) => "join: two middle queens",
        };
        assert_eq!(plan.describe(id), kind, "unit {i}");
    }
    assert!(!plan.describe(units.len() as u64).starts_with("join"));
}

/// A unit not drawn before: the smallest (by the sizes of its sides) of `pool` drawn.
fn draw(
    eligible: &[usize],
    pool: usize,
    drawn: &mut HashSet<usize>,
    rng: &mut XorShift,
    bounded: &Quadrants,
    units: &[(Unit, u8)],
) -> Option<usize> {
    let mut candidates = Vec::new();
    for _ in 0..100 * pool {
        if candidates.len() == pool {
            break;
        }
        let i = eligible[rng.below(eligible.len())];
        if !drawn.contains(&i) && !candidates.contains(&i) {
            candidates.push(i);
        }
    }
    let size = |i: usize| {
        let (east, west) = join::unit_sides(bounded, &units[i].0);
        east.len() + west.len()
    };
    let best = match pool {
        1 => *candidates.first()?,
        _ => candidates.into_iter().min_by_key(|&i| size(i))?,
    };
    drawn.insert(best);
    Some(best)
}

/// Counts unit `u` by the join (as its kind says) and by the search.
fn count(
    q: &Quadrants,
    bounded: &Quadrants,
    n: usize,
    u: Unit,
    kind: &'static str,
    group: usize,
    turning: bool,
) -> Line {
    let begun = Instant::now();
    let searched = search_unit(n, &u, turning);
    let search_s = begun.elapsed().as_secs_f64();
    let slices = |of: u64| -> u64 {
        (0..of)
            .map(|index| {
                let slice = Slice { index, of };
                join::count_unit(q, &Unit { slice, ..u }).count
            })
            .sum()
    };
    let mut note = String::from("-");
    let (join, join_s) = match kind {
        "streamed" => {
            let (east, west) = join::unit_sides(bounded, &u);
            let group = match group {
                0 => (east.len().max(west.len()) / 8).max(1024),
                g => g,
            };
            note = format!("sides {}/{}, groups of {group}", east.len(), west.len());
            drop((east, west));
            let begun = Instant::now();
            let count = join::with_stream_limits((0, group), || join::count_unit(bounded, &u));
            (vec![count.count], begun.elapsed().as_secs_f64())
        }
        "sliced" => {
            note = "sums of 2, 3 and 16 slices".to_string();
            let begun = Instant::now();
            (
                [2, 3, 16].map(slices).to_vec(),
                begun.elapsed().as_secs_f64(),
            )
        }
        _ => {
            let begun = Instant::now();
            (
                vec![join::count_unit(q, &u).count],
                begun.elapsed().as_secs_f64(),
            )
        }
    };
    // A unit drawn for its ties that has none is an ordinary one.
    let kind = if kind == "ties" && searched.ties == 0 {
        "held"
    } else {
        kind
    };
    Line {
        kind,
        join,
        search: searched.count,
        ties: searched.ties,
        seconds: (join_s, search_s),
        note,
    }
}

/// The unit as text: a letter a row (`E` east, `w` west, `m` a middle queen's row), the
/// middle queens (row of the middle column's, column of the middle row's) and the span.
fn describe(n: usize, u: &Unit) -> String {
    let middle_rows: Vec<usize> = u
        .middle
        .iter()
        .flat_map(|m| [usize::from(m.column_queen), n / 2])
        .collect();
    let rows: String = (0..n)
        .map(|r| match () {
            _ if middle_rows.contains(&r) => 'm',
            _ if (u.east_rows >> r) & 1 == 1 => 'E',
            _ => 'w',
        })
        .collect();
    let middle = u.middle.map_or("-".to_string(), |m| {
        format!("({},{})", m.column_queen, m.row_queen)
    });
    format!("{rows} middle {middle} span {}", u.span)
}

fn agrees(line: &Line) -> bool {
    line.join.iter().all(|&c| c == line.search)
}

fn print_line(n: usize, u: &Unit, line: &Line) {
    let join: Vec<String> = line.join.iter().map(u64::to_string).collect();
    println!(
        "{}\t{}\t{}\t{}\t{}\t{:.2}\t{:.2}\t{}\t{}",
        line.kind,
        describe(n, u),
        join.join("/"),
        line.search,
        line.ties,
        line.seconds.0,
        line.seconds.1,
        if agrees(line) { "agree" } else { "DIFFER" },
        line.note
    );
}

/// One line a kind and one for all: units, how many agree, seconds of each engine.
fn summary(n: usize, lines: &[Line]) -> ExitCode {
    println!("# summary for n = {n}");
    for kind in KINDS {
        let of: Vec<&Line> = lines.iter().filter(|l| l.kind == kind).collect();
        if of.is_empty() {
            continue;
        }
        let agree = of.iter().filter(|l| agrees(l)).count();
        let join: f64 = of.iter().map(|l| l.seconds.0).sum();
        let search: f64 = of.iter().map(|l| l.seconds.1).sum();
        println!(
            "# {kind}: {} units, {agree} agree, join {join:.1} s, search {search:.1} s",
            of.len()
        );
    }
    let differ = lines.iter().filter(|l| !agrees(l)).count();
    println!(
        "# all: {} units, {} agree, {differ} differ",
        lines.len(),
        lines.len() - differ
    );
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
