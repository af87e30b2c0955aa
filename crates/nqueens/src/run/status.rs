//! How far a run has come, and when it will end: the share of the estimated work done, and a
//! time estimate that is only given once it can be trusted.
//!
//! Work is measured in modelled costs (the size each engine gives its work,
//! [`super::engines::Engine::size`]), so a large subproblem counts for more than a small one. The
//! remaining time is the time the work so far took, scaled to the work left; it is withheld
//! (`None`, "estimating") until enough subproblems of enough of the work are done for the rate to
//! mean something. The clock starts when the engines are prepared, so that building shared tables
//! is not taken for a rate.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Share of the estimated work that must be done before a remaining time is given.
const CALIBRATED_SHARE: f64 = 0.02;
/// Subproblems per thread that must be done before a remaining time is given.
const CALIBRATED_SUBPROBLEMS_PER_THREAD: usize = 4;

/// Where a run stands, as passed to the observer with each finished subproblem.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    /// Subproblems this run has finished.
    pub done: usize,
    /// Subproblems this run was asked to count.
    pub todo: usize,
    /// The share of this run's estimated work done, 0 to 1.
    pub fraction: f64,
    /// Time since the engines were ready.
    pub elapsed: Duration,
    /// The time left, once the rate is known well enough.
    pub remaining: Option<Duration>,
}

/// The running tally behind [`Status`], shared by the workers.
///
/// The work left is costed class by class: each subproblem belongs to a class of subproblems alike
/// (the kernel's subproblems by family and size), and a class's modelled cost is turned into
/// seconds at the rate its finished subproblems ran at, or at the run's rate while none has
/// finished. So a class the model misjudges (the smallest kernel subproblems cost more per unit of
/// estimate than the largest) is corrected as soon as a few of its subproblems are done, which the
/// schedule arranges early ([`super::pool`]).
#[derive(Debug)]
pub(super) struct Tracker {
    total: f64,
    todo: usize,
    threads: usize,
    classes: Classes,
    state: Mutex<Tally>,
    started: Instant,
}

/// What the workers have finished.
#[derive(Debug, Default)]
struct Tally {
    done: usize,
    work: f64,
    /// Seconds the finished subproblems took, on all threads together.
    busy: f64,
    /// Per class: the modelled cost and the seconds of its finished subproblems.
    classes: Vec<(f64, f64)>,
}

/// The classes of the subproblems to run, by dense index: the modelled cost of each and its
/// number of subproblems.
#[derive(Debug, Default)]
pub(super) struct Classes {
    /// Modelled cost of each class.
    pub cost: Vec<f64>,
    /// Subproblems of each class.
    pub subproblems: Vec<usize>,
}

impl Tracker {
    /// A tracker for `todo` subproblems of `total` estimated work on `threads` threads, the work
    /// of each class in `class_totals`; its clock starts now.
    pub fn new(total: f64, todo: usize, threads: usize, classes: Classes) -> Tracker {
        let done = vec![(0.0, 0.0); classes.cost.len()];
        Tracker {
            total,
            todo,
            threads,
            classes,
            state: Mutex::new(Tally {
                classes: done,
                ..Tally::default()
            }),
            started: Instant::now(),
        }
    }

    /// Notes a finished subproblem of `work` in `class` that took `seconds` and returns the status
    /// after it.
    pub fn finished(&self, work: f64, class: usize, seconds: f64) -> Status {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.done += 1;
        st.work += work;
        st.busy += seconds;
        if let Some(c) = st.classes.get_mut(class) {
            c.0 += work;
            c.1 += seconds;
        }
        let busy_left = seconds_left(&self.classes.cost, &self.classes.subproblems, &st);
        let (done, work_done, busy) = (st.done, st.work, st.busy);
        drop(st);
        let elapsed = self.started.elapsed();
        let mut s = self.status(done, work_done, elapsed);
        // The wall time left: the busy seconds left at the rate the threads have been kept
        // busy so far.
        if s.remaining.is_some() && busy > 0.0 {
            s.remaining = Some(elapsed.mul_f64(busy_left / busy));
        }
        s
    }

