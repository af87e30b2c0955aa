//! Journals of finished subproblems: checkpoints that let a long run resume, and the result
//! files of shards.
//!
//! One file format serves both: a JSON object naming the board, the algorithm, the plan
//! (split depth and hash), the shard when there is one, the finished pieces `[id, count, nodes]`
//! and a checksum over all of it. Files are replaced atomically (a temporary file in the same
//! folder, `fsync`, `rename`), so a crash at any instant leaves the previous good file. A file
//! is only ever used when everything in it checks out: the checksum, the plan, the ids.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::plan::Plan;
use crate::run::Piece;
use crate::tally::Sums;

/// Why a journal file was refused or could not be written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a journal of this program, or is damaged.
    #[error("{path}: {why}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// Which part of a sharded plan a journal covers: shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based shard number.
    pub index: u64,
    /// How many shards the plan is cut into.
    pub count: u64,
}

impl Shard {
    /// Whether subproblem `id` belongs to this shard (ids are dealt out round-robin).
    pub fn owns(&self, id: u64) -> bool {
        id % self.count == self.index
    }
}

/// The kind of journal file.
pub const CHECKPOINT: &str = "nqueens-checkpoint";
/// The kind of a shard's result file.
pub const SHARD_RESULT: &str = "nqueens-shard-result";

/// The contents of a journal file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Journal {
    /// [`CHECKPOINT`] or [`SHARD_RESULT`].
    pub format: String,
    /// File format version.
    pub version: u32,
    /// Board size.
    pub n: usize,
    /// Algorithm name.
    pub algorithm: String,
    /// The plan's split depth.
    pub split_depth: usize,
    /// The plan's hash (16 hex digits).
    pub plan: String,
    /// Subproblems in the whole plan.
    pub subproblems: u64,
    /// The shard covered, if any.
    pub shard: Option<Shard>,
    /// Finished pieces: `[id, count, nodes]`, sorted by id.
    pub pieces: Vec<[u64; 3]>,
    /// Sums over the pieces (weights applied).
    pub sums: Sums,
    /// Free-form facts about the run that wrote the file (program version, host, seconds).
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
    /// FNV-1a of everything above, as 16 hex digits.
    pub checksum: String,
}

impl Journal {
    /// An empty journal for `plan` (and `shard`).
    pub fn new(format: &str, plan: &Plan, shard: Option<Shard>) -> Journal {
        let mut j = Journal {
            format: format.to_string(),
            version: 1,
            n: plan.n,
            algorithm: plan.algorithm.name().to_string(),
            split_depth: plan.split_depth,
            plan: plan.hash_hex(),
            subproblems: plan.subproblems.len() as u64,
            shard,
            pieces: Vec::new(),
            sums: Sums::default(),
            meta: BTreeMap::new(),
            checksum: String::new(),
        };
        j.seal();
        j
    }

    /// The checksum the contents call for.
    pub fn expected_checksum(&self) -> String {
        let mut unsealed = self.clone();
        unsealed.checksum = String::new();
        let text = serde_json::to_string(&unsealed).expect("journals serialise");
        crate::hash::hex_of(text.as_bytes())
    }

    /// Recomputes the checksum after a change.
    pub fn seal(&mut self) {
        self.checksum = self.expected_checksum();
    }

    /// Replaces the pieces (and their sums) with `pieces`.
    pub fn set_pieces(&mut self, plan: &Plan, pieces: &BTreeMap<u64, Piece>) {
        self.pieces = pieces.values().map(|p| [p.id, p.count, p.nodes]).collect();
        let mut sums = Sums::default();
        for p in pieces.values() {
            sums.add(plan, p);
        }
        self.sums = sums;
        self.seal();
    }

    /// The pieces as a map by id.
    pub fn piece_map(&self) -> BTreeMap<u64, Piece> {
        self.pieces
            .iter()
            .map(|&[id, count, nodes]| (id, Piece { id, count, nodes }))
            .collect()
    }

