//! Times join units of an n×n board stratum by stratum (`join::stratum`: two middle queens or
//! not, and the east rows in the north half), in the memory-bounded layout, on one thread, the
//! way `--estimate` times them (one row set, about 24 of the sieve's table bins), and prints
//! each stratum's mean: the figures behind the plan's slices (`STRATUM_SECONDS` in
//! `crates/nqueens/src/run/engines/join.rs`). `unit_times N [UNITS PER STRATUM]` (default 2).

use std::collections::BTreeMap;

use nqueens_engine::join::{self, Probe, Quadrants};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: unit_times N [UNITS PER STRATUM]");
    let per: usize = args.next().map_or(2, |s| s.parse().expect("a count"));
    let q = Quadrants::bounded(n, 256 << 20);
    let units = join::units(n);
    let mut strata: BTreeMap<join::Stratum, Vec<usize>> = BTreeMap::new();
    for (i, (u, _)) in units.iter().enumerate() {
        strata.entry(join::stratum(n, u)).or_default().push(i);
    }
    let mut total = 0.0;
    println!("stratum\tunits\tmean s\tmax s");
    for (stratum, ids) in &strata {
        let mut secs = Vec::new();
        let take = per.min(ids.len());
        let never = std::sync::atomic::AtomicBool::new(false);
        for k in 0..take {
            // Spread evenly over the stratum (its units are in the order of their east rows,
            // and neighbours are alike), the same units every time.
            let id = ids[(2 * k + 1) * ids.len() / (2 * take)];
            let probe = Probe {
                row_sets: 1,
                bins: 24,
                seed: id,
                workers: 1,
            };
            secs.push(
                nqueens::time_join_unit(&q, &units[id].0, probe, &never).expect("never stopped"),
            );
        }
        let mean = secs.iter().sum::<f64>() / secs.len() as f64;
        let max = secs.iter().copied().fold(0.0, f64::max);
        total += mean * ids.len() as f64;
        println!("{stratum}\t{}\t{mean:.3}\t{max:.3}", ids.len());
    }
    println!(
        "n = {n}: {} units, {:.0} CPU-hours projected, {:.2} s a unit on average",
        units.len(),
        total / 3600.0,
        total / units.len() as f64
    );
}
