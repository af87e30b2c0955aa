//! A watcher beside a timed pass: the estimate's sample and the recount both run for a time
//! budget or until the caller's cancel flag rises, and their workers look at one stop flag
//! between subproblems (and the engines inside them). This raises that flag, once, from a thread of
//! its own, and ends with the work it watches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the watcher looks at the clock and the cancel flag.
const TICK: Duration = Duration::from_millis(10);

/// Runs `work`, raising `stop` once `deadline` (if any) passes or `cancel` (if any) rises; the
/// watcher thread ends when `work` returns, without waiting for the deadline.
pub(super) fn watched<R>(
    stop: &AtomicBool,
    deadline: Option<Instant>,
    cancel: Option<&AtomicBool>,
    work: impl FnOnce() -> R,
) -> R {
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed));
                if cancelled || deadline.is_some_and(|d| Instant::now() >= d) {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(TICK);
            }
        });
        let result = work();
        finished.store(true, Ordering::Relaxed);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_raises_the_stop_flag_for_the_work_to_see() {
        let stop = AtomicBool::new(false);
        let deadline = Some(Instant::now() + Duration::from_millis(30));
        let spins = watched(&stop, deadline, None, || {
            let mut spins = 0u64;
            while !stop.load(Ordering::Relaxed) {
                spins += 1;
                std::thread::yield_now();
            }
            spins
        });
        assert!(spins > 0);
        assert!(stop.load(Ordering::Relaxed));
    }

    #[test]
    fn a_cancel_raises_it_and_work_that_ends_first_leaves_it_down() {
        let stop = AtomicBool::new(false);
        let cancel = AtomicBool::new(true);
        watched(&stop, None, Some(&cancel), || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
        });
        assert!(stop.load(Ordering::Relaxed));
        let quiet = AtomicBool::new(false);
        // No deadline, no cancel: the watcher must end when the work does.
        let value = watched(
            &quiet,
            Some(Instant::now() + Duration::from_secs(3600)),
            None,
            || 7,
        );
        assert_eq!(value, 7);
        assert!(!quiet.load(Ordering::Relaxed));
    }
}