    /// Reads and checks a journal on its own terms: it parses, its checksum holds, its pieces
    /// are sorted, unique and inside the plan's id range.
    pub fn read(path: &Path) -> Result<Journal, JournalError> {
        let invalid = |why: String| JournalError::Invalid {
            path: path.to_path_buf(),
            why,
        };
        let bytes = fs::read(path).map_err(|source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let j: Journal = serde_json::from_slice(&bytes).map_err(|e| {
            invalid(if bytes.is_empty() {
                "the file is empty, not a checkpoint or result file".to_string()
            } else if serde_json::from_slice::<serde_json::Value>(&bytes).is_err() {
                format!("not a checkpoint or result file, or truncated ({e})")
            } else {
                format!("not a checkpoint or result file of this program ({e})")
            })
        })?;
        if j.format != CHECKPOINT && j.format != SHARD_RESULT {
            return Err(invalid(format!("unknown file kind '{}'", j.format)));
        }
        if j.version != 1 {
            return Err(invalid(format!("unsupported version {}", j.version)));
        }
        if j.checksum != j.expected_checksum() {
            return Err(invalid(
                "checksum mismatch: the file was edited or damaged".to_string(),
            ));
        }
        let ordered = j.pieces.windows(2).all(|w| w[0][0] < w[1][0]);
        let inside = j.pieces.iter().all(|p| p[0] < j.subproblems);
        if !ordered || !inside {
            return Err(invalid("pieces out of order or out of range".to_string()));
        }
        Ok(j)
    }

    /// Checks that this journal was written for `plan` (and `shard`, when given), and that its
    /// sums are those of its pieces.
    pub fn check_against(
        &self,
        path: &Path,
        plan: &Plan,
        shard: Option<Shard>,
    ) -> Result<(), JournalError> {
        let invalid = |why: String| JournalError::Invalid {
            path: path.to_path_buf(),
            why,
        };
        if self.n != plan.n {
            return Err(invalid(format!(
                "written for n = {}, not n = {}",
                self.n, plan.n
            )));
        }
        if self.algorithm != plan.algorithm.name() {
            return Err(invalid(format!(
                "written for algorithm {}, not {}",
                self.algorithm, plan.algorithm
            )));
        }
        if self.plan != plan.hash_hex() || self.subproblems != plan.subproblems.len() as u64 {
            return Err(invalid(format!(
                "written for another plan (split depth {}, plan {}); this run's plan is split depth {}, plan {}",
                self.split_depth,
                self.plan,
                plan.split_depth,
                plan.hash_hex()
            )));
        }
        if let Some(s) = shard {
            if self.shard != Some(s) {
                return Err(invalid(match self.shard {
                    Some(t) => format!(
                        "written for shard {}/{}, not {}/{}",
                        t.index, t.count, s.index, s.count
                    ),
                    None => format!("written for a whole run, not shard {}/{}", s.index, s.count),
                }));
            }
        } else if let Some(t) = self.shard {
            return Err(invalid(format!(
                "written for shard {}/{}, not a whole run",
                t.index, t.count
            )));
        }
        if let Some(s) = self.shard
            && let Some(p) = self.pieces.iter().find(|p| !s.owns(p[0]))
        {
            return Err(invalid(format!(
                "subproblem {} does not belong to shard {}/{}",
                p[0], s.index, s.count
            )));
        }
        let mut sums = Sums::default();
        for p in self.piece_map().values() {
            sums.add(plan, p);
        }
        if sums != self.sums {
            return Err(invalid("its sums disagree with its pieces".to_string()));
        }
        Ok(())
    }

    /// Writes the journal atomically: a temporary file beside `path`, flushed to disk, then
    /// renamed over `path`.
    pub fn write_atomic(&self, path: &Path) -> Result<(), JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "journal".to_string());
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let text = serde_json::to_vec(self).expect("journals serialise");
        let result = (|| {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&text)?;
            f.write_all(b"\n")?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, path)?;
            if let Ok(d) = fs::File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result.map_err(io)
    }
}

/// A journal kept up to date while a run goes on: finished pieces are recorded as they come
/// and the file is rewritten at most every `interval`, and once more at the end.
pub struct Recorder<'a> {
    plan: &'a Plan,
    path: PathBuf,
    interval: Duration,
    state: Mutex<RecorderState>,
}

