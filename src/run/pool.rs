//! The worker pool: a local pool of exactly T threads works through a list of subproblems,
//! largest estimate first (each worker takes the next one from a shared counter), and hands
//! every finished piece to an observer as it completes.
//!
//! Cancellation is checked between subproblems and, every few milliseconds, inside the
//! backtracking kernel: a cancelled run stops at once, dropping the pieces in flight (they are
//! counted again when the run resumes) and keeping every finished one. The pool is built for the run and dropped after it:
//! rayon's global pool is never touched, so the library can be embedded anywhere.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;
use std::time::{Duration, Instant};

use super::Control;
use super::prepared::Prepared;
use super::status::Tracker;
use crate::engine::join::Layout;
use crate::error::Error;
use crate::plan::{Plan, Subproblem, Work};
use crate::tally::Piece;

/// What the workers did.
#[derive(Clone, Debug)]
pub(super) struct Worked {
    /// Pieces finished, in no particular order.
    pub pieces: Vec<Piece>,
    /// Whether the run stopped before every asked-for subproblem was done.
    pub cancelled: bool,
    /// Time each worker thread spent inside subproblems.
    pub busy: Vec<Duration>,
}

/// Counts the subproblems of `plan` whose ids are in `todo` on `threads` threads.
pub(super) fn execute(
    plan: &Plan,
    (layout, cache): (Layout, usize),
    todo: &[u64],
    threads: usize,
    control: &Control<'_>,
) -> Result<Worked, Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nqueens-worker-{i}"))
        .build()?;
    let order = schedule(plan, todo);
    if order.is_empty() {
        return Ok(Worked {
            pieces: Vec::new(),
            cancelled: false,
            busy: vec![Duration::ZERO; threads],
        });
    }
    static NEVER: AtomicBool = AtomicBool::new(false);
    let stop = control.cancel.unwrap_or(&NEVER);
    // What the subproblems share is built once, by all the pool's threads, before they start.
    let Some(engines) = prepare(&pool, plan, (layout, cache), stop) else {
        return Ok(Worked {
            pieces: Vec::new(),
            cancelled: true,
            busy: vec![Duration::ZERO; threads],
        });
    };
    // The cost model is only worth its time where someone watches a run long enough for the
    // time left to matter; elsewhere the plan's estimates weight the progress.
    let costs: Vec<f64> = if control.observer.is_some() && plan.n >= MODELLED_FROM {
        pool.install(|| order.par_iter().map(|s| engines.cost(s)).collect())
    } else {
        order.iter().map(|s| s.estimate).collect()
    };
    let tracker = Tracker::new(costs.iter().sum(), order.len(), threads);
    let busy: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    // Every worker takes the next subproblem in the shared order (largest estimate first), so
    // the small pieces fill the last seconds of the run on every thread.
    let collected: Vec<Vec<Piece>> = pool.broadcast(|ctx| {
        let mut mine = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) {
                stopped.store(true, Ordering::Relaxed);
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(sub) = order.get(i) else { break };
            let t0 = Instant::now();
            // A piece given up half-way is dropped: it is counted again by the next run.
            let Some(piece) = engines.solve_until(sub, stop) else {
                stopped.store(true, Ordering::Relaxed);
                break;
            };
            busy[ctx.index()].fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
            let status = tracker.finished(costs[i]);
            if let Some(f) = control.observer {
                f(&piece, &status);
            }
            mine.push(piece);
        }
        mine
    });
    let pieces: Vec<Piece> = collected.into_iter().flatten().collect();
    Ok(Worked {
        cancelled: stopped.load(Ordering::Relaxed) || pieces.len() < todo.len(),
        pieces,
        busy: busy
            .iter()
            .map(|b| Duration::from_nanos(b.load(Ordering::Relaxed)))
            .collect(),
    })
}

/// The engines of `plan`, prepared on `pool`; `None` if `stop` rose first. The join's quadrant
/// lists take seconds from n = 21 on (20 s at n = 23), so they are built by a job of their own
/// while this thread watches the stop flag; a stopped build is left to end on the pool, which
/// is dropped without waiting for it.
pub(super) fn prepare<'p>(
    pool: &rayon::ThreadPool,
    plan: &'p Plan,
    (layout, cache): (Layout, usize),
    stop: &AtomicBool,
) -> Option<Prepared<'p>> {
    if plan.algorithm != crate::plan::Algorithm::Join || layout != Layout::Lists {
        return Some(pool.install(|| Prepared::new(plan, layout, cache)));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let n = plan.n;
    pool.spawn(move || {
        let _ = tx.send(crate::engine::join::Quadrants::build(n));
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(lists) => return Some(Prepared::with_lists(plan, lists)),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !stop.load(Ordering::Relaxed) => {}
            Err(_) => return None,
        }
    }
}

/// The order the workers take the subproblems in: largest estimate first, so that the small
/// pieces fill the last seconds on every thread. Pieces of equal estimate come in runs of
/// [`RUN`] consecutive ids (neighbours share cached quadrant groups), the runs in a fixed
/// pseudo-random order, so that the share of them done is a fair measure of the work done
/// (neighbouring ids are often alike in cost); the join units of one middle-queen pair stay
/// together (they share lists filtered for that pair).
fn schedule<'p>(plan: &'p Plan, todo: &[u64]) -> Vec<&'p Subproblem> {
    let locality = |s: &Subproblem| match s.work {
        Work::Join { unit, .. } => unit.middle.map_or(0, |m| {
            1 + (u32::from(m.column_queen) << 8 | u32::from(m.row_queen))
        }),
        Work::Complete { .. } | Work::Invariant { .. } | Work::Constrained { .. } => 0,
    };
    let mut order: Vec<&Subproblem> = todo
        .iter()
        .map(|&id| &plan.subproblems[id as usize])
        .collect();
    order.sort_by(|a, b| {
        b.estimate
            .total_cmp(&a.estimate)
            .then(locality(a).cmp(&locality(b)))
            .then(mix(a.id / RUN).cmp(&mix(b.id / RUN)))
            .then(a.id.cmp(&b.id))
    });
    order
}

/// Boards from which an observed run weights its progress by the engines' cost model
/// ([`Prepared::cost`]): smaller ones end in a second or two, and modelling the join's units
/// would cost a tenth of that.
const MODELLED_FROM: usize = 18;

/// Consecutive ids kept together by [`schedule`].
const RUN: u64 = 64;

/// A fixed scrambling of ids (the SplitMix64 finaliser, Steele, Lea and Flood 2014).
fn mix(id: u64) -> u64 {
    let mut z = id.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
