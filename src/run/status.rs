//! How far a run has come, and when it will end: the share of the estimated work done, and a
//! time estimate that is only given once it can be trusted.
//!
//! Work is measured in modelled costs (the plan's size estimates
//! ([`crate::plan::Subproblem::estimate`]) for the kernel's pieces, a model from the quadrant
//! lists for the join's units), so a large piece counts for more than a small one. The remaining time is the time the work so
//! far took, scaled to the work left; it is withheld (`None`, "estimating") until enough
//! pieces of enough of the work are done for the rate to mean something. The clock starts when
//! the engines are prepared, so that building shared tables is not taken for a rate.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Share of the estimated work that must be done before a remaining time is given.
const CALIBRATED_SHARE: f64 = 0.02;
/// Pieces per thread that must be done before a remaining time is given.
const CALIBRATED_PIECES_PER_THREAD: usize = 4;

/// Where a run stands, as passed to the observer with each finished piece.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    /// Pieces this run has finished.
    pub done: usize,
    /// Pieces this run was asked to count.
    pub todo: usize,
    /// The share of this run's estimated work done, 0 to 1.
    pub fraction: f64,
    /// Time since the engines were ready.
    pub elapsed: Duration,
    /// The time left, once the rate is known well enough.
    pub remaining: Option<Duration>,
}

/// The running tally behind [`Status`], shared by the workers.
#[derive(Debug)]
pub(super) struct Tracker {
    total: f64,
    todo: usize,
    threads: usize,
    state: Mutex<(usize, f64)>,
    started: Instant,
}

impl Tracker {
    /// A tracker for `todo` pieces of `total` estimated work on `threads` threads; its clock
    /// starts now.
    pub fn new(total: f64, todo: usize, threads: usize) -> Tracker {
        Tracker {
            total,
            todo,
            threads,
            state: Mutex::new((0, 0.0)),
            started: Instant::now(),
        }
    }

    /// Notes a finished piece of `work` and returns the status after it.
    pub fn finished(&self, work: f64) -> Status {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0 += 1;
        st.1 += work;
        let (done, work_done) = *st;
        drop(st);
        status(
            self.total,
            self.todo,
            self.threads,
            done,
            work_done,
            self.started.elapsed(),
        )
    }
}

/// The status of `done` of `todo` pieces, `work_done` of `total` estimated work, after
/// `elapsed`, on `threads` threads.
fn status(
    total: f64,
    todo: usize,
    threads: usize,
    done: usize,
    work_done: f64,
    elapsed: Duration,
) -> Status {
    let fraction = if total > 0.0 {
        (work_done / total).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let enough_pieces = done >= (CALIBRATED_PIECES_PER_THREAD * threads).min(todo);
    let remaining = (fraction >= CALIBRATED_SHARE.min(1.0) && enough_pieces && fraction > 0.0)
        .then(|| elapsed.mul_f64((1.0 - fraction) / fraction));
    Status {
        done,
        todo,
        fraction,
        elapsed,
        remaining,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_time_is_promised_before_the_rate_is_known() {
        let s = status(100.0, 1000, 2, 1, 50.0, Duration::from_secs(10));
        assert_eq!(s.remaining, None, "one piece is not a rate");
        let s = status(100.0, 1000, 2, 100, 1.0, Duration::from_secs(10));
        assert_eq!(s.remaining, None, "1% of the work is not a rate");
    }

    #[test]
    fn the_time_left_scales_the_time_so_far_to_the_work_left() {
        let s = status(100.0, 1000, 2, 250, 25.0, Duration::from_secs(30));
        assert_eq!(s.fraction, 0.25);
        assert_eq!(s.remaining, Some(Duration::from_secs(90)));
        let end = status(100.0, 1000, 2, 1000, 100.0, Duration::from_secs(120));
        assert_eq!(end.remaining, Some(Duration::ZERO));
        // A run of fewer pieces than the threads' share is calibrated by all of them.
        let few = status(4.0, 4, 8, 2, 2.0, Duration::from_secs(2));
        assert_eq!(few.remaining, None);
    }

    #[test]
    fn the_tracker_counts_pieces_and_work() {
        let t = Tracker::new(10.0, 4, 1);
        t.finished(2.0);
        let s = t.finished(3.0);
        assert_eq!((s.done, s.todo), (2, 4));
        assert!((s.fraction - 0.5).abs() < 1e-12);
        assert!(s.remaining.is_none(), "four pieces a thread calibrate");
        t.finished(1.0);
        assert!(t.finished(1.0).remaining.is_some());
    }
}
