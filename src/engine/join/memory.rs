//! How large a join count may be and how much memory it needs: the sizes of the quadrant
//! lists (measured, in `PLACEMENTS`) and the estimate the plan checks before a count starts.

use super::geometry::Geometry;
use super::quadrant::{MIDDLES_KEPT, SMALL_QUADRANT};
use super::units::binomial;

/// The largest board the join engine accepts: its quadrant lists grow about eightfold per two
/// rows (n = 22 lists some 230 million quadrant placements).
pub const MAX_JOIN_N: usize = 23;

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

/// Bytes a join count of an n×n board needs on `threads` threads, about: the quadrant lists
/// (and their building; even n keeps one list of four), the shared lists filtered by the
/// middle queens (odd n), and per thread the half-board, sorted and table buffers of the
/// largest unit.
pub fn memory_needed(n: usize, threads: usize) -> u64 {
    let geo = Geometry::new(n);
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
    // The largest side of a unit: about 3000 half-boards at n = 16, five times more per two rows.
    let side = (3000.0 * 5f64.powf((n as f64 - 16.0) / 2.0)).max(1000.0) as u64;
    let per_thread = 100 * side;
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
            assert!(memory_needed(n, 1) >= q.bytes() as u64);
            assert!(memory_needed(n, 4) > memory_needed(n, 1));
        }
    }
}
