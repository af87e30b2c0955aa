//! The command line: clap's derive types and the parsers for board ranges and shards, and
//! the reading of the words around them ([`read`], in `line.rs`).
//!
//! Everything here turns text into typed values; nothing is computed. Bad input becomes a
//! message of one line, which `main` prints with exit code 2.

mod line;

pub use line::{NotRun, read};

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use nqueens::constraint::Board;
use nqueens::{Algorithm, Config, Recount};

const MIN_N: usize = Config::MIN_N;
const MAX_N: usize = Config::MAX_N;
const MAX_ROOKS_N: usize = Board::MAX_ROOKS_N;
const MAX_THREADS: usize = Config::MAX_THREADS;

/// Counts the solutions of the N-Queens problem exactly, on every core.
///
/// Counting is the default command; it may be named: `nqueens-count count 16` is
/// `nqueens-count 16`.
#[derive(Debug, Parser)]
#[command(
    name = "nqueens-count",
    version,
    args_conflicts_with_subcommands = true,
    allow_negative_numbers = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  nqueens-count 16 --threads 8\n  nqueens-count 8..=12 --json\n  nqueens-count 8,10,12-14\n  nqueens-count 20 --checkpoint q20.json\n  nqueens-count 21 --shard auto/64 --out shard.json\n  nqueens-count merge shard-*.json\n  nqueens-count list 8 --format board\n  nqueens-count list 8 --unique\n  nqueens-count --board examples/boards/completion.txt\n  nqueens-count --allowed examples/boards/books.txt --piece rook\n  nqueens-count list --allowed examples/boards/books.txt --piece rook\n  nqueens-count trace 4 --format dot | dot -Tsvg > tree.svg\n  nqueens-count trace 8 --first"
)]
pub struct Cli {
    /// What to count.
    #[command(flatten)]
    pub count: CountArgs,
    /// Other tasks.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The counting options (the default task).
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Board size from 1 to 32 (64 for rooks), a range such as 8..=12 or 8-12, or a list.
    ///
    /// Ranges include both ends; a list separates sizes and ranges by commas (8,10,12..=14).
    /// One row per size, in increasing order. Optional with --board or --allowed; it must then
    /// match the file.
    #[arg(value_name = "N", required_unless_present_any = ["board", "allowed"], value_parser = parse_sizes, value_hint = clap::ValueHint::Other)]
    pub sizes: Option<Sizes>,

    /// A constrained board and its piece.
    #[command(flatten)]
    pub constraints: BoardArgs,

    /// Worker threads, up to 4096; 0 means every hardware thread.
    #[arg(short, long, default_value_t = 0, value_name = "T", value_parser = |s: &str| thread_count(s, 0), value_hint = clap::ValueHint::Other)]
    pub threads: usize,

    /// Counting method: join, symmetry or plain (default: the fastest for N).
    ///
    /// Counting method: join (half-boards paired by diagonal patterns; the default for
    /// n = 12 and 14..=28), symmetry (border constellations under all eight board symmetries; the
    /// default elsewhere) or plain (first-row mirror only). join and symmetry also give the
    /// unique count.
    #[arg(short, long, value_enum)]
    pub algorithm: Option<AlgorithmArg>,

    /// Rows the plan pre-places to make subproblems (symmetry, plain).
    ///
    /// plain: from 1; symmetry: from 0, beyond the border queens. Default: deep enough for many
    /// threads.
    #[arg(long, value_name = "K", value_hint = clap::ValueHint::Other)]
    pub split_depth: Option<usize>,

    /// The memory the count may use, e.g. 4G or 512M.
    ///
    /// K, M, G, T are powers of 1024. Default: the least of the machine's free memory, the
    /// control group's limit (a batch job's or a container's) and the resource limits (ulimit
    /// -v, -d).
    #[arg(long, value_name = "SIZE", value_parser = |s: &str| s.parse::<nqueens::Bytes>().map(|b| b.0), value_hint = clap::ValueHint::Other)]
    pub memory: Option<u64>,

