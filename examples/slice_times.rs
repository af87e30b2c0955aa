//! Times the slices of a count as a run cuts them, on one thread, to check that a slice stays
//! well under a minute: `slice_times N [SHARD] [ALGORITHM] [SLOWEST]` counts shard `I/M`
//! (default the whole count) through the library's public API and prints the SLOWEST
//! slices (default 10) with their entry and stratum (join) or family (kernels). A slice's
//! time is the time between the reports of the one thread's finished slices.

use std::sync::Mutex;

use nqueens::persist::Shard;
use nqueens::{Algorithm, Config, Control, Counted, Job, Status};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: slice_times N [I/M] [ALGORITHM] [SLOWEST]";
    let n: usize = args.next().and_then(|s| s.parse().ok()).expect(usage);
    let shard: Option<Shard> = args.next().map(|s| {
        let (i, m) = s.split_once('/').expect(usage);
        Shard::new(i.parse().expect(usage), m.parse().expect(usage)).expect(usage)
    });
    let algorithm: Algorithm = args
        .next()
        .map_or(Algorithm::Join, |s| s.parse().expect(usage));
    let slowest: usize = args.next().map_or(10, |s| s.parse().expect(usage));
    let mut job = Job::new(&Config::new(n).algorithm(algorithm).threads(1)).expect("a plan");
    if let Some(shard) = shard {
        job = job.shard(shard);
    }
    let times: Mutex<(f64, Vec<(f64, u64)>)> = Mutex::default();
    let observe = |subproblem: &Counted, status: &Status| {
        let mut guard = times.lock().unwrap();
        let now = status.elapsed.as_secs_f64();
        let seconds = now - guard.0;
        guard.0 = now;
        guard.1.push((seconds, subproblem.id));
    };
    let control = Control {
        observer: Some(&observe),
        ..Control::default()
    };
    job.run(control).expect("a count");
    let (plan, cut) = (job.plan(), job.cut());
    let mut times = times.into_inner().unwrap().1;
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("entry\tslice\tof\tkind\tseconds");
    for &(seconds, id) in times.iter().take(slowest) {
        let (entry, index) = cut.entry_and_slice(id);
        let kind = plan.describe(entry);
        let of = cut.slices_of_entry(entry);
        println!("{entry}\t{index}\t{of}\t{kind}\t{seconds:.2}");
    }
}
