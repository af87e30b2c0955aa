//! The rules of this release's runs that the files a merge, a status or a resume reads are
//! weighed against, from the cost model: how large a file of a plan can be, and how a run cuts
//! each entry into slices at a slice time. A file that is larger is refused unread; an entry
//! cut otherwise is not taken on trust (`persist::Journal::cut_otherwise`).

use super::cost::{CostModel, MOST_SLICES, SLICE_SECONDS};
use crate::config::Config;
use crate::plan::Plan;

/// The most bytes a checkpoint or result file of `plan` (of `shard` of it) can hold, as
/// this release cuts: every entry the shard owns cut as finely as the shortest slice time
/// ([`Config::SHORTEST_SLICE_SECONDS`]) cuts it, four times over for figures retuned by a
/// later release, each subproblem in `RECORD_BYTES`, and `HEADER_BYTES` for the rest. A
/// larger file is refused unread: no file, however crafted, makes a merge, a status or a
/// resume read more than its plan calls for.
pub fn most_file_bytes(plan: &Plan, shard: Option<crate::persist::Shard>) -> u64 {
    let finest = CostModel::new(plan, Config::SHORTEST_SLICE_SECONDS);
    let shard = shard.unwrap_or(crate::persist::Shard::WHOLE);
    let records: u64 = plan
        .shard_entry_numbers(shard)
        .map(|entry| {
            let slices = finest.slices(&plan.entry(entry));
            slices.saturating_mul(4).min(MOST_SLICES)
        })
        .fold(0, u64::saturating_add);
    records
        .saturating_mul(RECORD_BYTES)
        .saturating_add(HEADER_BYTES)
}

/// The rules of this release's runs that a file's claims are weighed against: the most bytes
/// a file of a plan can hold ([`most_file_bytes`]), how a run cuts each entry at a slice time
/// (`CostModel::slices`), and the default slice time, for files that do not
/// say theirs.
pub fn file_rules() -> crate::persist::Rules {
    crate::persist::Rules {
        most_bytes: most_file_bytes,
        slices: rule_slices,
        default_seconds: SLICE_SECONDS,
    }
}

/// How many slices a run cuts each of `entries` of `plan` into at a slice time of `seconds`
/// (0 for an entry past the plan's).
fn rule_slices(plan: &Plan, seconds: f64, entries: &[u64]) -> Vec<u64> {
    let costs = CostModel::new(plan, seconds.max(Config::SHORTEST_SLICE_SECONDS));
    entries
        .iter()
        .map(|&e| {
            if e >= plan.entry_count() {
                return 0;
            }
            costs.slices(&plan.entry(e))
        })
        .collect()
}

/// The most bytes one subproblem takes in a file: `[entry, slices, index, count, nodes],`
/// with every number at its longest (20 digits, 39 for the count).
const RECORD_BYTES: u64 = 128;

/// What a file holds besides its subproblems, at most: its header, sums, facts of the run
/// (`meta`), tag and checksum.
const HEADER_BYTES: u64 = 64 << 10;
