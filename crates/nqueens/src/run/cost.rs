//! The run's cost model: every measured constant that only orders work, cuts it into slices
//! or tells time, in one place. None of it is part of a plan's identity (a plan is fixed by the
//! board alone, [`crate::plan`]): a run cuts each entry of its plan into slices of about
//! [`SLICE_SECONDS`] (or what `--slice-seconds` asks) with the figures below, records the cut
//! in its files where a resume needs it, and orders its work and weighs its progress by the
//! estimates; retuning any figure here changes how a run goes, never what files agree on.
//!
//! Each figure says where it was measured; `results/large-n.md` and `results/eta-checks.md`
//! hold the runs.

use crate::config::Config;
use crate::plan::{Frame, Plan, Start};
use nqueens_engine::join::{self, Layout};

/// How long a slice of a long entry takes by default ([`Config::SLICE_SECONDS`]).
pub(crate) const SLICE_SECONDS: f64 = Config::SLICE_SECONDS;

pub use crate::plan::MOST_SLICES;

/// Where a join count's half-boards come from on an n×n board: the whole quadrant lists up
/// to [`LISTS_UNTIL`], the memory-bounded partitions each unit makes after it.
pub fn join_layout(n: usize) -> Layout {
    if n <= LISTS_UNTIL {
        Layout::Lists
    } else {
        Layout::Bounded
    }
}

/// The largest board whose join count builds the whole quadrant lists (30 MiB at n = 17),
/// for speed alone: side by side with the commit that kept the lists up to n = 23
/// (`vs_commit.py --base c07a327`, two threads), the bounded layout took 0.600 s against
/// 0.536 s at n = 17 (the odd boards' lists are filtered once per middle-queen pair and
/// shared by the threads, where each thread makes its own partitions), and was faster from
/// n = 18 on (0.98 at 18, within noise; 1.16 at 19; 1.77 and an eighth of the memory for
/// `21 --shard 0/32`; `results/join-log.md`, section 24).
pub const LISTS_UNTIL: usize = 17;

/// The costs of one plan's entries, for a run that cuts its slices to `slice_seconds`.
#[derive(Clone, Debug)]
pub struct CostModel {
    n: usize,
    /// A constrained board's allowed squares per row (empty for other plans).
    allowed: Vec<u64>,
    slice_seconds: f64,
}

impl CostModel {
    /// The model of `plan`'s entries, cutting slices of about `slice_seconds` (positive).
    pub fn new(plan: &Plan, slice_seconds: f64) -> CostModel {
        CostModel {
            n: plan.n(),
            allowed: plan.board().map_or_else(Vec::new, |b| b.allowed()),
            slice_seconds: if slice_seconds > 0.0 {
                slice_seconds
            } else {
                SLICE_SECONDS
            },
        }
    }

    /// The slice time the run cuts to, in seconds.
    pub(super) fn slice_seconds(&self) -> f64 {
        self.slice_seconds
    }

    /// A join unit's estimate: its stratum's measured mean seconds where measured, else 1.
    pub(super) fn unit_estimate(&self, unit: &join::Unit) -> f64 {
        unit_seconds(self.n, unit).map_or(1.0, |s| s.max(0.01))
    }

    /// A constrained search's estimate, by the free squares of its rows.
    pub(super) fn constrained_estimate(&self, start: &Start) -> f64 {
        columns_estimate(&self.allowed, start)
    }

    /// The slices of a kernel search below `start`.
    pub(super) fn search_slices(&self, frame: &Frame, start: &Start) -> u64 {
        self.slices_for(search_estimate(frame, start) * SECONDS_PER_ESTIMATE)
    }

    /// The slices of a constrained search below `start` of `plan`'s board: a rook board's
    /// subproblems are counted whole (its engine shares a long sum among the threads instead).
    pub(super) fn constrained_slices(&self, plan: &Plan, start: &Start) -> u64 {
        let queens = plan
            .board()
            .is_some_and(|b| b.piece() == crate::constraint::PieceKind::Queen);
        if self.allowed.is_empty() || !queens {
            return 1;
        }
        let size = constrained_size(&self.allowed, start);
        self.slices_for(CONSTRAINED_RATE * size * SECONDS_PER_ESTIMATE)
    }

    /// The slices of a half-turn search of the unique count.
    pub(super) fn half_turn_slices(&self) -> u64 {
        self.slices_for(half_turn_seconds(self.n))
    }

    /// Slices of about the slice time for `seconds` of work.
    fn slices_for(&self, seconds: f64) -> u64 {
        (seconds / self.slice_seconds)
            .ceil()
            .clamp(1.0, MOST_SLICES as f64) as u64
    }

