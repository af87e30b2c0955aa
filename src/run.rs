//! Executing a plan: a local pool of exactly T threads works through the subproblems, largest
//! estimate first (each worker takes the next one from a shared counter), and hands every
//! finished piece to the caller as it completes.
//!
//! The runner knows nothing about files or terminals: progress bars, checkpoint journals and
//! shard files hang on the [`Control::on_piece`] callback. Cancellation is checked between
//! subproblems, never inside the kernel, so a cancelled run stops once the pieces in flight end.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::Error;
use crate::join;
use crate::kernel;
use crate::plan::{Plan, Subproblem, Work};
use crate::symmetry;

/// The result of one subproblem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The subproblem's id.
    pub id: u64,
    /// Raw count (before the subproblem's weight is applied).
    pub count: u64,
    /// Search nodes visited.
    pub nodes: u64,
}

/// Computes one subproblem.
pub fn solve(plan: &Plan, sub: &Subproblem) -> Piece {
    let (count, nodes) = match sub.work {
        Work::Complete { frame, start, .. } => {
            let t = kernel::complete(&plan.frames[frame as usize], &start);
            (t.count, t.nodes)
        }
        Work::Invariant { quarter, first } => {
            symmetry::count_invariant(plan.n, quarter, usize::from(first))
        }
        Work::Join { unit, .. } => {
            let c = join::count_unit(plan.quadrants(), &unit);
            (c.count, c.nodes)
        }
    };
    Piece {
        id: sub.id,
        count,
        nodes,
    }
}

/// How the caller steers and observes a run.
#[derive(Default, Clone, Copy)]
pub struct Control<'a> {
    /// Set to stop the run between subproblems.
    pub cancel: Option<&'a AtomicBool>,
    /// Called (from worker threads) with every finished piece.
    pub on_piece: Option<&'a (dyn Fn(&Piece) + Sync)>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Pieces finished by this run, in no particular order.
    pub pieces: Vec<Piece>,
    /// Whether the run stopped before all the asked-for subproblems were done.
    pub cancelled: bool,
    /// Wall-clock time of the run.
    pub wall: Duration,
    /// Time each worker thread spent inside subproblems.
    pub busy: Vec<Duration>,
    /// Threads used.
    pub threads: usize,
}

/// The worker count for a requested one: 0 means every hardware thread.
pub fn resolve_threads(requested: usize) -> usize {
    if requested > 0 {
        requested
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Runs the subproblems whose ids are in `todo` on `threads` threads (0: all).
pub fn execute(
    plan: &Plan,
    todo: &[u64],
    threads: usize,
    control: Control<'_>,
) -> Result<RunReport, Error> {
    let threads = resolve_threads(threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nqueens-worker-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;

    let mut order: Vec<&Subproblem> = todo
        .iter()
        .map(|&id| &plan.subproblems[id as usize])
        .collect();
    order.sort_by(|a, b| b.estimate.total_cmp(&a.estimate).then(a.id.cmp(&b.id)));

    // Shared state (the join algorithm's quadrant lists) is built once, by all the pool's
    // threads, before the subproblems start.
    if !todo.is_empty() {
        pool.install(|| plan.prepare());
    }
    let busy: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let cancelled = || control.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let begun = Instant::now();
    // Every worker takes the next subproblem in the shared order (largest estimate first), so
    // the small pieces fill the last seconds of the run on every thread.
    let collected: Vec<Vec<Piece>> = pool.broadcast(|ctx| {
        let mut mine = Vec::new();
        loop {
            if cancelled() {
                stopped.store(true, Ordering::Relaxed);
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(sub) = order.get(i) else { break };
            let t0 = Instant::now();
            let piece = solve(plan, sub);
            busy[ctx.index()].fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
            if let Some(f) = control.on_piece {
                f(&piece);
            }
            mine.push(piece);
        }
        mine
    });
    let pieces: Vec<Piece> = collected.into_iter().flatten().collect();
    Ok(RunReport {
        cancelled: stopped.load(Ordering::Relaxed) || pieces.len() < todo.len(),
        pieces,
        wall: begun.elapsed(),
        busy: busy
            .iter()
            .map(|b| Duration::from_nanos(b.load(Ordering::Relaxed)))
            .collect(),
        threads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;

    #[test]
    fn a_cancelled_run_stops_early_and_says_so() {
        let plan = Plan::build(10, Algorithm::Plain, Some(3), 1).unwrap();
        let all: Vec<u64> = plan.subproblems.iter().map(|s| s.id).collect();
        let flag = AtomicBool::new(true);
        let control = Control {
            cancel: Some(&flag),
            on_piece: None,
        };
        let report = execute(&plan, &all, 2, control).unwrap();
        assert!(report.cancelled);
        assert!(report.pieces.is_empty());
    }

    #[test]
    fn every_piece_is_reported_once() {
        let plan = Plan::build(9, Algorithm::Symmetry, Some(1), 1).unwrap();
        let all: Vec<u64> = plan.subproblems.iter().map(|s| s.id).collect();
        let seen = std::sync::Mutex::new(Vec::new());
        let record = |p: &Piece| seen.lock().unwrap().push(p.id);
        let control = Control {
            cancel: None,
            on_piece: Some(&record),
        };
        let report = execute(&plan, &all, 3, control).unwrap();
        assert!(!report.cancelled);
        assert_eq!(report.busy.len(), 3);
        let mut ids = seen.into_inner().unwrap();
        ids.sort_unstable();
        assert_eq!(ids, all);
    }
}
