//! Which counting method a plan uses, [`Algorithm`], and its names in files and on the command
//! line: apart from `plan/mod.rs`, so that the plan's error, which names an algorithm, takes it
//! from below.

use std::fmt;

use nqueens_engine::join::MAX_JOIN_N;

/// Which counting method a plan uses.
#[non_exhaustive]
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

    /// The algorithm a file names: one of [`Algorithm::ALL`], or `constrained` for the plan
    /// of a constrained board.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .chain([Algorithm::Constrained])
            .find(|a| a.name() == name)
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
