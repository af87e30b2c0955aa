//! Splitting by pre-placed rows: the plain plan's roots (row 0 with its left-right mirror), and
//! the deepening that turns any plan's roots into more, smaller subproblems by placing the
//! next rows of their frames.
//!
//! The mirror trick is the classic one (Richards 1997; Somers 2002): the queen of row 0 stays
//! in the left half and counts twice; for odd n the middle column of row 0 is taken with row 1
//! in its left half, also counted twice.

use super::Family;
use super::PlanError;
use super::limits::{MAX_SPLIT_DEPTH, MAX_SUBPROBLEMS, target_subproblems};
use crate::board;
use nqueens_engine::kernel::{Frame, Start};

/// A kernel subproblem before it gets its id.
#[derive(Clone, Copy, Debug)]
pub(super) struct Root {
    /// The index of its frame in the plan's frames.
    pub frame: u32,
    /// The state its pre-placed queens leave.
    pub start: Start,
    /// Solutions each completion stands for.
    pub weight: u8,
}

impl Root {
    /// The root of frame `frame` at `start`, of weight `weight`.
    pub fn new(frame: u32, start: Start, weight: u8) -> Root {
        Root {
            frame,
            start,
            weight,
        }
    }
}

/// The plain plan's first row: the left half counted twice, and for odd n the middle column
/// with row 1 in its left half, counted twice. A 1×1 board has its single square.
pub(super) fn roots(n: usize) -> (Vec<Frame>, Vec<Family>, Vec<Root>) {
    let frame = Frame::open(n, n);
    let root = Start::default();
    let mut subproblems = Vec::new();
    if n == 1 {
        subproblems.push(Root::new(0, frame.descend(&root, 1), 1));
        return (vec![frame], vec![Family::Prefix], subproblems);
    }
    for c in 0..n / 2 {
        subproblems.push(Root::new(0, frame.descend(&root, board::bit(c)), 2));
    }
    if n % 2 == 1 {
        let middle = frame.descend(&root, board::bit(n / 2));
        let free = frame.free(&middle) & board::full_mask(n / 2);
        for c in bits(free) {
            subproblems.push(Root::new(0, frame.descend(&middle, board::bit(c)), 2));
        }
    }
    (vec![frame], vec![Family::Prefix], subproblems)
}

/// Deepens `roots` by `split_depth - lowest` rows (the depth `roots` already stand at is
/// `lowest`); without a split depth, until there are at least [`target_subproblems`] subproblems.
/// Returns the depth reached and the subproblems.
pub(super) fn split(
    frames: &[Frame],
    roots: Vec<Root>,
    lowest: usize,
    split_depth: Option<usize>,
    n: usize,
) -> Result<(usize, Vec<Root>), PlanError> {
    if let Some(d) = split_depth {
        check_depth(d, lowest)?;
    }
    let mut subproblems = roots;
    let mut depth = lowest;
    let wanted = split_depth.unwrap_or(MAX_SPLIT_DEPTH);
    let target = target_subproblems(n);
    while depth < wanted {
        if split_depth.is_none() && subproblems.len() >= target {
            break;
        }
        // Counted before it is made, so that a split far too deep is refused at once (and a
        // default one stops where it is).
        let next = children(frames, &subproblems);
        if next > MAX_SUBPROBLEMS && split_depth.is_none() {
            break;
        }
        if next > MAX_SUBPROBLEMS {
            return Err(PlanError::PlanTooLarge {
                depth: depth + 1,
                limit: MAX_SUBPROBLEMS,
            });
        }
        let deeper = deepen(frames, &subproblems);
        // For large boards, a default plan that already has half its target stops short of
        // overshooting it by far: millions of subproblems cost memory and make checkpoints slow
        // to write. (Small targets always split: a few huge frames would run alone.)
        let overshoot =
            target >= 1 << 16 && 2 * subproblems.len() >= target && deeper.len() > 4 * target;
        if split_depth.is_none() && (deeper.len() == subproblems.len() || overshoot) {
            break;
        }
        subproblems = deeper;
        depth += 1;
    }
    if split_depth.is_none() && n >= REFINED_FROM {
        subproblems = refine(frames, subproblems, target);
    }
    Ok((depth, subproblems))
}

/// Boards from which a default plan also splits its largest subproblems further ([`refine`]);
/// below it every subproblem takes well under a second.
const REFINED_FROM: usize = 20;

