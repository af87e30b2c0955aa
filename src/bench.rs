//! The built-in machine benchmark: a fixed, versioned workload counted at several thread
//! counts, with its counts checked so that a broken build or machine cannot post a score.
//!
//! The workload never changes under a given version name; a faster program simply finishes it
//! sooner. Each thread count is run `runs` times and the median time is kept (the mean, for
//! the public profiles' boards), with the spread of the runs beside it.
//!
//! A benchmark also says when it cannot be trusted: when other work loaded the machine before
//! or after it (the load average against the cores the benchmark left free), when a thread
//! count's runs spread by more than [`MOST_SPREAD`], and when there are more threads than
//! hardware threads (the efficiency is then taken over the hardware threads they share).

use std::time::Duration;

use crate::machine::{Machine, load_average};
use nqueens::{Algorithm, Config, count, known};
use serde::Serialize;

use crate::args::{BenchArgs, WorkloadArg};
use crate::exit::{Exit, fail, out, say};
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
        // algorithm, the join; the published results time a brute-force OpenMP counter, which
        // `--algorithm plain` stands beside like for like.
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
    /// The fastest and the slowest run.
    pub fastest: f64,
    pub slowest: f64,
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
        fastest: times[0].as_secs_f64(),
        slowest: times[times.len() - 1].as_secs_f64(),
        solutions_per_second: want as f64 / s,
        nodes_per_second: nodes as f64 / s,
    })
}

/// The most a thread count's runs may spread (slowest less fastest, over the time kept)
/// before the benchmark says its figures cannot be trusted.
pub const MOST_SPREAD: f64 = 0.10;

/// The load of other work (threads running or waiting) a benchmark tolerates beyond the
/// hardware threads it leaves free: an idle machine's load average is rarely exactly 0.
const LOAD_SLACK: f64 = 0.5;

impl Measurement {
    /// How far the runs spread: slowest less fastest, as a share of the time kept.
    pub fn spread(&self) -> f64 {
        (self.slowest - self.fastest) / self.seconds
    }
}

/// The efficiency of `threads` threads that ran `speedup` times faster than one: the speedup
/// over the hardware threads they could use, at most `hardware` (more threads than that only
/// take turns, so their ideal is `hardware` times one thread's speed, not `threads` times).
pub fn efficiency(speedup: f64, threads: usize, hardware: usize) -> f64 {
    speedup / threads.min(hardware.max(1)) as f64
}

/// The load average other work put on the machine, from the load `before` the benchmark and
/// `after` it, which ran for `seconds` with at most `threads` threads: the one-minute average
/// moves toward the threads running by 1 - e^(-t/60) in t seconds, so that much of `after`
/// was the benchmark's own.
pub fn other_load(
    before: Option<f64>,
    after: Option<f64>,
    threads: usize,
    seconds: f64,
) -> Option<f64> {
    let own = threads as f64 * (1.0 - (-seconds / 60.0).exp());
    let after = after.map(|a| (a - own).max(0.0));
    match (before, after) {
        (Some(b), Some(a)) => Some(b.max(a)),
        (b, a) => b.or(a),
    }
}

/// What makes a benchmark's figures untrustworthy, one line each: other work (`load`, see
/// [`other_load`]) on the hardware threads the benchmark needed, runs that spread by more than
/// [`MOST_SPREAD`], and more threads than `hardware` threads.
pub fn warnings(measurements: &[Measurement], hardware: usize, load: Option<f64>) -> Vec<String> {
    let mut lines = Vec::new();
    let most = measurements.iter().map(|m| m.threads).max().unwrap_or(1);
    let free = hardware.saturating_sub(most) as f64;
    if let Some(load) = load.filter(|&l| l > free + LOAD_SLACK) {
        lines.push(format!(
            "the machine was busy: a load average of {load:.2} from other work, with {} of {} \
             left free by the benchmark; its times are not to be trusted",
            free as usize,
            crate::output::things(hardware as u64, "hardware thread", "hardware threads")
        ));
    }
    for m in measurements.iter().filter(|m| m.spread() > MOST_SPREAD) {
        lines.push(format!(
            "the runs on {} spread by {:.1}% of their time ({:.3} to {:.3} s, more than {:.0}%): \
             the machine was busy or its clock varied; that row is not to be trusted",
            crate::output::things(m.threads as u64, "thread", "threads"),
            100.0 * m.spread(),
            m.fastest,
            m.slowest,
            100.0 * MOST_SPREAD
        ));
    }
    if most > hardware {
        let on = crate::output::things(hardware as u64, "hardware thread", "hardware threads");
        lines.push(format!(
            "{most} threads on {on}: threads past {hardware} only take turns; the efficiency \
             of those rows is the speedup over the {on}, not over the threads"
        ));
    }
    lines
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
    /// The fastest and the slowest run, and their difference over `seconds`.
    seconds_min: f64,
    seconds_max: f64,
    spread: f64,
    solutions_per_second: f64,
    nodes_per_second: f64,
    speedup: f64,
    /// The speedup over the threads that could run at once: `min(threads, hardware threads)`.
    efficiency: f64,
    /// More threads than hardware threads.
    oversubscribed: bool,
}

