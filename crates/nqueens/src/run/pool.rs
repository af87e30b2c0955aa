//! The worker pool: a local pool of exactly T threads works through a list of subproblems,
//! every class of subproblems at one pace and the largest of each first (each worker takes the
//! next block of them from a shared counter), and hands every finished subproblem to an observer
//! as it completes.
//!
//! Cancellation is checked between subproblems and, every few milliseconds, inside the
//! backtracking kernel: a cancelled run stops at once, dropping the subproblems in flight (they are
//! counted again when the run resumes) and keeping every finished one. The pool is built for the
//! run and dropped after it: rayon's global pool is never touched, so the library can be embedded
//! anywhere.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use std::time::{Duration, Instant};

use super::class::Class;
use super::cost::CostModel;
use super::engines::{Engines, SLICES_A_BLOCK};
use super::status::{Classes, Status, Tracker};
use crate::error::Error;
use crate::persist::SaveFailure;
use crate::plan::{Cut, Plan, Subproblem};
use crate::system;
use crate::tally::Counted;

/// How the caller steers and observes a run.
#[derive(Default, Clone, Copy)]
pub struct Control<'a> {
    /// Set to stop the run within milliseconds (finished subproblems are kept and saved;
    /// subproblems in flight are dropped and counted again on resume).
    pub cancel: Option<&'a AtomicBool>,
    /// Called from the worker threads with every subproblem this run finishes, and where the run
    /// stands after it.
    // Written out rather than named by an alias, so that the one page of the API shows it.
    #[allow(clippy::type_complexity)]
    pub observer: Option<&'a (dyn Fn(&Counted, &Status) + Sync)>,
    /// Called once, from a worker thread, when a periodic save of the checkpoint first fails
    /// (a full disk): the run goes on, the previous file stays as it was, and the next saves
    /// try again; the last save's error comes back in
    /// [`Outcome::unsaved`](super::Outcome::unsaved).
    pub save_failed: Option<SaveFailure<'a>>,
}

/// What the workers did.
#[derive(Clone, Debug)]
pub(super) struct Worked {
    /// Subproblems finished, in no particular order.
    pub subproblems: Vec<Counted>,
    /// Whether the run stopped before every asked-for subproblem was done.
    pub cancelled: bool,
    /// Time each worker thread spent inside subproblems.
    pub busy: Vec<Duration>,
}

impl Worked {
    /// No subproblem done on `threads` threads: nothing to do, or stopped (`cancelled`) before any
    /// subproblem began.
    fn nothing(threads: usize, cancelled: bool) -> Worked {
        Worked {
            subproblems: Vec::new(),
            cancelled,
            busy: vec![Duration::ZERO; threads],
        }
    }
}

/// How many threads a pool starts for `blocks` blocks of work on `threads` threads, on a
/// machine of `cores` hardware threads: never more than there are blocks, since a thread
/// without one would only be started and stopped (`9 -t 4096` started 4096 threads for 82
/// blocks and took 14.8 s on a 2-core VM), nor more than [`OVERSUBSCRIBED`] times the
/// hardware threads, since threads beyond them only wait their turn, each making what its
/// engines keep for itself (`15 -t 4096` took over 120 s on two cores,
/// and a stop came 12 s late); and at least one. A subproblem that shares its work out among
/// the pool's threads ([`Engines::parts`]) uses every thread up to its parts.
fn pool_size(engines: &Engines, threads: usize, blocks: usize, cores: usize) -> usize {
    threads
        .min(blocks.max(engines.parts()))
        .min(cores.max(1).saturating_mul(OVERSUBSCRIBED))
        .max(1)
}

/// How many threads a pool may start for each hardware thread: a few, so that asking for
/// more threads than the machine has still runs that many where it is cheap (tests of
/// threading on a small machine), but thousands never start.
const OVERSUBSCRIBED: usize = 4;

