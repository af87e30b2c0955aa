//! The built-in machine benchmark: a fixed, versioned workload counted at several thread
//! counts, with its counts checked so that a broken build or machine cannot post a score.
//!
//! The workload never changes under a given version name; a faster program simply finishes it
//! sooner. Each thread count is run `runs` times and the median time is kept.

use std::time::Duration;

use crate::machine::Machine;
use nqueens::{Algorithm, Config, Error, count, known};
use serde::Serialize;

use crate::args::{BenchArgs, WorkloadArg};
use crate::exit::{Exit, fail, out};
use crate::output::si;

/// A benchmark workload: what is counted, and how often.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Name and version, printed with every result.
    pub name: &'static str,
    /// Board size.
    pub n: usize,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Runs per thread count.
    pub runs: usize,
    /// How the runs' times are summed up.
    pub statistic: Statistic,
}

/// How a workload sums up its runs' times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    /// The median run: steady against one slow run.
    Median,
    /// The mean of the runs, as the public benchmark profiles report it.
    Mean,
}

/// The default workload: about a minute on a two-core machine (recorded runs are in
/// `results/`).
pub const STANDARD: Workload = Workload {
    name: "v1-standard",
    n: 17,
    algorithm: Algorithm::Symmetry,
    runs: 5,
    statistic: Statistic::Median,
};

/// The quick workload: about a second on a two-core machine.
pub const QUICK: Workload = Workload {
    name: "v1-quick",
    n: 15,
    algorithm: Algorithm::Symmetry,
    runs: 3,
    statistic: Statistic::Median,
};

/// The board of the Phoronix Test Suite's `pts/n-queens` profile (OpenMP, n = 18, elapsed
/// seconds, the mean of 3 runs), counted here by this program's default algorithm, so that
/// its time stands beside the published ones.
pub const PTS_N_QUEENS: Workload = Workload {
    name: "pts-n-queens",
    n: 18,
    algorithm: Algorithm::Join,
    runs: 3,
    statistic: Statistic::Mean,
};

/// The board of the `pts/m-queens` profile (n = 19, elapsed seconds, the mean of 3 runs).
pub const PTS_M_QUEENS: Workload = Workload {
    name: "pts-m-queens",
    n: 19,
    algorithm: Algorithm::Join,
    runs: 3,
    statistic: Statistic::Mean,
};

/// One thread count's measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Worker threads.
    pub threads: usize,
    /// Median wall time of the runs.
    pub seconds: f64,
    /// Solutions counted per second.
    pub solutions_per_second: f64,
    /// Search nodes per second.
    pub nodes_per_second: f64,
}

/// Why a benchmark could not post a result.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The count itself failed.
    #[error(transparent)]
    Count(#[from] Error),
    /// The count came out wrong: the build or the machine is broken.
    #[error(
        "wrong count for n = {n} on {threads} threads: {got} solutions, {got_unique:?} unique; expected {want}, {want_unique:?}"
    )]
    WrongCount {
        /// Board size.
        n: usize,
        /// Threads.
        threads: usize,
        /// Computed total.
        got: u128,
        /// Computed unique.
        got_unique: Option<u128>,
        /// Published total.
        want: u128,
        /// Published unique.
        want_unique: Option<u128>,
    },
}

/// Measures `workload` on `threads` threads.
pub fn measure(workload: &Workload, threads: usize) -> Result<Measurement, BenchError> {
    let config = Config::new(workload.n)
        .algorithm(workload.algorithm)
        .threads(threads);
    let want = known::total(workload.n).expect("workloads use published sizes");
    let want_unique = workload
        .algorithm
        .has_unique()
        .then(|| known::unique(workload.n).expect("published"));
    let mut times = Vec::with_capacity(workload.runs);
    let mut nodes = 0;
    for _ in 0..workload.runs.max(1) {
        let c = count(&config)?;
        if c.total != want || c.unique != want_unique {
            return Err(BenchError::WrongCount {
                n: workload.n,
                threads,
                got: c.total,
                got_unique: c.unique,
                want,
                want_unique,
            });
        }
        nodes = c.nodes;
        times.push(c.elapsed);
    }
    times.sort();
    let kept: Duration = match workload.statistic {
        Statistic::Median => times[times.len() / 2],
        Statistic::Mean => times.iter().sum::<Duration>() / times.len() as u32,
    };
    let s = kept.as_secs_f64().max(1e-9);
    Ok(Measurement {
        threads,
        seconds: s,
        solutions_per_second: want as f64 / s,
        nodes_per_second: nodes as f64 / s,
    })
}

/// The default thread counts: 1, 2, 4, ... and every hardware thread.
pub fn default_thread_counts(hardware: usize) -> Vec<usize> {
    let mut v: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t < hardware)
        .collect();
    v.push(hardware.max(1));
    v
}

/// The overall score: million solutions per second at the best thread count.
pub fn score(measurements: &[Measurement]) -> f64 {
    measurements
        .iter()
        .map(|s| s.solutions_per_second / 1e6)
        .fold(0.0, f64::max)
}

/// One thread count's JSON line.
#[derive(Serialize)]
struct Row<'a> {
    workload: &'a str,
    n: usize,
    algorithm: &'a str,
    threads: usize,
    seconds: f64,
    solutions_per_second: f64,
    nodes_per_second: f64,
    speedup: f64,
    efficiency: f64,
}

