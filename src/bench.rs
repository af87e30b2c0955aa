//! The built-in machine benchmark: a fixed, versioned workload counted at several thread
//! counts, with its counts checked so that a broken build or machine cannot post a score.
//!
//! The workload never changes under a given version name; a faster program simply finishes it
//! sooner. Each thread count is run `runs` times and the median time is kept (the mean, for
//! the public profiles' boards).

use std::time::Duration;

use crate::machine::Machine;
use nqueens::{Algorithm, Config, count, known};
use serde::Serialize;

use crate::args::{BenchArgs, WorkloadArg};
use crate::exit::{Exit, fail, out};
use crate::output::si;

/// A benchmark workload: what is counted, and how often.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Name and version, printed with every result.
    pub name: &'static str,
    pub n: usize,
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

/// The workload `bench --workload` names.
pub fn workload(arg: WorkloadArg) -> Workload {
    use {Algorithm::*, Statistic::*};
    let (name, n, algorithm, runs, statistic) = match arg {
        // The default: about a minute on a two-core machine (recorded runs are in `results/`).
        WorkloadArg::Standard => ("v1-standard", 17, Symmetry, 5, Median),
        // About a second on a two-core machine.
        WorkloadArg::Quick => ("v1-quick", 15, Symmetry, 3, Median),
        // The board of the Phoronix Test Suite's `pts/n-queens` profile (OpenMP, n = 18,
        // elapsed seconds, the mean of 3 runs), counted here by this program's default
        // algorithm, so that its time stands beside the published ones.
        WorkloadArg::PtsNQueens => ("pts-n-queens", 18, Join, 3, Mean),
        // The board of the `pts/m-queens` profile (n = 19, elapsed seconds, the mean of 3 runs).
        WorkloadArg::PtsMQueens => ("pts-m-queens", 19, Join, 3, Mean),
    };
    Workload {
        name,
        n,
        algorithm,
        runs,
        statistic,
    }
}

/// One thread count's measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub threads: usize,
    /// The wall time of the runs: their median or their mean, as the workload says.
    pub seconds: f64,
    pub solutions_per_second: f64,
    pub nodes_per_second: f64,
}

/// Measures `workload` on `threads` threads; `Err` says why it could not post a result: the
/// count failed, or came out wrong (the build or the machine is broken).
pub fn measure(workload: &Workload, threads: usize) -> Result<Measurement, String> {
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
        let c = count(&config).map_err(|e| e.to_string())?;
        if c.total != want || c.unique != want_unique {
            return Err(format!(
                "wrong count for n = {} on {threads} threads: {} solutions, {:?} unique; expected {want}, {want_unique:?}",
                workload.n, c.total, c.unique
            ));
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
    let workload = workload(match args.workload {
        _ if args.quick => WorkloadArg::Quick,
        w => w.unwrap_or(WorkloadArg::Standard),
    });
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
    // Million solutions per second at the best thread count.
    let score = measurements
        .iter()
        .map(|s| s.solutions_per_second / 1e6)
        .fold(0.0, f64::max);
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
    fn the_m_queens_profile_is_its_board() {
        let w = workload(WorkloadArg::PtsMQueens);
        assert_eq!((w.n, w.runs, w.statistic), (19, 3, Statistic::Mean));
    }
}
