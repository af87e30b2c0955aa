//! The plan: the list of independent subproblems a count is made of, each with a stable id.
//!
//! A plan is a pure value, a function of the board size, the algorithm and the split depth
//! alone (never of the thread count or the machine), so the same id names the same piece of
//! work in every run, checkpoint and shard. Its [`Plan::hash`] fingerprints the whole list, so
//! that results made for one plan are never mixed into another. What the engines prepare to
//! count a plan (the join algorithm's quadrant lists) belongs to the run, not to the plan.
//!
//! Each algorithm has its own way of splitting, in its own file:
//! * `plain` (`prefix.rs`) pre-places the first rows, with the left-right mirror of row 0;
//! * `symmetry` ([`constellation`]) pre-places the queens of the four border lines, one
//!   constellation per orbit of the eight board symmetries;
//! * `join` (`join.rs`) makes one subproblem per east row set of the half-board join.
//!
//! * `constrained` (`constrained.rs`) pre-places the first free rows of a constrained board
//!   ([`crate::constraint`]), which the plan carries (and fingerprints).
//!
//! Both symmetric plans end with the small searches for rotation-invariant solutions that give
//! the unique count (Burnside's lemma, [`crate::symmetry`]).

pub mod constellation;
mod constrained;
mod join;
mod prefix;

use std::fmt;
use std::str::FromStr;

use crate::board::{self, MAX_N};
use crate::constraint::Board;
use crate::engine::join::{MAX_JOIN_N, Unit};
use crate::engine::kernel::{Frame, Start};
use crate::error::Error;

#[cfg(test)]
pub(crate) use prefix::bits;

/// Which counting method a plan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// Row-by-row search of the whole board with the left-right mirror only.
    Plain,
    /// Border constellations, one per orbit of the eight board symmetries, plus the unique count.
    Symmetry,
    /// Half-boards built from quadrant lists and paired by diagonal patterns, plus the unique
    /// count.
    Join,
    /// A constrained board ([`crate::constraint`]): prefixes of its first free rows, no
    /// symmetry, no unique count. Not in [`Algorithm::ALL`]: it needs a board.
    Constrained,
}

impl Algorithm {
    /// Every algorithm of the empty board, in the order they are documented.
    pub const ALL: [Algorithm; 3] = [Algorithm::Plain, Algorithm::Symmetry, Algorithm::Join];

    /// The algorithm a count of an n×n board uses unless told otherwise: the fastest one by
    /// measurement (`results/2026-11-30-vm`, and shards of n = 21..=23): `join` for n = 12 and
    /// from 14 up to the largest board it handles, `symmetry` elsewhere (at n = 13 the middle
    /// queens of odd boards make many small join units, and `symmetry` measured a little faster).
    pub fn default_for(n: usize) -> Algorithm {
        if n == 12 || (14..=MAX_JOIN_N).contains(&n) {
            Algorithm::Join
        } else {
            Algorithm::Symmetry
        }
    }

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Plain => "plain",
            Algorithm::Symmetry => "symmetry",
            Algorithm::Join => "join",
            Algorithm::Constrained => "constrained",
        }
    }

    /// Whether a plan of this algorithm also yields the unique count.
    pub fn has_unique(self) -> bool {
        !matches!(self, Algorithm::Plain | Algorithm::Constrained)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Algorithm::ALL
            .into_iter()
            .chain([Algorithm::Constrained])
            .find(|a| a.name() == s)
            .ok_or_else(|| Error::UnknownAlgorithm(s.to_string()))
    }
}

/// The family of a kernel frame, for reports and diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Plain: prefixes of the first rows.
    Prefix,
    /// Symmetry: a queen in a corner.
    Corner,
    /// Symmetry: one border queen strictly nearest a corner.
    Nearest,
    /// Symmetry: another border queen as near a corner as the row-0 queen.
    Tie,
}

impl Family {
    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            Family::Prefix => "plain prefixes",
            Family::Corner => "corner queen",
            Family::Nearest => "one border queen nearest a corner",
            Family::Tie => "tie constellations",
        }
    }
}

