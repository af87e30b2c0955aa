//! What building a plan takes, measured, so that a plan is checked against the memory budget
//! before it is built: the kernel plans of n = 21 to 32 pass through lists of hundreds of
//! megabytes while they are made (their roots, refined and sorted), and a build that runs
//! out of memory aborts the process (or gets it killed) before any check can speak. A
//! default plan's peak is in a table; a plan of a chosen split depth is counted first.

use super::{Algorithm, PlanError, constellation, prefix};

/// The peak resident memory, in MiB, of a process that built the default plan of `n` (from
/// n = 18) and was then refused by the memory check (`/usr/bin/time -f %M`, 2-core Intel
/// Xeon VM; `results/large-n.md`): the plan's lists at their largest, with the process's
/// own few MiB.
const BUILD_PEAK_MIB: [(Algorithm, [u16; 15]); 3] = [
    (
        Algorithm::Join,
        [4, 4, 5, 6, 8, 10, 19, 31, 63, 141, 233, 0, 0, 0, 0],
    ),
    (
        Algorithm::Symmetry,
        [
            6, 17, 34, 99, 418, 115, 145, 180, 208, 258, 320, 387, 460, 362, 426,
        ],
    ),
    (
        Algorithm::Plain,
        [
            6, 7, 59, 78, 92, 140, 131, 246, 211, 398, 334, 55, 37, 69, 46,
        ],
    ),
];

/// The smallest board of [`BUILD_PEAK_MIB`].
const FIRST_N: usize = 18;

/// Below this, a build is not checked: any process that starts has that much.
const CHECKED_FROM_MIB: u16 = 32;

/// The bytes building the default plan of `algorithm` for an n×n board needs, about, where
/// that is enough to check (the measured peak and half again: the lists' address space
/// runs ahead of what they hold while they grow); `None` for small plans.
pub fn build_bytes(n: usize, algorithm: Algorithm) -> Option<u64> {
    let (_, peaks) = BUILD_PEAK_MIB.iter().find(|(a, _)| *a == algorithm)?;
    let mib = *peaks.get(n.checked_sub(FIRST_N)?)?;
    (mib >= CHECKED_FROM_MIB).then(|| (u64::from(mib) * 3 / 2) << 20)
}

/// The bytes a kernel plan of a chosen split depth takes while it is built, a subproblem: 120
/// measured (`20 -a plain --split-depth 6`, 2.97 million subproblems, a peak of 341 MiB with the
/// process's own few), and half again.
const FIXED_SUBPROBLEM_BYTES: u64 = 180;

/// The bytes building the plan of `algorithm` at split depth `depth` for an n×n board needs,
/// about, where that is enough to check; its subproblems are counted, not made. A depth the build
/// would refuse is refused here.
pub fn fixed_build_bytes(
    n: usize,
    algorithm: Algorithm,
    depth: usize,
) -> Result<Option<u64>, PlanError> {
    crate::board::validate(n)?;
    let (frames, _, roots) = match algorithm {
        Algorithm::Plain => prefix::roots(n),
        Algorithm::Symmetry => constellation::roots(n),
        Algorithm::Join | Algorithm::Constrained => return Ok(None),
    };
    let lowest = usize::from(algorithm == Algorithm::Plain);
    let subproblems = prefix::count_at(&frames, &roots, lowest, depth)?;
    let bytes = subproblems as u64 * FIXED_SUBPROBLEM_BYTES;
    Ok((bytes >= u64::from(CHECKED_FROM_MIB) << 20).then_some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_large_plans_are_checked() {
        assert_eq!(build_bytes(16, Algorithm::Symmetry), None);
        assert_eq!(build_bytes(24, Algorithm::Join), None);
        assert_eq!(build_bytes(22, Algorithm::Symmetry), Some(627 << 20));
        assert_eq!(build_bytes(28, Algorithm::Join), Some((233 * 3 / 2) << 20));
        assert_eq!(build_bytes(29, Algorithm::Join), None);
        assert_eq!(build_bytes(33, Algorithm::Plain), None);
        assert_eq!(build_bytes(28, Algorithm::Constrained), None);
    }

    #[test]
    fn a_chosen_depth_is_counted_as_the_build_makes_it() {
        for (n, algorithm, depth) in [
            (12, Algorithm::Plain, 3),
            (13, Algorithm::Symmetry, 1),
            (14, Algorithm::Symmetry, 2),
            (11, Algorithm::Plain, 1),
        ] {
            let (frames, _, roots) = match algorithm {
                Algorithm::Plain => prefix::roots(n),
                _ => constellation::roots(n),
            };
            let lowest = usize::from(algorithm == Algorithm::Plain);
            let counted = prefix::count_at(&frames, &roots, lowest, depth).unwrap();
            let plan = crate::Plan::build(n, algorithm, Some(depth)).unwrap();
            let kernel = plan
                .works()
                .filter(|w| matches!(w, crate::plan::Work::Complete { .. }))
                .count();
            assert_eq!(counted, kernel, "n = {n}, {algorithm}, depth {depth}");
        }
        assert_eq!(fixed_build_bytes(14, Algorithm::Plain, 3).unwrap(), None);
        let big = fixed_build_bytes(20, Algorithm::Plain, 6).unwrap().unwrap();
        assert!(big > 400 << 20 && big < 600 << 20, "{big}");
        assert!(matches!(
            fixed_build_bytes(20, Algorithm::Plain, 7),
            Err(PlanError::PlanTooLarge { .. })
        ));
    }
}
