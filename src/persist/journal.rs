//! The journal file: finished pieces of one plan (or one shard of it), with their sums and a
//! checksum, read back only when everything in it checks out.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Key, Shard};
use crate::plan::{Algorithm, Plan, PlanHash};
use crate::tally::{Piece, Sums};

/// Why a journal file was refused or could not be written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("{path}: could not be saved: {source}")]
    Save {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a journal of this program, is damaged, or belongs to another run.
    #[error("{path}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: Problem,
    },
}

/// What is wrong with a journal's contents.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// An empty file.
    #[error("the file is empty, not a checkpoint or result file")]
    Empty,
    /// Not JSON at all, or cut short.
    #[error("not a checkpoint or result file, or truncated ({0})")]
    NotJson(serde_json::Error),
    /// JSON, but not of this program's shape.
    #[error("not a checkpoint or result file of this program ({0})")]
    Foreign(serde_json::Error),
    /// An unknown `format` field.
    #[error("unknown file kind '{0}'")]
    Kind(String),
    /// A version this program does not read.
    #[error("unsupported version {0}")]
    Version(u32),
    /// A key was given and the file carries no tag.
    #[error(
        "it carries no keyed tag, though a key was given: it was written without --key, or \
         its tag was removed"
    )]
    Untagged,
    /// The file carries a tag and no key was given to keep it.
    #[error(
        "it carries a keyed tag: give the --key it was written with (going on without it \
         would write the file back untagged)"
    )]
    KeyNeeded,
    /// The file's tag is not the one the key gives its contents.
    #[error(
        "its keyed tag does not match the key: it was rewritten without the key, or tagged \
         with another key"
    )]
    Tag,
    /// The checksum does not match the contents.
    #[error("checksum mismatch: the file was edited or damaged")]
    Checksum,
    /// Pieces not sorted, repeated, or past the plan's ids.
    #[error("pieces out of order or out of range")]
    Pieces,
    /// Written for another board size.
    #[error("written for n = {file}, not n = {run}")]
    Board {
        /// The file's.
        file: usize,
        /// This run's.
        run: usize,
    },
    /// Written for another algorithm.
    #[error("written for algorithm {file}, not {run}")]
    Algorithm {
        /// The file's.
        file: String,
        /// This run's.
        run: Algorithm,
    },
    /// Written for another plan of the same board and algorithm.
    #[error(
        "written for another plan (split depth {file_depth}, plan {file_plan}); this run's plan is split depth {run_depth}, plan {run_plan}"
    )]
    Plan {
        /// The file's split depth.
        file_depth: usize,
        /// The file's plan hash.
        file_plan: PlanHash,
        /// This run's split depth.
        run_depth: usize,
        /// This run's plan hash.
        run_plan: PlanHash,
    },
    /// The plan's own hash, with another number of subproblems: an edited file.
    #[error("it claims {file} subproblems for plan {plan}, which has {run}: the file was edited")]
    Subproblems {
        /// The number the file claims.
        file: u64,
        /// The plan's hash (the file's and this run's).
        plan: PlanHash,
        /// The plan's number.
        run: u64,
    },
    /// Written for another shard, or for a whole run when a shard runs (or the reverse).
    #[error("written for {}, not {}", describe(.file), describe(.run))]
    Shard {
        /// The file's.
        file: Option<Shard>,
        /// This run's.
        run: Option<Shard>,
    },
    /// A piece whose count passes what its subproblem can hold ([`Plan::count_bound`]).
    #[error("subproblem {id} claims {count} solutions, more than it can hold ({bound})")]
    CountTooLarge {
        /// The piece.
        id: u64,
        /// Its count as the file gives it.
        count: u128,
        /// The most its subproblem can count.
        bound: u128,
    },
    /// A piece outside the file's own shard.
    #[error("subproblem {id} does not belong to shard {shard}")]
    NotInShard {
        /// The piece.
        id: u64,
        /// The file's shard.
        shard: Shard,
    },
    /// The sums differ from those of the pieces.
    #[error("its sums disagree with its pieces")]
    Sums,
}

fn describe(s: &Option<Shard>) -> String {
    match s {
        Some(s) => format!("shard {s}"),
        None => "a whole run".to_string(),
    }
}

/// The kind of journal file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A checkpoint: resumed by the run that wrote it.
    Checkpoint,
    /// A shard's result file: read by the merge.
    ShardResult,
}

impl Kind {
    /// The `format` field of files of this kind.
    pub fn tag(self) -> &'static str {
        match self {
            Kind::Checkpoint => "nqueens-checkpoint",
            Kind::ShardResult => "nqueens-shard-result",
        }
    }

    fn from_tag(tag: &str) -> Option<Kind> {
        [Kind::Checkpoint, Kind::ShardResult]
            .into_iter()
            .find(|k| k.tag() == tag)
    }
}

