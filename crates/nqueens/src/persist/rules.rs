//! The rules of this release that a file's claims are weighed against ([`Rules`]): the merge
//! and the reading weigh files by them, and a journal finds by them the entries it holds cut
//! otherwise ([`Journal::cut_otherwise`](super::Journal::cut_otherwise)). Apart from the
//! journal and from what a reading finds (`findings.rs`), which imports the journal.

use super::Shard;
use crate::plan::Plan;

/// The rules of this release's runs that what a file claims is weighed against
/// (`nqueens::file_rules`): how large a file of a plan can be, and how a run cuts entries.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The most bytes a file of a plan (and shard of it) can hold: a larger one is refused
    /// unread.
    pub most_bytes: fn(&Plan, Option<Shard>) -> u64,
    /// How many slices a run of this release cuts each of `entries` of a plan into at a
    /// slice time of `seconds`.
    pub slices: fn(plan: &Plan, seconds: f64, entries: &[u64]) -> Vec<u64>,
    /// The slice time of the files that do not say theirs (written before they did).
    pub default_seconds: f64,
}
