//! What the library's tests share: the brute-force solutions (from the engine crate), a
//! count's shard files, a clock the test moves by hand, and the skip that CI does not allow.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::system::Clock;

pub use nqueens_engine::brute::{all_solutions, distinct_up_to_symmetry};

/// The result files `s0.json`, `s1.json`, ... of the `m` shards of an n×n symmetry count,
/// written to `dir`.
pub fn write_shards(dir: &std::path::Path, n: usize, m: u64) -> Vec<std::path::PathBuf> {
    use crate::{Algorithm, Config, Control, Job, persist::Shard};
    (0..m)
        .map(|i| {
            let config = Config::new(n).algorithm(Algorithm::Symmetry).threads(1);
            let job = Job::new(&config).unwrap().shard(Shard::new(i, m).unwrap());
            let outcome = job.run(Control::default()).unwrap();
            let path = dir.join(format!("s{i}.json"));
            job.shard_result(&outcome).write(&path).unwrap();
            path
        })
        .collect()
}

/// Says why a check was skipped (a processor without the instructions it tests, a system
/// without `/proc`); under CI (`CI=true`) a skip fails the test instead, so that CI never
/// passes a check it did not run. The twin of `skip()` in the workspace's
/// `tests/common/mod.rs`, which unit tests cannot reach.
pub fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("skipped under CI, which must run it: {why}");
    }
    eprintln!("skipped: {why}");
}

/// A clock that stands still until the test moves it ([`FixedClock::advance`]), for the logic
/// that depends on time.
#[derive(Debug)]
pub struct FixedClock {
    start: Instant,
    nanos: AtomicU64,
}

impl Default for FixedClock {
    fn default() -> FixedClock {
        FixedClock {
            start: Instant::now(),
            nanos: AtomicU64::new(0),
        }
    }
}

impl FixedClock {
    /// Moves the clock on by `by`.
    pub fn advance(&self, by: Duration) {
        let nanos = u64::try_from(by.as_nanos()).expect("less than five centuries");
        self.nanos.fetch_add(nanos, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Instant {
        self.start + Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}