    /// How many slices a join unit is cut into: enough that each slice of a slow unit of its
    /// stratum stays near the slice time. A unit of one row set has its matching dealt out; a
    /// unit of several row sets (odd boards) has its row sets dealt out, so its slices make
    /// nothing twice: it is cut no finer than into single row sets.
    pub(super) fn unit_slices(&self, unit: &join::Unit) -> u64 {
        let seconds = unit_seconds(self.n, unit).unwrap_or(0.0);
        let spread = if self.n >= STREAMED_FROM { 1.0 } else { SPREAD };
        let slices = self.slices_for(spread * seconds);
        let finest = if unit.span > 1 {
            u64::from(unit.span)
        } else {
            u64::from(u16::MAX)
        };
        slices.min(finest)
    }
}

/// How much longer than its stratum's mean a unit may take: among eight units of each stratum
/// of n = 26, the slowest took 1.6 to 4 times the mean. Units are cut as if they took this
/// many times their stratum's mean, so that the slices of the slow ones stay near
/// the slice time (those of a typical unit take about a third of it).
const SPREAD: f64 = 3.0;

/// Measured mean seconds of one unit of each stratum ([`join::stratum`]), one core of the
/// reference machine, for the boards whose units can take longer than the slice time:
/// `(n, two middle queens, seconds by the east rows in the north half)`. Measured with the
/// estimate's unit timing, one or two units a stratum (`examples/unit_times.rs`, the 2-core
/// AMD EPYC VM, after the per-unit sieve of `results/join-log.md`, section 18; n = 28 two
/// units a stratum spread over it, after the wider table chunks of section 19); as the plan
/// must not depend on the machine, the figures are fixed here, and only decide how finely
/// units are cut.
const STRATUM_SECONDS: &[(usize, bool, &[f64])] = &[
    (
        25,
        true,
        &[
            0.0, 0.0, 5.3, 12.6, 24.0, 58.0, 47.0, 17.8, 14.5, 6.8, 4.0, 2.0,
        ],
    ),
    (
        26,
        false,
        &[
            0.0, 0.18, 0.29, 2.2, 7.7, 33.4, 38.1, 25.5, 3.6, 1.5, 0.9, 0.34, 0.15, 0.12,
        ],
    ),
    (
        27,
        false,
        &[
            0.0, 0.06, 0.14, 0.38, 2.0, 8.0, 15.6, 2.2, 0.64, 0.21, 0.11, 0.08, 0.06, 0.05,
        ],
    ),
    (
        27,
        true,
        &[
            0.0, 13.6, 68.2, 21.5, 194.5, 242.1, 491.4, 149.5, 122.8, 35.3, 20.6, 7.4, 4.3,
        ],
    ),
    (
        28,
        false,
        &[
            0.0, 2.8, 6.2, 42.2, 99.1, 858.6, 2172.5, 2695.3, 1260.5, 456.7, 124.2, 12.5, 12.1,
            5.7, 0.8,
        ],
    ),
];

/// From n = 28 most units are streamed ([`join::Unit`]): every block of slices a worker takes
/// reads the unit's sides again (some 15 s of one core), so their slices are cut to about
/// the slice time for a typical unit of the stratum instead of a third of it.
const STREAMED_FROM: usize = 28;

/// The measured mean seconds of a unit's stratum, where measured.
fn unit_seconds(n: usize, unit: &join::Unit) -> Option<f64> {
    let stratum = join::stratum(n, unit);
    STRATUM_SECONDS
        .iter()
        .find(|&&(m, two, _)| m == n && two == stratum.two_middles)
        .and_then(|(_, _, by)| by.get(usize::from(stratum.north_rows)))
        .copied()
}

/// How much of the product of free squares a search really visits, as a power: the later
/// levels are emptier than the queens already placed make them. Chosen by comparing the time
/// left announced during runs with the time they took (`results/eta-checks.md`).
const SHRINK: f64 = 0.55;

/// A rough size of the kernel search below `start`: the product of the free squares each
/// remaining level would have if only the queens already placed counted, to the power
/// [`SHRINK`], which tracks the measured times well enough to order work and to weight a time
/// estimate.
pub fn search_estimate(frame: &Frame, start: &Start) -> f64 {
    let mut log = 0.0f64;
    let (mut diag, mut anti) = (start.diag, start.anti);
    for l in start.level..frame.depth {
        let free = frame.mask & !(start.cols | diag | anti | frame.fixed[l]);
        log += f64::from(free.count_ones().max(1)).ln();
        diag <<= frame.step[l].min(63);
        anti >>= frame.step[l].min(63);
    }
    (SHRINK * log).exp()
}