    /// Seconds of one core a slice of a long subproblem takes.
    ///
    /// Long join units and searches are cut into slices of about this length, each saved when
    /// it finishes. Shorter slices lose less to a kill; longer ones keep checkpoints smaller.
    /// It changes nothing that shards and merges agree on. Default: 15.
    #[arg(long, value_name = "S", value_parser = parse_slice_seconds, value_hint = clap::ValueHint::Other)]
    pub slice_seconds: Option<f64>,

    /// One JSON object per line instead of the table.
    #[arg(long)]
    pub json: bool,

    /// Compare the counts with the published values; exit 1 if they differ.
    ///
    /// The published values are OEIS A000170 and A002562, known for n ≤ 27.
    #[arg(long)]
    pub verify: bool,

    /// Save finished subproblems to FILE, and resume from it.
    ///
    /// The file is saved every few seconds and on Ctrl-C or SIGTERM; a run resumes from it when
    /// it exists.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub checkpoint: Option<PathBuf>,

    #[command(flatten)]
    pub trust: TrustArgs,

    /// Count only shard I of M (0-based), or auto/M from the scheduler.
    ///
    /// auto takes I from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PBS_ARRAY_INDEX. Needs
    /// --out.
    #[arg(long, value_name = "I/M", value_parser = parse_shard, value_hint = clap::ValueHint::Other)]
    pub shard: Option<ShardArg>,

    /// Where a shard writes its result file.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub out: Option<PathBuf>,

    /// Never show the progress bar (it only shows when stderr is a terminal).
    #[arg(long)]
    pub no_progress: bool,

    /// Print load-balance statistics (busy time of each thread) to stderr.
    #[arg(long)]
    pub stats: bool,

    /// Do not count: project the time, CPU-hours, memory and shards.
    ///
    /// A sample of the subproblems is timed on these threads; the projected wall time comes
    /// with a 95% interval.
    #[arg(long)]
    pub estimate: bool,

    /// With --estimate: the length of one shard, in hours.
    ///
    /// Hours, or a time with its unit (ms, s, m or h: 90m). The estimate says how many shards
    /// of this length the count takes.
    #[arg(long, value_name = "H", requires = "estimate", value_parser = parse_hours, value_hint = clap::ValueHint::Other)]
    pub shard_hours: Option<f64>,

    /// With --estimate: seconds of sampling (the set-up comes on top).
    ///
    /// Whole seconds, or a time with its unit (ms, s, m or h: 2m), up to an hour.
    #[arg(long, value_name = "S", default_value_t = 60, requires = "estimate", value_parser = parse_sampling_seconds, value_hint = clap::ValueHint::Other)]
    pub estimate_seconds: u64,

    /// With --estimate: the seed of the sample.
    ///
    /// The same seed draws the same subproblems.
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "estimate", value_hint = clap::ValueHint::Other)]
    pub seed: u64,
}

/// A constrained board: the options `count`, `list` and `trace` share.
#[derive(Clone, Debug, Args)]
pub struct BoardArgs {
    /// Count a constrained board read from FILE (-: standard input).
    ///
    /// One line per row: '.' a free square, 'Q' a pre-placed piece, 'x' a blocked square; blank
    /// lines, '#' comments and spaces between squares are skipped.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub board: Option<PathBuf>,
    /// Allowed squares from FILE (-: standard input).
    ///
    /// The size line (n alone), then n lines of n digits, 1 where the piece may stand (spaces
    /// between them are skipped). With --board, both files' constraints hold.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub allowed: Option<PathBuf>,
    /// The piece: queen, or rook.
    ///
    /// Rooks take rows and columns only, on boards up to 64 from a file. No symmetry is used
    /// and no unique count is given for constrained or rook boards.
    #[arg(long, value_enum, default_value_t = PieceArg::Queen)]
    pub piece: PieceArg,
}

/// The pieces as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PieceArg {
    /// Attacks along rows, columns and diagonals.
    Queen,
    /// Attacks along rows and columns (the book-assignment problem).
    Rook,
}

