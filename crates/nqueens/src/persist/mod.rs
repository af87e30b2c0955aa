//! What outlives a process: checkpoint journals that let a long run resume, the result files
//! of shards, and the merge that puts shards back together.
//!
//! One file format serves checkpoints and shard results ([`Journal`]): a JSON object naming the
//! board, the algorithm, the plan (split depth and hash), the shard when there is one, the
//! finished subproblems by entry (`[entry, count, nodes]`, and
//! `[entry, slices, index, count, nodes]` for the slices of an entry the run cut) and a checksum
//! over all of it, and, when written with a [`Key`], a keyed tag that no one without the key can
//! forge. Files are replaced atomically (`write_atomic`), so a crash at any instant leaves the
//! previous good file, and a file is only ever used when everything in it checks out.

mod atomic;
mod findings;
mod journal;
mod key;
mod lock;
mod merge;
mod reading;
mod recorder;
mod rules;
mod shard;

pub(crate) use atomic::write_atomic;
pub(crate) use findings::MergeProblem;
pub use findings::{MergeProblems, Skipped};
pub(crate) use journal::check_bounds;
pub use journal::{HEADER_ONLY_ABOVE, Journal, JournalError, Kind, Problem};
pub use key::{Key, KeyError};
pub use lock::Lock;
pub(crate) use merge::Claim;
pub use merge::{MergeOptions, Merged, Sampled, Tags, merge};
pub(crate) use reading::{Reading, Verdict, read_shards};
pub(crate) use recorder::Recorder;
pub use recorder::SaveFailure;
pub use rules::Rules;
pub use shard::{Shard, ShardError};
