//! Where the work of a count goes: subproblems, nodes, completions and time per family of the
//! plan, counted on one thread through the library's public API. `breakdown N [ALGORITHM]`.
//!
//! For the symmetry plan the families are: the corner queen, the row-0 queen strictly nearest
//! a corner, the tie constellations, and the rotation-invariant searches behind the unique
//! count (whose share of the time should stay small). A subproblem's time is the time between the
//! reports of the one thread's finished subproblems.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use nqueens::{Algorithm, Config, Control, Counted, Job, Status};

/// Per family: subproblems, nodes, weighted count and seconds.
type Table = BTreeMap<&'static str, (u64, u64, u128, f64)>;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: breakdown N [plain|symmetry|join]";
    let n: usize = args.next().and_then(|s| s.parse().ok()).expect(usage);
    let algorithm: Algorithm = args
        .next()
        .map_or(Ok(Algorithm::Symmetry), |s| s.parse())
        .expect(usage);
    let job = Job::new(&Config::new(n).algorithm(algorithm).threads(1)).expect("a plan");
    let plan = job.plan();
    let families: Mutex<(Duration, Table)> = Mutex::default();
    let observe = |subproblem: &Counted, status: &Status| {
        let mut guard = families.lock().unwrap();
        let (last, table) = &mut *guard;
        let seconds = status.elapsed.saturating_sub(*last).as_secs_f64();
        *last = status.elapsed;
        let (name, weight) = (
            plan.describe(subproblem.entry),
            u128::from(plan.weight_of(subproblem.entry)),
        );
        let e = table.entry(name).or_default();
        e.0 += 1;
        e.1 += subproblem.nodes;
        e.2 += subproblem.count * weight;
        e.3 += seconds;
    };
    let control = Control {
        observer: Some(&observe),
        ..Control::default()
    };
    job.run(control).expect("a count");
    let (total, table) = families.into_inner().unwrap();
    println!(
        "n = {n}, {algorithm}, {} subproblems, split depth {}",
        job.cut().len(),
        plan.split_depth()
    );
    println!(
        "{:<34} {:>8} {:>14} {:>16} {:>9} {:>6}",
        "family", "subproblems", "nodes", "weighted count", "seconds", "share"
    );
    for (name, (subproblems, nodes, count, secs)) in table {
        println!(
            "{name:<34} {subproblems:>8} {nodes:>14} {count:>16} {secs:>9.3} {:>5.1}%",
            100.0 * secs / total.as_secs_f64()
        );
    }
}
