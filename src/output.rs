//! Output formats: the aligned human table, the one-line summaries of shards and merges, and
//! one JSON object per line.
//!
//! Results go to stdout; progress and diagnostics go to stderr. JSON field names are stable:
//! scripts depend on them. Counts are JSON integers at any size (`u128`), never floats; as
//! readers whose numbers are doubles (jq, JavaScript) lose digits past 2^53 (queen totals
//! from n = 26, rook totals from n = 19), each count is given again as a decimal string:
//! `solutions_str`, `unique_str`, `nodes_str`.

use std::path::Path;

use nqueens::Bytes;
use nqueens::known;
use nqueens::persist::{Merged, Shard, Tags};
use nqueens::plan::PlanHash;

use crate::machine::Machine;
use nqueens::{Counts, MergeChecks, Outcome, Recount, Recounted};
use serde::Serialize;

/// `count` and the word for it, singular or plural: "1 shard", "64 shards".
pub fn things(count: impl Into<u128>, one: &str, many: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The header of the human table.
pub fn header() -> String {
    format!(
        "{:>2}  {:>22}  {:>20}  {:>10}  {:>7}  {:>8}",
        "n", "solutions", "unique", "time", "threads", "nodes/s"
    )
}

fn unique_text(u: Option<u128>) -> String {
    u.map_or_else(|| "-".to_string(), |u| u.to_string())
}

/// One row of the human table.
pub fn human_row(c: &Counts) -> String {
    format!(
        "{:>2}  {:>22}  {:>20}  {:>8.3} s  {:>7}  {:>8}",
        c.n,
        c.total,
        unique_text(c.unique),
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

/// What a `--verify` check concluded for one count (in JSON, its name in lower case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Total (and unique, when computed) equal the published values.
    Agrees,
    /// A computed value differs from the published one.
    Differs,
    /// No published value for this n.
    Unknown,
}

/// Compares computed counts with the published ones.
pub fn verify(n: usize, total: u128, unique: Option<u128>) -> Verdict {
    match (known::total(n), known::unique(n)) {
        (Some(t), Some(u)) => {
            if t == total && unique.is_none_or(|v| v == u) {
                Verdict::Agrees
            } else {
                Verdict::Differs
            }
        }
        _ => Verdict::Unknown,
    }
}

/// Words for a `--verify` verdict.
pub fn verdict_words(n: usize, v: Verdict, unique: Option<u128>) -> String {
    // Without a unique count (the plain algorithm), only the total was compared.
    let tables = match unique {
        Some(_) => "OEIS A000170/A002562",
        None => "OEIS A000170 (the total; no unique count was made)",
    };
    match v {
        Verdict::Agrees => format!("verify: n = {n} agrees with {tables}"),
        Verdict::Differs => format!("verify: n = {n} DIFFERS from {tables}"),
        Verdict::Unknown => format!("verify: no published value for n = {n} (known up to 27)"),
    }
}

/// One JSON line: a count, a shard's run or a merge. Fields that do not apply are left out;
/// `unique` is `null` where the algorithm does not count it.
#[derive(Default, Serialize)]
struct Row<'a> {
    n: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    solutions: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<Option<u128>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subproblems: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    split_depth: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    busy_seconds: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_cores: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hardware_threads: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_memory_bytes: Option<Option<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<u64>,
    /// A shard's share of the total: the solutions its subproblems stand for.
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_solutions: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shards: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<PlanHash>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recounted: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recount_seed: Option<u64>,
    /// Whether every subproblem of a merge was counted again.
    #[serde(skip_serializing_if = "Option::is_none")]
    recounted_all: Option<bool>,
    /// The shards an audit recounted whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    audited: Option<Vec<u64>>,
    /// The chance that such an audit holds one given wrong shard.
    #[serde(skip_serializing_if = "Option::is_none")]
    audit_catch: Option<f64>,
    /// The shards given more than once, all agreeing.
    #[serde(skip_serializing_if = "Option::is_none")]
    replicas: Option<Vec<u64>>,
    /// Entries cut otherwise than this release cuts them, all recounted.
    #[serde(skip_serializing_if = "Option::is_none")]
    off_rule_entries: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    out: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verified: Option<Verdict>,
}

impl Row<'_> {
    fn line(&self) -> String {
        let text = |v: Option<u128>| v.map(|v| v.to_string());
        let exact = Exact {
            row: self,
            partial_solutions_str: text(self.partial_solutions),
            solutions_str: text(self.solutions),
            unique_str: self.unique.map(text),
            nodes_str: text(self.nodes),
        };
        serde_json::to_string(&exact).expect("rows serialise")
    }
}

/// A row with its counts again as decimal strings, for readers that parse numbers as doubles.
#[derive(Serialize)]
struct Exact<'r, 'a> {
    #[serde(flatten)]
    row: &'r Row<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_solutions_str: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    solutions_str: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unique_str: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes_str: Option<String>,
}

