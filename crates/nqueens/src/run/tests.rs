//! The run API end to end: cancellation, resumption, shards and checkpoints, in-process.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use super::budget::*;
use super::*;
use crate::error::MemoryAdvice;
use crate::known;
use crate::persist::{Journal, Shard};
use crate::plan::{Algorithm, Cut, Plan, PlanError};
use crate::tally::{Counted, Sums};
use nqueens_engine::join;

/// Shard `index` of `count`, unchecked.
fn sh(index: u64, count: u64) -> Shard {
    Shard { index, count }
}

fn config(n: usize, algorithm: Algorithm, threads: usize) -> Config {
    Config::new(n).algorithm(algorithm).threads(threads)
}

/// Runs `job` and cancels it from the observer once `k` subproblems are done.
fn run_cancelled_after(job: &Job, k: usize) -> Outcome {
    let flag = AtomicBool::new(false);
    let seen = AtomicUsize::new(0);
    let observe = |_: &Counted, _: &Status| {
        if seen.fetch_add(1, Ordering::SeqCst) + 1 >= k {
            flag.store(true, Ordering::SeqCst);
        }
    };
    job.run(Control {
        cancel: Some(&flag),
        observer: Some(&observe),
        ..Control::default()
    })
    .unwrap()
}

#[test]
fn a_cancelled_run_keeps_its_subproblems_and_resumes_to_the_exact_count() {
    for (n, algorithm) in [
        (12, Algorithm::Symmetry),
        (13, Algorithm::Join),
        (11, Algorithm::Plain),
    ] {
        let job = Job::new(&config(n, algorithm, 2)).unwrap();
        let wanted = job.wanted().len();
        let first = run_cancelled_after(&job, 5);
        assert!(first.cancelled && !first.complete, "{algorithm}");
        // The subproblems in flight when the flag was raised finish: at most one more per thread.
        assert!(
            (5..=7).contains(&first.counted.len()),
            "{}",
            first.counted.len()
        );
        assert!(first.counts().is_none());
        let rest = Job::new(&config(n, algorithm, 3))
            .unwrap()
            .resume(first.counted.values().copied())
            .unwrap()
            .run(Control::default())
            .unwrap();
        assert_eq!(rest.fresh, wanted - first.counted.len());
        let counts = rest.counts().unwrap();
        assert_eq!(Some(counts.total), known::total(n), "{algorithm}");
        let unique = algorithm.has_unique().then(|| known::unique(n).unwrap());
        assert_eq!(counts.unique, unique, "{algorithm}");
    }
}

#[test]
fn a_run_cancelled_before_it_starts_does_nothing() {
    let flag = AtomicBool::new(true);
    let job = Job::new(&config(10, Algorithm::Plain, 2)).unwrap();
    let outcome = job
        .run(Control {
            cancel: Some(&flag),
            ..Control::default()
        })
        .unwrap();
    assert!(outcome.cancelled);
    assert!(outcome.counted.is_empty());
}

#[test]
fn every_subproblem_is_observed_once() {
    let job = Job::new(&config(9, Algorithm::Symmetry, 3).split_depth(1)).unwrap();
    let seen = Mutex::new(Vec::new());
    let record = |p: &Counted, _: &Status| seen.lock().unwrap().push(p.id);
    let outcome = job
        .run(Control {
            observer: Some(&record),
            ..Control::default()
        })
        .unwrap();
    assert!(!outcome.cancelled && outcome.complete);
    assert_eq!(outcome.busy.len(), 3);
    let mut ids = seen.into_inner().unwrap();
    ids.sort_unstable();
    assert_eq!(ids, job.wanted());
}

