//! The tasks of the command line, from typed arguments to printed results and exit codes.
//!
//! Each task builds what the library needs (a plan, a journal, a shard), runs it, and prints:
//! results on stdout, progress and diagnostics on stderr, errors as one line.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nqueens::checkpoint::{CHECKPOINT, Journal, Recorder, SHARD_RESULT, Shard};
use nqueens::known::{self, Verdict};
use nqueens::run::{self, Control, Piece};
use nqueens::{Algorithm, Counts, Plan, Sums, shard, solutions, trace};

use crate::cli::{CountArgs, ListArgs, ListFormat, MergeArgs, ShardArg, TraceArgs};
use crate::progress::Progress;
use crate::report;

/// Exit code: done.
pub const OK: u8 = 0;
/// Exit code: a runtime failure.
pub const FAILED: u8 = 1;
/// Exit code: a usage error.
pub const USAGE: u8 = 2;
/// Exit code: interrupted (after saving what was finished).
pub const INTERRUPTED: u8 = 130;

/// How often a checkpoint is rewritten while a run goes on.
const SAVE_EVERY: Duration = Duration::from_secs(3);

/// Set by Ctrl-C or SIGTERM; the runner stops between subproblems.
static CANCEL: AtomicBool = AtomicBool::new(false);

fn install_signal_handler() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if CANCEL.swap(true, Ordering::SeqCst) {
                // A second signal: leave at once; the last periodic save stands.
                std::process::exit(i32::from(INTERRUPTED));
            }
        });
    });
}

fn usage(msg: impl std::fmt::Display) -> u8 {
    eprintln!("error: {msg}");
    USAGE
}

fn failure(msg: impl std::fmt::Display) -> u8 {
    eprintln!("error: {msg}");
    FAILED
}

/// Writes a line to stdout; a closed pipe ends the program quietly.
fn out(line: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}").and_then(|_| stdout.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(i32::from(FAILED));
    }
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The default task: count one board size or a range of them.
pub fn count(args: &CountArgs) -> u8 {
    let sizes = args.sizes.expect("clap requires N");
    let single = sizes.first == sizes.last;
    if !single && (args.checkpoint.is_some() || args.shard.is_some() || args.out.is_some()) {
        return usage("--checkpoint, --shard and --out take a single N, not a range");
    }
    if args.out.is_some() && args.shard.is_none() {
        return usage(
            "--out writes a shard's result file: give --shard I/M (0/1 for the whole count)",
        );
    }
    let shard = match args.shard {
        None => None,
        Some(ShardArg::Fixed { index, count }) => Some(Shard { index, count }),
        Some(ShardArg::Auto { count }) => {
            match crate::cli::shard_index_from_env(|k| std::env::var(k).ok()) {
                Ok(index) if index < count => Some(Shard { index, count }),
                Ok(index) => {
                    return usage(format!(
                        "the scheduler's shard index {index} is out of range for {count} shards"
                    ));
                }
                Err(e) => return usage(e),
            }
        }
    };
    if shard.is_some() && args.out.is_none() {
        return usage("--shard needs --out FILE for the shard's result file");
    }
    if let Some(out) = &args.out {
        let folder = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return failure(format!(
                "{}: the folder {} does not exist",
                out.display(),
                folder.display()
            ));
        }
    }
    install_signal_handler();
    if !args.json && shard.is_none() {
        out(&report::header());
    }
    let mut code = OK;
    for n in sizes.first..=sizes.last {
        match count_one(n, args, shard) {
            Ok(c) => code = code.max(c),
            Err(c) => return c,
        }
    }
    code
}

