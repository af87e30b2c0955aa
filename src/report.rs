//! Output formats: the aligned human table and one JSON object per line.
//!
//! Results go to stdout; progress and diagnostics go to stderr. JSON field names are stable:
//! scripts depend on them. Counts are JSON integers at any size (`u128`), never floats or
//! strings.

use nqueens::Counts;
use nqueens::known::Verdict;
use serde::Serialize;

/// The header of the human table.
pub fn header() -> String {
    format!(
        "{:>2}  {:>24}  {:>22}  {:>11}  {:>7}  {:>11}",
        "n", "solutions", "unique", "time", "threads", "nodes/s"
    )
}

/// One row of the human table.
pub fn human_row(c: &Counts) -> String {
    let unique = c.unique.map_or_else(|| "-".to_string(), |u| u.to_string());
    format!(
        "{:>2}  {:>24}  {:>22}  {:>9.3} s  {:>7}  {:>11}",
        c.n,
        c.total,
        unique,
        c.elapsed.as_secs_f64(),
        c.threads,
        si(c.nodes_per_second())
    )
}

/// A rate with an SI prefix: `1.35 G`.
pub fn si(v: f64) -> String {
    let (scaled, prefix) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    format!("{scaled:.2} {prefix}").trim_end().to_string()
}

/// Words for a `--verify` verdict.
pub fn verdict_words(n: usize, v: Verdict) -> String {
    match v {
        Verdict::Agrees => format!("verify: n = {n} agrees with OEIS A000170/A002562"),
        Verdict::Differs => format!("verify: n = {n} DIFFERS from OEIS A000170/A002562"),
        Verdict::Unknown => format!("verify: no published value for n = {n} (known up to 27)"),
    }
}

/// The JSON form of a verdict.
pub fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Agrees => "agrees",
        Verdict::Differs => "differs",
        Verdict::Unknown => "unknown",
    }
}

/// One JSON line per counted n.
#[derive(Serialize)]
pub struct JsonRow<'a> {
    n: usize,
    solutions: u128,
    unique: Option<u128>,
    seconds: f64,
    threads: usize,
    algorithm: &'a str,
    subproblems: usize,
    split_depth: usize,
    nodes: u128,
    nodes_per_second: f64,
    busy_seconds: Vec<f64>,
    physical_cores: usize,
    hardware_threads: usize,
    peak_memory_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verified: Option<&'static str>,
}

/// The JSON line of a count.
pub fn json_row(c: &Counts, verdict: Option<Verdict>) -> String {
    let row = JsonRow {
        n: c.n,
        solutions: c.total,
        unique: c.unique,
        seconds: c.elapsed.as_secs_f64(),
        threads: c.threads,
        algorithm: c.algorithm.name(),
        subproblems: c.subproblems,
        split_depth: c.split_depth,
        nodes: c.nodes,
        nodes_per_second: c.nodes_per_second().round(),
        busy_seconds: c.busy.iter().map(|d| d.as_secs_f64()).collect(),
        physical_cores: num_cpus::get_physical(),
        hardware_threads: nqueens::run::resolve_threads(0),
        peak_memory_bytes: c.peak_memory,
        verified: verdict.map(verdict_name),
    };
    serde_json::to_string(&row).expect("rows serialise")
}

/// Load-balance statistics for `--stats`.
pub fn stats(c: &Counts) -> String {
    let wall = c.elapsed.as_secs_f64().max(1e-9);
    let fractions: Vec<String> = c
        .busy
        .iter()
        .map(|b| format!("{:.0}%", 100.0 * b.as_secs_f64() / wall))
        .collect();
    let total: f64 = c.busy.iter().map(|b| b.as_secs_f64()).sum();
    format!(
        "stats: n = {}: {} subproblems (split depth {}), {} nodes, threads busy {} (mean {:.0}%), peak memory {}; machine: {} physical cores, {} hardware threads",
        c.n,
        c.subproblems,
        c.split_depth,
        c.nodes,
        fractions.join(" "),
        100.0 * total / (wall * c.busy.len().max(1) as f64),
        c.peak_memory
            .map_or_else(|| "unknown".to_string(), nqueens::memory::human),
        num_cpus::get_physical(),
        nqueens::run::resolve_threads(0)
    )
}