#[test]
fn shards_cover_the_count_and_refuse_foreign_subproblems() {
    let m = 3;
    let mut total = Sums::default();
    for i in 0..m {
        let shard = Shard::new(i, m).unwrap();
        let job = Job::new(&config(10, Algorithm::Symmetry, 1))
            .unwrap()
            .shard(shard);
        let outcome = job.run(Control::default()).unwrap();
        assert!(outcome.complete && outcome.counts().is_none());
        assert!(outcome.counted.keys().all(|&id| shard.owns(job.cut(), id)));
        total.merge(&outcome.sums);
        let id = (i + 1) % m;
        let foreign = Counted {
            id,
            entry: id,
            slice: crate::plan::Slice::WHOLE,
            count: 0,
            nodes: 0,
        };
        assert!(matches!(
            job.resume([foreign]),
            Err(Error::ForeignSubproblem { .. })
        ));
    }
    assert_eq!(total.total, 724);
}

#[test]
fn a_checkpoint_saves_a_cancelled_run_and_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cp.json");
    let make = || {
        Job::new(&config(12, Algorithm::Join, 2))
            .unwrap()
            .checkpoint(&path)
            .unwrap()
    };
    let first = run_cancelled_after(&make(), 3);
    assert!(first.cancelled);
    let saved = Journal::read(&path).unwrap();
    assert_eq!(saved.whole.len(), first.counted.len());
    let job = make();
    assert_eq!(job.resumed().len(), first.counted.len());
    let outcome = job.run(Control::default()).unwrap();
    let counts = outcome.counts().unwrap();
    assert_eq!(counts.total, 14200);
    assert_eq!(counts.unique, Some(1787));
    // The counts are the outcome's, read again the same (the peak was taken at the end of
    // the run, not when they are read).
    assert_eq!(counts.peak_memory, outcome.peak_memory);
    assert_eq!(outcome.counts(), Some(counts));
    // Another plan's job refuses the file.
    let other = Job::new(&config(12, Algorithm::Symmetry, 2))
        .unwrap()
        .checkpoint(&path)
        .unwrap_err()
        .to_string();
    assert!(other.contains("algorithm join, not symmetry"), "{other}");
}

#[test]
fn a_checkpoint_cut_finely_resumes_with_another_slice_time_to_the_same_count() {
    // Slices of a millisecond (the shortest a run takes) cut n = 15's longest searches; the
    // checkpoint records how, and a run with the default slice time (which cuts nothing)
    // resumes the entries it holds as recorded and the others whole.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cp.json");
    let fine = Duration::from_millis(1);
    let make = |slice: Option<Duration>| {
        let mut c = config(15, Algorithm::Symmetry, 2);
        if let Some(s) = slice {
            c = c.slice_time(s);
        }
        Job::new(&c).unwrap().checkpoint(&path).unwrap()
    };
    let finely = make(Some(fine));
    let whole = make(None);
    assert!(finely.cut().len() > whole.cut().len());
    // A slice time shorter still is taken as the shortest.
    let finer = make(Some(Duration::from_nanos(100)));
    assert_eq!(finer.cut().len(), finely.cut().len());
    assert_eq!(finely.plan().hash(), whole.plan().hash());
    assert!(!path.exists());
    let first = run_cancelled_after(&make(Some(fine)), 40);
    assert!(first.cancelled);
    let saved = Journal::read(&path).unwrap();
    assert!(
        !saved.slices.is_empty(),
        "the slices of cut entries are recorded"
    );
    assert_eq!(saved.counted_len(), first.counted.len());
    let job = make(None);
    assert_eq!(job.resumed().len(), first.counted.len());
    assert_eq!(
        job.recut(),
        (0, 0),
        "the file's cut is this release's at its slice time"
    );
    let counts = job.run(Control::default()).unwrap().counts().unwrap();
    assert_eq!((counts.total, counts.unique), (2279184, Some(285053)));
}

#[test]
fn thread_counts_past_the_bound_are_refused() {
    let err = Job::new(&Config::new(4).threads(usize::MAX)).unwrap_err();
    assert!(matches!(err, Error::Threads { .. }), "{err}");
    assert_eq!(Job::new(&Config::new(4).threads(3)).unwrap().threads(), 3);
}