/// The JSON line of a count.
pub fn json_row(c: &Counts, verdict: Option<Verdict>, machine: &Machine) -> String {
    Row {
        n: c.n,
        solutions: Some(c.total),
        unique: Some(c.unique),
        seconds: Some(c.elapsed.as_secs_f64()),
        threads: Some(c.threads),
        algorithm: Some(c.algorithm.name()),
        subproblems: Some(c.subproblems),
        split_depth: Some(c.split_depth),
        nodes: Some(c.nodes),
        nodes_per_second: Some(c.nodes_per_second().round()),
        busy_seconds: Some(c.busy.iter().map(|d| d.as_secs_f64()).collect()),
        physical_cores: Some(machine.physical_cores),
        hardware_threads: Some(machine.hardware_threads),
        peak_memory_bytes: Some(c.peak_memory),
        verified: verdict,
        ..Row::default()
    }
    .line()
}

/// The line of a shard's run, human or JSON.
pub fn shard_line(o: &Outcome, s: Shard, path: &Path, json: bool) -> String {
    if json {
        return Row {
            n: o.n,
            algorithm: Some(o.algorithm.name()),
            shard: Some(s.index),
            shards: Some(s.count),
            subproblems: Some(o.counted.len()),
            partial_solutions: Some(o.sums.total),
            nodes: Some(o.sums.nodes),
            seconds: Some(o.elapsed.as_secs_f64()),
            out: Some(path.display().to_string()),
            ..Row::default()
        }
        .line();
    }
    format!(
        "shard {s} of n = {}: {}, partial sum {}, {:.3} s, written to {}",
        o.n,
        things(o.counted.len() as u64, "subproblem", "subproblems"),
        things(o.sums.total, "solution", "solutions"),
        o.elapsed.as_secs_f64(),
        path.display()
    )
}

/// `part` of `whole` as a share in per cent, to two significant digits at most: "100%",
/// "25%", "0.3%", "0.012%".
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".to_string();
    }
    let p = 100.0 * part as f64 / whole as f64;
    match p {
        p if p >= 10.0 || p == 0.0 => format!("{p:.0}%"),
        p if p >= 1.0 => format!("{p:.1}%"),
        p => {
            let digits = (-p.log10()).ceil() as usize + 1;
            format!("{p:.digits$}%")
        }
    }
}

/// What a recount asked as `how` checked, in words: "recounted 12 of 4096 subproblems
/// (0.29%) at random in 3.0 s (seed 42), all agree; the others not recounted (...)", or
/// "recounted all 918 subproblems ... all agree: verified".
pub fn recount_words(r: &Recounted, how: Recount) -> String {
    if how == Recount::Subproblems(0) {
        return format!(
            "recounted none of {} (--recount 0)",
            things(r.of, "subproblem", "subproblems")
        );
    }
    if r.of > 0 && r.checked == r.of {
        return format!(
            "recounted all {} in {:.1} s, all agree: verified",
            things(r.of, "subproblem", "subproblems"),
            r.seconds
        );
    }
    format!(
        "recounted {} of {} ({}) at random in {:.1} s (seed {}), {}",
        r.checked,
        things(r.of, "subproblem", "subproblems"),
        percent(r.checked, r.of),
        r.seconds,
        r.seed,
        if r.checked == 0 {
            "none finished in the time given; the others not recounted (--recount K for K of \
             them, --recount all for every one)"
        } else {
            "all agree; the others not recounted (--recount all recounts every one)"
        }
    )
}

/// What every merged file passed before any recount, in words.
fn checked_words(m: &Merged) -> String {
    let mut checks = vec!["structure, checksums, sums and bounds against the plan"];
    if m.unique.is_some() {
        checks.push("Burnside's lemma");
    }
    checks.push(match m.tags {
        Tags::Checked => "every keyed tag",
        Tags::NotChecked => "keyed tags not checked (give --key)",
        Tags::None => "no keyed tags",
    });
    checks.join(", ")
}

