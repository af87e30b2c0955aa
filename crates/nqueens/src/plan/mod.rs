//! The plan: the list of independent entries a count is made of, what every run, checkpoint,
//! shard and release of a count agrees on.
//!
//! A plan is a pure value, a function of the board size, the algorithm and the split depth
//! alone (never of the thread count, the machine or the slice time), so the same entry number
//! names the same work in every run, checkpoint and shard: entries are stable. Its
//! [`Plan::hash`] fingerprints the whole list, so that results made for one plan are never
//! mixed into another. How a run cuts the entries into slices, and the ids it numbers the
//! slices by, are the run's and not stable: another slice time numbers them otherwise. They
//! are a [`Cut`] (`cut.rs`), made only there. What the engines prepare to count a plan (the
//! join algorithm's quadrant lists) belongs to the run, not to the plan.
//!
//! Each algorithm has its own way of splitting, in its own file:
//! * `plain` (`prefix.rs`) pre-places the first rows, with the left-right mirror of row 0;
//! * `symmetry` (`constellation`) pre-places the queens of the four border lines, one
//!   constellation per orbit of the eight board symmetries;
//! * `join` (`join.rs`) makes one subproblem per east row set of the half-board join;
//! * `constrained` (`constrained.rs`) pre-places the first free rows of a constrained board
//!   ([`crate::constraint`]), which the plan carries (and fingerprints).
//!
//! Both symmetric plans end with the searches for rotation-invariant solutions that give the unique
//! count (Burnside's lemma, in the engines' `symmetry`; `invariants.rs`). Which entries of the plan
//! a shard owns is `shards.rs`.

pub(crate) mod constellation;

mod algorithm;
mod constrained;
mod cut;
mod entries;
mod error;
mod invariants;
mod join;
mod limits;
mod prefix;
mod shards;
mod size;
mod work;

use std::fmt;
use std::str::FromStr;

use crate::board::{self, MAX_N};
use crate::constraint::Board;
use entries::Entries;

pub use algorithm::Algorithm;
pub use cut::Cut;
pub use error::PlanError;
pub(crate) use size::{build_bytes, fixed_build_bytes};
pub use work::Slice;
pub(crate) use work::{AddsTo, Family, Frame, Middle, Start, Subproblem, Unit, Work};

#[cfg(test)]
pub(crate) use prefix::bits;

/// One of [`Algorithm::ALL`] by its name; `constrained` is not among them (it needs a board,
/// [`Algorithm::from_name`]).
impl FromStr for Algorithm {
    type Err = PlanError;
    fn from_str(s: &str) -> Result<Self, PlanError> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| PlanError::UnknownAlgorithm(s.to_string()))
    }
}

/// A plan's fingerprint ([`Plan::hash`]), written in files as 16 lowercase hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlanHash(u64);

impl fmt::Display for PlanHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl FromStr for PlanHash {
    type Err = PlanError;

    /// Exactly 16 lowercase hex digits, as written.
    fn from_str(s: &str) -> Result<PlanHash, PlanError> {
        let digits = s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        match u64::from_str_radix(s, 16) {
            Ok(h) if digits => Ok(PlanHash(h)),
            _ => Err(PlanError::BadHash(s.chars().take(40).collect())),
        }
    }
}

