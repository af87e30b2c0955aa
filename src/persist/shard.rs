//! Shards: one count cut into M independent parts for cluster array jobs. Shard `i` of `M`
//! owns the subproblems whose id is `i` modulo `M`, so membership depends only on the plan and
//! `M`, never on the machine or the thread count of the task that runs it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Which part of a sharded plan a run or a file covers: shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based shard number.
    pub index: u64,
    /// How many shards the plan is cut into.
    pub count: u64,
}

impl Shard {
    /// Shard `index` of `count`, which must exist (`index < count`).
    pub fn new(index: u64, count: u64) -> Result<Shard, Error> {
        let s = Shard { index, count };
        if index < count {
            Ok(s)
        } else {
            Err(Error::Shard(s))
        }
    }

    /// Whether subproblem `id` belongs to this shard (ids are dealt out round-robin).
    pub fn owns(&self, id: u64) -> bool {
        self.count > 0 && id % self.count == self.index
    }

    /// The ids this shard owns in a plan of `subproblems` subproblems, in increasing order.
    pub fn ids(&self, subproblems: usize) -> impl Iterator<Item = u64> + use<> {
        let step = usize::try_from(self.count).unwrap_or(usize::MAX).max(1);
        (self.index..subproblems as u64).step_by(step)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_deal_ids_round_robin_and_cover_every_id_once() {
        let subproblems = 23;
        let mut seen = vec![0; subproblems];
        for index in 0..5 {
            let s = Shard::new(index, 5).unwrap();
            for id in s.ids(subproblems) {
                assert!(s.owns(id));
                seen[id as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&k| k == 1));
        assert!(Shard::new(5, 5).is_err());
        assert!(Shard::new(0, 0).is_err());
        assert_eq!(Shard::new(3, 16).unwrap().to_string(), "3/16");
    }
}
