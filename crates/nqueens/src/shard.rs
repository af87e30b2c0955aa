//! Which part of a count a run or a file covers: shard `index` of `count`. A leaf of the
//! import rule, so that the plan (which decides what each shard owns), the run and the files
//! all speak of shards in one type; what a shard owns of a plan is the plan's to say
//! ([`crate::plan::Plan::shard_entry_numbers`]).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Shard `index` of `count`: the entries of a plan whose number is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// 0-based shard number.
    pub index: u64,
    /// How many shards the plan is cut into.
    pub count: u64,
}

/// A shard that does not exist: its index is not below its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "shard {0} does not exist: the index must be below the shard count, which must be at least 1"
)]
pub struct ShardError(pub Shard);

impl Shard {
    /// The whole count, as one shard of one.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard numbers, increasing, as ranges: `0-3,7,9-10` (how `status` and a refused merge
    /// name the shards to resubmit).
    pub fn ranges(xs: &[u64]) -> String {
        let runs = xs.chunk_by(|a, b| *b == a + 1).map(|run| match run {
            [one] => one.to_string(),
            _ => format!("{}-{}", run[0], run[run.len() - 1]),
        });
        runs.collect::<Vec<_>>().join(",")
    }

    /// Shard `index` of `count`, which must exist (`index < count`).
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        let s = Shard { index, count };
        if index < count {
            Ok(s)
        } else {
            Err(ShardError(s))
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
