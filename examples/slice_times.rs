//! Times the slices of a few of the largest join units of an n×n board, one after another on
//! one thread (as a worker takes a block of them), to check that a slice stays well under a
//! minute: `slice_times N [UNITS] [SLICES]` (default 3 units, all their slices), units of the
//! strata measured slowest.

use nqueens::internals::Prepared;
use nqueens::internals::join::{Layout, stratum};
use nqueens::plan::Work;
use nqueens::{Algorithm, Plan};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: slice_times N [UNITS]");
    let units: usize = args.next().map_or(3, |s| s.parse().expect("a count"));
    let slices: u64 = args
        .next()
        .map_or(u64::MAX, |s| s.parse().expect("a count"));
    let plan = Plan::build(n, Algorithm::Join, None).expect("a join plan");
    let engines = Prepared::new(&plan, Layout::Bounded, 256 << 20);
    // The units of most slices, spread over the plan.
    let mut firsts: Vec<(u32, u64)> = plan
        .shard_entries((0, 1))
        .filter_map(|(s, of)| matches!(s.work, Work::Join { .. }).then_some((of, s.id)))
        .collect();
    let most = firsts.iter().map(|f| f.0).max().unwrap_or(1);
    firsts.retain(|f| f.0 == most);
    let step = (firsts.len() / units.max(1)).max(1);
    println!("unit\tstratum\tslice\tof\tseconds");
    for &(of, first) in firsts.iter().step_by(step).take(units) {
        for id in first..first + u64::from(of).min(slices) {
            let sub = plan.subproblem(id);
            let Work::Join { unit, .. } = sub.work else {
                continue;
            };
            let begun = std::time::Instant::now();
            engines.solve(&sub);
            println!(
                "{first}\t{:x}\t{}\t{of}\t{:.2}",
                stratum(n, &unit),
                unit.slice.index,
                begun.elapsed().as_secs_f64()
            );
        }
    }
}
