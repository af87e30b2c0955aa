//! What to count and how: the validated description of one count that every stage after it
//! reads. Building a [`Config`] never fails; its values are checked when a
//! [`Job`](crate::Job) is made from it.

use crate::constraint::Board;
use crate::plan::Algorithm;

/// What to count and how.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    board: Target,
    threads: usize,
    algorithm: Option<Algorithm>,
    split_depth: Option<usize>,
    memory: Option<u64>,
    slice_time: Option<std::time::Duration>,
}

/// The board a configuration counts: its size and a method are only free for the empty
/// board, as a constrained board carries its size and has one method.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    /// The empty `n`×`n` board.
    Empty(usize),
    /// A constrained board.
    Board(Board),
}

impl Config {
    /// The smallest board.
    pub const MIN_N: usize = crate::board::MIN_N;
    /// The largest empty board of queens (the diagonal masks need room to shift in a `u64`);
    /// a board of rooks may be larger ([`crate::constraint::Board::MAX_ROOKS_N`]).
    pub const MAX_N: usize = crate::board::MAX_N;
    /// The most worker threads a run accepts: far past any machine's hardware threads, and
    /// small enough that a mistyped count is refused at once instead of starting a huge pool.
    pub const MAX_THREADS: usize = 4096;
    /// How long a slice of a long entry takes by default, about, in seconds of one core of
    /// the reference machine (`results/large-n.md`): well under a minute, so that a stopped
    /// or killed run loses little and the progress moves; see [`Config::slice_time`].
    pub const SLICE_SECONDS: f64 = 15.0;
    /// The shortest slice time a run takes, in seconds: a millisecond. A shorter one asked
    /// for ([`Config::slice_time`]) is taken as this, so that what a file of a plan can
    /// hold is bounded ([`crate::persist::Journal::read_at_most`]).
    pub const SHORTEST_SLICE_SECONDS: f64 = 0.001;

    /// Counting an `n`×`n` board with the default method for its size
    /// ([`Algorithm::default_for`]) on every hardware thread.
    pub fn new(n: usize) -> Config {
        Config {
            board: Target::Empty(n),
            threads: 0,
            algorithm: None,
            split_depth: None,
            memory: None,
            slice_time: None,
        }
    }

    /// Counting the completions of a constrained board (its size, the `constrained`
    /// algorithm; no symmetry, no unique count) on every hardware thread.
    pub fn board(board: Board) -> Config {
        Config {
            board: Target::Board(board),
            ..Config::new(1)
        }
    }

    /// The same configuration with `threads` worker threads (0: every hardware thread).
    pub fn threads(mut self, threads: usize) -> Config {
        self.threads = threads;
        self
    }

    /// The same configuration with another algorithm. A constrained board has one method,
    /// [`Algorithm::Constrained`]: making a [`Job`](crate::Job) of a board's configuration
    /// with any other is refused.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Config {
        self.algorithm = Some(algorithm);
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

    /// The same configuration cutting long entries of the plan into slices of about `time`
    /// on one core (instead of [`Config::SLICE_SECONDS`]): shorter slices lose less work
    /// to a kill and save more often; longer ones keep a checkpoint smaller. The plan, and
    /// so which files agree, does not depend on it.
    pub fn slice_time(mut self, time: std::time::Duration) -> Config {
        self.slice_time = Some(time);
        self
    }

    /// The slice time asked for, if any.
    pub fn chosen_slice_time(&self) -> Option<std::time::Duration> {
        self.slice_time
    }

    /// The board size.
    pub fn n(&self) -> usize {
        match &self.board {
            Target::Empty(n) => *n,
            Target::Board(board) => board.n(),
        }
    }

    /// The constrained board counted, if any (else the empty board).
    pub fn constrained_board(&self) -> Option<&Board> {
        match &self.board {
            Target::Empty(_) => None,
            Target::Board(board) => Some(board),
        }
    }

    /// The counting method: the one chosen, else the default for the board.
    pub fn chosen_algorithm(&self) -> Algorithm {
        match (&self.board, self.algorithm) {
            (_, Some(algorithm)) => algorithm,
            (Target::Empty(n), None) => Algorithm::default_for(*n),
            (Target::Board(_), None) => Algorithm::Constrained,
        }
    }

    /// The worker threads asked for (0: every hardware thread).
    pub fn thread_count(&self) -> usize {
        self.threads
    }

    /// The split depth asked for, if fixed.
    pub fn fixed_split_depth(&self) -> Option<usize> {
        self.split_depth
    }

    /// The memory budget asked for, if any.
    pub fn memory_budget(&self) -> Option<u64> {
        self.memory
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
