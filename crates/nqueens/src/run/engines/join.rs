//! The join's adapter: half-boards built from the quadrant lists (or each unit's partitions
//! of them) and paired by their diagonal patterns, unit by unit, with the measured figures
//! that size its units, its layout by board and the partitions a thread keeps.

use std::sync::atomic::AtomicBool;

use super::engine::{Engine, Timed};
use crate::plan::{Plan, Slice, Unit, Work};
use crate::run::class::Class;
use nqueens_engine::join::{self, Layout, Quadrants};

/// The join's units of one plan, and once prepared, the quadrant lists they share.
#[derive(Debug)]
pub(super) struct Join {
    n: usize,
    quarter_turns: bool,
    quadrants: Option<Quadrants>,
}

impl Join {
    pub(super) fn new(plan: &Plan) -> Join {
        Join {
            n: plan.n(),
            quarter_turns: plan.quarter_turns(),
            quadrants: None,
        }
    }
}

/// The unit of a join entry.
fn unit_of(work: &Work) -> Unit {
    let Work::Join { unit, .. } = *work else {
        unreachable!("the join is given join units only")
    };
    unit
}

/// Units (or slices) a probe projects under this many seconds are timed whole by the estimate.
const WHOLE_BELOW: f64 = 0.5;

/// The rank of the join's classes among a plan's ([`Class`]).
const RANK: u8 = 0;

impl Engine for Join {
    /// A join plan's units make their own partitions of the quadrants (the memory-bounded
    /// layout, [`Quadrants::bounded`]), each thread keeping up to `cache` bytes of them, and
    /// count with the quarter turns where the plan says so; on the smallest boards, where
    /// that is faster, the whole quadrant lists are built once ([`layout`]).
    fn prepare(&mut self, cache: usize) {
        let (n, turning) = (self.n, self.quarter_turns);
        self.quadrants = Some(match layout(n) {
            Layout::Lists if !turning => Quadrants::build(n),
            _ => Quadrants::bounded_turning(n, cache, turning),
        });
    }

    fn count(&self, work: &Work, slice: Slice, stop: &AtomicBool) -> Option<(u128, u64)> {
        let found =
            join::count_unit_until(self.prepared(), &join_unit(unit_of(work), slice), stop)?;
        Some((found.count.into(), found.nodes))
    }

    /// A unit timed on a share of its work ([`super::probe::time_unit`]): a few of its row
    /// sets, a few bins of its matching, the engine marking the phases of its work and the
    /// runner's clock timing them. A whole unit the share projects under [`WHOLE_BELOW`]
    /// seconds is then probed whole ([`join::Probe::WHOLE`]) and timed instead: on such small
    /// units the share's projection erred high by 13-19% at n = 22, and probing them whole
    /// costs the sample little (`results/estimate-calibration-d0f27bf.md`). A whole probe, like
    /// a share, leaves out the partitions that a run makes once for the units sharing them: a
    /// unit counted whole in the sample's random order paid for them alone and erred high by
    /// up to 17% at n = 23 (`results/estimate-calibration-fa058cb.md`). A streamed unit's
    /// reads stand for one by each of the count's `how.workers` threads that takes a block of
    /// it ([`join::Probe::workers`]).
    fn time(&self, work: &Work, slice: Slice, how: Timed, stop: &AtomicBool) -> Option<f64> {
        let probe = join::Probe {
            row_sets: 4,
            bins: 24,
            seed: how.seed as usize,
            workers: how.workers,
        };
        let unit = join_unit(unit_of(work), slice);
        let projected = super::probe::time_unit(self.prepared(), &unit, probe, stop)?;
        // A slice of a unit (n = 25 on) keeps the share's projection: a whole probe matches
        // the whole unit, not the slice (at n = 28 it projected 17 times the cost).
        if projected >= WHOLE_BELOW || unit.slice.of > 1 {
            return Some(projected);
        }
        super::probe::time_unit(self.prepared(), &unit, join::Probe::WHOLE, stop)
    }

    fn times_whole(&self) -> bool {
        false
    }

    /// Its stratum's measured mean seconds where measured, else 1.
    fn size(&self, work: &Work) -> f64 {
        unit_seconds(self.n, &unit_of(work).into()).map_or(1.0, |s| s.max(0.01))
    }

    /// Enough that each slice of a slow unit of its stratum stays near the slice time.
    fn seconds(&self, work: &Work) -> f64 {
        let seconds = unit_seconds(self.n, &unit_of(work).into()).unwrap_or(0.0);
        let spread = if self.n >= STREAMED_FROM { 1.0 } else { SPREAD };
        spread * seconds
    }

