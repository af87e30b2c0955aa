//! The plan: the list of independent subproblems a count is made of, each with a stable id.
//!
//! A plan is a pure function of the board size, the algorithm and the split depth, so the same
//! id names the same piece of work in every run, checkpoint and shard. Its [`Plan::hash`]
//! fingerprints the whole list, so that results made for one plan are never mixed into another.
//!
//! * `plain` pre-places the first rows. The queen of row 0 stays in the left half and counts
//!   twice (its mirror image is the right half); for odd n the middle column of row 0 is taken
//!   with row 1 in its left half, also counted twice (Richards 1997; Somers 2002).
//! * `symmetry` pre-places the queens of the four border lines (row 0, the last row, column 0,
//!   the last column: every solution has exactly one queen on each, a corner queen serving two).
//!   Solutions with border queens `B` and `g(B)` correspond one to one under each board symmetry
//!   `g`, so only the smallest constellation of each orbit is searched, counted as many times as
//!   its orbit has members (8, 4 or 2). This is the start-constellation method of the Q27 project
//!   (Preußer and Engelhardt) and NQueensFAF. Further interior rows may be pre-placed to make
//!   more, smaller subproblems. The plan ends with the small searches for rotation-invariant
//!   solutions that give the unique count.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use crate::Error;
use crate::board::{self, MAX_N};
use crate::engine::kernel::{Frame, Start};
use crate::symmetry::Sym;

/// Which counting method a plan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// Row-by-row search of the whole board with the left-right mirror only.
    Plain,
    /// Border constellations, one per orbit of the eight board symmetries, plus the unique count.
    Symmetry,
    /// Half-boards built from quadrant lists and paired by diagonal patterns ([`crate::engine::join`]),
    /// plus the unique count.
    Join,
}

impl Algorithm {
    /// Every algorithm, in the order they are documented.
    pub const ALL: [Algorithm; 3] = [Algorithm::Plain, Algorithm::Symmetry, Algorithm::Join];

    /// The algorithm a count of an n×n board uses unless told otherwise: the fastest one by
    /// measurement (`results/2026-11-30-vm`, and shards of n = 21..=23): `join` for n = 12 and
    /// from 14 up to [`crate::engine::join::MAX_JOIN_N`], `symmetry` elsewhere. At n = 13 `join` is a
    /// little slower (12.2 ms against 11.8 ms: the middle queens of odd boards make many small
    /// units); below 12 both take well under a millisecond.
    pub fn default_for(n: usize) -> Algorithm {
        if n == 12 || (14..=crate::engine::join::MAX_JOIN_N).contains(&n) {
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
        }
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
            .find(|a| a.name() == s)
            .ok_or_else(|| Error::Algorithm(s.to_string()))
    }
}