/// Counts one n; `Err` carries an exit code that ends the whole command.
fn count_one(n: usize, args: &CountArgs, shard: Option<Shard>) -> Result<u8, u8> {
    let begun = Instant::now();
    let threads = run::resolve_threads(args.threads);
    // A checkpoint names the split depth it was made with; resume with the same plan.
    let existing = match &args.checkpoint {
        Some(path) if path.exists() => Some(Journal::read(path).map_err(failure)?),
        _ => None,
    };
    let depth = args
        .split_depth
        .or_else(|| existing.as_ref().map(|j| j.split_depth));
    // A shard's plan must not depend on the thread count of the task that runs it: every task
    // of an array job has to cut the count the same way.
    let plan_threads = if shard.is_some() { 1 } else { threads };
    // Without --algorithm, a checkpoint resumes with its own algorithm; otherwise the fastest
    // one for the board size.
    let algorithm = match (args.algorithm, &existing) {
        (Some(a), _) => a.into(),
        (None, Some(j)) => j.algorithm.parse().unwrap_or(Algorithm::default_for(n)),
        (None, None) => Algorithm::default_for(n),
    };
    let plan = Plan::build(n, algorithm, depth, plan_threads).map_err(usage)?;
    plan.check_memory(threads).map_err(failure)?;
    if let (Some(j), Some(path)) = (&existing, &args.checkpoint) {
        j.check_against(path, &plan, shard).map_err(failure)?;
    }
    let wanted: Vec<u64> = match shard {
        Some(s) => shard::owned_ids(&plan, s),
        None => plan.subproblems.iter().map(|s| s.id).collect(),
    };
    let resumed = existing
        .as_ref()
        .map(Journal::piece_map)
        .unwrap_or_default();
    let todo: Vec<u64> = wanted
        .iter()
        .copied()
        .filter(|id| !resumed.contains_key(id))
        .collect();
    let mut resumed_sums = Sums::default();
    for p in resumed.values() {
        resumed_sums.add(&plan, p);
    }

    let recorder = args.checkpoint.as_ref().map(|path| {
        let journal = existing.unwrap_or_else(|| Journal::new(CHECKPOINT, &plan, shard));
        Recorder::new(&plan, path, journal, SAVE_EVERY)
    });
    if let Some(r) = &recorder {
        // Fail now, not after hours of work, when the checkpoint cannot be written.
        r.flush().map_err(failure)?;
    }
    let progress = Progress::new(&plan, &todo, &resumed_sums, !args.no_progress);
    let on_piece = |p: &Piece| {
        if let Some(r) = &recorder {
            r.record(p);
        }
        progress.piece(p);
    };
    let control = Control {
        cancel: Some(&CANCEL),
        on_piece: Some(&on_piece),
    };
    let result = run::execute(&plan, &todo, threads, control);
    progress.finish();
    let report = result.map_err(failure)?;
    if let Some(r) = &recorder {
        r.set_meta(
            "program",
            format!("nqueens-count {}", env!("CARGO_PKG_VERSION")),
        );
        r.flush().map_err(failure)?;
    }
    if report.cancelled {
        let done = resumed.len() + report.pieces.len();
        match &args.checkpoint {
            Some(path) => eprintln!(
                "interrupted: {done} of {} subproblems done and saved to {}; run the same command again to resume",
                wanted.len(),
                path.display()
            ),
            None => eprintln!(
                "interrupted: {done} of {} subproblems were done, none saved (use --checkpoint FILE to keep them)",
                wanted.len()
            ),
        }
        return Err(INTERRUPTED);
    }

    let mut pieces: BTreeMap<u64, Piece> = resumed;
    for p in &report.pieces {
        pieces.insert(p.id, *p);
    }
    let mut sums = Sums::default();
    for p in pieces.values() {
        sums.add(&plan, p);
    }
    let elapsed = begun.elapsed();

    if let Some(s) = shard {
        let path = args.out.as_ref().expect("checked with --shard");
        return write_shard(&plan, s, &pieces, &sums, elapsed, path, args.json);
    }

    let counts = Counts {
        n,
        total: sums.total,
        unique: sums.unique(&plan),
        nodes: report.pieces.iter().map(|p| u128::from(p.nodes)).sum(),
        algorithm: plan.algorithm,
        subproblems: plan.subproblems.len(),
        split_depth: plan.split_depth,
        threads,
        elapsed,
        busy: report.busy,
        peak_memory: nqueens::memory::peak(),
    };
    let verdict = args
        .verify
        .then(|| known::verify(n, counts.total, counts.unique));
    if args.json {
        out(&report::json_row(&counts, verdict));
    } else {
        out(&report::human_row(&counts));
    }
    if args.stats {
        eprintln!("{}", report::stats(&counts));
    }
    match verdict {
        Some(v) => {
            eprintln!("{}", report::verdict_words(n, v));
            Ok(if v == Verdict::Differs { FAILED } else { OK })
        }
        None => Ok(OK),
    }
}

