//! The pool on many cores, simulated: counts one board (or one shard of it) on one thread,
//! recording each subproblem's seconds (the time between the observer's calls, which a run on
//! one thread makes one after the other), then plays the pool's order of work
//! (`Job::work_order`) on each number of workers asked, every free worker taking the next
//! block as the pool's workers do, and prints the efficiency (the work over workers ×
//! makespan), the makespan against the longest block, and the memory the model gives a
//! thread. The preparing of the engines (before the first subproblem) is left out of the
//! work and of the makespan. `pool_sim N [I/M] [WORKERS...]` (default 16 64 192); the
//! figures go to `results/many-cores.md`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;

use nqueens::persist::Shard;
use nqueens::{Config, Control, Counted, Job, Status};

/// The makespan of `blocks` (each its seconds, in the order they are handed out) on
/// `workers` workers that each take the next block when free.
fn makespan(blocks: &[f64], workers: usize) -> f64 {
    // Times are never negative, so their bits order as they do.
    let mut free: BinaryHeap<Reverse<u64>> = (0..workers).map(|_| Reverse(0)).collect();
    let mut end = 0.0f64;
    for &b in blocks {
        let Reverse(at) = free.pop().expect("a worker");
        let done = f64::from_bits(at) + b.max(0.0);
        end = end.max(done);
        free.push(Reverse(done.to_bits()));
    }
    end
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: pool_sim N [I/M] [WORKERS...]";
    let n: usize = args.first().and_then(|s| s.parse().ok()).expect(usage);
    let shard = args.get(1).filter(|s| s.contains('/'));
    let workers: Vec<usize> = args
        .iter()
        .skip(1 + usize::from(shard.is_some()))
        .map(|w| w.parse().expect(usage))
        .collect();
    let workers = if workers.is_empty() {
        vec![16, 64, 192]
    } else {
        workers
    };
    let job_for = |threads: usize| {
        let job = Job::new(&Config::new(n).threads(threads)).expect("a job");
        match shard {
            Some(s) => {
                let (i, m) = s.split_once('/').expect(usage);
                let parse = |x: &str| x.parse::<u64>().expect("a shard I/M");
                job.shard(Shard::new(parse(i), parse(m)).expect("a shard I/M"))
            }
            None => job,
        }
    };
    // Each subproblem's seconds on one thread: the run's clock at each finished one.
    let seen: Mutex<Vec<(u64, f64)>> = Mutex::new(Vec::new());
    let observe =
        |c: &Counted, s: &Status| seen.lock().unwrap().push((c.id, s.elapsed.as_secs_f64()));
    let control = Control {
        observer: Some(&observe),
        ..Control::default()
    };
    let outcome = job_for(1).run(control).expect("a count");
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut seconds: HashMap<u64, f64> = HashMap::new();
    let mut before = 0.0;
    for &(id, at) in &seen {
        seconds.insert(id, at - before);
        before = at;
    }
    let work = before;
    let what = shard.map_or(String::new(), |s| format!(" shard {s}"));
    println!(
        "n = {n}{what}: {} solutions, {} subproblems, {work:.2} s of work on one thread (after preparing)",
        outcome.sums.total,
        seen.len(),
    );
    println!(
        "| workers | blocks | longest block (s) | makespan (s) | ideal (s) | efficiency | memory a thread (MiB) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for &w in &workers {
        let job = job_for(w);
        let blocks: Vec<f64> = job
            .work_order(w)
            .iter()
            .map(|&(first, len)| (first..first + u64::from(len)).map(|id| seconds[&id]).sum())
            .collect();
        let longest = blocks.iter().copied().fold(0.0, f64::max);
        let span = makespan(&blocks, w);
        let per_thread = job.memory_needs().per_thread as f64 / (1u64 << 20) as f64;
        println!(
            "| {w} | {} | {longest:.4} | {span:.4} | {:.4} | {:.1}% | {per_thread:.0} |",
            blocks.len(),
            work / w as f64,
            100.0 * work / (w as f64 * span),
        );
    }
    // The simulation's own check: one worker runs the blocks end to end.
    let one: Vec<f64> = seconds.values().copied().collect();
    assert!((makespan(&one, 1) - one.iter().sum::<f64>()).abs() < 1e-6 * work.max(1.0));
}