/// How many times the mean share of the work a subproblem of a refined plan may hold.
const LARGEST_SHARE: u128 = 8;

/// Splits the subproblems whose [`size`] is above [`LARGEST_SHARE`] times `1 / target` of the
/// whole, a row at a time, until none is (or a subproblem has no row left, or the plan would grow
/// past [`MAX_SUBPROBLEMS`]). The estimates of a uniform split are very uneven (at n = 24 the
/// largest 1% of the subproblems hold nine tenths of the work), so without this the largest
/// subproblems take hours while most take milliseconds: a run could not stop or show progress in
/// time. Children replace their parent in place, so the order of the plan stays deterministic.
fn refine(frames: &[Frame], subproblems: Vec<Root>, target: usize) -> Vec<Root> {
    let sized = |r: Root| (r, size(&frames[r.frame as usize], &r.start));
    let mut subproblems: Vec<(Root, u128)> = subproblems.into_iter().map(sized).collect();
    let total: u128 = subproblems
        .iter()
        .map(|p| p.1)
        .fold(0, u128::saturating_add);
    let limit = LARGEST_SHARE.saturating_mul(total) / target as u128;
    let splittable =
        |(r, size): &(Root, u128)| *size > limit && r.start.level < frames[r.frame as usize].depth;
    loop {
        let growth: usize = subproblems
            .iter()
            .filter(|p| splittable(p))
            .map(|p| children(frames, std::slice::from_ref(&p.0)).saturating_sub(1))
            .sum();
        if growth == 0 || subproblems.len() + growth > MAX_SUBPROBLEMS {
            return subproblems.into_iter().map(|p| p.0).collect();
        }
        let mut out = Vec::with_capacity(subproblems.len() + growth);
        for p in subproblems {
            if splittable(&p) {
                out.extend(
                    deepen(frames, std::slice::from_ref(&p.0))
                        .into_iter()
                        .map(sized),
                );
            } else {
                out.push(p);
            }
        }
        subproblems = out;
    }
}

/// Refuses a split depth below `lowest`, where the roots already stand, or past the most.
fn check_depth(depth: usize, lowest: usize) -> Result<(), PlanError> {
    if depth < lowest || depth > MAX_SPLIT_DEPTH {
        return Err(PlanError::SplitDepth {
            depth,
            lowest,
            highest: MAX_SPLIT_DEPTH,
        });
    }
    Ok(())
}

/// How many subproblems [`deepen`] would make.
fn children(frames: &[Frame], subproblems: &[Root]) -> usize {
    subproblems
        .iter()
        .map(|r| {
            let frame = &frames[r.frame as usize];
            if r.start.level >= frame.depth {
                1
            } else {
                frame.free(&r.start).count_ones() as usize
            }
        })
        .sum()
}

/// The subproblems [`split`] makes of `roots` at split depth `depth` (from `lowest`), counted by a
/// walk that keeps none of them: a plan of a chosen depth is sized before it is built. More
/// than [`MAX_SUBPROBLEMS`] is refused as the build would refuse it.
pub(super) fn count_at(
    frames: &[Frame],
    roots: &[Root],
    lowest: usize,
    depth: usize,
) -> Result<usize, PlanError> {
    check_depth(depth, lowest)?;
    fn below(frame: &Frame, start: &Start, levels: usize) -> usize {
        if levels == 0 || start.level >= frame.depth {
            return 1;
        }
        bits(frame.free(start))
            .map(|c| below(frame, &frame.descend(start, board::bit(c)), levels - 1))
            .sum()
    }
    let mut total = 0usize;
    for r in roots {
        total += below(&frames[r.frame as usize], &r.start, depth - lowest);
        if total > MAX_SUBPROBLEMS {
            return Err(PlanError::PlanTooLarge {
                depth,
                limit: MAX_SUBPROBLEMS,
            });
        }
    }
    Ok(total)
}

/// Every subproblem's children one level down, in increasing column order.
fn deepen(frames: &[Frame], subproblems: &[Root]) -> Vec<Root> {
    let mut out = Vec::with_capacity(subproblems.len() * 4);
    for &r in subproblems {
        let frame = &frames[r.frame as usize];
        if r.start.level >= frame.depth {
            out.push(r);
            continue;
        }
        for c in bits(frame.free(&r.start)) {
            out.push(Root::new(
                r.frame,
                frame.descend(&r.start, board::bit(c)),
                r.weight,
            ));
        }
    }
    out
}