/// Counts the subproblems of `cut` whose ids are in `todo` on `threads` threads (at most
/// one a block of them; `busy` still has one entry per thread asked for).
pub(super) fn execute(
    cut: &Cut,
    costs: &CostModel,
    cache: usize,
    todo: &[u64],
    threads: usize,
    control: &Control<'_>,
) -> Result<Worked, Error> {
    let plan = cut.plan();
    let order = schedule(cut, costs, todo, threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(pool_size(
            costs.engines(),
            threads,
            order.len(),
            system::hardware_threads(),
        ))
        .thread_name(|i| format!("nqueens-worker-{i}"))
        .build()?;
    if order.is_empty() {
        return Ok(Worked::nothing(threads, false));
    }
    static NEVER: AtomicBool = AtomicBool::new(false);
    let stop = control.cancel.unwrap_or(&NEVER);
    // What the subproblems share is built once, by all the pool's threads, before they start.
    let Some(engines) = prepare(&pool, plan, cache, stop) else {
        return Ok(Worked::nothing(threads, true));
    };
    // The time left weighs each block by the cost model's estimate of its subproblems, and paces
    // each class of subproblems by the rate its own finished subproblems show ([`Tracker`]).
    let (classes, class_totals) = classes_of(&order);
    let total = order.iter().map(|b| b.estimate * f64::from(b.len)).sum();
    let subproblems = order.iter().map(|b| b.len as usize).sum();
    let tracker = Tracker::new(total, subproblems, threads, class_totals);
    let busy: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    // Every worker takes the next block in the shared order ([`schedule`]: classes at one
    // pace, largest estimate first within a class), so the small subproblems fill the last
    // seconds of the run on every thread.
    // Each thread's CPU time before the work: a subproblem may share its work among the pool's
    // threads ([`Engines::parts`]), which their own subproblems' times would not show.
    let cpu_before: Vec<Option<Duration>> = pool.broadcast(|_| system::thread_cpu_time());
    let collected: Vec<Vec<Counted>> = pool.broadcast(|ctx| {
        let mut mine = Vec::new();
        'blocks: loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            let Some(block) = order.get(b) else { break };
            for i in 0..block.len {
                if stop.load(Ordering::Relaxed) {
                    stopped.store(true, Ordering::Relaxed);
                    break 'blocks;
                }
                let t0 = Instant::now();
                // A subproblem given up half-way is dropped: it is counted again by the next run.
                let Some(subproblem) = engines.count(&block.first.slice_after(u64::from(i)), stop)
                else {
                    stopped.store(true, Ordering::Relaxed);
                    break 'blocks;
                };
                let seconds = t0.elapsed();
                busy[ctx.index()].fetch_add(seconds.as_nanos() as u64, Ordering::Relaxed);
                let status = tracker.finished(block.estimate, classes[b], seconds.as_secs_f64());
                if let Some(f) = control.observer {
                    f(&subproblem, &status);
                }
                mine.push(subproblem);
            }
        }
        mine
    });
    let cpu_after: Vec<Option<Duration>> = pool.broadcast(|_| system::thread_cpu_time());
    let subproblems: Vec<Counted> = collected.into_iter().flatten().collect();
    // A thread was busy with its own subproblems, or with work it took from others' (the larger,
    // as the CPU clock counts in hundredths of a second).
    let busy = busy.iter().enumerate().map(|(i, b)| {
        let own = Duration::from_nanos(b.load(Ordering::Relaxed));
        let cpu = match (cpu_before.get(i), cpu_after.get(i)) {
            (Some(Some(a)), Some(Some(b))) => b.saturating_sub(*a),
            _ => Duration::ZERO,
        };
        own.max(cpu)
    });
    Ok(Worked {
        cancelled: stopped.load(Ordering::Relaxed) || subproblems.len() < todo.len(),
        subproblems,
        busy: busy.collect(),
    })
}

/// The engines of `plan`, prepared on `pool` (each thread keeping up to `cache` bytes
/// between subproblems); `None` if `stop` rose first.
pub(super) fn prepare(
    pool: &rayon::ThreadPool,
    plan: &Plan,
    cache: usize,
    stop: &AtomicBool,
) -> Option<Engines> {
    let engines = pool.install(|| Engines::prepared(plan, cache));
    (!stop.load(Ordering::Relaxed)).then_some(engines)
}