/// The tasks besides counting.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the solutions themselves, in lexicographic order of the column tuple.
    List(ListArgs),
    /// Print the backtracking tree of the classic row-by-row search (N ≤ 8).
    Trace(TraceArgs),
    /// Check and add up the result files of all shards of a count.
    Merge(MergeArgs),
    /// Say where the shards of a count stand, how much is left, and what to resubmit.
    ///
    /// Reads a folder of shard results and checkpoints (or the files given), as `merge` reads
    /// them, and prints the shards done, partial (with how many of their subproblems are
    /// done), missing and the files damaged, each shard with the verdict `merge` gives it; the
    /// share of the subproblems done; the sum of the solutions so far; the CPU-hours the done
    /// shards took and those left at their mean; and a last line `resubmit: --array=1,4-6`
    /// naming the shards to count again, for `sbatch`. It counts nothing. Exit status 0 when
    /// every shard is done, 3 while some are not (missing, partial or damaged) or no shard
    /// has written a file yet, 1 when the files cannot be read as one count's, 2 for a bad
    /// key file.
    Status(StatusArgs),
    /// Benchmark this machine: a fixed workload at 1, 2, 4, ... threads, counts checked.
    ///
    /// Workload v1-standard: the symmetry algorithm on n = 17, five runs per thread count
    /// (median kept), about a minute on two cores. Workload v1-quick (--quick): n = 15, three
    /// runs, a few seconds. The score is million solutions per second at the best thread count.
    /// Each row shows the spread of its runs (min-max); a warning says when the figures cannot
    /// be trusted (a busy machine, runs spread by more than 10%, more threads than hardware
    /// threads).
    Bench(BenchArgs),
    /// Print a shell completion script: `nqueens-count completions bash > /etc/bash_completion.d/nqueens-count`.
    Completions(CompletionsArgs),
    /// Print the manual page (roff): `nqueens-count man > nqueens-count.1`.
    Man,
}

/// Options of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Options of `list`.
#[derive(Clone, Debug, Args)]
pub struct ListArgs {
    /// Board size from 1 to 32, or 64 for rooks (optional with --board or --allowed).
    #[arg(value_name = "N", value_parser = parse_n, required_unless_present_any = ["board", "allowed"], value_hint = clap::ValueHint::Other)]
    pub n: Option<usize>,
    /// A constrained board and its piece.
    #[command(flatten)]
    pub constraints: BoardArgs,
    /// Stop after K solutions (svg: draw the first K, default 16).
    ///
    /// With --unique, K unique solutions. A picture that leaves some out says how many of how
    /// many it draws, in its caption and on stderr.
    #[arg(long, value_name = "K", value_hint = clap::ValueHint::Other)]
    pub limit: Option<u64>,
    /// One of each orbit under the 8 symmetries of the square, with its size.
    ///
    /// The rotations and reflections of the square turn a solution into 8, 4 or 2 solutions
    /// (its orbit; 1 on the 1x1 board); --unique prints the lexicographically least of each
    /// orbit, with its orbit's size, so that the orbits' sizes add up to the number of
    /// solutions, and their number is the unique count (OEIS A002562). Needs a board the
    /// symmetries leave unchanged, such as the empty board.
    #[arg(long)]
    pub unique: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Tuple)]
    pub format: ListFormat,
    /// The same as --format json, as `count` and `merge` take it.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

/// How `list` prints a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// `2 4 1 3`: the 1-based column of the queen in each row.
    Tuple,
    /// N lines of `Q` and `.`, a blank line between solutions.
    Board,
    /// One JSON array of boards, each a list of row strings (with --unique, objects with the
    /// columns, the rows and the orbit's size).
    Json,
    /// The first K boards (--limit, default 16) as one SVG picture.
    Svg,
}

/// Options of `trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Board size from 1 to 8 (optional with --board or --allowed; it must then match).
    #[arg(value_name = "N", value_parser = parse_trace_n, required_unless_present_any = ["board", "allowed"], value_hint = clap::ValueHint::Other)]
    pub n: Option<usize>,
    /// A constrained board (up to 8 squares wide) and its piece.
    #[command(flatten)]
    pub constraints: BoardArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
    pub format: TraceFormat,
    /// Stop at the first solution, as the textbook figures do.
    ///
    /// The tree up to the node where the search first completes the board; the last line (in
    /// DOT, the graph's label) names that node and the solution. A board with no solution is
    /// walked whole.
    #[arg(long)]
    pub first: bool,
}

