//! Times the slices of a few of the largest pieces of an n×n board on one thread, to check
//! that a slice stays well under a minute: `slice_times N [PIECES] [SLICES] [ALGORITHM]`
//! (default: 3 pieces, every slice, the join).
//!
//! * `join`: the units of the strata measured slowest, their first SLICES slices one after
//!   another (as a worker takes a block of them, making the unit's half-boards once).
//! * `plain`, `symmetry`: the searches cut into the most slices, SLICES slices of each spread
//!   from the first to the last (default 3: first, middle, last).

use nqueens::internals::join::stratum;
use nqueens::internals::{CostModel, Prepared};
use nqueens::plan::Work;
use nqueens::{Algorithm, Plan, SLICE_SECONDS};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: slice_times N [PIECES] [SLICES] [ALGORITHM]";
    let n: usize = args.next().and_then(|s| s.parse().ok()).expect(usage);
    let pieces: usize = args.next().map_or(3, |s| s.parse().expect(usage));
    let slices: Option<u64> = args.next().map(|s| s.parse().expect(usage));
    let algorithm: Algorithm = args
        .next()
        .map_or(Algorithm::Join, |s| s.parse().expect(usage));
    let mut plan = Plan::build(n, algorithm, None).expect("a plan");
    // Cut as a run cuts it by default.
    let costs = CostModel::new(&plan, SLICE_SECONDS);
    plan.cut(|p, _, e| costs.slices(p, e));
    let engines = Prepared::new(&plan, 256 << 20);
    // The entries of most slices, spread over the plan.
    let mut firsts: Vec<(u64, u64)> = plan
        .entries()
        .filter(|(s, _)| matches!(s.work, Work::Join { .. } | Work::Complete { .. }))
        .map(|(s, of)| (of, s.id))
        .collect();
    let most = firsts.iter().map(|f| f.0).max().unwrap_or(1);
    firsts.retain(|f| f.0 == most);
    let step = (firsts.len() / pieces.max(1)).max(1);
    println!("piece\tstratum\tslice\tof\tseconds");
    for &(of, first) in firsts.iter().step_by(step).take(pieces) {
        let chosen: Vec<u64> = if algorithm == Algorithm::Join {
            (0..of.min(slices.unwrap_or(u64::MAX))).collect()
        } else {
            let k = slices.unwrap_or(3).clamp(1, of);
            (0..k)
                .map(|i| if k == 1 { 0 } else { i * (of - 1) / (k - 1) })
                .collect()
        };
        for index in chosen {
            let sub = plan.subproblem(first + index);
            let key = match sub.work {
                Work::Join { unit, .. } => stratum(n, &unit).to_string(),
                _ => format!("{:.3e}", costs.estimate(&plan, &sub)),
            };
            let begun = std::time::Instant::now();
            engines.solve(&sub);
            println!(
                "{first}\t{key}\t{index}\t{of}\t{:.2}",
                begun.elapsed().as_secs_f64()
            );
        }
    }
}