/// The blocks of subproblems ([`Block`]) in the order the workers take them, each with its
/// class for the time left.
///
/// Within a class of subproblems ([`CostModel::pace`]), largest estimate first, so that the small
/// subproblems fill the last seconds on every thread. The classes are interleaved so that each
/// has the same share of its estimate handed out at any time: then the subproblems a class is
/// costed by ran beside the same mix of others as the rest of it will (small kernel subproblems
/// were measured to run much slower beside the largest ones than beside each other, so a class
/// measured early and run late was misjudged; `results/eta-checks.md`). Subproblems of equal
/// estimate come in runs of [`RUN`] consecutive ids (neighbours often share what a thread keeps),
/// the runs in a fixed pseudo-random order, so that the share of them done is a fair measure of
/// the work done (neighbouring ids are often alike in cost); subproblems that share what a
/// thread prepares for them stay together ([`CostModel::shares`]). The slices of one entry
/// come one after another, whatever their number (in the run of its first slice): a worker
/// whose next block is of the entry it counted last keeps what it made for it (at n = 28, a
/// read of the unit's sides of some 3 s of one core), where a block of another entry between
/// them makes it all again. (Ordered by entry alone, neighbouring entries no longer shared
/// the partitions a thread keeps: `26 --shard 262144/524288` took 1.25 times as long.)
fn schedule(cut: &Cut, costs: &CostModel, todo: &[u64], threads: usize) -> Vec<Block> {
    let locality = |s: &Subproblem| costs.shares(s);
    // The run of the entry's first slice: neighbouring entries stay together, and every
    // slice of an entry with them.
    let together = |s: &Subproblem| mix((s.id - s.slice.index) / RUN);
    let mut order = blocks_of(cut, costs, todo);
    order.sort_by(|a, b| {
        let estimates = b.estimate.total_cmp(&a.estimate);
        let (a, b) = (&a.first, &b.first);
        estimates
            .then(locality(a).cmp(&locality(b)))
            .then(together(a).cmp(&together(b)))
            .then(a.id.cmp(&b.id))
    });
    // Every class of subproblems advances at the same pace (the share of its estimate handed
    // out), so that at any time the threads run the same mix of subproblems: the time left can cost
    // each class at a rate measured on many of its subproblems, in the company they will keep.
    let weight = |b: &Block| b.estimate.max(f64::MIN_POSITIVE) * f64::from(b.len);
    let mut queues: HashMap<Option<Class>, (f64, f64, VecDeque<usize>)> = HashMap::new();
    for (i, b) in order.iter().enumerate() {
        let q = queues.entry(b.pace).or_default();
        q.0 += weight(b);
        q.2.push_back(i);
    }
    // The largest subproblems first: each thread's first subproblem warms its caches, which would
    // make a class's first small subproblem look slow.
    let mut warm = (WARM_UP * threads).min(order.len());
    while warm > 0 && warm < order.len() && same_entry(&order[warm - 1], &order[warm]) {
        warm += 1;
    }
    let mut positions: Vec<usize> = (0..warm).collect();
    // The shares are never negative, so their bits order as the shares do; ties by the pace
    // class, so the order is the same on every run.
    let mut heap: BinaryHeap<(Reverse<u64>, Option<Class>)> = BinaryHeap::new();
    for (&pace, q) in &mut queues {
        while let Some(&i) = q.2.front().filter(|&&i| i < warm) {
            q.2.pop_front();
            q.1 += weight(&order[i]);
        }
        if !q.2.is_empty() {
            heap.push((Reverse((q.1 / q.0).to_bits()), pace));
        }
    }
    while let Some((_, pace)) = heap.pop() {
        let Some(q) = queues.get_mut(&pace) else {
            continue;
        };
        let Some(i) = q.2.pop_front() else { continue };
        positions.push(i);
        q.1 += weight(&order[i]);
        // The rest of a sliced entry's blocks follow it before another class's turn.
        while let Some(&j) = q.2.front() {
            if !same_entry(&order[i], &order[j]) {
                break;
            }
            q.2.pop_front();
            positions.push(j);
            q.1 += weight(&order[j]);
        }
        if !q.2.is_empty() {
            heap.push((Reverse((q.1 / q.0).to_bits()), pace));
        }
    }
    positions.into_iter().map(|i| order[i]).collect()
}

/// The order in which `threads` workers would take the subproblems `todo` of `cut`: each
/// block as its first id and how many ids follow it ([`schedule`]), for tools that simulate
/// the pool on more workers than this machine has.
pub(super) fn order(cut: &Cut, costs: &CostModel, todo: &[u64], threads: usize) -> Vec<(u64, u32)> {
    schedule(cut, costs, todo, threads)
        .iter()
        .map(|b| (b.first.id, b.len))
        .collect()
}

