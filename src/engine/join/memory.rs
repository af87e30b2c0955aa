//! How large a join count may be and how much memory it needs, in each of its two layouts:
//! the quadrant lists built once per count (fastest while they fit; sizes measured, in
//! `PLACEMENTS`), or the memory-bounded layout whose units make their own partitions
//! ([`super::partition`]). The run checks the estimate before a count starts and picks the
//! layout that fits.

use super::STREAM_ABOVE;
use super::geometry::Geometry;
use super::quadrant::{MIDDLES_KEPT, SMALL_QUADRANT};
use super::stream::GROUP_PATTERNS;
use super::units::binomial;

/// The largest board the join engine accepts (the memory-bounded layout; a unit's half-boards
/// grow about fivefold per two rows, so at n = 28 the largest units are streamed rather than
/// held, and a whole count there is a matter of CPU-centuries).
pub const MAX_JOIN_N: usize = 28;

/// The largest board whose quadrant lists are ever built whole: they grow about eightfold per
/// two rows (n = 22 lists some 230 million quadrant placements, n = 23 needs about 10 GB).
pub const MAX_LISTED_N: usize = 23;

/// The largest board whose count builds the whole lists unless told otherwise (while they
/// fit). The memory-bounded layout measured faster at n = 19 and 20 (11.7 s against 15.0 s,
/// 83.8 s against 89.1 s, two threads, `results/join-log.md`, section 16), but it has no cost
/// model for ordering units and telling the time left (the lists' model reads their group
/// sizes), so the lists stay the default while they fit.
pub const LISTS_BY_DEFAULT_UNTIL: usize = MAX_LISTED_N;

/// Where a join count's quadrant groups come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Every quadrant placement listed once per count, shared by the threads.
    Lists,
    /// Each unit makes the partitions it needs; memory per thread is bounded.
    Bounded,
}

/// Largest partition (placements on one row mask of a quadrant, all column sets) for quadrant
/// side h = 0, 1, 2, ... (`examples/quadrant_sizes.rs --partitions`; h = 13 took 120 s on one
/// thread); the last is extrapolated (about ×5.7 per step, as from 12 to 13) and only sizes
/// memory.
const LARGEST_PARTITION: [u64; 15] = [
    1, 1, 2, 4, 10, 26, 92, 296, 1_174, 5_366, 26_548, 143_140, 788_698, 4_684_690, 26_700_000,
];

/// Placements listed per quadrant for quadrant side h = 0, 1, 2, ... (the empty placement
/// included), as [`super::Quadrants::build`] lists them (`examples/quadrant_sizes.rs`); the last two
/// are extrapolated (about ×8.6 per step) and only size memory.
const PLACEMENTS: [u64; 13] = [
    1,
    2,
    5,
    18,
    87,
    462,
    2_635,
    16_870,
    118_969,
    915_442,
    7_535_369,
    65_000_000,
    560_000_000,
];

/// Bytes a join count of an n×n board needs on `threads` threads in `layout`, about.
///
/// Lists: the quadrant lists (and their building; even n keeps one list of four), the shared
/// lists filtered by the middle queens (odd n), and per thread the half-board, sorted and
/// table buffers of the largest unit. Bounded: per thread, those buffers and four of the
/// largest partitions.
pub fn memory_needed(n: usize, threads: usize, layout: Layout) -> u64 {
    let geo = Geometry::new(n);
    // The largest side of a unit: about 3000 half-boards at n = 16, five times more per two rows.
    let side = (3000.0 * 5f64.powf((n as f64 - 16.0) / 2.0)).max(1000.0) as u64;
    let per_thread = 100 * side;
    if layout == Layout::Bounded {
        // A unit held whole: its two sides and their sorted copies, at most those of
        // `STREAM_ABOVE` patterns; a streamed one (n = 28): its smaller side sorted (measured
        // up to about twice `side`), one group of table classes and the class starts.
        let held = per_thread.min(16 * STREAM_ABOVE + (32 << 20));
        let streamed = if 2 * side > STREAM_ABOVE {
            8 * 2 * side + 8 * GROUP_PATTERNS as u64 + (32 << 20)
        } else {
            0
        };
        // A unit's four partitions, 12 bytes a placement with their group starts, about twice
        // the largest one in all (two of a row set's quadrants hold few rows), and the 16-byte
        // search buffer of the one being made. At n = 28 this gives 2.2 GB for one thread,
        // where the heaviest units measured held 0.9 GiB at most: an upper bound, not a
        // forecast (`results/join-log.md`, section 22).
        let part = LARGEST_PARTITION[geo.h.min(LARGEST_PARTITION.len() - 1)];
        let total = threads as u64 * (held.max(streamed) + 2 * 12 * part + 16 * part);
        return total + total / 10 + (16 << 20);
    }
    let per_quadrant = PLACEMENTS[geo.h.min(PLACEMENTS.len() - 1)];
    let odd = n % 2 == 1;
    // Groups of equal-size row and column sets: C(2h, h).
    let groups = binomial(2 * geo.h as u64, geo.h as u64);
    // Odd n: four lists with patterns and diagonal masks; even n: the north-west list alone,
    // patterns only.
    let kept = if odd { 4 } else { 1 };
    let lists = kept * (per_quadrant * if odd { 24 } else { 8 } + 4 * groups);
    // Small odd lists are built four at a time with a 24-byte temporary copy each; the even
    // list with a count per group for each of the first row's h + 1 choices.
    let building = if odd {
        if geo.h <= SMALL_QUADRANT {
            4 * 24 * per_quadrant
        } else {
            0
        }
    } else {
        (geo.h as u64 + 1) * 4 * groups
    };
    // Odd n: the lists filtered for a middle-queen pair (at most the whole lists), shared,
    // kept for the last pairs, and one more held by threads still on an older pair.
    let filtered = if odd {
        (MIDDLES_KEPT as u64 + 1) * 4 * per_quadrant * 8
    } else {
        0
    };
    // The plan, the program and the allocator's slack: a tenth more and 16 MiB.
    let total = lists + building + filtered + threads as u64 * per_thread;
    total + total / 10 + (16 << 20)
}

#[cfg(test)]
mod tests {
    use super::super::quadrant::Quadrants;
    use super::*;

    #[test]
    fn the_memory_table_holds_the_list_sizes() {
        for n in 2..=17 {
            let q = Quadrants::build(n);
            assert_eq!(q.placements() as u64, 4 * PLACEMENTS[q.geo.h], "n = {n}");
            let h = q.geo.h as u64;
            assert_eq!(q.index.groups as u64, binomial(2 * h, h));
            assert!(memory_needed(n, 1, Layout::Lists) >= q.bytes() as u64);
            assert!(memory_needed(n, 4, Layout::Lists) > memory_needed(n, 1, Layout::Lists));
            assert!(memory_needed(n, 4, Layout::Bounded) > memory_needed(n, 1, Layout::Bounded));
        }
    }
}