/// How `trace` prints the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    /// The indented outline, one line per node.
    Text,
    /// A Graphviz DOT graph of the numbered tree (killed nodes as grey dashed boxes); render
    /// it with `dot -Tsvg`.
    Dot,
}

/// Options of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The result files of every shard, or folders of them (checkpoints and other files
    /// there are skipped, with a note).
    #[arg(value_name = "FILES", required = true, value_hint = clap::ValueHint::AnyPath)]
    pub files: Vec<PathBuf>,
    /// The constrained board the shards counted (the same --board, --allowed and --piece).
    #[command(flatten)]
    pub constraints: BoardArgs,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Compare the merged counts with the published values.
    #[arg(long)]
    pub verify: bool,
    /// Worker threads for the recount, up to 4096; 0 means every hardware thread.
    #[arg(short, long, default_value_t = 0, value_name = "T", value_parser = |s: &str| thread_count(s, 0), value_hint = clap::ValueHint::Other)]
    pub threads: usize,
    /// Recount K whole shards drawn at random (seeded by --recount-seed).
    ///
    /// One wrong shard among M is caught with probability K/M; --audit M recounts the whole
    /// count. The output says which shards were drawn.
    #[arg(long, value_name = "K", value_hint = clap::ValueHint::Other)]
    pub audit: Option<u64>,
    #[command(flatten)]
    pub trust: TrustArgs,
}

/// Options of `status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The folder of the shards' result files and checkpoints, or the files.
    #[arg(value_name = "DIR|FILES", required = true, value_hint = clap::ValueHint::AnyPath)]
    pub files: Vec<PathBuf>,
    /// The constrained board the shards count (the same --board, --allowed and --piece).
    #[command(flatten)]
    pub constraints: BoardArgs,
    /// Print the status as one JSON object (its fields are listed in docs/guide.md).
    #[arg(long)]
    pub json: bool,
    /// Require this key's tag on every file (a file without it is damaged).
    ///
    /// As `merge --key` does: a file whose tag is missing or was not made with this key is
    /// damaged, and its shard is counted by its other files only.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub key: Option<PathBuf>,
}

/// How files read back are trusted: how many accepted subproblems to count again, and the key of
/// their tags; the options `count` (when it resumes) and `merge` share.
#[derive(Clone, Debug, Args)]
pub struct TrustArgs {
    /// Count again a sample of the subproblems read from files: K, 10s, all or 0.
    ///
    /// The sample is drawn at random from the finished subproblems read from files (a resumed
    /// checkpoint, the shards merged); any that differs is refused. K subproblems, a time with
    /// its unit (ms, s, m or h: 10s, 5m), or all; 0 skips it.
    #[arg(long, value_name = "K|TIME|all", default_value = "3s", value_parser = parse_recount, value_hint = clap::ValueHint::Other)]
    pub recount: Recount,
    /// The seed of the recount's draw (default: a fresh one).
    ///
    /// A fresh seed is printed with the result, so that the draw can be repeated.
    #[arg(long, value_name = "SEED", value_hint = clap::ValueHint::Other)]
    pub recount_seed: Option<u64>,
    /// Tag written files with this key; require its tag on files read.
    ///
    /// A key file of 16 bytes or more (make one with `head -c 32 /dev/urandom > FILE`): the
    /// files written (a shard's result, a checkpoint) carry its keyed tag, and the files read
    /// back (a resumed checkpoint, the shards merged) must carry it.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub key: Option<PathBuf>,
}

/// Parses a `--slice-seconds` value: seconds (`15`, `2.5`) or a time with its unit (`2m`),
/// from a millisecond to a day.
fn parse_slice_seconds(s: &str) -> Result<f64, String> {
    let seconds = parse_duration(s)
        .map(|d| d.as_secs_f64())
        .or_else(|| s.trim().parse::<f64>().ok());
    match seconds {
        Some(v) if (nqueens::Config::SHORTEST_SLICE_SECONDS..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{s}' is not a slice time: give seconds from 0.001 to 86400, e.g. 15, 2.5 or 2m"
        )),
    }
}

