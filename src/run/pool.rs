//! The worker pool: a local pool of exactly T threads works through a list of subproblems,
//! every class of pieces at one pace and the largest of each first (each worker takes the
//! next one from a shared counter), and hands
//! every finished piece to an observer as it completes.
//!
//! Cancellation is checked between subproblems and, every few milliseconds, inside the
//! backtracking kernel: a cancelled run stops at once, dropping the pieces in flight (they are
//! counted again when the run resumes) and keeping every finished one. The pool is built for the run and dropped after it:
//! rayon's global pool is never touched, so the library can be embedded anywhere.

use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;
use std::time::{Duration, Instant};

use super::Control;
use super::prepared::Prepared;
use super::status::Tracker;
use crate::engine::join::{Layout, Slice, Unit};
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
    let (order, keys) = schedule(plan, todo, threads);
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
    let (classes, class_totals) = classes_of(&keys, &costs);
    let tracker = Tracker::new(costs.iter().sum(), order.len(), threads, class_totals);
    let blocks = blocks_of(&order);
    let busy: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    // Every worker takes the next subproblem in the shared order (largest estimate first), so
    // the small pieces fill the last seconds of the run on every thread.
    let collected: Vec<Vec<Piece>> = pool.broadcast(|ctx| {
        let mut mine = Vec::new();
        'blocks: loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            let Some(block) = blocks.get(b) else { break };
            for i in block.clone() {
                if stop.load(Ordering::Relaxed) {
                    stopped.store(true, Ordering::Relaxed);
                    break 'blocks;
                }
                let t0 = Instant::now();
                // A piece given up half-way is dropped: it is counted again by the next run.
                let Some(piece) = engines.solve_until(&order[i], stop) else {
                    stopped.store(true, Ordering::Relaxed);
                    break 'blocks;
                };
                let seconds = t0.elapsed();
                busy[ctx.index()].fetch_add(seconds.as_nanos() as u64, Ordering::Relaxed);
                let status = tracker.finished(costs[i], classes[i], seconds.as_secs_f64());
                if let Some(f) = control.observer {
                    f(&piece, &status);
                }
                mine.push(piece);
            }
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

/// The order the workers take the subproblems in, and each one's class for the time left.
///
/// Within a class of pieces ([`class_key`]), largest estimate first, so that the small pieces
/// fill the last seconds on every thread. The classes are interleaved so that each has the
/// same share of its estimate handed out at any time: then the pieces a class is costed by
/// ran beside the same mix of others as the rest of it will (on this VM, small kernel pieces
/// ran 40% slower beside the largest ones than beside each other, so a class measured early
/// and run late was misjudged; `results/eta-checks.md`). Pieces of equal estimate come in runs of
/// [`RUN`] consecutive ids (neighbours share cached quadrant groups), the runs in a fixed
/// pseudo-random order, so that the share of them done is a fair measure of the work done
/// (neighbouring ids are often alike in cost); the join units of one middle-queen pair stay
/// together (they share lists filtered for that pair).
fn schedule(plan: &Plan, todo: &[u64], threads: usize) -> (Vec<Subproblem>, Vec<u64>) {
    let locality = |s: &Subproblem| match s.work {
        Work::Join { unit, .. } => unit.middle.map_or(0, |m| {
            1 + (u32::from(m.column_queen) << 8 | u32::from(m.row_queen))
        }),
        Work::Complete { .. } | Work::Invariant { .. } | Work::Constrained { .. } => 0,
    };
    let mut order: Vec<Subproblem> = plan.subproblems_at(todo.iter().copied()).collect();
    order.sort_by(|a, b| {
        b.estimate
            .total_cmp(&a.estimate)
            .then(locality(a).cmp(&locality(b)))
            .then(mix(a.id / RUN).cmp(&mix(b.id / RUN)))
            .then(a.id.cmp(&b.id))
    });
    // Every class of pieces advances at the same pace (the share of its estimate handed
    // out), so that at any time the threads run the same mix of pieces: the time left can cost
    // each class at a rate measured on many of its pieces, in the company they will keep.
    let keys: Vec<u64> = order.iter().map(|s| class_key(plan, s)).collect();
    let mut queues: HashMap<u64, (f64, f64, std::collections::VecDeque<usize>)> = HashMap::new();
    for (i, (s, &key)) in order.iter().zip(&keys).enumerate() {
        let q = queues.entry(key).or_default();
        q.0 += s.estimate.max(f64::MIN_POSITIVE);
        q.2.push_back(i);
    }
    // The largest pieces first: each thread's first piece warms its caches, which would make
    // a class's first small piece look slow.
    let warm = (WARM_UP * threads).min(order.len());
    let mut positions: Vec<usize> = (0..warm).collect();
    let mut heap: BinaryHeap<(std::cmp::Reverse<Share>, u64)> = BinaryHeap::new();
    for (&key, q) in &mut queues {
        while q.2.front().is_some_and(|&i| i < warm) {
            let i = q.2.pop_front().unwrap_or_default();
            q.1 += order[i].estimate.max(f64::MIN_POSITIVE);
        }
        if !q.2.is_empty() {
            heap.push((std::cmp::Reverse(Share(q.1 / q.0)), key));
        }
    }
    while let Some((_, key)) = heap.pop() {
        let Some(q) = queues.get_mut(&key) else {
            continue;
        };
        let Some(i) = q.2.pop_front() else { continue };
        positions.push(i);
        q.1 += order[i].estimate.max(f64::MIN_POSITIVE);
        if !q.2.is_empty() {
            heap.push((std::cmp::Reverse(Share(q.1 / q.0)), key));
        }
    }
    positions.into_iter().map(|i| (order[i], keys[i])).unzip()
}

/// The runs of `order` that one worker takes at a time: up to [`BLOCK`] slices of one join
/// unit that follow one another (the worker makes the unit's half-boards once for all of
/// them), every other piece alone.
fn blocks_of(order: &[Subproblem]) -> Vec<std::ops::Range<usize>> {
    let unit_of = |s: &Subproblem| match s.work {
        Work::Join { unit, .. } if unit.slice.of > 1 => Some(Unit {
            slice: Slice::WHOLE,
            ..unit
        }),
        _ => None,
    };
    let mut blocks: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, s) in order.iter().enumerate() {
        match blocks.last_mut() {
            Some(last)
                if last.len() < BLOCK
                    && unit_of(s).is_some()
                    && unit_of(&order[last.start]) == unit_of(s) =>
            {
                last.end = i + 1;
            }
            _ => blocks.push(i..i + 1),
        }
    }
    blocks
}

/// The most slices of a unit one worker takes at a time: a unit of hundreds of slices (n = 28)
/// is shared by all the threads, and a block makes the unit's half-boards once for a minute
/// or more of matching.
const BLOCK: usize = 16;

/// The share of a class's estimate handed out, ordered for the schedule's heap (ties by the
/// class key, so the order is the same on every run).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Share(f64);

impl Eq for Share {}

impl PartialOrd for Share {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Share {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Pieces a thread the schedule gives, largest first, before the classes start their pace.
const WARM_UP: usize = 2;

/// The class of a piece for the time left ([`Tracker`]): kernel pieces by family and by the
/// half-octave of their estimate, join units together (their cost model is calibrated), and
/// the small searches of the unique count apart.
fn class_key(plan: &Plan, s: &Subproblem) -> u64 {
    let size = (2.0 * s.estimate.max(1.0).log2()).floor() as u64;
    match s.work {
        Work::Complete { frame, .. } => {
            let family = plan.families.get(frame as usize).map_or(0, |&f| f as u64);
            2 << 32 | family << 16 | size
        }
        Work::Constrained { .. } => 3 << 32 | size,
        Work::Join { .. } => 0,
        Work::Invariant { .. } => 1,
    }
}

/// The dense class index of each piece (of class key `keys[i]` and cost `costs[i]`), and the
/// cost and the number of pieces of each class.
fn classes_of(keys: &[u64], costs: &[f64]) -> (Vec<usize>, (Vec<f64>, Vec<usize>)) {
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut totals = Vec::new();
    let mut pieces = Vec::new();
    let classes = keys
        .iter()
        .zip(costs)
        .map(|(&key, &c)| {
            let next = index.len();
            let k = *index.entry(key).or_insert(next);
            if k == totals.len() {
                totals.push(0.0);
                pieces.push(0);
            }
            totals[k] += c;
            pieces[k] += 1;
            k
        })
        .collect();
    (classes, (totals, pieces))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;

    #[test]
    fn a_worker_takes_the_slices_of_a_unit_together() {
        let plan = Plan::build(14, crate::plan::Algorithm::Join, None)
            .unwrap()
            .sliced(4);
        let todo: Vec<u64> = (0..plan.len() as u64).collect();
        let (order, _) = schedule(&plan, &todo, 2);
        let blocks = blocks_of(&order);
        let mut seen = vec![false; order.len()];
        let mut whole = 0;
        for b in &blocks {
            for i in b.clone() {
                assert!(!seen[i]);
                seen[i] = true;
                if let Work::Join { unit, .. } = order[i].work {
                    let first = order[b.start].work;
                    assert!(
                        matches!(first, Work::Join { unit: u, .. } if u.east_rows == unit.east_rows)
                    );
                }
            }
            assert!(b.len() <= BLOCK);
            whole += usize::from(b.len() == 4);
        }
        assert!(seen.iter().all(|&s| s));
        // Almost every unit's slices make one block (a unit whose ids cross a run of
        // consecutive ids may be split where units of equal estimate interleave).
        let slices = order
            .iter()
            .filter(|s| matches!(s.work, Work::Join { .. }))
            .count();
        let units = slices / 4;
        assert!(whole + units / 16 >= units, "{whole} of {units}");
    }

    #[test]
    fn the_schedule_takes_every_piece_once_and_every_class_at_one_pace() {
        for (n, algorithm) in [(12, Algorithm::Symmetry), (13, Algorithm::Plain)] {
            let plan = Plan::build(n, algorithm, None).unwrap();
            let todo: Vec<u64> = (0..plan.len() as u64).collect();
            let (order, keys) = schedule(&plan, &todo, 2);
            let mut ids: Vec<u64> = order.iter().map(|s| s.id).collect();
            ids.sort_unstable();
            assert_eq!(ids, todo);
            // Each piece comes with its class.
            assert!(
                order
                    .iter()
                    .zip(&keys)
                    .all(|(s, &k)| class_key(&plan, s) == k)
            );
            // Halfway through the schedule, every class of many pieces has had about half of
            // its estimate handed out.
            let mut total: HashMap<u64, (f64, usize)> = HashMap::new();
            for (s, &k) in order.iter().zip(&keys) {
                let t = total.entry(k).or_default();
                t.0 += s.estimate;
                t.1 += 1;
            }
            assert!(total.len() > 2, "n = {n}: {} classes", total.len());
            let all: f64 = total.values().map(|t| t.0).sum();
            let (mut so_far, mut given) = (0.0, HashMap::<u64, f64>::new());
            for (s, &k) in order.iter().zip(&keys) {
                if so_far >= all / 2.0 {
                    break;
                }
                so_far += s.estimate;
                *given.entry(k).or_default() += s.estimate;
            }
            for (k, (t, count)) in &total {
                let share = given.get(k).copied().unwrap_or(0.0) / t;
                if *count >= 16 {
                    assert!(
                        (0.3..=0.7).contains(&share),
                        "n = {n}: class {k:x} at {share}"
                    );
                }
            }
        }
    }
}
