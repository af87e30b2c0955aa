//! A checkpoint kept up to date while a run goes on: finished subproblems are recorded as they come
//! and the file is rewritten at most every so often, and once more at the end. A save that
//! fails (a full disk) leaves the previous file as it was and does not stop the run: the
//! first failure is told to the caller's [`SaveFailure`], and the next saves try again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Journal, JournalError};
use crate::plan::Plan;
use crate::system::Clock;
use crate::tally::Counted;

/// What a recorder calls with the first save that fails.
pub type SaveFailure<'a> = &'a (dyn Fn(&JournalError) + Sync);

/// A journal written to a file while subproblems arrive.
pub struct Recorder<'a> {
    plan: &'a Plan,
    path: PathBuf,
    interval: Duration,
    state: Mutex<State>,
    failure: Option<SaveFailure<'a>>,
    /// Where the time between saves is read.
    clock: &'a dyn Clock,
}

struct State {
    journal: Journal,
    subproblems: BTreeMap<u64, Counted>,
    last_save: Instant,
    save_cost: Duration,
    dirty: bool,
    error: Option<JournalError>,
    /// Whether a failed save was told to the [`SaveFailure`] callback.
    told: bool,
}

impl<'a> Recorder<'a> {
    /// A recorder writing `journal` to `path` with `subproblems` (the resumed ones) and those
    /// recorded, at most every `interval` of `clock`, calling `failure` with the first periodic
    /// save that fails (once: the saves go on, and the last one's error is
    /// [`Recorder::flush`]'s, which tells no one).
    pub fn new(
        plan: &'a Plan,
        path: &Path,
        journal: Journal,
        subproblems: BTreeMap<u64, Counted>,
        interval: Duration,
        clock: &'a dyn Clock,
        failure: Option<SaveFailure<'a>>,
    ) -> Self {
        Recorder {
            plan,
            path: path.to_path_buf(),
            interval,
            state: Mutex::new(State {
                journal,
                subproblems,
                last_save: clock.now(),
                save_cost: Duration::ZERO,
                dirty: false,
                error: None,
                told: false,
            }),
            failure,
            clock,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a finished subproblem; saves when the last save is older than the interval.
    pub fn record(&self, subproblem: &Counted) {
        let mut st = self.lock();
        st.subproblems.insert(subproblem.id, *subproblem);
        st.dirty = true;
        // Saving a very large journal takes a while: wait at least twenty times as long as
        // the last save took, so that saving never costs more than about 5% of the run.
        let since = self.clock.now().duration_since(st.last_save);
        if since >= self.interval.max(st.save_cost * 20) {
            self.save_locked(&mut st, true);
        }
    }

    /// Saves the journal; a failure is kept for [`Recorder::flush`], and told to the
    /// [`SaveFailure`] callback where `tell` (a periodic save) and none was before.
    fn save_locked(&self, st: &mut State, tell: bool) {
        let State {
            journal,
            subproblems,
            ..
        } = st;
        let began = self.clock.now();
        journal.set_counted(self.plan, subproblems);
        let written = journal.write(&self.path);
        st.save_cost = self.clock.now().duration_since(began);
        match written {
            Ok(()) => {
                st.dirty = false;
                st.error = None;
            }
            Err(e) => {
                if let Some(callback) = self.failure.filter(|_| tell)
                    && !std::mem::replace(&mut st.told, true)
                {
                    callback(&e);
                }
                st.error = Some(e);
            }
        }
        st.last_save = self.clock.now();
    }

    /// Sets a fact in the journal's `meta` (written with the next save).
    pub fn set_meta(&self, name: &str, value: String) {
        let mut st = self.lock();
        st.journal.set_meta(name, value);
        st.dirty = true;
    }

    /// Saves now if anything changed (or the file does not exist yet).
    pub fn flush(&self) -> Result<(), JournalError> {
        let mut st = self.lock();
        if st.dirty || !self.path.exists() {
            self.save_locked(&mut st, false);
        }
        st.error.take().map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::persist::Kind;
    use crate::plan::{Algorithm, Cut};
    use crate::run::solve_one;
    use crate::tests_support::FixedClock;

    const EVERY: Duration = Duration::from_secs(3);

    /// A plan of n = 9 and its first `k` subproblems, counted.
    fn counted(k: usize) -> (Plan, Vec<Counted>) {
        let cut = Cut::whole(Plan::build(9, Algorithm::Symmetry, None).unwrap());
        let subs = cut.subproblems().take(k).map(|s| solve_one(cut.plan(), &s));
        let subs = subs.collect();
        (cut.into_plan(), subs)
    }

    #[test]
    fn a_save_waits_for_the_interval_on_the_clock() {
        let (plan, subs) = counted(3);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let clock = FixedClock::default();
        let journal = Journal::new(Kind::Checkpoint, &plan, None);
        let r = Recorder::new(&plan, &path, journal, BTreeMap::new(), EVERY, &clock, None);
        r.record(&subs[0]);
        assert!(!path.exists(), "saved before the clock moved");
        clock.advance(EVERY - Duration::from_millis(1));
        r.record(&subs[1]);
        assert!(!path.exists(), "saved before the interval");
        clock.advance(Duration::from_millis(1));
        r.record(&subs[2]);
        assert_eq!(Journal::read(&path).unwrap().counted_len(), 3);
    }

    #[test]
    fn the_first_failed_save_is_told_once_and_the_last_error_kept() {
        let (plan, subs) = counted(4);
        let dir = tempfile::tempdir().unwrap();
        // A folder that does not exist: every save fails.
        let path = dir.path().join("gone").join("c.json");
        let clock = FixedClock::default();
        let told = AtomicUsize::new(0);
        let tell = |e: &JournalError| {
            assert_eq!(e.path(), path.as_path());
            told.fetch_add(1, Ordering::SeqCst);
        };
        let journal = Journal::new(Kind::Checkpoint, &plan, None);
        let r = Recorder::new(
            &plan,
            &path,
            journal,
            BTreeMap::new(),
            EVERY,
            &clock,
            Some(&tell),
        );
        for (i, sub) in subs.iter().enumerate() {
            r.record(sub);
            // No save before the first interval; after it, each save fails and only the first
            // is told.
            assert_eq!(
                told.load(Ordering::SeqCst),
                usize::from(i > 0),
                "record {i}"
            );
            clock.advance(EVERY);
        }
        // The last save's error is the flush's, told to no one.
        assert!(r.flush().is_err());
        assert_eq!(told.load(Ordering::SeqCst), 1);
    }
}