impl serde::Serialize for PlanHash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for PlanHash {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<PlanHash, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The whole list of entries of one count: its identity, the same for every run (how a run
/// cuts the entries into slices is a [`Cut`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    n: usize,
    algorithm: Algorithm,
    split_depth: usize,
    /// The row layouts the kernel searches; subproblems refer to them by index.
    frames: Vec<Frame>,
    /// Which family of the plan each frame belongs to (parallel to `frames`).
    families: Vec<Family>,
    /// The entries, in order: each one whole.
    entries: Entries,
    board: Option<Board>,
    /// Whether the join units of an even board are counted with the quarter turns
    /// (`join.rs`): from [`join::QUARTER_TURNS_FROM`] on, since format version 3.
    quarter_turns: bool,
    /// Fingerprint of everything above.
    hash: u64,
}

/// The version of the plans' identity and of the files that name them; what each version
/// changed is told in `persist::journal`, which reads the files of every one. Raise it with
/// any change to [`Plan::hash`] of any board or to the files, and update the pinned hashes
/// (`tests/data/plan-hashes.txt`) in the same commit.
pub(crate) const FORMAT_VERSION: u32 = 4;

/// The most slices one entry is cut into: 2^20, whose bookkeeping
/// (`budget::BYTES_PER_SUBPROBLEM` a subproblem) is 128 MiB, which one shard, owning whole
/// entries, must hold. Only the largest kernel searches from n = 30 on reach it (they would
/// take up to 88 million slices of the slice time), and their slices then take minutes. A
/// file that claims more for an entry is refused.
pub const MOST_SLICES: u64 = 1 << 20;

impl Plan {
    /// The version of the plans' identity and of the files that name them (see
    /// `ARCHITECTURE.md`): raised with any change to [`Plan::hash`] of any board.
    pub const FORMAT_VERSION: u32 = FORMAT_VERSION;

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Counting method.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Rows pre-placed by the plan (plain: rows from the top; symmetry: interior rows beyond
    /// the border queens; join: 0).
    pub fn split_depth(&self) -> usize {
        self.split_depth
    }

    /// The board of a constrained plan.
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// Builds the plan for `n` with `algorithm`; `split_depth: None` picks a depth that makes
    /// at least `target_subproblems` subproblems.
    pub fn build(
        n: usize,
        algorithm: Algorithm,
        split_depth: Option<usize>,
    ) -> Result<Plan, PlanError> {
        board::validate(n)?;
        let mut entries = Entries::default();
        let (depth, frames, families) = match algorithm {
            Algorithm::Constrained => return Err(PlanError::BoardNeeded),
            Algorithm::Join => {
                join::push_subproblems(n, split_depth, |s| entries.push(s))?;
                (0, Vec::new(), Vec::new())
            }
            Algorithm::Plain | Algorithm::Symmetry => {
                let (frames, families, roots) = if algorithm == Algorithm::Plain {
                    prefix::roots(n)
                } else {
                    constellation::roots(n)
                };
                let lowest = usize::from(algorithm == Algorithm::Plain);
                let (depth, subproblems) = prefix::split(&frames, roots, lowest, split_depth, n)?;
                entries.extend(subproblems.into_iter().map(|r| Work::Complete {
                    frame: r.frame,
                    start: r.start.into(),
                    weight: r.weight,
                }));
                (depth, frames.iter().map(Frame::from).collect(), families)
            }
        };
        if algorithm.has_unique() {
            invariants::push(n, &mut entries);
        }
        entries.shrink_to_fit();
        Ok(Plan::assemble(
            (n, algorithm, depth),
            (frames, families),
            entries,
            None,
        ))
    }

    /// The plan of a constrained board: prefixes of its first `split_depth` free rows
    /// (`None`: enough subproblems for many threads, or one subproblem where the rook counter's
    /// dynamic programme or Ryser's formula counts the whole board at once).
    pub fn constrained(board: &Board, split_depth: Option<usize>) -> Result<Plan, PlanError> {
        board.check_count_fits()?;
        let (depth, subproblems) = constrained::subproblems(board, split_depth)?;
        let mut entries = Entries::default();
        entries.extend(subproblems);
        Ok(Plan::assemble(
            (board.n(), Algorithm::Constrained, depth),
            (Vec::new(), Vec::new()),
            entries,
            Some(board.clone()),
        ))
    }

    /// The plan for `n` with `algorithm`, of `board` where one is given (which only the
    /// constrained algorithm counts).
    pub fn of(
        n: usize,
        algorithm: Algorithm,
        board: Option<&Board>,
        split_depth: Option<usize>,
    ) -> Result<Plan, PlanError> {
        match (board, algorithm) {
            (Some(board), Algorithm::Constrained) => Plan::constrained(board, split_depth),
            (Some(_), other) => Err(PlanError::MethodForBoard(other)),
            (None, algorithm) => Plan::build(n, algorithm, split_depth),
        }
    }

    /// The one way a plan is made from its parts: its hash taken over all of it, so that
    /// what is derived is derived once.
    fn assemble(
        (n, algorithm, split_depth): (usize, Algorithm, usize),
        (frames, families): (Vec<Frame>, Vec<Family>),
        entries: Entries,
        board: Option<Board>,
    ) -> Plan {
        let mut plan = Plan {
            n,
            algorithm,
            split_depth,
            frames,
            families,
            entries,
            quarter_turns: algorithm == Algorithm::Join && join::quarter_turns(n),
            board,
            hash: 0,
        };
        plan.hash = plan.fingerprint_with(plan.quarter_turns);
        plan
    }

    /// The same kind of plan (same board, if any) with another split depth.
    pub(crate) fn resplit(&self, split_depth: usize) -> Result<Plan, PlanError> {
        match &self.board {
            Some(b) => Plan::constrained(b, Some(split_depth)),
            None => Plan::build(self.n, self.algorithm, Some(split_depth)),
        }
    }

    /// The plan a file names with `hash` and `split_depth`, from this one (the plan a run
    /// or a reading built from the file's board and algorithm): this plan if it is that one;
    /// else the plan format version 2 made of the same board ([`Plan::before_quarter_turns`]);
    /// else, with `resplit`, the same kind of plan at the file's split depth, if its hash is
    /// `hash`; else this plan, which the file's checks then refuse. The one place that finds
    /// a file's plan, for a resume and for a merge or a status alike.
    pub(crate) fn for_file(self, hash: PlanHash, split_depth: usize, resplit: bool) -> Plan {
        if self.hash() == hash {
            return self;
        }
        if let Some(before) = self.before_quarter_turns(hash) {
            return before;
        }
        if resplit
            && let Ok(p) = self.resplit(split_depth)
            && p.hash() == hash
        {
            return p;
        }
        self
    }

    /// The number of entries (join units, kernel searches, constrained searches, the
    /// searches of the unique count): what the plan's identity is made of, and what shards
    /// own.
    pub fn entry_count(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Bytes the plan holds (its listed entries and frames), about.
    pub(crate) fn bytes(&self) -> u64 {
        (self.entries.bytes() + self.frames.capacity() * std::mem::size_of::<Frame>()) as u64
    }

    /// The work of entry `entry` (below [`Plan::entry_count`]), whole.
    pub(crate) fn entry(&self, entry: u64) -> Work {
        self.entries.get(entry as usize)
    }

    /// The work of every entry, in order.
    pub(crate) fn works(&self) -> impl Iterator<Item = Work> + '_ {
        self.entries.iter()
    }

    /// The most solutions a share of `work` can count before its weight (a checked result
    /// never passes it): a search completes its empty rows with one queen in each of as many free
    /// columns, at most (rows left)! ways; a join unit pairs, for each of its row sets, a
    /// west and an east half-board, each h queens on h rows and h columns, at most (h!)²;
    /// a search of the unique count fixes the row-0 queen, (n − 1)!.
    pub(crate) fn count_bound(&self, work: &Work) -> u128 {
        let factorial = |k: usize| (1..=k as u128).product::<u128>();
        match *work {
            Work::Complete { frame, start, .. } => {
                factorial(self.frame(frame).depth.saturating_sub(start.level))
            }
            Work::Constrained { start, .. } => factorial(self.n.saturating_sub(start.level)),
            Work::HalfTurn { .. } | Work::QuarterTurn { .. } => factorial(self.n - 1),
            Work::Join { unit, .. } => {
                let half = factorial(self.n / 2);
                // A solution counts twice where the quarter turns weigh it so.
                let times = 1 + u128::from(self.quarter_turns);
                times * u128::from(unit.span) * half * half
            }
        }
    }

    /// The fingerprint of the whole plan: results made for one plan are never mixed into
    /// another.
    pub fn hash(&self) -> PlanHash {
        PlanHash(self.hash)
    }

    /// The row layout the kernel searches for frame `frame` of a [`Work::Complete`] subproblem.
    pub(crate) fn frame(&self, frame: u32) -> &Frame {
        &self.frames[frame as usize]
    }

    /// Every frame of the plan, by index (none for plans without frames).
    pub(crate) fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The plan's family of frame `frame` (none for plans without frames).
    pub(crate) fn family(&self, frame: u32) -> Option<Family> {
        self.families.get(frame as usize).copied()
    }

    /// What kind of work entry `entry` is, in words, for reports of where a count's time goes:
    /// the family of a kernel search (`corner queen`, `plain prefixes`, ...), the kind of a
    /// join unit (`join: row sets`, `join: two middle queens`, `join: centre queen`), a search
    /// of the unique count or of a constrained board.
    pub fn describe(&self, entry: u64) -> &'static str {
        match self.entry(entry) {
            Work::Complete { frame, .. } => self.family(frame).map_or("search", Family::describe),
            Work::HalfTurn { .. } => "half-turn invariant (unique)",
            Work::QuarterTurn { .. } => "quarter-turn invariant (unique)",
            Work::Constrained { .. } => "constrained board",
            Work::Join { unit, .. } => match unit.middle {
                None => "join: row sets",
                Some(m)
                    if m.column_queen == m.row_queen
                        && 2 * usize::from(m.row_queen) + 1 == self.n =>
                {
                    "join: centre queen"
                }
                Some(_) => "join: two middle queens",
            },
        }
    }