/// What one subproblem asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Work {
    /// Complete `start` within `frames[frame]`; every completion stands for `weight` solutions.
    Complete {
        /// Index into [`Plan::frames`].
        frame: u32,
        /// The state the plan's pre-placed queens leave.
        start: Start,
        /// Solutions each completion stands for (its orbit or mirror class size).
        weight: u8,
    },
    /// Count the pairs of fitting half-boards of one join unit; each stands for `weight`
    /// solutions.
    Join {
        /// The east rows (and, for odd n, the middle queens).
        unit: Unit,
        /// Solutions each pair stands for (orbit size of the unit).
        weight: u8,
    },
    /// Complete a constrained board ([`Plan::board`]) from `start`; weight 1.
    Constrained {
        /// The state the plan's pre-placed rows leave.
        start: Start,
    },
    /// Count the solutions a half turn (`quarter == false`) or a quarter turn leaves unchanged,
    /// whose row-0 queen stands in column `first`.
    Invariant {
        /// Quarter turn rather than half turn.
        quarter: bool,
        /// Column of the queen in row 0.
        first: u8,
    },
}

impl Work {
    /// Solutions each raw count of this work stands for (1 for the invariant searches, whose
    /// counts are kept apart).
    pub fn weight(&self) -> u8 {
        match *self {
            Work::Complete { weight, .. } | Work::Join { weight, .. } => weight,
            Work::Invariant { .. } | Work::Constrained { .. } => 1,
        }
    }
}

/// One independent piece of a count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subproblem {
    /// Position in the plan; stable for a given n, algorithm and split depth.
    pub id: u64,
    /// What to compute.
    pub work: Work,
    /// Rough relative size, for ordering work and estimating the time left.
    pub estimate: f64,
}

/// The whole list of subproblems of one count.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Board size.
    pub n: usize,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Rows pre-placed by the plan (plain: rows from the top; symmetry: interior rows beyond the
    /// border queens; join: 0).
    pub split_depth: usize,
    /// The row layouts the kernel searches; subproblems refer to them by index.
    pub frames: Vec<Frame>,
    /// Which family of the plan each frame belongs to (parallel to `frames`).
    pub families: Vec<Family>,
    /// The subproblems, `subproblems[i].id == i`.
    pub subproblems: Vec<Subproblem>,
    /// The board of a constrained plan.
    pub board: Option<Board>,
    /// Fingerprint of everything above.
    pub hash: u64,
}

/// The most subproblems a plan may have (each takes about 100 bytes while the plan is made):
/// four times what the default plans aim for at most.
pub const MAX_SUBPROBLEMS: usize = 1 << 22;
/// The deepest split a plan accepts.
pub const MAX_SPLIT_DEPTH: usize = 8;

/// How many subproblems a default plan aims for: enough for a large machine's threads to get
/// many each, and for large boards small enough pieces that a run can stop (and a checkpoint
/// be saved) quickly. It depends on the board alone, so that every machine and every task of
/// an array job cuts a count the same way.
pub fn target_subproblems(n: usize) -> usize {
    match n {
        0..=9 => 16,
        10..=17 => 1024,
        _ => (4096usize << (2 * (n - 18).min(6))).min(1 << 20),
    }
}