/// The lines of a merge, human or JSON: the result with what was checked and recounted, then
/// (human) a line each for an audit, replicas and entries cut otherwise than this release
/// cuts them.
pub fn merge_line(
    m: &Merged,
    (c, how): (&MergeChecks, Recount),
    verdict: Option<Verdict>,
    json: bool,
) -> String {
    let r = &c.sample;
    if json {
        return Row {
            n: m.n,
            solutions: Some(m.sums.total),
            unique: Some(m.unique),
            algorithm: Some(m.algorithm.name()),
            shards: Some(m.shards),
            plan: Some(m.plan),
            nodes: Some(m.sums.nodes),
            shard_seconds: Some((m.shard_seconds * 1000.0).round() / 1000.0),
            subproblems: Some(r.of as usize),
            recounted: Some(r.checked),
            recount_seed: Some(r.seed),
            recounted_all: Some(c.recounted_all()),
            audited: Some(c.audited.clone()),
            audit_catch: Some(c.audit_catch()),
            replicas: Some(m.replicas.iter().map(|&(i, _)| i).collect()),
            off_rule_entries: Some(c.off_rule.0),
            tags: Some(match m.tags {
                Tags::Checked => "checked",
                Tags::NotChecked => "not checked",
                Tags::None => "none",
            }),
            verified: verdict,
            ..Row::default()
        }
        .line();
    }
    let mut lines = vec![format!(
        "n = {}: {}, {} unique ({} of plan {}; checked: {}; {})",
        m.n,
        things(m.sums.total, "solution", "solutions"),
        unique_text(m.unique),
        things(m.shards, "shard", "shards"),
        m.plan,
        checked_words(m),
        recount_words(r, how)
    )];
    if !c.audited.is_empty() {
        let shards: Vec<String> = c.audited.iter().map(u64::to_string).collect();
        lines.push(format!(
            "audit: {} of {} recounted whole ({}, seed {}), all agree; an audit of {} of {} \
             shards catches one wrong shard with probability {}",
            if c.audited.len() as u64 == c.shards {
                "every shard".to_string()
            } else {
                format!("shards {}", shards.join(", "))
            },
            c.shards,
            things(c.audit.checked, "subproblem", "subproblems"),
            c.audit.seed,
            c.audited.len(),
            c.shards,
            percent(c.audited.len() as u64, c.shards)
        ));
    }
    if !m.replicas.is_empty() {
        let list: Vec<String> = m
            .replicas
            .iter()
            .map(|&(i, k)| format!("shard {i} ({k} files)"))
            .collect();
        lines.push(format!("replicas: {}, each agreeing", list.join(", ")));
    }
    if c.off_rule.0 > 0 {
        lines.push(format!(
            "cut: {} cut otherwise than this release cuts them at their files' slice times; {}",
            things(c.off_rule.0, "entry", "entries"),
            if how == Recount::Subproblems(0) {
                "their subproblems were not recounted (--recount 0)".to_string()
            } else {
                format!(
                    "their {} recounted, all agree",
                    things(c.off_rule.1, "subproblem", "subproblems")
                )
            }
        ));
    }
    if c.recounted_all() && !(r.of > 0 && r.checked == r.of) {
        lines.push("verified: every subproblem recounted by the audit, all agree".to_string());
    }
    lines.join("\n")
}

/// Load-balance statistics for `--stats`.
pub fn stats(c: &Counts, machine: &Machine) -> String {
    let wall = c.elapsed.as_secs_f64().max(1e-9);
    let fractions: Vec<String> = c
        .busy
        .iter()
        .map(|b| format!("{:.0}%", 100.0 * b.as_secs_f64() / wall))
        .collect();
    let total: f64 = c.busy.iter().map(|b| b.as_secs_f64()).sum();
    format!(
        "stats: n = {}: {} (split depth {}), {} nodes, threads busy {} (mean {:.0}%), peak memory {}; machine: {}, {}",
        c.n,
        things(c.subproblems as u64, "subproblem", "subproblems"),
        c.split_depth,
        c.nodes,
        fractions.join(" "),
        100.0 * total / (wall * c.busy.len().max(1) as f64),
        c.peak_memory
            .map_or_else(|| "unknown".to_string(), |b| Bytes(b).to_string()),
        things(
            machine.physical_cores as u64,
            "physical core",
            "physical cores"
        ),
        things(
            machine.hardware_threads as u64,
            "hardware thread",
            "hardware threads"
        )
    )
}

/// The one line that says which files a merge left out, if any: `note: skipped 3 files that
/// are no shard results: 2 checkpoints (q/ckpt-0.json, q/ckpt-1.json), 1 file that is no
/// journal (q/merged.json)`; three names of each at most.
pub fn skipped_note(skipped: &[nqueens::persist::Skipped]) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    for (checkpoint, one, many) in [
        (true, "checkpoint", "checkpoints"),
        (
            false,
            "file that is no journal",
            "files that are no journals",
        ),
    ] {
        let of: Vec<String> = skipped
            .iter()
            .filter(|s| s.checkpoint == checkpoint)
            .map(|s| s.path.display().to_string())
            .collect();
        if !of.is_empty() {
            let more = if of.len() > 3 { ", ..." } else { "" };
            let what = things(of.len() as u64, one, many);
            parts.push(format!(
                "{what} ({}{more})",
                of[..of.len().min(3)].join(", ")
            ));
        }
    }
    Some(format!(
        "note: skipped {} that {} no shard result{}: {}",
        things(skipped.len() as u64, "file", "files"),
        if skipped.len() == 1 { "is" } else { "are" },
        if skipped.len() == 1 { "" } else { "s" },
        parts.join(", ")
    ))
}

/// Seconds as a person reads them: `0.042 s`, `12.3 s`, `4.5 min`, `3.2 h`.
pub fn seconds_text(t: f64) -> String {
    if t < 1.0 {
        format!("{t:.3} s")
    } else if t < 120.0 {
        format!("{t:.1} s")
    } else if t < 7200.0 {
        format!("{:.1} min", t / 60.0)
    } else {
        format!("{:.1} h", t / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_spots_a_difference() {
        assert_eq!(verify(8, 92, Some(12)), Verdict::Agrees);
        assert_eq!(verify(8, 92, None), Verdict::Agrees);
        assert_eq!(verify(8, 93, Some(12)), Verdict::Differs);
        assert_eq!(verify(8, 92, Some(11)), Verdict::Differs);
        assert_eq!(verify(30, 1, None), Verdict::Unknown);
    }
}