    /// The solutions each raw count of entry `entry` (or of any slice of it) stands for: the
    /// size of its orbit under the symmetries the plan uses.
    pub fn weight_of(&self, entry: u64) -> u8 {
        self.entry(entry).weight()
    }

    /// Whether the join units of an even board are counted with the quarter turns
    /// (`join.rs`): what their counts mean, so part of the plan's identity.
    pub(crate) fn quarter_turns(&self) -> bool {
        self.quarter_turns
    }

    /// The plan format version 2 made of the same board, if that is another and its hash is
    /// `hash`: a join plan of an even board from [`join::QUARTER_TURNS_FROM`] on, without the
    /// quarter turns. Files of that plan (written by version 2, or resumed and written back
    /// since) are read and counted on with it, so that a count begun under version 2
    /// finishes as it began. The old hash is computed first, and the plan copied only for
    /// such a file.
    pub(crate) fn before_quarter_turns(&self, hash: PlanHash) -> Option<Plan> {
        let wanted =
            self.quarter_turns && hash.0 != self.hash && self.fingerprint_with(false) == hash.0;
        wanted.then(|| {
            let mut plan = self.clone();
            plan.quarter_turns = false;
            plan.hash = hash.0;
            plan
        })
    }

    /// Whether the plan also yields the unique count.
    pub fn has_unique(&self) -> bool {
        self.algorithm.has_unique()
    }