/// The set bits of `m`, lowest first.
pub(crate) fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(c)
        }
    })
}

/// The size of the search below `start` that [`refine`] compares, in integers alone (the
/// plan's identity must not depend on a floating-point library): the product of the free
/// squares each remaining level would have if only the queens already placed counted, to the
/// power 11/20. Logarithms are taken in 1/65536ths of a bit ([`log2_fixed`]) and the power of
/// two back is interpolated linearly between whole bits: a rough size, but the same on every
/// machine. (The power damps the product towards the searches' measured times,
/// `results/eta-checks.md`; it is part of the plan's format now and never retuned.)
pub(super) fn size(frame: &Frame, start: &Start) -> u128 {
    let mut log: u64 = 0;
    let (mut diag, mut anti) = (start.diag, start.anti);
    for l in start.level..frame.depth {
        let free = frame.mask & !(start.cols | diag | anti | frame.fixed[l]);
        log += log2_fixed(free.count_ones().max(1));
        diag <<= frame.step[l].min(63);
        anti >>= frame.step[l].min(63);
    }
    let damped = log * 11 / 20;
    let (whole, fraction) = (damped >> 16, damped & 0xffff);
    u128::from((1u64 << 16) + fraction) << whole.min(100)
}

/// `log2(k)` in 1/65536ths, rounded down, for `k >= 1`, by the digit-by-digit method (the
/// mantissa squared in fixed point, a bit of the logarithm for each doubling past 2).
pub(super) fn log2_fixed(k: u32) -> u64 {
    let whole = 31 - k.max(1).leading_zeros();
    // The mantissa in [1, 2), with 30 bits after the point.
    let mut x: u64 = (u64::from(k) << 30) >> whole;
    let mut log = u64::from(whole) << 16;
    for bit in (0..16).rev() {
        x = (x * x) >> 30;
        if x >= 2 << 30 {
            x >>= 1;
            log |= 1 << bit;
        }
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_far_too_deep_is_refused_before_it_is_made() {
        let (frames, _, roots) = roots(32);
        let err = split(&frames, roots, 1, Some(MAX_SPLIT_DEPTH), 32).unwrap_err();
        assert!(matches!(err, PlanError::PlanTooLarge { .. }), "{err}");
    }

    #[test]
    fn refining_splits_only_the_largest_subproblems_and_keeps_every_placement() {
        let (frames, _, roots) = roots(12);
        let (_, uniform) = split(&frames, roots, 1, Some(2), 12).unwrap();
        let refined = refine(&frames, uniform.clone(), 1024);
        assert!(refined.len() > uniform.len());
        let size = |r: &Root| size(&frames[r.frame as usize], &r.start);
        let total: u128 = uniform.iter().map(size).sum();
        let largest = refined.iter().map(size).max().unwrap();
        assert!(
            largest <= LARGEST_SHARE * total / 1024,
            "{largest} of {total}"
        );
        // The same boards are covered: the counts of the two plans agree.
        let count = |subproblems: &[Root]| -> u64 {
            subproblems
                .iter()
                .map(|r| {
                    let frame = &frames[r.frame as usize];
                    u64::from(r.weight) * nqueens_engine::kernel::complete(frame, &r.start).count
                })
                .sum()
        };
        assert_eq!(count(&refined), count(&uniform));
        assert_eq!(count(&refined), 14200);
    }

    #[test]
    fn fixed_point_logarithms_are_within_a_step_of_the_true_ones() {
        for k in 1..=64u32 {
            let exact = f64::from(k).log2() * 65536.0;
            let fixed = log2_fixed(k) as f64;
            assert!(fixed <= exact + 1e-6 && exact - fixed < 2.0, "k = {k}");
        }
        assert_eq!(log2_fixed(1), 0);
        assert_eq!(log2_fixed(32), 5 << 16);
    }

    #[test]
    fn a_split_depth_deepens_exactly_that_many_rows() {
        let (frames, _, roots) = roots(8);
        let (depth, subproblems) = split(&frames, roots, 1, Some(3), 8).unwrap();
        assert_eq!(depth, 3);
        assert!(subproblems.iter().all(|p| p.start.level == 3));
    }
}