/// Parses a `--recount` value: a number of subproblems, a time with its unit (`10s`, `5m`), or
/// `all`.
fn parse_recount(s: &str) -> Result<Recount, String> {
    if let Some(time) = parse_duration(s) {
        return Ok(Recount::For(time));
    }
    match s.trim() {
        "all" => Ok(Recount::All),
        k => k.parse().map(Recount::Subproblems).map_err(|_| {
            format!(
                "'{s}' is not a recount: give a number of subproblems, a time such as 10s or 5m \
                 ({DURATION_UNITS}), or all"
            )
        }),
    }
}

/// The units a time on the command line may have.
const DURATION_UNITS: &str = "ms, s, m or h";

/// A time with its unit: a number (`1.5` is allowed) then `ms`, `s`, `m` or `h`. `None` for
/// anything else: a number without a unit, a negative or endless time.
pub fn parse_duration(s: &str) -> Option<std::time::Duration> {
    let s = s.trim();
    let (number, seconds) = [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
        .into_iter()
        .find_map(|(unit, seconds)| Some((s.strip_suffix(unit)?, seconds)))?;
    let number: f64 = number.trim().parse().ok()?;
    if !number.is_finite() || number < 0.0 {
        return None;
    }
    std::time::Duration::try_from_secs_f64(number * seconds).ok()
}

/// Options of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The quick workload (n = 15, a few seconds).
    ///
    /// Instead of the standard one, which takes about a minute.
    #[arg(long, conflicts_with = "workload")]
    pub quick: bool,
    /// The workload: standard, quick, pts-n-queens or pts-m-queens.
    ///
    /// The workload: standard (n = 17, about a minute), quick (n = 15), or the boards of the
    /// public benchmark profiles, pts-n-queens (n = 18) and pts-m-queens (n = 19), timed as
    /// they report it (elapsed seconds, the mean of 3 runs). The pts workloads run the join
    /// algorithm, while the published Phoronix results time a brute-force OpenMP counter:
    /// add --algorithm plain to compare machines like for like.
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadArg>,
    /// Thread counts to measure, e.g. 1,2,4.
    ///
    /// Default: 1, 2, 4, ... and every hardware thread.
    #[arg(short, long, value_delimiter = ',', value_name = "LIST", value_parser = |s: &str| thread_count(s, 1), value_hint = clap::ValueHint::Other)]
    pub threads: Option<Vec<usize>>,
    /// Count the workload's board with this algorithm (plain: like for like with pts).
    ///
    /// plain: first-row mirror symmetry only, a brute-force counter like the OpenMP one that
    /// the published pts/n-queens and pts/m-queens results time, for a like-for-like
    /// comparison of machines (the pts workloads otherwise run the join algorithm, which
    /// compares programs).
    #[arg(long, value_enum, value_name = "NAME")]
    pub algorithm: Option<AlgorithmArg>,
    /// One JSON object per thread count, then a summary object with the score.
    #[arg(long)]
    pub json: bool,
}

/// The workloads of `bench --workload`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// n = 17, symmetry, median of 5 runs.
    Standard,
    /// n = 15, symmetry, median of 3 runs.
    Quick,
    /// n = 18, as the Phoronix pts/n-queens profile: mean of 3 runs; join algorithm (the
    /// published results time a brute-force OpenMP counter: --algorithm plain for that).
    PtsNQueens,
    /// n = 19, as the pts/m-queens profile: mean of 3 runs; join algorithm (--algorithm plain
    /// for a like-for-like comparison with the published results).
    PtsMQueens,
}

/// Parses a thread count from `lowest` up to [`MAX_THREADS`].
fn thread_count(s: &str, lowest: usize) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(t) if (lowest..=MAX_THREADS).contains(&t) => Ok(t),
        _ => Err(format!(
            "'{s}' is not a thread count: expected a whole number from {lowest} to {MAX_THREADS}"
        )),
    }
}

/// Parses `--shard-hours`: hours (a number above 0), or a time with its unit (`90m`).
fn parse_hours(s: &str) -> Result<f64, String> {
    let hours = match parse_duration(s) {
        Some(time) => Ok(time.as_secs_f64() / 3600.0),
        None => s.trim().parse::<f64>(),
    };
    match hours {
        Ok(h) if h.is_finite() && h > 0.0 && h <= 1e6 => Ok(h),
        _ => Err(format!(
            "'{s}' is not a shard length: expected hours, a number above 0, or a time such as \
             90m ({DURATION_UNITS})"
        )),
    }
}

