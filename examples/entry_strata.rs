//! The strata of a join plan's entries, for `scripts/counted-sample --strata`, which projects a
//! count's cost from entries counted one a shard with each stratum weighed by its size
//! (post-stratification, Cochran, *Sampling Techniques*, 1977, section 5A.9).
//!
//! `entry_strata N [ENTRY...]` prints one JSON line: the plan's number of entries, the size of
//! each stratum, and the stratum of each ENTRY. A join unit's stratum is the one the run's
//! estimate samples by (`join::stratum`: the unit's east rows in the north half, and for odd
//! boards whether its two middle queens differ); the entries after the join units (the
//! searches of the unique count) make a stratum of their own, `other`.

use std::collections::BTreeMap;

use nqueens::{Algorithm, Plan};
use nqueens_engine::join;

fn main() {
    let usage = "usage: entry_strata N [ENTRY...] (a board counted with the join)";
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).expect(usage);
    let wanted: std::collections::BTreeSet<u64> = args.map(|s| s.parse().expect(usage)).collect();
    if Algorithm::default_for(n) != Algorithm::Join {
        eprintln!("entry_strata: n = {n} is not counted with the join");
        std::process::exit(2);
    }
    let entries = Plan::build(n, Algorithm::Join, None)
        .expect("the join plan")
        .entry_count();
    // Each stratum's size and the wanted entries' strata, in one pass over the units, none of
    // them kept (ten million at n = 28).
    let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
    let mut of: BTreeMap<String, String> = BTreeMap::new();
    let mut units = 0u64;
    join::for_each_unit(n, |unit, _| {
        let s = join::stratum(n, &unit);
        let two = if s.two_middles { " two middles" } else { "" };
        let name = format!("north {}{two}", s.north_rows);
        if wanted.contains(&units) {
            of.insert(units.to_string(), name.clone());
        }
        *sizes.entry(name).or_default() += 1;
        units += 1;
    });
    if entries > units {
        sizes.insert("other".to_string(), entries - units);
    }
    for &e in wanted.iter().filter(|&&e| e >= units) {
        of.insert(e.to_string(), "other".to_string());
    }
    let line = serde_json::json!({"entries": entries, "strata": sizes, "of": of});
    println!("{line}");
}