/// The summary JSON line.
#[derive(Serialize)]
struct Summary<'a> {
    summary: bool,
    workload: &'a str,
    score: f64,
    machine: String,
    physical_cores: usize,
    logical_cores: usize,
    version: &'a str,
}

fn json(row: &impl Serialize) -> String {
    serde_json::to_string(row).expect("rows serialise")
}

/// `bench`: the fixed workload at several thread counts.
pub fn run(args: &BenchArgs) -> Result<Exit, Exit> {
    let workload = match (args.quick, args.workload) {
        (true, _) | (false, Some(WorkloadArg::Quick)) => QUICK,
        (false, None | Some(WorkloadArg::Standard)) => STANDARD,
        (false, Some(WorkloadArg::PtsNQueens)) => PTS_N_QUEENS,
        (false, Some(WorkloadArg::PtsMQueens)) => PTS_M_QUEENS,
    };
    let machine = Machine::detect();
    let counts = args
        .threads
        .clone()
        .unwrap_or_else(|| default_thread_counts(machine.hardware_threads));
    if !args.json {
        out(&format!("machine: {machine}"));
        out(&format!(
            "workload {}: {} algorithm, n = {}, {} of {} runs per thread count",
            workload.name,
            workload.algorithm,
            workload.n,
            match workload.statistic {
                Statistic::Median => "median",
                Statistic::Mean => "mean",
            },
            workload.runs
        ));
        out(&format!(
            "{:>7}  {:>9}  {:>12}  {:>10}  {:>8}  {:>10}",
            "threads", "time", "solutions/s", "nodes/s", "speedup", "efficiency"
        ));
    }
    let mut measurements: Vec<Measurement> = Vec::new();
    for &t in &counts {
        let s = measure(&workload, t).map_err(|e| fail(Exit::Failed, e))?;
        let base = measurements
            .first()
            .map_or(s.seconds, |b| b.seconds * b.threads as f64);
        let speedup = base / s.seconds;
        let efficiency = speedup / t as f64;
        if args.json {
            out(&json(&Row {
                workload: workload.name,
                n: workload.n,
                algorithm: workload.algorithm.name(),
                threads: t,
                seconds: s.seconds,
                solutions_per_second: s.solutions_per_second.round(),
                nodes_per_second: s.nodes_per_second.round(),
                speedup,
                efficiency,
            }));
        } else {
            out(&format!(
                "{:>7}  {:>7.3} s  {:>12}  {:>10}  {:>7.2}x  {:>9.0}%",
                t,
                s.seconds,
                si(s.solutions_per_second),
                si(s.nodes_per_second),
                speedup,
                100.0 * efficiency
            ));
        }
        measurements.push(s);
    }
    let score = score(&measurements);
    // The public profiles report elapsed seconds on every thread: the last row's time.
    if workload.statistic == Statistic::Mean
        && !args.json
        && let Some(last) = measurements.last()
    {
        out(&format!(
            "{} figure: {:.3} s elapsed (mean of {} runs on {}), to set beside the profile's published results",
            workload.name.replacen('-', "/", 1),
            last.seconds,
            workload.runs,
            crate::output::things(last.threads as u64, "thread", "threads")
        ));
    }
    if args.json {
        out(&json(&Summary {
            summary: true,
            workload: workload.name,
            score: (score * 100.0).round() / 100.0,
            machine: machine.to_string(),
            physical_cores: machine.physical_cores,
            logical_cores: machine.hardware_threads,
            version: env!("CARGO_PKG_VERSION"),
        }));
    } else {
        out(&format!(
            "score: {score:.2} (million solutions per second, workload {}; counts checked)",
            workload.name
        ));
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_double_up_to_the_hardware() {
        assert_eq!(default_thread_counts(1), [1]);
        assert_eq!(default_thread_counts(2), [1, 2]);
        assert_eq!(default_thread_counts(6), [1, 2, 4, 6]);
        assert_eq!(default_thread_counts(8), [1, 2, 4, 8]);
    }

    #[test]
    fn a_small_workload_measures_and_scores() {
        let w = Workload {
            name: "test",
            n: 10,
            algorithm: Algorithm::Symmetry,
            runs: 1,
            statistic: Statistic::Median,
        };
        let s = measure(&w, 2).unwrap();
        assert_eq!(s.threads, 2);
        assert!(s.seconds > 0.0 && s.solutions_per_second > 0.0);
        assert!(score(std::slice::from_ref(&s)) > 0.0);
        // A join workload checks its unique count too, and may take the mean.
        let join = Workload {
            algorithm: Algorithm::Join,
            statistic: Statistic::Mean,
            runs: 2,
            n: 12,
            ..w
        };
        assert!(measure(&join, 1).is_ok());
    }

    #[test]
    fn the_profiles_workloads_are_their_boards() {
        assert_eq!((PTS_N_QUEENS.n, PTS_N_QUEENS.runs), (18, 3));
        assert_eq!((PTS_M_QUEENS.n, PTS_M_QUEENS.runs), (19, 3));
        assert_eq!(PTS_M_QUEENS.statistic, Statistic::Mean);
    }
}