/// What one worker takes at a time: up to [`BLOCK`] consecutive slices of one entry of the
/// plan (which share what the worker makes once for all of them), every other subproblem
/// alone. The schedule orders blocks, not subproblems, so that a
/// shard of billions of slices is ordered as fast as its entries.
#[derive(Clone, Copy, Debug)]
struct Block {
    /// The first subproblem.
    first: Subproblem,
    /// The subproblems: `first` and the slices after it.
    len: u32,
    /// The estimate of each of its subproblems ([`CostModel::estimate`]).
    estimate: f64,
    /// The class of its subproblems for the time left ([`CostModel::pace`]).
    pace: Option<Class>,
}

/// The blocks of the subproblems `todo` (in increasing order) of `cut`.
fn blocks_of(cut: &Cut, costs: &CostModel, todo: &[u64]) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for s in cut.subproblems_at(todo.iter().copied()) {
        if let Some(last) = blocks.last_mut()
            && (last.len as usize) < BLOCK
            && s.slice.of > 1
            && last.first.slice_after(u64::from(last.len)) == s
        {
            last.len += 1;
            continue;
        }
        blocks.push(Block {
            first: s,
            len: 1,
            estimate: costs.estimate(&s),
            pace: costs.pace(&s),
        });
    }
    blocks
}

/// The most slices of an entry one worker takes at a time: an entry of hundreds of slices is
/// shared by all the threads, and a block prepares what its slices share once
/// ([`SLICES_A_BLOCK`]).
const BLOCK: usize = SLICES_A_BLOCK;

/// Subproblems a thread the schedule gives, largest first, before the classes start their pace.
const WARM_UP: usize = 2;

/// The dense class index of each block, and the cost and the number of subproblems of each
/// class.
fn classes_of(blocks: &[Block]) -> (Vec<usize>, Classes) {
    let mut index: HashMap<Option<Class>, usize> = HashMap::new();
    let mut totals = Vec::new();
    let mut subproblems = Vec::new();
    let classes = blocks
        .iter()
        .map(|b| {
            let next = index.len();
            let k = *index.entry(b.pace).or_insert(next);
            if k == totals.len() {
                totals.push(0.0);
                subproblems.push(0);
            }
            totals[k] += b.estimate * f64::from(b.len);
            subproblems[k] += b.len as usize;
            k
        })
        .collect();
    let totals = Classes {
        cost: totals,
        subproblems,
    };
    (classes, totals)
}