fn write_shard(
    plan: &Plan,
    s: Shard,
    pieces: &BTreeMap<u64, Piece>,
    sums: &Sums,
    elapsed: Duration,
    path: &Path,
    json: bool,
) -> Result<u8, u8> {
    let mut j = Journal::new(SHARD_RESULT, plan, Some(s));
    j.meta.insert(
        "program".into(),
        format!("nqueens-count {}", env!("CARGO_PKG_VERSION")),
    );
    j.meta.insert("host".into(), host_name());
    j.meta
        .insert("seconds".into(), format!("{:.3}", elapsed.as_secs_f64()));
    j.set_pieces(plan, pieces);
    j.write_atomic(path).map_err(failure)?;
    if json {
        let line = serde_json::json!({
            "n": plan.n,
            "shard": s.index,
            "shards": s.count,
            "subproblems": pieces.len(),
            "seconds": elapsed.as_secs_f64(),
            "out": path.display().to_string(),
        });
        out(&line.to_string());
    } else {
        out(&format!(
            "shard {}/{} of n = {}: {} subproblems, partial sum {} solutions, {:.3} s, written to {}",
            s.index,
            s.count,
            plan.n,
            pieces.len(),
            sums.total,
            elapsed.as_secs_f64(),
            path.display()
        ));
    }
    Ok(OK)
}

/// `merge`: verify and add up the shards' result files.
pub fn merge(args: &MergeArgs) -> u8 {
    match shard::merge(&args.files) {
        Err(problems) => {
            for p in &problems {
                eprintln!("error: {p}");
            }
            FAILED
        }
        Ok(m) => {
            let verdict = args.verify.then(|| known::verify(m.n, m.total, m.unique));
            if args.json {
                #[derive(serde::Serialize)]
                struct Row<'a> {
                    n: usize,
                    solutions: u128,
                    unique: Option<u128>,
                    algorithm: &'a str,
                    shards: u64,
                    plan: &'a str,
                    nodes: u128,
                    shard_seconds: f64,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    verified: Option<&'static str>,
                }
                let row = Row {
                    n: m.n,
                    solutions: m.total,
                    unique: m.unique,
                    algorithm: m.algorithm.name(),
                    shards: m.shards,
                    plan: &m.plan,
                    nodes: m.sums.nodes,
                    shard_seconds: (m.shard_seconds * 1000.0).round() / 1000.0,
                    verified: verdict.map(report::verdict_name),
                };
                out(&serde_json::to_string(&row).expect("rows serialise"));
            } else {
                let unique = m.unique.map_or_else(|| "-".to_string(), |u| u.to_string());
                out(&format!(
                    "n = {}: {} solutions, {} unique ({} shards of plan {}, all verified)",
                    m.n, m.total, unique, m.shards, m.plan
                ));
            }
            match verdict {
                Some(v) => {
                    eprintln!("{}", report::verdict_words(m.n, v));
                    if v == Verdict::Differs { FAILED } else { OK }
                }
                None => OK,
            }
        }
    }
}