/// The contents of a journal file. Its fields are read through methods and changed only
/// through methods that seal it again ([`Journal::set_pieces`], [`Journal::set_meta`]), so
/// that its checksum stays true.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Journal {
    /// [`Kind::tag`] of the file's kind.
    pub(crate) format: String,
    /// File format version.
    pub(crate) version: u32,
    /// Board size.
    pub(crate) n: usize,
    /// Algorithm name.
    pub(crate) algorithm: String,
    /// The plan's split depth.
    pub(crate) split_depth: usize,
    /// The plan's hash.
    pub(crate) plan: PlanHash,
    /// Subproblems in the whole plan.
    pub(crate) subproblems: u64,
    /// The shard covered, if any.
    pub(crate) shard: Option<Shard>,
    /// Finished pieces: `[id, count, nodes]`, sorted by id.
    pub(crate) pieces: Vec<(u64, u128, u64)>,
    /// Sums over the pieces (weights applied).
    pub(crate) sums: Sums,
    /// Free-form facts about the run that wrote the file (program version, host, seconds).
    #[serde(default)]
    pub(crate) meta: BTreeMap<String, String>,
    /// The keyed tag of everything above ([`Key`]), when the file was written with a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tag: Option<String>,
    /// FNV-1a of everything above, as 16 hex digits.
    pub(crate) checksum: String,
    /// The key that tags the journal each time it is sealed (never written).
    #[serde(skip)]
    pub(crate) key: Option<Key>,
}

/// Checks every `(id, count)` of `pieces` (ids of `plan`) against what its subproblem can
/// hold ([`Plan::count_bound`]).
pub fn check_bounds(
    plan: &Plan,
    pieces: impl IntoIterator<Item = (u64, u128)>,
) -> Result<(), Problem> {
    for (id, count) in pieces {
        let bound = plan.count_bound(&plan.subproblem(id));
        if count > bound {
            return Err(Problem::CountTooLarge { id, count, bound });
        }
    }
    Ok(())
}

impl Journal {
    /// An empty journal of `kind` for `plan` (and `shard`).
    pub fn new(kind: Kind, plan: &Plan, shard: Option<Shard>) -> Journal {
        let mut j = Journal {
            format: kind.tag().to_string(),
            version: 1,
            n: plan.n,
            algorithm: plan.algorithm.name().to_string(),
            split_depth: plan.split_depth,
            plan: plan.hash(),
            subproblems: plan.len() as u64,
            shard,
            pieces: Vec::new(),
            sums: Sums::default(),
            meta: BTreeMap::new(),
            tag: None,
            checksum: String::new(),
            key: None,
        };
        j.seal();
        j
    }

    /// The same journal, tagged with `key` now and each time it changes.
    pub fn keyed(mut self, key: &Key) -> Journal {
        self.key = Some(key.clone());
        self.seal();
        self
    }