/// The summary JSON line.
#[derive(Serialize)]
struct Summary<'a> {
    summary: bool,
    workload: &'a str,
    algorithm: &'a str,
    score: f64,
    /// The one-minute load average before and after the benchmark (where known), and whether
    /// other work loaded the hardware threads it needed.
    load_before: Option<f64>,
    load_after: Option<f64>,
    busy: bool,
    /// Why the figures may not be trusted, one line each (empty: no reason seen).
    warnings: &'a [String],
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
    let mut workload = workload(match args.workload {
        _ if args.quick => WorkloadArg::Quick,
        w => w.unwrap_or(WorkloadArg::Standard),
    });
    if let Some(a) = args.algorithm {
        workload.algorithm = a.into();
    }
    let public = workload.statistic == Statistic::Mean;
    let machine = Machine::detect();
    let hardware = machine.hardware_threads;
    let counts = args
        .threads
        .clone()
        .unwrap_or_else(|| default_thread_counts(hardware));
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
        if public {
            out(&profile_note(workload.algorithm));
        }
        out(&format!(
            "{:>7}  {:>9}  {:>15}  {:>12}  {:>10}  {:>8}  {:>10}",
            "threads", "time", "min-max", "solutions/s", "nodes/s", "speedup", "efficiency"
        ));
    }
    let load_before = load_average();
    let begun = std::time::Instant::now();
    let mut measurements: Vec<Measurement> = Vec::new();
    for &t in &counts {
        let s = measure(&workload, t).map_err(|e| fail(Exit::Failed, e))?;
        // The first row's time on the hardware threads it could use stands for one thread's.
        let base = measurements
            .first()
            .map_or(s.seconds * t.min(hardware) as f64, |b| {
                b.seconds * b.threads.min(hardware) as f64
            });
        let speedup = base / s.seconds;
        let efficiency = efficiency(speedup, t, hardware);
        let oversubscribed = t > hardware;
        if args.json {
            out(&json(&Row {
                workload: workload.name,
                n: workload.n,
                algorithm: workload.algorithm.name(),
                threads: t,
                seconds: s.seconds,
                seconds_min: s.fastest,
                seconds_max: s.slowest,
                spread: s.spread(),
                solutions_per_second: s.solutions_per_second.round(),
                nodes_per_second: s.nodes_per_second.round(),
                speedup,
                efficiency,
                oversubscribed,
            }));
        } else {
            out(&format!(
                "{:>7}  {:>7.3} s  {:>15}  {:>12}  {:>10}  {:>7.2}x  {:>9.0}%{}",
                t,
                s.seconds,
                format!("{:.3}-{:.3} s", s.fastest, s.slowest),
                si(s.solutions_per_second),
                si(s.nodes_per_second),
                speedup,
                100.0 * efficiency,
                if oversubscribed { "*" } else { "" }
            ));
        }
        measurements.push(s);
    }
    let load_after = load_average();
    let most = counts.iter().copied().max().unwrap_or(1);
    let load = other_load(load_before, load_after, most, begun.elapsed().as_secs_f64());
    let warnings = warnings(&measurements, hardware, load);
    let busy = warnings
        .iter()
        .any(|w| w.starts_with("the machine was busy"));
    // Million solutions per second at the best thread count.
    let score = measurements
        .iter()
        .map(|s| s.solutions_per_second / 1e6)
        .fold(0.0, f64::max);
    // The public profiles report elapsed seconds on every thread: the last row's time.
    if public
        && !args.json
        && let Some(last) = measurements.last()
    {
        out(&format!(
            "{} figure: {:.3} s elapsed (mean of {} runs on {}), {} algorithm, to set beside the profile's published results {}",
            workload.name.replacen('-', "/", 1),
            last.seconds,
            workload.runs,
            crate::output::things(last.threads as u64, "thread", "threads"),
            workload.algorithm,
            if workload.algorithm == nqueens::Algorithm::Plain {
                "like for like"
            } else {
                "as a program's time (they time a brute-force counter)"
            }
        ));
    }
    if args.json {
        out(&json(&Summary {
            summary: true,
            workload: workload.name,
            algorithm: workload.algorithm.name(),
            score: (score * 100.0).round() / 100.0,
            load_before,
            load_after,
            busy,
            warnings: &warnings,
            machine: machine.to_string(),
            physical_cores: machine.physical_cores,
            logical_cores: machine.hardware_threads,
            version: env!("CARGO_PKG_VERSION"),
        }));
    } else {
        if most > hardware {
            out(&format!(
                "* more threads than hardware threads ({hardware}): efficiency is the speedup over {hardware}"
            ));
        }
        out(&format!(
            "score: {score:.2} (million solutions per second, workload {}; counts checked)",
            workload.name
        ));
    }
    for w in &warnings {
        say(format!("warning: {w}"));
    }
    Ok(Exit::Ok)
}