/// Parses `--estimate-seconds`: whole seconds from 1 to an hour, or a time with its unit
/// (`2m`), rounded up to whole seconds.
fn parse_sampling_seconds(s: &str) -> Result<u64, String> {
    let secs = match parse_duration(s) {
        Some(time) => Ok(time.as_secs_f64().ceil() as u64),
        None => s.trim().parse::<u64>(),
    };
    match secs {
        Ok(secs) if (1..=3600).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "'{s}' is not a sampling time: expected whole seconds from 1 to 3600, or a time \
             such as 2m ({DURATION_UNITS})"
        )),
    }
}

/// The algorithms as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AlgorithmArg {
    /// First-row mirror symmetry only.
    Plain,
    /// All eight symmetries; also counts unique solutions.
    Symmetry,
    /// Quadrant lists joined into half-boards, paired by diagonal patterns; also counts unique
    /// solutions.
    Join,
}

impl From<AlgorithmArg> for Algorithm {
    fn from(a: AlgorithmArg) -> Algorithm {
        match a {
            AlgorithmArg::Plain => Algorithm::Plain,
            AlgorithmArg::Symmetry => Algorithm::Symmetry,
            AlgorithmArg::Join => Algorithm::Join,
        }
    }
}

/// The board sizes asked for: one or more, each once, in increasing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sizes(Vec<usize>);

impl Sizes {
    /// One size.
    pub fn one(n: usize) -> Sizes {
        Sizes(vec![n])
    }

    /// The sizes, in increasing order.
    pub fn all(&self) -> &[usize] {
        &self.0
    }

    /// The single size asked for, if only one was.
    pub fn single(&self) -> Option<usize> {
        match self.0[..] {
            [n] => Some(n),
            _ => None,
        }
    }

    /// The largest size.
    pub fn largest(&self) -> usize {
        self.0.last().copied().unwrap_or(0)
    }
}

/// A shard request: `I/M`, shard `index` (0-based) of `count`, or `auto/M`, the index from the
/// scheduler (not a clap type: [`parse_shard`] makes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    Fixed { index: u64, count: u64 },
    Auto { count: u64 },
}

/// Parses a board size: up to [`MAX_ROOKS_N`], since `--piece rook` may follow; an empty
/// queens board is held to [`MAX_N`] by [`queens_size`] once the piece is known.
pub fn parse_n(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| {
        format!("'{s}' is not a board size: expected a whole number from {MIN_N} to {MAX_N}")
    })?;
    if (MIN_N..=MAX_ROOKS_N).contains(&n) {
        Ok(n)
    } else {
        Err(out_of_range(n))
    }
}

/// Holds a size of the empty queens board to [`MAX_N`].
pub fn queens_size(n: usize) -> Result<usize, String> {
    (n <= MAX_N).then_some(n).ok_or_else(|| out_of_range(n))
}

fn out_of_range(n: usize) -> String {
    format!(
        "board size {n} is out of range: N must be from {MIN_N} to {MAX_N} \
         (to {MAX_ROOKS_N} with --piece rook)"
    )
}

fn parse_trace_n(s: &str) -> Result<usize, String> {
    let n = parse_n(s)?;
    if n > Board::MAX_TRACE_N {
        return Err(format!(
            "trace is for N up to {}: the tree of {n}-queens is too big to read",
            Board::MAX_TRACE_N
        ));
    }
    Ok(n)
}

