//! A checkpoint kept up to date while a run goes on: finished pieces are recorded as they come
//! and the file is rewritten at most every so often, and once more at the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Journal, JournalError};
use crate::plan::Plan;
use crate::tally::Piece;

/// A journal written to a file while pieces arrive.
pub struct Recorder<'a> {
    plan: &'a Plan,
    path: PathBuf,
    interval: Duration,
    state: Mutex<State>,
}

struct State {
    journal: Journal,
    pieces: BTreeMap<u64, Piece>,
    last_save: Instant,
    save_cost: Duration,
    dirty: bool,
    error: Option<JournalError>,
}

impl<'a> Recorder<'a> {
    /// A recorder writing `journal` to `path` with `pieces` (the resumed ones) and those
    /// recorded, at most every `interval`.
    pub fn new(
        plan: &'a Plan,
        path: &Path,
        journal: Journal,
        pieces: BTreeMap<u64, Piece>,
        interval: Duration,
    ) -> Self {
        Recorder {
            plan,
            path: path.to_path_buf(),
            interval,
            state: Mutex::new(State {
                journal,
                pieces,
                last_save: Instant::now(),
                save_cost: Duration::ZERO,
                dirty: false,
                error: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a finished piece; saves when the last save is older than the interval.
    pub fn record(&self, piece: &Piece) {
        let mut st = self.lock();
        st.pieces.insert(piece.id, *piece);
        st.dirty = true;
        // Saving a very large journal takes a while: wait at least twenty times as long as
        // the last save took, so that saving never costs more than about 5% of the run.
        if st.last_save.elapsed() >= self.interval.max(st.save_cost * 20) {
            self.save_locked(&mut st);
        }
    }

    fn save_locked(&self, st: &mut State) {
        let State {
            journal, pieces, ..
        } = st;
        let began = Instant::now();
        journal.set_pieces(self.plan, pieces);
        let written = journal.write(&self.path);
        st.save_cost = began.elapsed();
        match written {
            Ok(()) => {
                st.dirty = false;
                st.error = None;
            }
            Err(e) => st.error = Some(e),
        }
        st.last_save = Instant::now();
    }

    /// Sets a fact in the journal's `meta` (written with the next save).
    pub fn set_meta(&self, key: &str, value: String) {
        let mut st = self.lock();
        st.journal.set_meta(key, value);
        st.dirty = true;
    }

    /// Saves now if anything changed (or the file does not exist yet).
    pub fn flush(&self) -> Result<(), JournalError> {
        let mut st = self.lock();
        if st.dirty || !self.path.exists() {
            self.save_locked(&mut st);
        }
        st.error.take().map_or(Ok(()), Err)
    }
}