#[test]
fn a_board_is_counted_by_its_one_method_and_keeps_its_size() {
    use crate::constraint::{Board, PieceKind};
    let board = Board::empty(6, PieceKind::Queen).unwrap();
    let config = Config::board(board.clone());
    assert_eq!(
        (config.n(), config.chosen_algorithm()),
        (6, Algorithm::Constrained)
    );
    assert_eq!(config.constrained_board(), Some(&board));
    let job = Job::new(&config.clone().algorithm(Algorithm::Constrained)).unwrap();
    assert_eq!(
        job.run(Control::default()).unwrap().counts().unwrap().total,
        4
    );
    for other in Algorithm::ALL {
        let err = Job::new(&config.clone().algorithm(other)).unwrap_err();
        assert!(
            matches!(err, Error::Plan(PlanError::MethodForBoard(a)) if a == other),
            "{err}"
        );
    }
    assert_eq!(Config::new(9).chosen_algorithm(), Algorithm::default_for(9));
    assert_eq!(Config::new(9).constrained_board(), None);
}

/// The budget of a whole count of `plan` on `threads` threads with `available` bytes.
fn whole(plan: &Cut, threads: usize, available: Option<u64>) -> Budget {
    Budget {
        threads,
        subproblems: plan.len(),
        shard: Shard::WHOLE,
        available,
    }
}