struct RecorderState {
    journal: Journal,
    pieces: BTreeMap<u64, Piece>,
    last_save: Instant,
    save_cost: Duration,
    dirty: bool,
    error: Option<String>,
}

impl<'a> Recorder<'a> {
    /// A recorder writing `journal` (already holding any resumed pieces) to `path`.
    pub fn new(plan: &'a Plan, path: &Path, journal: Journal, interval: Duration) -> Self {
        let pieces = journal.piece_map();
        Recorder {
            plan,
            path: path.to_path_buf(),
            interval,
            state: Mutex::new(RecorderState {
                journal,
                pieces,
                last_save: Instant::now(),
                save_cost: Duration::ZERO,
                dirty: false,
                error: None,
            }),
        }
    }

    /// Records a finished piece; saves when the last save is older than the interval.
    pub fn record(&self, piece: &Piece) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.pieces.insert(piece.id, *piece);
        st.dirty = true;
        // Saving a very large journal takes a while: wait at least twenty times as long as
        // the last save took, so that saving never costs more than about 5% of the run.
        if st.last_save.elapsed() >= self.interval.max(st.save_cost * 20) {
            self.save_locked(&mut st);
        }
    }

    fn save_locked(&self, st: &mut RecorderState) {
        let RecorderState {
            journal, pieces, ..
        } = st;
        let began = Instant::now();
        journal.set_pieces(self.plan, pieces);
        let written = journal.write_atomic(&self.path);
        st.save_cost = began.elapsed();
        match written {
            Ok(()) => {
                st.dirty = false;
                st.error = None;
            }
            Err(JournalError::Io { source, .. }) => st.error = Some(source.to_string()),
            Err(e) => st.error = Some(e.to_string()),
        }
        st.last_save = Instant::now();
    }

    /// Sets a fact in the journal's `meta` (written with the next save).
    pub fn set_meta(&self, key: &str, value: String) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.journal.meta.insert(key.to_string(), value);
        st.dirty = true;
    }

    /// Saves now if anything changed; returns the journal as saved.
    pub fn flush(&self) -> Result<Journal, JournalError> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.dirty || !self.path.exists() {
            self.save_locked(&mut st);
        }
        match &st.error {
            Some(why) => Err(JournalError::Invalid {
                path: self.path.clone(),
                why: format!("could not be saved: {why}"),
            }),
            None => Ok(st.journal.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;

    fn finished_journal(plan: &Plan) -> Journal {
        let mut j = Journal::new(CHECKPOINT, plan, None);
        let pieces: BTreeMap<u64, Piece> = plan
            .subproblems
            .iter()
            .take(5)
            .map(|s| (s.id, crate::run::solve(plan, s)))
            .collect();
        j.set_pieces(plan, &pieces);
        j
    }

    #[test]
    fn a_written_journal_reads_back_and_checks() {
        let plan = Plan::build(9, Algorithm::Symmetry, None, 1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let j = finished_journal(&plan);
        j.write_atomic(&path).unwrap();
        let back = Journal::read(&path).unwrap();
        assert_eq!(back, j);
        back.check_against(&path, &plan, None).unwrap();
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn damaged_or_foreign_journals_are_refused() {
        let plan = Plan::build(9, Algorithm::Symmetry, None, 1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let j = finished_journal(&plan);
        j.write_atomic(&path).unwrap();
        let text = fs::read_to_string(&path).unwrap();

        fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(Journal::read(&path).is_err(), "truncated");

        let first = j.pieces[0];
        let edited = text.replacen(
            &format!("[{},{},", first[0], first[1]),
            &format!("[{},{},", first[0], first[1] + 1),
            1,
        );
        assert_ne!(edited, text);
        fs::write(&path, edited).unwrap();
        let err = Journal::read(&path).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");

        fs::write(&path, "hello").unwrap();
        assert!(Journal::read(&path).is_err(), "not json");

        let other = Plan::build(10, Algorithm::Symmetry, None, 1).unwrap();
        fs::write(&path, &text).unwrap();
        let err = Journal::read(&path)
            .unwrap()
            .check_against(&path, &other, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("n = 9"), "{err}");
    }
}
