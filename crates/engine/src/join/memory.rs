//! How large a join count may be and how much memory it needs in either [`Layout`]: the whole
//! quadrant lists (sizes measured, in `PLACEMENTS`), shared by the threads, or each unit's
//! own partitions (the memory-bounded layout, [`super::partition`]), which bound what a thread
//! holds. The runner chooses (the join adapter's `layout`, `run/engines/join.rs` of the
//! library): the lists up to n = 17, where they are the faster (0.536 s against 0.600 s at
//! n = 17), the partitions from n = 18 on, as fast there and faster above at a fraction of the memory; the run checks the
//! layout's need against its budget before it starts. The lists are also the reference the
//! engine's tests and benches check the partitions against.

use super::geometry::Geometry;
use super::quadrant::{MIDDLES_KEPT, SMALL_QUADRANT};
use super::units::binomial;

/// The largest board the join engine accepts (the memory-bounded layout; a unit's half-boards
/// grow about fivefold per two rows, so at n = 28 the largest units are streamed rather than
/// held, and a whole count there is a matter of CPU-centuries).
pub const MAX_JOIN_N: usize = 28;

/// The largest board whose quadrant lists are ever built whole: they grow about eightfold per
/// two rows (n = 22 lists some 230 million quadrant placements, n = 23 needs about 10 GB).
pub const MAX_LISTED_N: usize = 23;

/// Where a join count's quadrant groups come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Every quadrant placement listed once per count, shared by the threads.
    Lists,
    /// Each unit makes the partitions it needs; memory per thread is bounded.
    Bounded,
}

/// The most resident memory one thread held going through units of an n×n board in the
/// memory-bounded layout, in MiB, for n = 16, 17, ..., 28: `examples/unit_sides.rs N thread 3
/// 64` counts the first slice of three units of every stratum one after another on one
/// thread, as a thread of a run goes from unit to unit, with a run's 256 MiB partition cache
/// (`results/join-log.md`, section 23). It includes the cache, the units' partitions, sides
/// or streamed groups and tables, and the program itself. The heaviest single unit sampled
/// (eleven of each heavy stratum) held less: 970 MiB at n = 28, 432 at 26, 96 at 24. At n = 28
/// the walk was measured again once streamed queries were held in 32 or 40 bits (section 30:
/// 1,045 MiB before); the heaviest whole unit of the counted sample then held about 740 MiB.
const BOUNDED_PEAK_MIB: [u64; 13] = [2, 2, 3, 2, 9, 5, 41, 18, 181, 104, 599, 449, 825];

/// How much more than the sample's peak a thread is taken to need: the units not sampled may
/// be heavier (at n = 28 the heaviest of 42 units held 865 MiB, and 40 more from the heaviest
/// strata raised that to 970 MiB; the next were 875 and 865), so a quarter more.
const MARGIN: f64 = 1.25;

/// What the measuring program held before any unit, in MiB (its peak at n = 16 to 19, where
/// units are tiny): counted once for the process, not once a thread.
const PROGRAM_MIB: u64 = 2;

/// Bytes one thread needs to count the units of an n×n board in the memory-bounded layout,
/// besides its partition cache, which takes part of what the budget leaves
/// ([`super::Quadrants::bounded`]): the sample's peak less the program, with the margin, and
/// a MiB for the thread's stack and small buffers.
fn bounded_per_thread(n: usize) -> u64 {
    let first = MAX_JOIN_N + 1 - BOUNDED_PEAK_MIB.len();
    let mib = BOUNDED_PEAK_MIB[n.clamp(first, MAX_JOIN_N) - first] - PROGRAM_MIB;
    (MARGIN * (mib << 20) as f64) as u64 + (1 << 20)
}

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
/// table buffers of the largest unit. Bounded: per thread, what the heaviest unit measured
/// held, and a margin (`BOUNDED_PEAK_MIB`); a forecast, not a bound.
pub fn memory_needed(n: usize, threads: usize, layout: Layout) -> u64 {
    let geo = Geometry::new(n);
    // The largest side of a unit: about 3000 half-boards at n = 16, five times more per two rows.
    let side = (3000.0 * 5f64.powf((n as f64 - 16.0) / 2.0)).max(1000.0) as u64;
    let per_thread = side.saturating_mul(100);
    if layout == Layout::Bounded {
        return threads as u64 * bounded_per_thread(n) + (16 << 20);
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