impl Plan {
    /// Builds the plan for `n` with `algorithm`; `split_depth: None` picks a depth that makes
    /// at least [`target_subproblems`] pieces.
    pub fn build(
        n: usize,
        algorithm: Algorithm,
        split_depth: Option<usize>,
    ) -> Result<Plan, Error> {
        board::validate(n)?;
        let (depth, frames, families, mut subproblems) = match algorithm {
            Algorithm::Constrained => return Err(Error::BoardNeeded),
            Algorithm::Join => (
                0,
                Vec::new(),
                Vec::new(),
                join::subproblems(n, split_depth)?,
            ),
            Algorithm::Plain | Algorithm::Symmetry => {
                let (frames, families, roots) = if algorithm == Algorithm::Plain {
                    prefix::roots(n)
                } else {
                    constellation::roots(n)
                };
                let lowest = usize::from(algorithm == Algorithm::Plain);
                let (depth, pieces) = prefix::split(&frames, roots, lowest, split_depth, n)?;
                let subproblems = pieces
                    .into_iter()
                    .map(|(frame, start, weight)| Subproblem {
                        id: 0,
                        work: Work::Complete {
                            frame,
                            start,
                            weight,
                        },
                        estimate: prefix::estimate(&frames[frame as usize], &start),
                    })
                    .collect();
                (depth, frames, families, subproblems)
            }
        };
        if algorithm.has_unique() {
            push_invariants(n, &mut subproblems);
        }
        for (i, s) in subproblems.iter_mut().enumerate() {
            s.id = i as u64;
        }
        let mut plan = Plan {
            n,
            algorithm,
            split_depth: depth,
            frames,
            families,
            subproblems,
            board: None,
            hash: 0,
        };
        plan.hash = plan.fingerprint();
        Ok(plan)
    }

    /// The plan of a constrained board: prefixes of its first `split_depth` free rows
    /// (`None`: enough pieces for many threads, or one piece where the rook counter's
    /// dynamic programme or Ryser's formula counts the whole board at once).
    pub fn constrained(board: &Board, split_depth: Option<usize>) -> Result<Plan, Error> {
        board.check_count_fits()?;
        let (depth, mut subproblems) = constrained::subproblems(board, split_depth)?;
        for (i, s) in subproblems.iter_mut().enumerate() {
            s.id = i as u64;
        }
        let mut plan = Plan {
            n: board.n(),
            algorithm: Algorithm::Constrained,
            split_depth: depth,
            frames: Vec::new(),
            families: Vec::new(),
            subproblems,
            board: Some(board.clone()),
            hash: 0,
        };
        plan.hash = plan.fingerprint();
        Ok(plan)
    }

    /// The same kind of plan (same board, if any) with another split depth.
    pub fn resplit(&self, split_depth: usize) -> Result<Plan, Error> {
        match &self.board {
            Some(b) => Plan::constrained(b, Some(split_depth)),
            None => Plan::build(self.n, self.algorithm, Some(split_depth)),
        }
    }

    /// Whether the plan also yields the unique count.
    pub fn has_unique(&self) -> bool {
        self.algorithm.has_unique()
    }

    /// The plan's hash as 16 hex digits, as written in files.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash)
    }

    fn fingerprint(&self) -> u64 {
        let mut h = crate::hash::Fnv::new();
        h.write_str("nqueens-plan-1");
        h.write_u64(self.n as u64);
        h.write_str(self.algorithm.name());
        h.write_u64(self.split_depth as u64);
        if let Some(b) = &self.board {
            b.fingerprint(&mut h);
        }
        h.write_u64(self.frames.len() as u64);
        for f in &self.frames {
            h.write_u64(f.mask);
            h.write_u64(f.depth as u64);
            for l in 0..f.depth {
                h.write_u64(f.fixed[l]);
                h.write_u64(u64::from(f.step[l]));
            }
        }
        h.write_u64(self.subproblems.len() as u64);
        for s in &self.subproblems {
            h.write_u64(s.id);
            match s.work {
                Work::Complete {
                    frame,
                    start,
                    weight,
                } => {
                    h.write_u64(u64::from(frame));
                    h.write_u64(start.level as u64);
                    h.write_u64(start.cols);
                    h.write_u64(start.diag);
                    h.write_u64(start.anti);
                    h.write_u64(u64::from(weight));
                }
                Work::Invariant { quarter, first } => {
                    h.write_u64(1 + u64::from(quarter));
                    h.write_u64(u64::from(first));
                }
                Work::Constrained { start } => {
                    h.write_u64(4);
                    h.write_u64(start.level as u64);
                    h.write_u64(start.cols);
                    h.write_u64(start.diag);
                    h.write_u64(start.anti);
                }
                Work::Join { unit, weight } => {
                    h.write_u64(3);
                    h.write_u64(u64::from(unit.east_rows));
                    h.write_u64(u64::from(unit.span));
                    let (m, k) = unit.middle.map_or((u64::MAX, u64::MAX), |m| {
                        (m.column_queen.into(), m.row_queen.into())
                    });
                    h.write_u64(m);
                    h.write_u64(k);
                    h.write_u64(u64::from(weight));
                }
            }
        }
        h.finish()
    }
}