    /// The plan's identity as a number, with or without the quarter turns: the board, the
    /// algorithm, the split depth, the frames and every entry with its weight, integers only.
    /// How a run cuts the entries into slices is not part of it. For a plan none of whose
    /// entries format version 1 cut, this is the hash version 1 wrote (it wrote a slice count
    /// only where an entry was cut), so that those files are read as they are.
    fn fingerprint_with(&self, quarter_turns: bool) -> u64 {
        let mut h = crate::hash::Fnv::new();
        h.write_str("nqueens-plan-1");
        h.write_u64(self.n as u64);
        h.write_str(self.algorithm.name());
        if quarter_turns {
            // Since format version 3; the plans without keep the hash they had.
            h.write_str("quarter-turns");
        }
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
        let write_start = |h: &mut crate::hash::Fnv, start: Start| {
            h.write_u64(start.level as u64);
            h.write_u64(start.cols);
            h.write_u64(start.diag);
            h.write_u64(start.anti);
        };
        h.write_u64(self.entries.len() as u64);
        for (index, work) in self.entries.iter().enumerate() {
            h.write_u64(index as u64);
            match work {
                Work::Complete {
                    frame,
                    start,
                    weight,
                } => {
                    h.write_u64(u64::from(frame));
                    write_start(&mut h, start);
                    h.write_u64(u64::from(weight));
                }
                Work::HalfTurn { first } => {
                    h.write_u64(1);
                    h.write_u64(u64::from(first));
                }
                Work::QuarterTurn { first } => {
                    h.write_u64(2);
                    h.write_u64(u64::from(first));
                }
                Work::Constrained { start } => {
                    h.write_u64(4);
                    write_start(&mut h, start);
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

const _: () = assert!(MAX_N <= 32, "masks need room for shifted diagonals");

#[cfg(test)]
mod tests;
