//! Where the work of a count goes: subproblems, nodes, completions and time per family of the
//! plan (single thread). `breakdown N [plain|symmetry]`.
//!
//! For the symmetry plan the families are: the corner queen, the row-0 queen strictly nearest
//! a corner, the tie constellations, and the rotation-invariant searches behind the unique
//! count (whose share of the time should stay small).

use std::collections::BTreeMap;
use std::time::Instant;

use nqueens::internals::Prepared;
use nqueens::plan::{Algorithm, Plan, Work};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: breakdown N [plain|symmetry]");
    let algorithm: Algorithm = args
        .next()
        .map_or(Ok(Algorithm::Symmetry), |s| s.parse())
        .expect("plain, symmetry or join");
    let plan = Plan::build(n, algorithm, None).expect("plan");
    let engines = Prepared::new(&plan, 0);
    let mut families: BTreeMap<&str, (u64, u64, u128, f64)> = BTreeMap::new();
    let begun = Instant::now();
    for sub in plan.subproblems() {
        let t0 = Instant::now();
        let piece = engines.solve(&sub);
        let secs = t0.elapsed().as_secs_f64();
        let (family, weight) = match sub.work {
            Work::Complete { frame, weight, .. } => (
                plan.family(frame).expect("a kernel frame").describe(),
                u128::from(weight),
            ),
            Work::HalfTurn { .. } => ("half-turn invariant (unique)", 1),
            Work::QuarterTurn { .. } => ("quarter-turn invariant (unique)", 1),
            Work::Constrained { .. } => ("constrained board", 1),
            Work::Join { unit, weight } => match unit.middle {
                None => ("join: row sets", u128::from(weight)),
                Some(m)
                    if m.column_queen == m.row_queen && 2 * usize::from(m.row_queen) + 1 == n =>
                {
                    ("join: centre queen", u128::from(weight))
                }
                Some(_) => ("join: two middle queens", u128::from(weight)),
            },
        };
        let e = families.entry(family).or_default();
        e.0 += 1;
        e.1 += piece.nodes;
        e.2 += piece.count * weight;
        e.3 += secs;
    }
    let total_secs = begun.elapsed().as_secs_f64();
    println!(
        "n = {n}, {algorithm}, {} subproblems, split depth {}",
        plan.len(),
        plan.split_depth()
    );
    println!(
        "{:<34} {:>8} {:>14} {:>16} {:>9} {:>6}",
        "family", "pieces", "nodes", "weighted count", "seconds", "share"
    );
    for (name, (pieces, nodes, count, secs)) in families {
        println!(
            "{name:<34} {pieces:>8} {nodes:>14} {count:>16} {secs:>9.3} {:>5.1}%",
            100.0 * secs / total_secs
        );
    }
}