/// The most subproblems any shard `index + count × j` of `count × split` holds.
fn largest_part(plan: &Cut, (index, count): (u64, u64), split: u64) -> u64 {
    (0..split)
        .map(|j| plan.shard_len(sh(index + count * j, count * split)) as u64)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_kernel_plan_whose_bookkeeping_does_not_fit_is_cut_into_shards_that_fit() {
    let plan = Cut::sliced(Plan::build(12, Algorithm::Symmetry, None).unwrap(), 1000);
    let book = |subproblems: u64| plan.bytes() + subproblems * BYTES_PER_SUBPROBLEM;
    let advice = |available: u64| match fit_budget(&plan, whole(&plan, 2, Some(available))) {
        Ok(_) => None,
        Err(Error::Memory { advice, .. }) => Some(advice),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(advice(book(plan.len() as u64)), None);
    // The smallest power of two whose every shard fits, found shard by shard; a shard holds
    // whole entries, so at least the 1000 slices of one.
    assert_eq!(
        plan.shard_entries(Shard::WHOLE).map(|e| e.1).max(),
        Some(1000)
    );
    for available in [book(plan.len() as u64 / 2), book(12_345), book(1000)] {
        let Some(MemoryAdvice::Shards(s)) = advice(available) else {
            panic!("{:?}", advice(available));
        };
        assert!(s.is_power_of_two());
        assert!(book(largest_part(&plan, (0, 1), s)) <= available, "{s}");
        assert!(book(largest_part(&plan, (0, 1), s / 2)) > available, "{s}");
    }
    assert!(matches!(
        advice(book(999)),
        Some(MemoryAdvice::OneThreadNeeds(_))
    ));
}

#[test]
fn a_plan_whose_bookkeeping_does_not_fit_is_cut_into_shards() {
    let plan = Cut::whole(Plan::build(24, Algorithm::Join, None).unwrap());
    // One thread, so that fewer threads are no way out.
    let engines = join::memory_needed(24, 1, join::Layout::Bounded) + plan.bytes();
    let available = engines + (10 << 20);
    let err = fit_budget(&plan, whole(&plan, 1, Some(available))).unwrap_err();
    let Error::Memory {
        advice: MemoryAdvice::Shards(s),
        ..
    } = err
    else {
        panic!("{err}");
    };
    // The smallest power of two whose shards fit.
    let book = |subproblems: u64| subproblems * BYTES_PER_SUBPROBLEM;
    assert!(engines + book(largest_part(&plan, (0, 1), s)) <= available);
    assert!(engines + book(largest_part(&plan, (0, 1), s / 2)) > available);
    assert!(err.to_string().contains(&format!("{s} shards")), "{err}");
    // A shard of a sharded count: the advice counts shards of the whole, and cuts this
    // shard into parts that fit.
    let quarter = Budget {
        subproblems: plan.shard_len(sh(1, 4)),
        shard: sh(1, 4),
        ..whole(&plan, 1, Some(available))
    };
    let err = fit_budget(&plan, quarter).unwrap_err();
    let Error::Memory {
        advice: MemoryAdvice::Shards(t),
        ..
    } = err
    else {
        panic!("{err}");
    };
    assert!(t % 4 == 0 && (t / 4).is_power_of_two(), "{t}");
    assert!(engines + book(largest_part(&plan, (1, 4), t / 4)) <= available);
    assert!(engines + book(largest_part(&plan, (1, 4), t / 8)) > available);
}

#[test]
fn too_little_memory_is_one_line_with_true_advice() {
    use join::Layout::Bounded;
    let plan = Cut::whole(Plan::build(20, Algorithm::Join, None).unwrap());
    let book = plan.bytes() + plan.len() as u64 * BYTES_PER_SUBPROBLEM;
    assert!(fit_budget(&plan, whole(&plan, 8, None)).is_ok());
    assert!(fit_budget(&plan, whole(&plan, 8, Some(u64::MAX / 2))).is_ok());
    let two = join::memory_needed(20, 2, Bounded) + book;
    let err = fit_budget(&plan, whole(&plan, 8, Some(two))).unwrap_err();
    assert!(
        matches!(err, Error::Memory { advice: MemoryAdvice::Threads(t), .. } if t >= 2),
        "{err}"
    );
    let one = join::memory_needed(20, 1, Bounded) + book;
    let err = fit_budget(&plan, whole(&plan, 8, Some(one - 1)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("n = 20 on 8 threads"), "{err}");
    assert!(err.contains("symmetry algorithm"), "{err}");
    assert_eq!(err.lines().count(), 1);
    let sym = Cut::whole(Plan::build(20, Algorithm::Symmetry, Some(0)).unwrap());
    let need = sym.bytes() + sym.len() as u64 * BYTES_PER_SUBPROBLEM;
    assert!(fit_budget(&sym, whole(&sym, 8, Some(need))).is_ok());
}

#[test]
fn every_board_counts_exactly_in_little_memory() {
    for n in 1..=14 {
        let config = config(n, Algorithm::Join, 2).memory(1 << 30);
        let job = Job::new(&config).unwrap();
        job.check_memory().unwrap();
        let counts = job.run(Control::default()).unwrap().counts().unwrap();
        assert_eq!(Some(counts.total), known::total(n), "n = {n}");
        assert_eq!(counts.unique, known::unique(n), "n = {n}");
    }
    // A budget below one thread's need is refused.
    let small = Job::new(&config(16, Algorithm::Join, 1).memory(1 << 20)).unwrap();
    assert!(small.check_memory().is_err());
}

#[test]
fn an_altered_resumed_subproblem_fails_the_burnside_check() {
    let cut = Cut::whole(Plan::build(10, Algorithm::Symmetry, None).unwrap());
    // A subproblem whose weight is not a multiple of 8, raised by one: the total moves by 2 or 4.
    let id = cut
        .subproblems()
        .find(|s| matches!(s.work, crate::plan::Work::Complete { weight, .. } if !weight.is_multiple_of(8)))
        .unwrap()
        .id;
    let mut subproblem = solve_one(cut.plan(), &cut.subproblem(id));
    subproblem.count += 1;
    let job = Job::new(&config(10, Algorithm::Symmetry, 2))
        .unwrap()
        .resume([subproblem])
        .unwrap();
    let err = job.run(Control::default()).unwrap_err();
    assert!(matches!(err, Error::Integrity { n: 10, .. }), "{err}");
    assert!(err.to_string().contains("Burnside"), "{err}");
    // With a checkpoint, the message says that the file now holds every subproblem.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    let job = Job::new(&config(10, Algorithm::Symmetry, 2))
        .unwrap()
        .resume([subproblem])
        .unwrap()
        .checkpoint(&path)
        .unwrap();
    let err = job.run(Control::default()).unwrap_err().to_string();
    assert!(err.contains("c.json holds every subproblem"), "{err}");
    assert!(path.exists());
}

#[test]
fn a_checkpoint_of_a_fixed_split_depth_resumes_with_its_plan() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    let deep = Job::new(&config(12, Algorithm::Symmetry, 2).split_depth(3))
        .unwrap()
        .checkpoint(&path)
        .unwrap();
    assert!(run_cancelled_after(&deep, 3).cancelled);
    // Without a split depth, the job takes the checkpoint's plan rather than refusing it.
    let job = Job::new(&config(12, Algorithm::Symmetry, 2))
        .unwrap()
        .checkpoint(&path)
        .unwrap();
    assert_eq!(job.plan().split_depth(), 3);
    assert!(!job.resumed().is_empty());
    let counts = job.run(Control::default()).unwrap().counts().unwrap();
    assert_eq!((counts.total, counts.unique), (14200, Some(1787)));
    // A split depth given is kept, and the checkpoint of another depth refused.
    let err = Job::new(&config(12, Algorithm::Symmetry, 2).split_depth(2))
        .unwrap()
        .checkpoint(&path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("another plan"), "{err}");
}

/// A large join board cut by the run's model at three slice times: three cuts, one plan
/// (`tests/plan_hashes.rs` checks the same of counted boards and their shards).
#[test]
fn the_run_cuts_a_large_board_without_changing_its_plan() {
    let whole = Plan::build(25, Algorithm::Join, None).unwrap();
    let cuts: Vec<(usize, crate::plan::PlanHash)> = [1.0, SLICE_SECONDS, 1000.0]
        .into_iter()
        .map(|seconds| {
            let costs = CostModel::new(&whole, seconds);
            let cut = Cut::fresh(whole.clone(), |_, _, e| costs.slices(e));
            (cut.len(), cut.plan().hash())
        })
        .collect();
    assert!(cuts[0].0 > cuts[1].0 && cuts[1].0 > cuts[2].0, "{cuts:?}");
    assert!(cuts.iter().all(|c| c.1 == whole.hash()));
}

/// Subproblems counted under one cut of a plan resume a job of that cut, and a job of another
/// cut (another slice time) refuses them: their ids name other work there.
#[test]
fn a_job_refuses_subproblems_of_another_cut() {
    let whole = config(15, Algorithm::Symmetry, 2);
    let fine = whole.clone().slice_time(Duration::from_millis(1));
    let finely = Job::new(&fine).unwrap();
    let counted: Vec<Counted> = run_cancelled_after(&finely, 40)
        .counted
        .into_values()
        .collect();
    let len = Job::new(&whole).unwrap().cut().len();
    // A slice of an entry the fine cut cut, with an id the other cut has too.
    let sliced = *counted
        .iter()
        .find(|c| c.slice.of > 1 && (c.id as usize) < len)
        .expect("a slice");
    let (moved, mut miscounted) = (
        Counted {
            id: sliced.id + 1,
            ..sliced
        },
        sliced,
    );
    miscounted.slice.of += 1;
    for (cut_by, wrong) in [(&whole, sliced), (&fine, moved), (&fine, miscounted)] {
        let refused = Job::new(cut_by).unwrap().resume([wrong]).unwrap_err();
        assert!(matches!(refused, Error::OtherCut { .. }), "{refused}");
    }
    // The same cut takes them all.
    let job = Job::new(&fine).unwrap().resume(counted.clone()).unwrap();
    assert_eq!(job.resumed().len(), counted.len());
}

/// The order a run hands its work out in covers what is left, each id once.
#[test]
fn the_work_order_holds_every_id_left_once() {
    let job = Job::new(&config(12, Algorithm::Symmetry, 2)).unwrap();
    for threads in [1, 4, 192] {
        let mut ids: Vec<u64> = job
            .work_order(threads)
            .iter()
            .flat_map(|&(first, len)| first..first + u64::from(len))
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, job.todo(), "{threads} threads");
    }
}