/// Whether blocks `a` and `b` are slices of one entry cut into several.
fn same_entry(a: &Block, b: &Block) -> bool {
    a.first.slice.of > 1 && a.first.entry == b.first.entry
}

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
    use crate::constraint::PieceKind;
    use crate::plan::{Algorithm, Work};
    use nqueens_engine::constrained;

    #[test]
    fn a_pool_starts_no_thread_without_work() {
        let queens = Engines::new(&Plan::build(9, Algorithm::Symmetry, None).unwrap());
        assert_eq!(pool_size(&queens, 4096, 16, 64), 16);
        assert_eq!(pool_size(&queens, 2, 16, 64), 2);
        assert_eq!(pool_size(&queens, 8, 0, 64), 1);
        // Never thousands of threads on a small machine.
        assert_eq!(pool_size(&queens, 4096, 1000, 2), 2 * OVERSUBSCRIBED);
        assert_eq!(pool_size(&queens, 4096, 1000, 0), OVERSUBSCRIBED);
        // One rook subproblem shares its sum among the threads, up to the parts of its sum.
        let board = crate::constraint::Board::empty(24, PieceKind::Rook).unwrap();
        let plan = Plan::constrained(&board, None).unwrap();
        assert_eq!(plan.entry_count(), 1);
        let rooks = Engines::new(&plan);
        assert_eq!(pool_size(&rooks, 2, 1, 64), 2);
        assert_eq!(pool_size(&rooks, 4096, 1, 4096), constrained::MOST_PARTS);
        // A count on far more threads than blocks: exact, with one busy entry per thread
        // asked for.
        let cut = Cut::whole(Plan::build(9, Algorithm::Symmetry, None).unwrap());
        let todo: Vec<u64> = (0..cut.len() as u64).collect();
        let costs = CostModel::new(cut.plan(), super::super::SLICE_SECONDS);
        let blocks = schedule(&cut, &costs, &todo, 512).len();
        assert!(blocks < 512, "{blocks}");
        let worked = execute(&cut, &costs, 0, &todo, 512, &Control::default()).unwrap();
        assert_eq!(worked.busy.len(), 512);
        let sums = crate::tally::Sums::of(cut.plan(), worked.subproblems.iter());
        assert_eq!(Some(sums.total), crate::known::total(9));
    }

    /// Every subproblem of a schedule in order, with its class.
    fn subproblems(order: &[Block]) -> Vec<(Subproblem, Option<Class>, f64)> {
        order
            .iter()
            .flat_map(|b| {
                (0..b.len).map(move |i| (b.first.slice_after(u64::from(i)), b.pace, b.estimate))
            })
            .collect()
    }

    fn model(plan: &Plan) -> CostModel {
        CostModel::new(plan, super::super::SLICE_SECONDS)
    }

    #[test]
    fn a_worker_takes_the_slices_of_an_entry_together() {
        for (cut, slices) in [
            (
                Cut::sliced(Plan::build(14, Algorithm::Join, None).unwrap(), 4),
                4,
            ),
            (
                Cut::sliced(Plan::build(12, Algorithm::Symmetry, None).unwrap(), 40),
                40,
            ),
        ] {
            let todo: Vec<u64> = (0..cut.len() as u64).collect();
            let order = schedule(&cut, &model(cut.plan()), &todo, 2);
            let mut ids: Vec<u64> = subproblems(&order).iter().map(|p| p.0.id).collect();
            ids.sort_unstable();
            assert_eq!(ids, todo);
            // The blocks of an entry follow one another.
            let mut begun = std::collections::HashSet::new();
            for (i, b) in order.iter().enumerate() {
                let new = i == 0 || order[i - 1].first.entry != b.first.entry;
                assert!(
                    !new || begun.insert(b.first.entry),
                    "entry {}",
                    b.first.entry
                );
            }
            if slices > BLOCK as u64 {
                assert!(order.len() > begun.len(), "no entry of several blocks");
            }
            for b in &order {
                assert!(b.len as usize <= BLOCK);
                // A block is the slices of one entry that follow one another.
                for i in 0..b.len {
                    assert_eq!(
                        cut.subproblem(b.first.id + u64::from(i)),
                        b.first.slice_after(u64::from(i))
                    );
                }
                let k = b.first.slice;
                if !matches!(
                    b.first.work,
                    Work::HalfTurn { .. } | Work::QuarterTurn { .. }
                ) {
                    assert_eq!(k.of, slices);
                    assert_eq!(u64::from(b.len), (slices - k.index).min(BLOCK as u64));
                }
            }
        }
    }

    #[test]
    fn the_schedule_takes_every_subproblem_once_and_every_class_at_one_pace() {
        for (n, algorithm) in [(12, Algorithm::Symmetry), (13, Algorithm::Plain)] {
            let cut = Cut::whole(Plan::build(n, algorithm, None).unwrap());
            let plan = cut.plan();
            let todo: Vec<u64> = (0..cut.len() as u64).collect();
            let costs = model(plan);
            let order = subproblems(&schedule(&cut, &costs, &todo, 2));
            let mut ids: Vec<u64> = order.iter().map(|(s, _, _)| s.id).collect();
            ids.sort_unstable();
            assert_eq!(ids, todo);
            // Each subproblem comes with its class.
            assert!(order.iter().all(|(s, k, _)| costs.pace(s) == *k));
            // Halfway through the schedule, every class of many subproblems has had about half of
            // its estimate handed out.
            let mut total: HashMap<Option<Class>, (f64, usize)> = HashMap::new();
            for (_, k, e) in &order {
                let t = total.entry(*k).or_default();
                t.0 += e;
                t.1 += 1;
            }
            assert!(total.len() > 2, "n = {n}: {} classes", total.len());
            let all: f64 = total.values().map(|t| t.0).sum();
            let (mut so_far, mut given) = (0.0, HashMap::<Option<Class>, f64>::new());
            for (_, k, e) in &order {
                if so_far >= all / 2.0 {
                    break;
                }
                so_far += e;
                *given.entry(*k).or_default() += e;
            }
            for (k, (t, count)) in &total {
                let share = given.get(k).copied().unwrap_or(0.0) / t;
                if *count >= 16 {
                    assert!(
                        (0.3..=0.7).contains(&share),
                        "n = {n}: class {k:?} at {share}"
                    );
                }
            }
        }
    }
}