/// The family of a frame, for reports and diagnostics.
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
        unit: crate::engine::join::Unit,
        /// Solutions each pair stands for (orbit size of the unit).
        weight: u8,
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
#[derive(Clone, Debug)]
pub struct Plan {
    /// Board size.
    pub n: usize,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Rows pre-placed by the plan (plain: rows from the top; symmetry: interior rows beyond the
    /// border queens).
    pub split_depth: usize,
    /// The row layouts the kernel searches; subproblems refer to them by index.
    pub frames: Vec<Frame>,
    /// Which family of the plan each frame belongs to (parallel to `frames`).
    pub families: Vec<Family>,
    /// The subproblems, `subproblems[i].id == i`.
    pub subproblems: Vec<Subproblem>,
    /// Fingerprint of everything above.
    pub hash: u64,
    /// The join algorithm's quadrant lists, built on first use and shared by every thread.
    quadrants: Arc<OnceLock<crate::engine::join::Quadrants>>,
}

/// The most subproblems a plan may have (each takes about 64 bytes).
pub const MAX_SUBPROBLEMS: usize = 1 << 24;
/// The deepest split the command line accepts.
pub const MAX_SPLIT_DEPTH: usize = 8;

/// How many subproblems a default plan aims for: enough for every thread to get many, and for
/// large boards small enough pieces that a run can stop (and a checkpoint be saved) quickly.
pub fn target_subproblems(n: usize, threads: usize) -> usize {
    let base = match n {
        0..=9 => 1,
        10..=17 => 1024,
        _ => (4096usize << (2 * (n - 18).min(6))).min(1 << 20),
    };
    base.max(16 * threads.max(1))
}

impl Plan {
    /// Builds the plan for `n` with `algorithm`; `split_depth: None` picks a depth that makes
    /// at least [`target_subproblems`] pieces.
    pub fn build(
        n: usize,
        algorithm: Algorithm,
        split_depth: Option<usize>,
        threads: usize,
    ) -> Result<Plan, Error> {
        board::validate(n)?;
        if algorithm == Algorithm::Join {
            return Plan::build_join(n, split_depth);
        }
        if let Some(d) = split_depth {
            let lowest = usize::from(algorithm == Algorithm::Plain);
            if d < lowest || d > MAX_SPLIT_DEPTH {
                return Err(Error::SplitDepth {
                    depth: d,
                    lowest,
                    highest: MAX_SPLIT_DEPTH,
                });
            }
        }
        let (frames, families, roots) = match algorithm {
            Algorithm::Plain => plain_roots(n),
            Algorithm::Symmetry => constellations(n),
            Algorithm::Join => unreachable!("join plans are built by build_join"),
        };
        let base_depth = usize::from(algorithm == Algorithm::Plain);
        let mut pieces = roots;
        let mut depth = base_depth;
        let wanted = split_depth.unwrap_or(usize::MAX);
        let target = target_subproblems(n, threads);
        while depth < wanted {
            if split_depth.is_none() && (pieces.len() >= target || depth >= MAX_SPLIT_DEPTH) {
                break;
            }
            let deeper = deepen(&frames, &pieces);
            if deeper.len() > MAX_SUBPROBLEMS {
                return Err(Error::PlanTooLarge {
                    depth: depth + 1,
                    limit: MAX_SUBPROBLEMS,
                });
            }
            // For large boards, a default plan that already has half its target stops short of
            // overshooting it by far: millions of pieces cost memory and make checkpoints slow
            // to write. (Small targets always split: a few huge frames would run alone.)
            let overshoot =
                target >= 1 << 16 && 2 * pieces.len() >= target && deeper.len() > 4 * target;
            if split_depth.is_none() && (deeper.len() == pieces.len() || overshoot) {
                break;
            }
            pieces = deeper;
            depth += 1;
        }
        let mut subproblems: Vec<Subproblem> = pieces
            .into_iter()
            .map(|(frame, start, weight)| Subproblem {
                id: 0,
                work: Work::Complete {
                    frame,
                    start,
                    weight,
                },
                estimate: estimate(&frames[frame as usize], &start),
            })
            .collect();
        if algorithm == Algorithm::Symmetry {
            push_invariants(n, &mut subproblems);
        }
        Ok(Plan::finish(
            n,
            algorithm,
            depth,
            frames,
            families,
            subproblems,
        ))
    }

    /// The join plan: one subproblem per join unit ([`crate::engine::join::units`]), then the
    /// invariant searches for the unique count. It has no split depth (0).
    fn build_join(n: usize, split_depth: Option<usize>) -> Result<Plan, Error> {
        if let Some(d) = split_depth.filter(|&d| d > 0) {
            return Err(Error::JoinSplitDepth(d));
        }
        if n > crate::engine::join::MAX_JOIN_N {
            return Err(Error::JoinTooLarge {
                n,
                largest: crate::engine::join::MAX_JOIN_N,
            });
        }
        let mut subproblems: Vec<Subproblem> = crate::engine::join::units(n)
            .into_iter()
            .map(|(unit, weight)| Subproblem {
                id: 0,
                work: Work::Join { unit, weight },
                estimate: 1.0,
            })
            .collect();
        push_invariants(n, &mut subproblems);
        Ok(Plan::finish(
            n,
            Algorithm::Join,
            0,
            Vec::new(),
            Vec::new(),
            subproblems,
        ))
    }

    fn finish(
        n: usize,
        algorithm: Algorithm,
        split_depth: usize,
        frames: Vec<Frame>,
        families: Vec<Family>,
        mut subproblems: Vec<Subproblem>,
    ) -> Plan {
        for (i, s) in subproblems.iter_mut().enumerate() {
            s.id = i as u64;
        }
        let mut plan = Plan {
            n,
            algorithm,
            split_depth,
            frames,
            families,
            subproblems,
            hash: 0,
            quadrants: Arc::default(),
        };
        plan.hash = plan.fingerprint();
        plan
    }