    /// The status of `done` subproblems and `work_done` of the estimated work after `elapsed`.
    fn status(&self, done: usize, work_done: f64, elapsed: Duration) -> Status {
        let fraction = if self.total > 0.0 {
            (work_done / self.total).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let calibrated = (CALIBRATED_SUBPROBLEMS_PER_THREAD * self.threads).min(self.todo);
        let remaining =
            (fraction >= CALIBRATED_SHARE.min(1.0) && done >= calibrated && fraction > 0.0)
                .then(|| elapsed.mul_f64((1.0 - fraction) / fraction));
        Status {
            done,
            todo: self.todo,
            fraction,
            elapsed,
            remaining,
        }
    }
}

/// The busy seconds the work left will take: each class's cost left at its own rate, or the
/// run's where none of it is done.
fn seconds_left(class_totals: &[f64], subproblems: &[usize], st: &Tally) -> f64 {
    let overall = if st.work > 0.0 {
        st.busy / st.work
    } else {
        0.0
    };
    class_totals
        .iter()
        .zip(&st.classes)
        .zip(subproblems)
        .map(|((&total, &(work, secs)), &count)| {
            // A class's first subproblems are weighed against the run's rate as if two of its
            // average subproblems had gone at that rate, so that one slow start (cold caches, a
            // thread starting) does not set the rate of a whole class.
            let prior = 2.0 * total / count.max(1) as f64;
            let rate = (secs + prior * overall) / (work + prior);
            (total - work).max(0.0) * rate
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_time_is_promised_before_the_rate_is_known() {
        let t = Tracker::new(100.0, 1000, 2, Classes::default());
        let s = t.status(1, 50.0, Duration::from_secs(10));
        assert_eq!(s.remaining, None, "one subproblem is not a rate");
        let s = t.status(100, 1.0, Duration::from_secs(10));
        assert_eq!(s.remaining, None, "1% of the work is not a rate");
    }

    #[test]
    fn the_time_left_scales_the_time_so_far_to_the_work_left() {
        let t = Tracker::new(100.0, 1000, 2, Classes::default());
        let s = t.status(250, 25.0, Duration::from_secs(30));
        assert_eq!(s.fraction, 0.25);
        assert_eq!(s.remaining, Some(Duration::from_secs(90)));
        let end = t.status(1000, 100.0, Duration::from_secs(120));
        assert_eq!(end.remaining, Some(Duration::ZERO));
        // A run of fewer subproblems than the threads' share is calibrated by all of them.
        let few = Tracker::new(4.0, 4, 8, Classes::default());
        assert_eq!(few.status(2, 2.0, Duration::from_secs(2)).remaining, None);
    }

    #[test]
    fn the_tracker_counts_subproblems_and_work() {
        let t = Tracker::new(
            10.0,
            4,
            1,
            Classes {
                cost: vec![10.0],
                subproblems: vec![4],
            },
        );
        t.finished(2.0, 0, 0.2);
        let s = t.finished(3.0, 0, 0.3);
        assert_eq!((s.done, s.todo), (2, 4));
        assert!((s.fraction - 0.5).abs() < 1e-12);
        assert!(s.remaining.is_none(), "four subproblems a thread calibrate");
        t.finished(1.0, 0, 0.1);
        assert!(t.finished(1.0, 0, 0.1).remaining.is_some());
    }

    #[test]
    fn each_class_is_costed_at_its_own_rate() {
        // Class 0: 10 units of cost, half done in 5 s; class 1: 10 units, 1 done in 3 s. With
        // many subproblems a class, the prior weighs little.
        let many = [1000, 1000];
        let mut st = Tally {
            classes: vec![(5.0, 5.0), (1.0, 3.0)],
            work: 6.0,
            busy: 8.0,
            done: 6,
        };
        let left = seconds_left(&[10.0, 10.0], &many, &st);
        assert!((left - (5.0 + 27.0)).abs() < 0.5, "{left}");
        // A class none of which is done goes at the run's rate.
        st.classes[1] = (0.0, 0.0);
        st.work = 5.0;
        st.busy = 5.0;
        let left = seconds_left(&[10.0, 10.0], &many, &st);
        assert!((left - 15.0).abs() < 1e-9, "{left}");
        // One slow first subproblem of a class of ten is weighed against the run's rate: 1 unit in
        // 10 s, where the run goes at 1 s a unit, with a prior of two mean subproblems (2 units).
        let st = Tally {
            classes: vec![(9.0, 9.0), (1.0, 10.0)],
            work: 10.0,
            busy: 19.0,
            done: 10,
        };
        let left = seconds_left(&[10.0, 10.0], &[10, 10], &st);
        let overall = 1.9;
        let rate = (10.0 + 2.0 * overall) / 3.0;
        let first = (9.0 + 2.0 * overall) / 11.0;
        assert!((left - (first + 9.0 * rate)).abs() < 1e-9, "{left}");
        assert!(rate < 10.0 / 2.0);
    }
}