/// `list`: stream the solutions.
pub fn list(args: &ListArgs) -> u8 {
    let limit = args.limit.unwrap_or(u64::MAX);
    if limit == 0 {
        return OK;
    }
    let mut seen = 0u64;
    let mut first = true;
    if args.format == ListFormat::Json {
        out_raw("[");
    }
    solutions::for_each_solution(args.n, |cols| {
        seen += 1;
        match args.format {
            ListFormat::Tuple => out(&solutions::format_tuple(cols)),
            ListFormat::Board => {
                let mut text = String::new();
                if !first {
                    text.push('\n');
                }
                text.push_str(&solutions::board_rows(cols).join("\n"));
                out(&text);
            }
            ListFormat::Json => {
                let rows = serde_json::to_string(&solutions::board_rows(cols)).expect("strings");
                out_raw(&format!("{}{rows}", if first { "" } else { ",\n" }));
            }
        }
        first = false;
        if seen >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    match args.format {
        ListFormat::Json => out("]"),
        _ if seen == 0 => out("no solution"),
        _ => {}
    }
    OK
}

fn out_raw(text: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(i32::from(FAILED));
    }
}

/// `trace`: print the backtracking tree.
pub fn trace(args: &TraceArgs) -> u8 {
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let result = trace::write_trace(args.n, &mut stdout).and_then(|_| stdout.flush());
    match result {
        Ok(()) => OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => OK,
        Err(e) => failure(format!("cannot write the trace: {e}")),
    }
}

/// What this machine is, for benchmark reports.
fn machine_line() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!(
        "{model}, {} physical cores, {} hardware threads",
        num_cpus::get_physical(),
        run::resolve_threads(0)
    )
}

/// `bench`: the fixed workload at several thread counts.
pub fn bench(args: &crate::cli::BenchArgs) -> u8 {
    use nqueens::bench;
    let workload = if args.quick {
        bench::QUICK
    } else {
        bench::STANDARD
    };
    let counts = args
        .threads
        .clone()
        .unwrap_or_else(|| bench::default_thread_counts(run::resolve_threads(0)));
    let machine = machine_line();
    if !args.json {
        out(&format!("machine: {machine}"));
        out(&format!(
            "workload {}: {} algorithm, n = {}, median of {} runs per thread count",
            workload.name, workload.algorithm, workload.n, workload.runs
        ));
        out(&format!(
            "{:>7}  {:>9}  {:>12}  {:>10}  {:>8}  {:>10}",
            "threads", "time", "solutions/s", "nodes/s", "speedup", "efficiency"
        ));
    }
    let mut samples = Vec::new();
    for &t in &counts {
        let s = match bench::measure(&workload, t) {
            Ok(s) => s,
            Err(e) => return failure(e),
        };
        let base = samples
            .first()
            .map_or(s.seconds, |b: &bench::Sample| b.seconds * b.threads as f64);
        let speedup = base / s.seconds;
        let efficiency = speedup / t as f64;
        if args.json {
            let row = serde_json::json!({
                "workload": workload.name,
                "n": workload.n,
                "algorithm": workload.algorithm.name(),
                "threads": t,
                "seconds": s.seconds,
                "solutions_per_second": s.solutions_per_second.round(),
                "nodes_per_second": s.nodes_per_second.round(),
                "speedup": speedup,
                "efficiency": efficiency,
            });
            out(&row.to_string());
        } else {
            out(&format!(
                "{:>7}  {:>7.3} s  {:>12}  {:>10}  {:>7.2}x  {:>9.0}%",
                t,
                s.seconds,
                report::si(s.solutions_per_second),
                report::si(s.nodes_per_second),
                speedup,
                100.0 * efficiency
            ));
        }
        samples.push(s);
    }
    let score = bench::score(&samples);
    if args.json {
        let row = serde_json::json!({
            "summary": true,
            "workload": workload.name,
            "score": (score * 100.0).round() / 100.0,
            "machine": machine,
            "physical_cores": num_cpus::get_physical(),
            "logical_cores": run::resolve_threads(0),
            "version": env!("CARGO_PKG_VERSION"),
        });
        out(&row.to_string());
    } else {
        out(&format!(
            "score: {score:.2} (million solutions per second, workload {}; counts checked)",
            workload.name
        ));
    }
    OK
}