    /// Checks that counting this plan on `threads` threads fits in the available memory (only
    /// the join algorithm's lists are large enough to matter).
    pub fn check_memory(&self, threads: usize) -> Result<(), Error> {
        match self.algorithm {
            Algorithm::Join => {
                let needed = crate::engine::join::memory_needed(self.n, threads);
                match crate::memory::available() {
                    Some(available) if needed > available => Err(Error::JoinMemory {
                        n: self.n,
                        threads,
                        needed: crate::memory::human(needed),
                        available: crate::memory::human(available),
                    }),
                    _ => Ok(()),
                }
            }
            Algorithm::Plain | Algorithm::Symmetry => Ok(()),
        }
    }

    /// Builds what the subproblems share before they start: the join algorithm's quadrant
    /// lists (in parallel when called inside a worker pool); nothing for the others.
    pub fn prepare(&self) {
        if self.algorithm == Algorithm::Join {
            self.quadrants();
        }
    }

    /// The join algorithm's quadrant lists (built by the first caller, then shared).
    pub fn quadrants(&self) -> &crate::engine::join::Quadrants {
        self.quadrants
            .get_or_init(|| crate::engine::join::Quadrants::build(self.n))
    }

    /// Whether the plan also yields the unique count.
    pub fn has_unique(&self) -> bool {
        self.algorithm != Algorithm::Plain
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

type Piece = (u32, Start, u8);

/// The plain plan's first row: the left half counted twice, and for odd n the middle column
/// with row 1 in its left half, counted twice. A 1×1 board has its single square.
fn plain_roots(n: usize) -> (Vec<Frame>, Vec<Family>, Vec<Piece>) {
    let frame = Frame::open(n, n);
    let root = Start::default();
    let mut pieces = Vec::new();
    if n == 1 {
        pieces.push((0, frame.descend(&root, 1), 1));
        return (vec![frame], vec![Family::Prefix], pieces);
    }
    for c in 0..n / 2 {
        pieces.push((0, frame.descend(&root, board::bit(c)), 2));
    }
    if n % 2 == 1 {
        let middle = frame.descend(&root, board::bit(n / 2));
        let free = frame.free(&middle) & board::full_mask(n / 2);
        for c in bits(free) {
            pieces.push((0, frame.descend(&middle, board::bit(c)), 2));
        }
    }
    (vec![frame], vec![Family::Prefix], pieces)
}

/// Every piece's children one level down, in increasing column order.
fn deepen(frames: &[Frame], pieces: &[Piece]) -> Vec<Piece> {
    let mut out = Vec::with_capacity(pieces.len() * 4);
    for &(f, start, weight) in pieces {
        let frame = &frames[f as usize];
        if start.level >= frame.depth {
            out.push((f, start, weight));
            continue;
        }
        for c in bits(frame.free(&start)) {
            out.push((f, frame.descend(&start, board::bit(c)), weight));
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

/// A border constellation: the columns of the queens in the first and last rows (`top`,
/// `bottom`) and the rows of the queens in the first and last columns (`left`, `right`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constellation {
    /// Column of the queen in row 0.
    pub top: usize,
    /// Column of the queen in row n-1.
    pub bottom: usize,
    /// Row of the queen in column 0.
    pub left: usize,
    /// Row of the queen in column n-1.
    pub right: usize,
}

impl Constellation {
    /// Its distinct queens (a corner queen serves two border lines).
    pub fn squares(&self, n: usize) -> Vec<(usize, usize)> {
        let mut s = vec![
            (0, self.top),
            (n - 1, self.bottom),
            (self.left, 0),
            (self.right, n - 1),
        ];
        s.sort_unstable();
        s.dedup();
        s
    }

    /// Reads the constellation of a set of squares, if each border line holds exactly one.
    pub fn from_squares(n: usize, squares: &[(usize, usize)]) -> Option<Constellation> {
        let only = |hits: Vec<usize>| if hits.len() == 1 { Some(hits[0]) } else { None };
        let on = |f: &dyn Fn(&(usize, usize)) -> Option<usize>| {
            only(squares.iter().filter_map(f).collect())
        };
        Some(Constellation {
            top: on(&|&(r, c)| (r == 0).then_some(c))?,
            bottom: on(&|&(r, c)| (r == n - 1).then_some(c))?,
            left: on(&|&(r, c)| (c == 0).then_some(r))?,
            right: on(&|&(r, c)| (c == n - 1).then_some(r))?,
        })
    }

    fn code(&self, n: usize) -> usize {
        ((self.top * n + self.bottom) * n + self.left) * n + self.right
    }

    /// The images of this constellation under the eight symmetries.
    pub fn images(&self, n: usize) -> Vec<Constellation> {
        let squares = self.squares(n);
        Sym::ALL
            .iter()
            .map(|&g| {
                let moved: Vec<_> = squares.iter().map(|&s| g.apply(n, s)).collect();
                Constellation::from_squares(n, &moved).expect("symmetries keep border lines")
            })
            .collect()
    }
}

/// Whether two distinct squares attack each other.
fn attack((r1, c1): (usize, usize), (r2, c2): (usize, usize)) -> bool {
    r1 == r2 || c1 == c2 || r1.abs_diff(r2) == c1.abs_diff(c2)
}

/// Every canonical border constellation with its orbit size, in increasing order of
/// `(top, bottom, left, right)`.
pub fn canonical_constellations(n: usize) -> Vec<(Constellation, u8)> {
    let mut out = Vec::new();
    // A canonical constellation's row-0 queen is the nearest of all four to a corner (every
    // border queen is carried to row 0, at its distance or its mirror's, by some symmetry), so
    // the loops skip every other one before looking at the images.
    let dist = |x: usize| corner_distance(n, x);
    for top in (0..n).filter(|&t| t <= n - 1 - t) {
        let near = dist(top);
        for bottom in (0..n).filter(|&x| dist(x) >= near) {
            for left in (0..n).filter(|&x| dist(x) >= near) {
                for right in (0..n).filter(|&x| dist(x) >= near) {
                    let k = Constellation {
                        top,
                        bottom,
                        left,
                        right,
                    };
                    let squares = k.squares(n);
                    if Constellation::from_squares(n, &squares) != Some(k) {
                        continue;
                    }
                    let peaceful = squares
                        .iter()
                        .enumerate()
                        .all(|(i, &a)| squares[i + 1..].iter().all(|&b| !attack(a, b)));
                    if !peaceful {
                        continue;
                    }
                    let mut codes: Vec<usize> = k.images(n).iter().map(|g| g.code(n)).collect();
                    let own = k.code(n);
                    if codes.iter().any(|&c| c < own) {
                        continue;
                    }
                    codes.sort_unstable();
                    codes.dedup();
                    out.push((k, codes.len() as u8));
                }
            }
        }
    }
    out
}

/// The kernel frame of a constellation: its empty rows with the squares its queens attack.
pub fn constellation_frame(n: usize, k: &Constellation) -> (Frame, Start) {
    let squares = k.squares(n);
    let rows: Vec<usize> = (0..n)
        .filter(|&r| squares.iter().all(|&(qr, _)| qr != r))
        .collect();
    let mut frame = Frame::open(n, rows.len());
    for (l, &r) in rows.iter().enumerate() {
        let mut attacked = 0u64;
        for &(qr, qc) in &squares {
            let d = r.abs_diff(qr);
            if qc + d < n {
                attacked |= board::bit(qc + d);
            }
            if qc >= d {
                attacked |= board::bit(qc - d);
            }
        }
        frame.fixed[l] = attacked;
        if l + 1 < rows.len() {
            frame.step[l] = (rows[l + 1] - r) as u32;
        }
    }
    let cols = squares.iter().fold(0, |m, &(_, c)| m | board::bit(c));
    let start = Start {
        cols,
        ..Start::default()
    };
    (frame, start)
}

/// Distance of a border square from the nearest corner along its border line.
fn corner_distance(n: usize, x: usize) -> usize {
    x.min(n - 1 - x)
}

/// Family 2 with the nearest queen in row 0, column `i`: columns 0 and n-1 are closed where a
/// queen there would be as near a corner as `i`, and so are the last row's columns near its
/// corners.
fn nearest_in_row_0(n: usize, i: usize) -> Frame {
    let edges = board::bit(0) | board::bit(n - 1);
    let mut frame = Frame::open(n, n);
    for r in 1..n {
        if corner_distance(n, r) <= i {
            frame.fixed[r] |= edges;
        }
    }
    for c in 0..n {
        if corner_distance(n, c) <= i {
            frame.fixed[n - 1] |= board::bit(c);
        }
    }
    frame
}

/// Family 2 turned a quarter: the nearest queen fixed in column 0, row `i`; every other row is
/// searched. The queen's diagonals close column `|r - i|` of each row `r`; rows 0 and n-1 are
/// closed near their corners, and column n-1 near its corners.
fn nearest_in_column_0(n: usize, i: usize) -> Frame {
    let rows: Vec<usize> = (0..n).filter(|&r| r != i).collect();
    let mut frame = Frame::open(n, rows.len());
    let near_corner: u64 = (0..n)
        .filter(|&c| corner_distance(n, c) <= i)
        .fold(0, |m, c| m | board::bit(c));
    for (l, &r) in rows.iter().enumerate() {
        frame.fixed[l] |= board::bit(r.abs_diff(i));
        if corner_distance(n, r) <= i {
            frame.fixed[l] |= board::bit(n - 1);
        }
        if r == 0 || r == n - 1 {
            frame.fixed[l] |= near_corner;
        }
        if l + 1 < rows.len() {
            frame.step[l] = (rows[l + 1] - r) as u32;
        }
    }
    frame
}

/// The full-symmetry plan's roots. Every solution orbit is counted through exactly one of
/// three families (see the module notes in `README.md`, "How the count is split"):
///
/// 1. a queen in a corner: it is placed at (0, 0), the queen of row 1 in column `a`, and the
///    queen of column 1 is kept below row `a`, which picks one of each transposed pair;
///    weight 8;
/// 2. no corner queen, and one border queen strictly nearer a corner than every other: turned
///    so that it stands in row 0, column `i` (or, for `i >= 3`, in column 0, row `i`), with
///    masks keeping the other border queens further out; weight 8, and the other border
///    queens are found by the search itself so that all of them share one tree;
/// 3. no corner queen, and another border queen exactly as near a corner as the row-0 queen:
///    the canonical constellations of all four border queens, weighted by orbit size.
fn constellations(n: usize) -> (Vec<Frame>, Vec<Family>, Vec<Piece>) {
    let mut frames = Vec::new();
    let mut families = Vec::new();
    let mut pieces = Vec::new();
    let root = Start::default();
    if n == 1 {
        let frame = Frame::open(1, 1);
        pieces.push((0, frame.descend(&root, 1), 1));
        return (vec![frame], vec![Family::Corner], pieces);
    }
    // 1. A corner queen at (0, 0); row 1 in column a >= 2; column 1 empty in rows 2..=a.
    for a in 2..n {
        let mut frame = Frame::open(n, n);
        for r in 2..=a.min(n - 1) {
            frame.fixed[r] |= board::bit(1);
        }
        let s0 = frame.descend(&root, board::bit(0));
        if frame.free(&s0) & board::bit(a) != 0 {
            pieces.push((frames.len() as u32, frame.descend(&s0, board::bit(a)), 8));
            frames.push(frame);
            families.push(Family::Corner);
        }
    }
    // 2. The nearest queen at distance i, every other border queen strictly further from its
    //    corners (so 2i + 2 < n: some column of the last row must be further still). The
    //    same solutions can be searched in two orientations: with the nearest queen in row 0
    //    (the search meets the other border lines at its bottom), or, turned a quarter, in
    //    column 0 at row i (the first and the last row are then both restricted, and the
    //    fixed queen's diagonals prune the rows above it). Measured node counts for
    //    n = 13..=18 favour the first for i < 3 and the second from i = 3 on.
    for i in (1..n).take_while(|&i| 2 * i + 2 < n) {
        let frame = if i < 3 {
            nearest_in_row_0(n, i)
        } else {
            nearest_in_column_0(n, i)
        };
        let start = if i < 3 {
            frame.descend(&root, board::bit(i))
        } else {
            Start {
                cols: board::bit(0),
                ..Start::default()
            }
        };
        pieces.push((frames.len() as u32, start, 8));
        frames.push(frame);
        families.push(Family::Nearest);
    }
    // 3. Ties: canonical constellations with another border queen at the row-0 queen's
    //    distance from a corner.
    for (k, weight) in canonical_constellations(n) {
        let d = k.top;
        let ties = [k.bottom, k.left, k.right]
            .iter()
            .any(|&x| corner_distance(n, x) == d);
        if d == 0 || !ties {
            continue;
        }
        let (frame, start) = constellation_frame(n, &k);
        pieces.push((frames.len() as u32, start, weight));
        frames.push(frame);
        families.push(Family::Tie);
    }
    (frames, families, pieces)
}

/// A rough size of the search below `start`: the product of the free squares each remaining
/// level would have if only the queens already placed counted, to the power 0.6 (the later
/// levels are emptier than that), which tracks the measured node counts well enough to order
/// work and to weight a time estimate.
pub fn estimate(frame: &Frame, start: &Start) -> f64 {
    let mut log = 0.0f64;
    let (mut diag, mut anti) = (start.diag, start.anti);
    for l in start.level..frame.depth {
        let free = frame.mask & !(start.cols | diag | anti | frame.fixed[l]);
        log += f64::from(free.count_ones().max(1)).ln();
        diag <<= frame.step[l].min(63);
        anti >>= frame.step[l].min(63);
    }
    (0.6 * log).exp()
}

const _: () = assert!(MAX_N <= 32, "masks need room for shifted diagonals");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positions_and_plans_are_deterministic() {
        for alg in Algorithm::ALL {
            let a = Plan::build(12, alg, None, 2).unwrap();
            let b = Plan::build(12, alg, None, 2).unwrap();
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
                assert!(Plan::build(12, alg, Some(1), 2).is_err());
                assert_eq!(Plan::build(12, alg, Some(0), 2).unwrap().hash, a.hash);
                assert_ne!(Plan::build(13, alg, None, 2).unwrap().hash, a.hash);
                continue;
            }
            let c = Plan::build(12, alg, Some(a.split_depth + 1), 2).unwrap();
            assert_ne!(a.hash, c.hash);
        }
    }

    #[test]
    fn the_default_algorithm_is_the_measured_fastest() {
        let join: Vec<usize> = (1..=32)
            .filter(|&n| Algorithm::default_for(n) == Algorithm::Join)
            .collect();
        let mut want = vec![12];
        want.extend(14..=crate::engine::join::MAX_JOIN_N);
        assert_eq!(join, want);
    }

    #[test]
    fn orbit_weights_are_eight_four_or_two() {
        for n in 4..=12 {
            for (k, w) in canonical_constellations(n) {
                assert!([2, 4, 8].contains(&w), "{k:?} weight {w}");
            }
        }
    }

    #[test]
    fn orbits_cover_every_constellation_once() {
        // The weights of the canonical constellations add up to the number of all peaceful
        // constellations.
        for n in 4..=9 {
            let mut all = 0usize;
            for top in 0..n {
                for bottom in 0..n {
                    for left in 0..n {
                        for right in 0..n {
                            let k = Constellation {
                                top,
                                bottom,
                                left,
                                right,
                            };
                            let s = k.squares(n);
                            let peaceful = s
                                .iter()
                                .enumerate()
                                .all(|(i, &a)| s[i + 1..].iter().all(|&b| !attack(a, b)));
                            if Constellation::from_squares(n, &s) == Some(k) && peaceful {
                                all += 1;
                            }
                        }
                    }
                }
            }
            let weighted: usize = canonical_constellations(n)
                .iter()
                .map(|&(_, w)| usize::from(w))
                .sum();
            assert_eq!(weighted, all, "n = {n}");
        }
    }

    #[test]
    fn bad_split_depths_are_refused() {
        assert!(Plan::build(8, Algorithm::Plain, Some(0), 1).is_err());
        assert!(Plan::build(8, Algorithm::Plain, Some(MAX_SPLIT_DEPTH + 1), 1).is_err());
        assert!(Plan::build(8, Algorithm::Symmetry, Some(0), 1).is_ok());
    }

    #[test]
    fn defaults_make_enough_pieces_for_many_threads() {
        let p = Plan::build(16, Algorithm::Symmetry, None, 2).unwrap();
        assert!(p.subproblems.len() >= 1024);
        let p = Plan::build(12, Algorithm::Plain, None, 64).unwrap();
        assert!(p.subproblems.len() >= 16 * 64);
    }
}