/// What a public profile's workload compares, under the header: the published results of
/// `pts/n-queens` and `pts/m-queens` time a brute-force OpenMP counter (plain backtracking),
/// so this program's own algorithms make a comparison of programs, and the plain one of
/// machines.
fn profile_note(algorithm: nqueens::Algorithm) -> String {
    if algorithm == nqueens::Algorithm::Plain {
        "the published results of this profile time a brute-force OpenMP counter; the plain \
         algorithm is one too: a like-for-like comparison of machines"
            .to_string()
    } else {
        format!(
            "the published results of this profile time a brute-force OpenMP counter, not the \
             {algorithm} algorithm: beside them this time compares programs, not machines; \
             --algorithm plain compares machines like for like"
        )
    }
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

    fn measured(threads: usize, fastest: f64, seconds: f64, slowest: f64) -> Measurement {
        Measurement {
            threads,
            seconds,
            fastest,
            slowest,
            solutions_per_second: 1.0,
            nodes_per_second: 1.0,
        }
    }

    #[test]
    fn a_quiet_machine_and_steady_runs_warn_of_nothing() {
        let rows = [measured(1, 1.0, 1.02, 1.05), measured(2, 0.5, 0.51, 0.52)];
        assert_eq!(warnings(&rows, 2, Some(0.3)), Vec::<String>::new());
        assert_eq!(warnings(&rows, 2, None), Vec::<String>::new());
        // Two hardware threads left free take a load of 2.4.
        assert_eq!(warnings(&rows, 4, Some(2.4)), Vec::<String>::new());
    }

    #[test]
    fn other_work_on_the_threads_the_benchmark_needed_is_a_busy_machine() {
        let rows = [measured(1, 1.0, 1.0, 1.0), measured(2, 0.5, 0.5, 0.5)];
        let w = warnings(&rows, 2, Some(1.3));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("the machine was busy: a load average of 1.30 from other work, with 0 of 2 hardware threads left free"),
            "{w:?}"
        );
        assert!(warnings(&rows, 4, Some(2.6))[0].contains("with 2 of 4 hardware threads"));
    }

    #[test]
    fn the_benchmarks_own_threads_are_taken_out_of_the_load_after_it() {
        // 60 s on 2 threads moves the one-minute average by 2 × (1 - 1/e) = 1.26.
        let own = 2.0 * (1.0 - (-1.0f64).exp());
        let other = other_load(Some(0.1), Some(own + 0.2), 2, 60.0).unwrap();
        assert!((other - 0.2).abs() < 1e-9, "{other}");
        assert_eq!(other_load(Some(0.7), Some(0.0), 2, 60.0), Some(0.7));
        assert_eq!(other_load(None, Some(0.1), 2, 60.0), Some(0.0));
        assert_eq!(other_load(None, None, 2, 60.0), None);
    }

    #[test]
    fn runs_that_spread_past_a_tenth_are_named() {
        let rows = [measured(1, 1.0, 1.0, 1.05), measured(2, 0.5, 0.6, 0.75)];
        let w = warnings(&rows, 2, None);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "the runs on 2 threads spread by 41.7% of their time (0.500 to 0.750 s"
            ),
            "{w:?}"
        );
        assert!((rows[1].spread() - 0.25 / 0.6).abs() < 1e-12);
    }

    #[test]
    fn more_threads_than_hardware_threads_are_said_and_their_efficiency_is_over_the_hardware() {
        let rows = [measured(1, 1.0, 1.0, 1.0), measured(1000, 0.5, 0.5, 0.5)];
        let w = warnings(&rows, 2, None);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("1000 threads on 2 hardware threads"),
            "{w:?}"
        );
        // Twice as fast on two hardware threads is all they could give: 100%, not 0.2%.
        assert_eq!(efficiency(2.0, 1000, 2), 1.0);
        assert_eq!(efficiency(1.5, 2, 8), 0.75);
        assert_eq!(efficiency(1.0, 1, 0), 1.0);
    }

    #[test]
    fn the_m_queens_profile_is_its_board() {
        let w = workload(WorkloadArg::PtsMQueens);
        assert_eq!((w.n, w.runs, w.statistic), (19, 3, Statistic::Mean));
    }
}
