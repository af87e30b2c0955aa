//! What to count and how: the validated description of one count that every stage after it
//! reads. Building a [`Config`] never fails; its values are checked when a
//! [`Job`](crate::Job) is made from it.

use crate::constraint::Board;
use crate::plan::Algorithm;

/// The most worker threads a run accepts: far past any machine's hardware threads, and small
/// enough that a mistyped count is refused at once instead of starting a huge pool.
pub const MAX_THREADS: usize = 4096;

/// What to count and how.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Board size, 1..=32.
    pub n: usize,
    /// Worker threads, 1..=[`MAX_THREADS`]; 0 means every hardware thread.
    pub threads: usize,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Rows the plan pre-places; `None` picks a depth that makes plenty of subproblems.
    pub split_depth: Option<usize>,
    /// Bytes the run may use; `None`: what this process may use
    /// ([`crate::system::available_memory`]).
    pub memory: Option<u64>,
    /// A constrained board to count instead of the empty `n`×`n` one (see [`Config::board`]).
    pub board: Option<Board>,
}

impl Config {
    /// Counting an `n`×`n` board with the default method for its size
    /// ([`Algorithm::default_for`]) on every hardware thread.
    pub fn new(n: usize) -> Config {
        Config {
            n,
            threads: 0,
            algorithm: Algorithm::default_for(n),
            split_depth: None,
            memory: None,
            board: None,
        }
    }

    /// Counting the completions of a constrained board (its size, the `constrained`
    /// algorithm; no symmetry, no unique count) on every hardware thread.
    pub fn board(board: Board) -> Config {
        Config {
            n: board.n(),
            algorithm: Algorithm::Constrained,
            board: Some(board),
            ..Config::new(1)
        }
    }

    /// The same configuration with `threads` worker threads (0: every hardware thread).
    pub fn threads(mut self, threads: usize) -> Config {
        self.threads = threads;
        self
    }

    /// The same configuration with another algorithm.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Config {
        self.algorithm = algorithm;
        self
    }

    /// The same configuration with a fixed split depth.
    pub fn split_depth(mut self, depth: usize) -> Config {
        self.split_depth = Some(depth);
        self
    }

    /// The same configuration with a memory budget of `bytes`, instead of what the machine,
    /// the control group and the resource limits allow.
    pub fn memory(mut self, bytes: u64) -> Config {
        self.memory = Some(bytes);
        self
    }

    /// The worker threads a run of this configuration uses.
    pub fn resolved_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            crate::system::hardware_threads()
        }
    }
}
