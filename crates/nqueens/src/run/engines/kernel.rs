//! The kernel's adapter: the bit-parallel backtracking search below a pre-placed start of one
//! of the plan's frames (the plain and symmetry algorithms), with the measured figures that
//! size its searches.

use std::sync::atomic::AtomicBool;

use super::engine::Engine;
use crate::plan::{Family, Frame, Plan, Slice, Start, Work};
use crate::run::class::{Class, half_octave};
use nqueens_engine::kernel;

/// The kernel's searches of one plan: its frames, as the plan and as the kernel takes them.
#[derive(Debug)]
pub(super) struct Kernel {
    frames: Vec<(Frame, kernel::Frame, Option<Family>)>,
}

impl Kernel {
    pub(super) fn new(plan: &Plan) -> Kernel {
        let frames = plan.frames().iter().enumerate();
        Kernel {
            frames: frames
                .map(|(i, f)| (f.clone(), kernel::Frame::from(f), plan.family(i as u32)))
                .collect(),
        }
    }

    /// The frame and start of a kernel search.
    fn search<'a>(&'a self, work: &Work) -> (&'a (Frame, kernel::Frame, Option<Family>), Start) {
        let Work::Complete { frame, start, .. } = *work else {
            unreachable!("the kernel is given kernel searches only")
        };
        (&self.frames[frame as usize], start)
    }
}

/// The rank of the kernel's classes among a plan's ([`Class`]).
const RANK: u8 = 1;

impl Engine for Kernel {
    fn count(&self, work: &Work, slice: Slice, stop: &AtomicBool) -> Option<(u128, u64)> {
        let ((_, frame, _), start) = self.search(work);
        let found = kernel::complete_slice_until(frame, &start.into(), slice.into(), stop)?;
        Some((found.count.into(), found.nodes))
    }

    fn size(&self, work: &Work) -> f64 {
        let ((frame, _, _), start) = self.search(work);
        search_estimate(frame, &start)
    }

    fn seconds(&self, work: &Work) -> f64 {
        self.size(work) * SECONDS_PER_ESTIMATE
    }

    /// The searches of one family whose estimates lie in one half-octave.
    fn class(&self, work: &Work, size: f64) -> Class {
        let ((_, _, family), _) = self.search(work);
        let family = family.map_or(0, |f| 1 + f as u64);
        Class::new(RANK, family << 32 | u64::from(half_octave(size)))
    }
}

/// How much of the product of free squares a search really visits, as a power: the later
/// levels are emptier than the queens already placed make them. Chosen by comparing the time
/// left announced during runs with the time they took (`results/eta-checks.md`).
pub(super) const SHRINK: f64 = 0.55;

/// A rough size of the kernel search below `start`: the product of the free squares each
/// remaining level would have if only the queens already placed counted, to the power
/// [`SHRINK`], which tracks the measured times well enough to order work and to weight a time
/// estimate.
pub(crate) fn search_estimate(frame: &Frame, start: &Start) -> f64 {
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
pub(super) const SECONDS_PER_ESTIMATE: f64 = 1.2e-10;

/// The plan's frames and starts in the kernel's types.
impl From<&Frame> for kernel::Frame {
    fn from(f: &Frame) -> kernel::Frame {
        kernel::Frame {
            mask: f.mask,
            depth: f.depth,
            fixed: f.fixed,
            step: f.step,
        }
    }
}

impl From<Start> for kernel::Start {
    fn from(s: Start) -> kernel::Start {
        kernel::Start {
            level: s.level,
            cols: s.cols,
            diag: s.diag,
            anti: s.anti,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Algorithm;
    use crate::run::cost::{CostModel, SLICE_SECONDS};

    #[test]
    fn the_plans_frames_and_starts_go_to_the_kernel_and_back_unchanged() {
        for algorithm in [Algorithm::Symmetry, Algorithm::Plain] {
            let plan = Plan::build(12, algorithm, None).unwrap();
            for f in plan.frames() {
                assert_eq!(&Frame::from(&kernel::Frame::from(f)), f);
            }
            for work in plan.works() {
                if let Work::Complete { start, .. } = work {
                    assert_eq!(Start::from(kernel::Start::from(start)), start);
                }
            }
        }
    }

    #[test]
    fn long_searches_are_cut_to_the_slice_time_and_short_ones_kept_whole() {
        // Up to n = 20 every search takes seconds: no slices.
        for alg in [Algorithm::Plain, Algorithm::Symmetry] {
            let p = Plan::build(20, alg, None).unwrap();
            let model = CostModel::new(&p, SLICE_SECONDS);
            assert!(p.works().all(|e| model.slices(&e) == 1), "{alg}");
        }
        // At n = 25 the largest searches take hours: each slice stays within the slice time.
        let p = Plan::build(25, Algorithm::Symmetry, None).unwrap();
        let model = CostModel::new(&p, SLICE_SECONDS);
        let most = p.works().map(|e| model.slices(&e)).max().unwrap();
        assert!(most > 100, "{most}");
        for e in p.works() {
            let of = model.slices(&e) as f64;
            if let Work::Complete { frame, start, .. } = e {
                let seconds = search_estimate(p.frame(frame), &start) * SECONDS_PER_ESTIMATE;
                assert!(seconds / of <= SLICE_SECONDS);
            }
        }
        // Shorter slices asked, more of them.
        let short = CostModel::new(&p, 1.0);
        let e = p.works().next().unwrap();
        assert!(short.slices(&e) >= model.slices(&e));
    }
}