    /// A unit of one row set has its matching dealt out; a unit of several row sets (odd
    /// boards) has its row sets dealt out, so its slices make nothing twice: it is cut no
    /// finer than into single row sets.
    fn finest(&self, work: &Work) -> u64 {
        match unit_of(work).span {
            0 | 1 => u64::from(u16::MAX),
            span => u64::from(span),
        }
    }

    /// Units of one stratum: their row sets split alike between the quadrants.
    fn class(&self, work: &Work, _size: f64) -> Class {
        let s = join::stratum(self.n, &unit_of(work).into());
        Class::new(
            RANK,
            u64::from(s.two_middles) << 8 | u64::from(s.north_rows),
        )
    }

    /// The units all together, in runs of consecutive units in a fixed pseudo-random order,
    /// so that neighbours share the partitions a thread keeps and the share of units done is
    /// a fair measure of the work done. (Paced stratum by stratum, a whole n = 16 took 13%
    /// longer, its neighbours apart; `results/join-log.md`, section 24.)
    fn paced_apart(&self) -> bool {
        false
    }

    /// The units of one middle-queen pair (lists filtered for that pair) share a number
    /// other than 0.
    fn shares(&self, work: &Work) -> u32 {
        unit_of(work).middle.map_or(0, |m| {
            1 + (u32::from(m.column_queen) << 8 | u32::from(m.row_queen))
        })
    }

    /// The threads' buffers, by the join's memory model in the layout the run uses.
    fn bytes(&self, threads: usize) -> Option<u64> {
        Some(join::memory_needed(self.n, threads, layout(self.n)))
    }

    /// Half of what `available` leaves once the memory-bounded layout's own need is met, at
    /// most [`CACHE_BYTES`] a thread (also where `available` is unknown).
    fn cache(&self, threads: usize, available: Option<u64>) -> usize {
        let cache = match available {
            Some(a) => {
                let need = join::memory_needed(self.n, threads, Layout::Bounded);
                (a.saturating_sub(need) / threads as u64 / 2).min(CACHE_BYTES)
            }
            None => CACHE_BYTES,
        };
        cache as usize
    }
}

impl Join {
    fn prepared(&self) -> &Quadrants {
        self.quadrants
            .as_ref()
            .expect("a join plan is prepared with its quadrant lists")
    }
}

/// The most bytes of a unit's partitions a thread keeps for the units after it: 64 MiB.
/// More is slower as well as larger: `21 --shard 0/32` took 28.4 s with 256 MiB a thread and
/// 20.9 to 21.4 s with 8 to 96 MiB; n = 19 took 16.1 s with 8 MiB and 11.5 s with 32
/// (`results/join-log.md`, section 24).
const CACHE_BYTES: u64 = 64 << 20;

/// Where a join count's half-boards come from on an n×n board: the whole quadrant lists up
/// to [`LISTS_UNTIL`], the memory-bounded partitions each unit makes after it.
pub(crate) fn layout(n: usize) -> Layout {
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
pub(crate) const LISTS_UNTIL: usize = 17;

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

/// From n = 28 most units are streamed: each worker that takes a block of a unit's slices
/// reads the unit's sides again (some 15 s of one core when this was set; 2.4 to 4.8 s in
/// the probes of `results/join-log.md`, section 29), so their slices are cut to about the slice time for a
/// typical unit of the stratum instead of a third of it.
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

/// A whole unit, for its stratum and estimates.
impl From<Unit> for join::Unit {
    fn from(u: Unit) -> join::Unit {
        join_unit(u, Slice::WHOLE)
    }
}

/// Slice `slice` of unit `u`, in the engine's type.
fn join_unit(u: Unit, slice: Slice) -> join::Unit {
    join::Unit {
        east_rows: u.east_rows,
        middle: u.middle.map(|m| join::Middle {
            column_queen: m.column_queen,
            row_queen: m.row_queen,
        }),
        span: u.span,
        slice: slice.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;
    use crate::run::cost::{CostModel, SLICE_SECONDS};

    #[test]
    fn the_plans_units_go_to_the_engine_and_back_unchanged() {
        let plan = Plan::build(17, Algorithm::Join, None).unwrap();
        let mut middles = 0;
        for work in plan.works() {
            if let Work::Join { unit, .. } = work {
                assert_eq!(Unit::from(join::Unit::from(unit)), unit);
                let share = join_unit(unit, Slice { index: 2, of: 5 });
                assert_eq!((share.slice.index, share.slice.of), (2, 5));
                middles += usize::from(unit.middle.is_some());
            }
        }
        assert!(middles > 0);
    }

    #[test]
    fn units_are_cut_from_n_25() {
        let p = Plan::build(24, Algorithm::Join, None).unwrap();
        let model = CostModel::new(&p, SLICE_SECONDS);
        assert!(p.works().all(|e| model.slices(&e) == 1));
    }
}