    /// The keyed tag the file carries, if any (64 hex digits).
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// Checks the journal's tag against `key`: refused when it has none
    /// ([`Problem::Untagged`]) or when it is not the tag `key` gives its contents
    /// ([`Problem::Tag`]).
    pub fn check_tag(&self, key: &Key) -> Result<(), Problem> {
        let tag = self.tag.as_deref().ok_or(Problem::Untagged)?;
        if key.verifies(self.tag_message().as_bytes(), tag) {
            Ok(())
        } else {
            Err(Problem::Tag)
        }
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The plan's split depth.
    pub fn split_depth(&self) -> usize {
        self.split_depth
    }

    /// The plan's hash.
    pub fn plan_hash(&self) -> PlanHash {
        self.plan
    }

    /// Subproblems in the whole plan.
    pub fn subproblems(&self) -> u64 {
        self.subproblems
    }

    /// The shard covered, if any.
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// Finished pieces: `(id, count, nodes)`, sorted by id.
    pub fn pieces(&self) -> &[(u64, u128, u64)] {
        &self.pieces
    }

    /// Sums over the pieces (weights applied).
    pub fn sums(&self) -> &Sums {
        &self.sums
    }

    /// Facts about the run that wrote the file (program version, host, seconds).
    pub fn meta(&self) -> &BTreeMap<String, String> {
        &self.meta
    }

    /// The file's kind (checked when read).
    pub fn kind(&self) -> Option<Kind> {
        Kind::from_tag(&self.format)
    }

    /// The algorithm the file names, if this program knows it.
    pub fn algorithm(&self) -> Option<Algorithm> {
        Algorithm::from_name(&self.algorithm)
    }

    /// The checksum the contents call for (the tag included).
    fn expected_checksum(&self) -> String {
        let mut unsealed = self.clone();
        unsealed.checksum = String::new();
        let text = serde_json::to_string(&unsealed).expect("journals serialise");
        crate::hash::hex_of(text.as_bytes())
    }

    /// What the keyed tag covers: the file's JSON without its tag and with an empty checksum.
    fn tag_message(&self) -> String {
        let mut untagged = self.clone();
        untagged.checksum = String::new();
        untagged.tag = None;
        serde_json::to_string(&untagged).expect("journals serialise")
    }

    /// Recomputes the tag (with a key) and the checksum after a change: what
    /// [`Self::tag_message`] and [`Self::expected_checksum`] check, made in place rather than
    /// on copies, since a shard's journal is saved every few seconds and may hold millions of
    /// pieces.
    fn seal(&mut self) {
        self.checksum.clear();
        if self.key.is_some() {
            self.tag = None;
            let message = serde_json::to_string(&*self).expect("journals serialise");
            self.tag = self.key.as_ref().map(|k| k.tag(message.as_bytes()));
        }
        let text = serde_json::to_string(&*self).expect("journals serialise");
        self.checksum = crate::hash::hex_of(text.as_bytes());
    }

    /// Sets a fact in `meta`.
    pub fn set_meta(&mut self, key: &str, value: impl Into<String>) {
        self.meta.insert(key.to_string(), value.into());
        self.seal();
    }

    /// Replaces the pieces (and their sums) with `pieces`.
    pub fn set_pieces(&mut self, plan: &Plan, pieces: &BTreeMap<u64, Piece>) {
        self.pieces = pieces.values().map(|p| (p.id, p.count, p.nodes)).collect();
        self.sums = Sums::of(plan, pieces.values());
        self.seal();
    }

    /// The pieces as a map by id.
    pub fn piece_map(&self) -> BTreeMap<u64, Piece> {
        self.pieces
            .iter()
            .map(|&(id, count, nodes)| (id, Piece { id, count, nodes }))
            .collect()
    }

    /// Reads and checks a journal on its own terms: it parses, its checksum holds, its pieces
    /// are sorted, unique and inside the plan's id range.
    pub fn read(path: &Path) -> Result<Journal, JournalError> {
        let invalid = |problem| JournalError::Invalid {
            path: path.to_path_buf(),
            problem,
        };
        let unreadable = |source| JournalError::Read {
            path: path.to_path_buf(),
            source,
        };
        // A device or a folder is no journal (and reading /dev/zero would never end).
        if !fs::metadata(path).map_err(unreadable)?.is_file() {
            return Err(unreadable(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a folder, device or pipe)",
            )));
        }
        let bytes = fs::read(path).map_err(unreadable)?;
        let j: Journal = serde_json::from_slice(&bytes).map_err(|e| {
            invalid(if bytes.is_empty() {
                Problem::Empty
            } else if serde_json::from_slice::<serde_json::Value>(&bytes).is_err() {
                Problem::NotJson(e)
            } else {
                Problem::Foreign(e)
            })
        })?;
        if j.kind().is_none() {
            return Err(invalid(Problem::Kind(j.format)));
        }
        if j.version != 1 {
            return Err(invalid(Problem::Version(j.version)));
        }
        if j.checksum != j.expected_checksum() {
            return Err(invalid(Problem::Checksum));
        }
        let ordered = j.pieces.windows(2).all(|w| w[0].0 < w[1].0);
        let inside = j.pieces.iter().all(|p| p.0 < j.subproblems);
        if !ordered || !inside {
            return Err(invalid(Problem::Pieces));
        }
        Ok(j)
    }

    /// Checks that this journal was written for `plan` and `shard`, and that its sums are those
    /// of its pieces.
    pub fn check_against(&self, plan: &Plan, shard: Option<Shard>) -> Result<(), Problem> {
        if self.n != plan.n {
            return Err(Problem::Board {
                file: self.n,
                run: plan.n,
            });
        }
        if self.algorithm != plan.algorithm.name() {
            return Err(Problem::Algorithm {
                file: self.algorithm.clone(),
                run: plan.algorithm,
            });
        }
        if self.plan == plan.hash() && self.subproblems != plan.len() as u64 {
            return Err(Problem::Subproblems {
                file: self.subproblems,
                plan: self.plan,
                run: plan.len() as u64,
            });
        }
        if self.plan != plan.hash() {
            return Err(Problem::Plan {
                file_depth: self.split_depth,
                file_plan: self.plan,
                run_depth: plan.split_depth,
                run_plan: plan.hash(),
            });
        }
        if self.shard != shard {
            return Err(Problem::Shard {
                file: self.shard,
                run: shard,
            });
        }
        if let Some(s) = self.shard
            && let Some(p) = self.pieces.iter().find(|p| !s.owns(plan, p.0))
        {
            return Err(Problem::NotInShard { id: p.0, shard: s });
        }
        check_bounds(plan, self.pieces.iter().map(|&(id, count, _)| (id, count)))?;
        if Sums::of(plan, self.piece_map().values()) != self.sums {
            return Err(Problem::Sums);
        }
        Ok(())
    }

    /// The journal as the one line of JSON its file holds.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("journals serialise")
    }

    /// Writes the journal atomically ([`super::write_atomic`]).
    pub fn write(&self, path: &Path) -> Result<(), JournalError> {
        let mut text = self.to_json().into_bytes();
        text.push(b'\n');
        super::write_atomic(path, &text).map_err(|source| JournalError::Save {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::solve_one;

    fn finished_journal(plan: &Plan) -> Journal {
        let mut j = Journal::new(Kind::Checkpoint, plan, None);
        let pieces: BTreeMap<u64, Piece> = plan
            .subproblems()
            .take(5)
            .map(|s| (s.id, solve_one(plan, &s)))
            .collect();
        j.set_pieces(plan, &pieces);
        j
    }

    /// A journal of five pieces of n = 9 written to a fresh folder.
    fn written() -> (Plan, tempfile::TempDir, PathBuf, Journal) {
        let plan = Plan::build(9, Algorithm::Symmetry, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let j = finished_journal(&plan);
        j.write(&path).unwrap();
        (plan, dir, path, j)
    }

    #[test]
    fn a_written_journal_reads_back_and_checks() {
        let (plan, dir, path, j) = written();
        let back = Journal::read(&path).unwrap();
        assert_eq!(back, j);
        back.check_against(&plan, None).unwrap();
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_keyed_journal_stays_tagged_through_changes_and_checks_only_with_its_key() {
        let (plan, _dir, path, untagged) = written();
        assert!(!untagged.to_json().contains("\"tag\""));
        let key = Key::new(b"sixteen bytes ok".to_vec()).unwrap();
        let other = Key::new(b"sixteen bytes no".to_vec()).unwrap();
        let mut j = untagged.clone().keyed(&key);
        let first = j.tag().unwrap().to_string();
        assert_eq!(first.len(), 64);
        // A change reseals the tag too.
        j.set_meta("host", "elsewhere");
        assert_ne!(j.tag().unwrap(), first);
        j.write(&path).unwrap();
        let back = Journal::read(&path).unwrap();
        back.check_against(&plan, None).unwrap();
        back.check_tag(&key).unwrap();
        assert!(matches!(back.check_tag(&other), Err(Problem::Tag)));
        assert!(matches!(untagged.check_tag(&key), Err(Problem::Untagged)));
        // Changed without the key, the checksum is redone but the tag is stale.
        let mut forged = back.clone();
        forged.set_meta("host", "forged");
        assert!(matches!(forged.check_tag(&key), Err(Problem::Tag)));
    }

    #[test]
    fn an_edited_number_of_subproblems_is_named_as_such() {
        let (plan, _dir, _path, mut j) = written();
        j.subproblems += 1;
        j.seal();
        let err = j.check_against(&plan, None).unwrap_err();
        assert!(matches!(err, Problem::Subproblems { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("the file was edited"), "{text}");
        assert!(!text.contains("another plan"), "{text}");
    }

    #[test]
    fn damaged_or_foreign_journals_are_refused() {
        let (plan, _dir, path, j) = written();
        let text = fs::read_to_string(&path).unwrap();

        fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(Journal::read(&path).is_err(), "truncated");

        let first = j.pieces[0];
        let edited = text.replacen(
            &format!("[{},{},", first.0, first.1),
            &format!("[{},{},", first.0, first.1 + 1),
            1,
        );
        assert_ne!(edited, text);
        fs::write(&path, edited).unwrap();
        let err = Journal::read(&path).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");

        fs::write(&path, "hello").unwrap();
        assert!(Journal::read(&path).is_err(), "not json");

        // A field this program does not write is refused, not ignored.
        let extra = text.replacen("{", "{\"note\":\"hi\",", 1);
        fs::write(&path, extra).unwrap();
        let err = Journal::read(&path).unwrap_err().to_string();
        assert!(err.contains("unknown field `note`"), "{err}");

        let other = Plan::build(10, Algorithm::Symmetry, None).unwrap();
        fs::write(&path, &text).unwrap();
        let err = Journal::read(&path)
            .unwrap()
            .check_against(&other, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("n = 9"), "{err}");
        let err = Journal::read(&path)
            .unwrap()
            .check_against(&plan, Some(Shard::new(1, 2).unwrap()))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "written for a whole run, not shard 1/2");
    }
}