/// Seconds of one core of the reference machine per unit of [`search_estimate`], at most:
/// subproblems of n = 18 to 23 took 0.5 to 1.2 × 10^-10 s per unit, a few far less
/// (`results/large-n.md`).
const SECONDS_PER_ESTIMATE: f64 = 1.2e-10;

/// The longest half-turn search of the unique count (one row-0 column) took 5.3 s at n = 26
/// and 0.46 s at n = 25 on the reference machine (odd boards leave the middle column to the
/// centre queen), growing about 3.5 times a row (`results/large-n.md`): its seconds at n.
fn half_turn_seconds(n: usize) -> f64 {
    let (base, seconds) = if n.is_multiple_of(2) {
        (26, 5.3)
    } else {
        (25, 0.46)
    };
    seconds * 3.5f64.powi(n as i32 - base)
}

/// How much slower a constrained queens search runs than the kernel, per unit of the
/// kernel's size estimate ([`constrained_size`]): it has no bulk bottom levels and reads a
/// mask a row: measured 0.8 to 2.3 times the kernel's slowest rate on boards of n = 18 to 23
/// with two blocked squares (`results/large-n.md`).
const CONSTRAINED_RATE: f64 = 3.0;

/// The size of the constrained queens search below `start` in the kernel's measure
/// ([`search_estimate`]).
fn constrained_size(allowed: &[u64], start: &Start) -> f64 {
    let (mut diag, mut anti) = (start.diag, start.anti);
    let mut log = 0.0f64;
    for &row in &allowed[start.level..] {
        let free = row & !(start.cols | diag | anti);
        log += f64::from(free.count_ones().max(1)).ln();
        diag <<= 1;
        anti >>= 1;
    }
    (SHRINK * log).exp()
}

/// A rough size of a constrained search for ordering: the product of the free squares left
/// in each row (columns only).
fn columns_estimate(allowed: &[u64], start: &Start) -> f64 {
    allowed
        .get(start.level..)
        .unwrap_or(&[])
        .iter()
        .map(|&m| f64::from((m & !start.cols).count_ones().max(1)).ln())
        .sum::<f64>()
        .min(600.0)
        .exp()
}

#[cfg(test)]
mod tests {
    use super::super::prepared::entry_slices;
    use super::*;
    use crate::plan::{Algorithm, Work};

    #[test]
    fn long_searches_are_cut_to_the_slice_time_and_short_ones_kept_whole() {
        // Up to n = 20 every search takes seconds: no slices.
        for alg in [Algorithm::Plain, Algorithm::Symmetry] {
            let p = Plan::build(20, alg, None).unwrap();
            let model = CostModel::new(&p, SLICE_SECONDS);
            assert!(
                p.works().all(|e| entry_slices(&model, &p, &e) == 1),
                "{alg}"
            );
        }
        // At n = 25 the largest searches take hours: each slice stays within the slice time.
        let p = Plan::build(25, Algorithm::Symmetry, None).unwrap();
        let model = CostModel::new(&p, SLICE_SECONDS);
        let most = p
            .works()
            .map(|e| entry_slices(&model, &p, &e))
            .max()
            .unwrap();
        assert!(most > 100, "{most}");
        for e in p.works() {
            let of = entry_slices(&model, &p, &e) as f64;
            if let Work::Complete { frame, start, .. } = e {
                let seconds = search_estimate(p.frame(frame), &start) * SECONDS_PER_ESTIMATE;
                assert!(seconds / of <= SLICE_SECONDS);
            }
        }
        // Shorter slices asked, more of them.
        let short = CostModel::new(&p, 1.0);
        let e = p.works().next().unwrap();
        assert!(entry_slices(&short, &p, &e) >= entry_slices(&model, &p, &e));
    }

    #[test]
    fn join_units_are_cut_from_n_25_and_half_turns_from_n_28() {
        let p = Plan::build(24, Algorithm::Join, None).unwrap();
        let model = CostModel::new(&p, SLICE_SECONDS);
        assert!(p.works().all(|e| entry_slices(&model, &p, &e) == 1));
        assert!((2..=27).all(|n| (half_turn_seconds(n) / SLICE_SECONDS).ceil() <= 1.0));
        assert!((28..=32).all(|n| half_turn_seconds(n) > SLICE_SECONDS));
    }
}