/// Parses the board sizes: `N`, an inclusive range `A..=B` or `A-B`, or a list of these
/// separated by commas (`8,10,12..=14`); each size once, in increasing order. `A..B` is
/// refused: in Rust it would leave `B` out, so it is unclear which is meant.
pub fn parse_sizes(s: &str) -> Result<Sizes, String> {
    let mut sizes = Vec::new();
    for item in s.split(',') {
        let item = item.trim();
        let range = item
            .split_once("..=")
            .or_else(|| item.split_once('-').filter(|(a, _)| !a.is_empty()));
        if let Some((a, b)) = range {
            let sep = if item.contains("..=") { "..=" } else { "-" };
            let (first, last) = (parse_n(a)?, parse_n(b)?);
            if first > last {
                return Err(format!(
                    "the range {item} is reversed: write {last}{sep}{first}"
                ));
            }
            sizes.extend(first..=last);
        } else if let Some((a, b)) = item.split_once("..") {
            let (a, b) = (a.trim(), b.trim());
            return Err(format!(
                "'{item}' is unclear (in Rust it leaves {b} out): write {a}..={b} or {a}-{b} for \
                 {a} to {b} inclusive"
            ));
        } else {
            sizes.push(parse_n(item)?);
        }
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(Sizes(sizes))
}

/// Parses `I/M` or `auto/M`.
pub fn parse_shard(s: &str) -> Result<ShardArg, String> {
    let (i, m) = s
        .split_once('/')
        .ok_or_else(|| format!("'{s}' is not a shard: expected I/M (e.g. 3/16) or auto/M"))?;
    let count: u64 = m
        .parse()
        .map_err(|_| format!("'{m}' is not a shard count: expected a whole number from 1"))?;
    if count == 0 {
        return Err("the shard count M must be at least 1".to_string());
    }
    if i == "auto" {
        return Ok(ShardArg::Auto { count });
    }
    let index: u64 = i
        .parse()
        .map_err(|_| format!("'{i}' is not a shard index: expected a whole number or auto"))?;
    if index >= count {
        return Err(format!(
            "shard index {index} is out of range: with {count} shards it must be from 0 to {}",
            count - 1
        ));
    }
    Ok(ShardArg::Fixed { index, count })
}

/// Reads the shard index from a scheduler's environment: Slurm job arrays, Kubernetes Indexed
/// Jobs, PBS job arrays.
pub fn shard_index_from_env(get: impl Fn(&str) -> Option<String>) -> Result<u64, String> {
    let number = |name: &str| -> Result<Option<u64>, String> {
        match get(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| format!("{name}={v} is not a whole number")),
        }
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        return id.checked_sub(min).ok_or_else(|| {
            format!("SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}")
        });
    }
    for name in ["JOB_COMPLETION_INDEX", "PBS_ARRAY_INDEX"] {
        if let Some(i) = number(name)? {
            return Ok(i);
        }
    }
    Err("--shard auto/M needs SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PBS_ARRAY_INDEX in the environment".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges() {
        // What the command-line tests do not give: a range of one, the rooks' 64, and the
        // malformed lists and ranges.
        assert_eq!(parse_sizes("9-9").map(|s| s.single()), Ok(Some(9)));
        assert_eq!(parse_sizes("64").map(|s| s.largest()), Ok(64));
        assert_eq!(queens_size(32), Ok(32));
        for bad in ["65", "", "8..=", "8-", "8,", ",8", "1.5", "8-9-10"] {
            assert!(parse_sizes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn times_take_the_usual_units() {
        for (time, secs) in [("500ms", 0.5), ("1.5s", 1.5), ("5m", 300.), ("2h", 7200.)] {
            assert_eq!(parse_duration(time).map(|d| d.as_secs_f64()), Some(secs));
        }
        for bad in ["", "5", "m", "-1s", "5 min", "infs", "NaNh", "1e400s"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        assert_eq!(parse_hours("2"), Ok(2.0));
    }

    #[test]
    fn shards() {
        assert_eq!(
            parse_shard("3/4"),
            Ok(ShardArg::Fixed { index: 3, count: 4 })
        );
        for bad in ["auto/0", "x/3", "3"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shard_index_from_schedulers() {
        for (env, index) in [
            (&[("SLURM_ARRAY_TASK_ID", "5")][..], Ok(5)),
            (
                &[("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_MIN", "1")],
                Ok(4),
            ),
            (&[("JOB_COMPLETION_INDEX", "2")], Ok(2)),
            (&[("PBS_ARRAY_INDEX", "7")], Ok(7)),
            (&[], Err(())),
            (&[("SLURM_ARRAY_TASK_ID", "x")], Err(())),
        ] {
            let get = |k: &str| env.iter().find(|p| p.0 == k).map(|p| p.1.to_string());
            assert_eq!(shard_index_from_env(get).map_err(|_| ()), index, "{env:?}");
        }
    }
}