/// The searches for solutions a half or a quarter turn leaves unchanged (Burnside's lemma),
/// one per column of the row-0 queen.
fn push_invariants(n: usize, subproblems: &mut Vec<Subproblem>) {
    if n < 2 {
        return;
    }
    for quarter in [false, true] {
        for first in 0..n {
            subproblems.push(Subproblem {
                id: 0,
                work: Work::Invariant {
                    quarter,
                    first: first as u8,
                },
                estimate: 1.0,
            });
        }
    }
}

const _: () = assert!(MAX_N <= 32, "masks need room for shifted diagonals");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positions_and_plans_are_deterministic() {
        for alg in Algorithm::ALL {
            let a = Plan::build(12, alg, None).unwrap();
            let b = Plan::build(12, alg, None).unwrap();
            assert_eq!(a.families.len(), a.frames.len());
            assert_eq!(a.hash, b.hash);
            assert!(
                a.subproblems
                    .iter()
                    .enumerate()
                    .all(|(i, s)| s.id == i as u64)
            );
            if alg == Algorithm::Join {
                // The join plan has no split depth; asking for one is an error, 0 is its own.
                assert!(Plan::build(12, alg, Some(1)).is_err());
                assert_eq!(Plan::build(12, alg, Some(0)).unwrap().hash, a.hash);
                assert_ne!(Plan::build(13, alg, None).unwrap().hash, a.hash);
                continue;
            }
            let c = Plan::build(12, alg, Some(a.split_depth + 1)).unwrap();
            assert_ne!(a.hash, c.hash);
        }
    }

    #[test]
    fn the_default_algorithm_is_the_measured_fastest() {
        let join: Vec<usize> = (1..=32)
            .filter(|&n| Algorithm::default_for(n) == Algorithm::Join)
            .collect();
        let mut want = vec![12];
        want.extend(14..=MAX_JOIN_N);
        assert_eq!(join, want);
    }

    #[test]
    fn algorithm_names_round_trip_and_unknown_ones_are_refused() {
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
        }
        let err = "fast".parse::<Algorithm>().unwrap_err().to_string();
        assert!(err.contains("'fast'"), "{err}");
    }

    #[test]
    fn bad_split_depths_are_refused() {
        assert!(Plan::build(8, Algorithm::Plain, Some(0)).is_err());
        assert!(Plan::build(8, Algorithm::Plain, Some(MAX_SPLIT_DEPTH + 1)).is_err());
        assert!(Plan::build(8, Algorithm::Symmetry, Some(0)).is_ok());
        let err = Plan::build(14, Algorithm::Join, Some(2))
            .unwrap_err()
            .to_string();
        assert!(err.contains("join") && !err.contains("--"), "{err}");
    }

    #[test]
    fn default_plans_make_enough_pieces() {
        let p = Plan::build(16, Algorithm::Symmetry, None).unwrap();
        assert!(p.subproblems.len() >= 1024);
        let p = Plan::build(12, Algorithm::Plain, None).unwrap();
        assert!(p.subproblems.len() >= 1024);
    }

    #[test]
    fn every_default_plan_up_to_the_largest_board_can_be_made() {
        for n in [1, 2, 3, 9, 17, 24, 28, 32] {
            for alg in [Algorithm::Plain, Algorithm::Symmetry] {
                let p = Plan::build(n, alg, None).unwrap();
                assert!(p.subproblems.len() <= MAX_SUBPROBLEMS, "n = {n} {alg}");
            }
        }
    }

    #[test]
    fn boards_past_the_join_range_are_refused_before_any_list() {
        let err = Plan::build(MAX_JOIN_N + 1, Algorithm::Join, None).unwrap_err();
        assert!(matches!(err, Error::JoinTooLarge { .. }), "{err}");
    }
}
