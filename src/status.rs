//! What `status` shows an operator of a sharded count: where each shard stands (the verdict
//! `merge` gives it), how much of the count is done and left, in subproblems and in CPU-hours,
//! and the shards to count again as a scheduler's array range, as a short table or one JSON
//! object. Kept apart from `output` because it is a report of its own, with its own fields.

use std::path::PathBuf;

use nqueens::Survey;
use nqueens::persist::{Shard, Skipped, Tags};
use serde::Serialize;

use crate::output::{seconds_text, things};

/// The shards to count again as an array range, the form `sbatch --array=` takes:
/// `3,17,40-45` for {3, 17, 40, 41, 42, 43, 44, 45}; `shards` increasing.
pub fn array_range(shards: &[u64]) -> String {
    Shard::ranges(shards)
}

/// The line to paste into a resubmission: `resubmit: --array=3,17,40-45`; none when no shard
/// is to be counted again.
pub fn resubmit_line(shards: &[u64]) -> Option<String> {
    (!shards.is_empty()).then(|| format!("resubmit: --array={}", array_range(shards)))
}

/// CPU-hours with three significant digits (at least a whole hour's): `1234`, `12.3`,
/// `0.0123`.
fn hours(seconds: f64) -> String {
    let h = seconds / 3600.0;
    if h <= 0.0 || !h.is_finite() {
        return "0".to_string();
    }
    let digits = (2 - h.log10().floor() as i64).clamp(0, 12) as usize;
    format!("{h:.digits$}")
}

/// The status of a sharded count as a short table.
pub fn text(s: &Survey) -> String {
    let shards = |xs: &[u64]| match xs.len() {
        0 => "none".to_string(),
        k => format!(
            "{}: {}",
            things(k as u64, "shard", "shards"),
            array_range(xs)
        ),
    };
    let partial = match s.partial.len() {
        0 => "none".to_string(),
        k => {
            let each: Vec<String> = s
                .partial
                .iter()
                .map(|&(i, have, want)| {
                    if have >= want {
                        format!(
                            "{i} (its checkpoint is complete, but no good result file: rerun the \
                             shard to write it)"
                        )
                    } else {
                        format!("{i} ({have} of {want} subproblems)")
                    }
                })
                .collect();
            format!(
                "{}: {}",
                things(k as u64, "shard", "shards"),
                each.join(", ")
            )
        }
    };
    let mut lines = vec![
        format!(
            "n = {}, {}, plan {}, {}",
            s.n,
            s.algorithm.name(),
            s.plan,
            things(s.shards, "shard", "shards")
        ),
        format!("  done      {}", shards(&s.done)),
        format!("  partial   {partial}"),
        format!("  missing   {}", shards(&s.missing)),
    ];
    if s.damaged.is_empty() {
        lines.push("  damaged   none".to_string());
    }
    for d in &s.damaged {
        lines.push(format!("  damaged   {}: {}", d.path.display(), d.why));
    }
    if !s.replicas.is_empty() {
        let each: Vec<String> = s
            .replicas
            .iter()
            .map(|(i, k)| format!("{i} ({k} files)"))
            .collect();
        lines.push(format!("  replicas  {}", each.join(", ")));
    }
    lines.push(format!(
        "  tags      {}",
        match s.tags {
            Tags::Checked => "every file's keyed tag checked",
            Tags::NotChecked => "not checked: files carry keyed tags (give --key)",
            Tags::None => "none",
        }
    ));
    lines.push(format!(
        "  work      {} of {} subproblems done ({:.1}%), {} left",
        s.subproblems_done,
        s.subproblems,
        100.0 * s.share_done(),
        s.subproblems.saturating_sub(s.subproblems_done)
    ));
    lines.push(format!(
        "  so far    {} (done and partial shards)",
        things(s.sums.total, "solution", "solutions")
    ));
    let timed = s.done_seconds.1;
    if timed > 0 {
        let unknown = match s.threads_unknown {
            0 => String::new(),
            1 => "; 1 of them records no threads, taken as 1".to_string(),
            k => format!("; {k} of them record no threads, taken as 1"),
        };
        lines.push(format!(
            "  spent     {} CPU-hours by {} (seconds times threads, as their files say{unknown})",
            hours(s.cpu_seconds),
            things(timed as u64, "done shard", "done shards"),
        ));
    }
    lines.push(left_line(s));
    if let Some(line) = resubmit_line(&s.resubmit) {
        lines.push(line);
    }
    lines.join("\n")
}

/// The `left` line: none when every shard is done, else the CPU-hours and shard time left at
/// the done shards' mean, or unknown until one is done.
fn left_line(s: &Survey) -> String {
    if s.done.len() as u64 == s.shards {
        return "  left      none: every shard is done".to_string();
    }
    if s.shards_left == 0.0 {
        return "  left      nothing to count: every subproblem is in a file; rerun the partial \
                shards to write their result files"
            .to_string();
    }
    match (s.cpu_seconds_left(), s.seconds_left()) {
        (Some(cpu), Some(wall)) => {
            let timed = s.done_seconds.1;
            format!(
                "  left      about {} CPU-hours, {} of shard time, at the mean of {} ({} CPU-hours \
                 a shard)",
                hours(cpu),
                seconds_text(wall),
                things(timed as u64, "done shard", "done shards"),
                hours(s.cpu_seconds / timed as f64)
            )
        }
        _ => "  left      unknown until a shard is done".to_string(),
    }
}

/// One partial shard in the JSON.
#[derive(Serialize)]
struct Partial {
    shard: u64,
    subproblems: usize,
    of: usize,
    checkpoint_complete: bool,
}

/// One damaged file in the JSON.
#[derive(Serialize)]
struct Damaged {
    file: String,
    shard: Option<u64>,
    why: String,
}

/// The JSON object of `status --json` (its fields are listed in docs/guide.md).
#[derive(Serialize, Default)]
struct Status {
    begun: bool,
    complete: bool,
    n: Option<usize>,
    algorithm: Option<&'static str>,
    plan: Option<String>,
    shards: Option<u64>,
    done: Vec<u64>,
    partial: Vec<Partial>,
    missing: Vec<u64>,
    damaged: Vec<Damaged>,
    replicas: Vec<u64>,
    skipped: Vec<String>,
    tags: Option<&'static str>,
    subproblems_done: u64,
    subproblems: Option<u64>,
    share_done: f64,
    solutions_so_far: u128,
    solutions_so_far_str: String,
    timed_shards: usize,
    threads_unknown: usize,
    cpu_hours_spent: f64,
    cpu_hours_left: Option<f64>,
    shard_seconds_left: Option<f64>,
    resubmit: Vec<u64>,
    resubmit_array: Option<String>,
}

/// `x` rounded to `digits` decimals, for JSON that reads well.
fn rounded(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// The file names of `skipped`.
fn skipped_names(skipped: &[Skipped]) -> Vec<String> {
    skipped
        .iter()
        .map(|k| k.path.display().to_string())
        .collect()
}

/// The status of a sharded count as one JSON object.
pub fn json(s: &Survey) -> String {
    let status = Status {
        begun: true,
        complete: s.complete(),
        n: Some(s.n),
        algorithm: Some(s.algorithm.name()),
        plan: Some(s.plan.to_string()),
        shards: Some(s.shards),
        done: s.done.clone(),
        partial: s
            .partial
            .iter()
            .map(|&(shard, subproblems, of)| Partial {
                shard,
                subproblems,
                of,
                checkpoint_complete: subproblems >= of,
            })
            .collect(),
        missing: s.missing.clone(),
        damaged: s
            .damaged
            .iter()
            .map(|d| Damaged {
                file: d.path.display().to_string(),
                shard: d.shard,
                why: d.why.clone(),
            })
            .collect(),
        replicas: s.replicas.iter().map(|r| r.0).collect(),
        skipped: skipped_names(&s.skipped),
        tags: Some(match s.tags {
            Tags::Checked => "checked",
            Tags::NotChecked => "not checked",
            Tags::None => "none",
        }),
        subproblems_done: s.subproblems_done,
        subproblems: Some(s.subproblems),
        share_done: rounded(s.share_done(), 6),
        solutions_so_far: s.sums.total,
        solutions_so_far_str: s.sums.total.to_string(),
        timed_shards: s.done_seconds.1,
        threads_unknown: s.threads_unknown,
        cpu_hours_spent: rounded(s.cpu_seconds / 3600.0, 6),
        cpu_hours_left: s.cpu_seconds_left().map(|t| rounded(t / 3600.0, 6)),
        shard_seconds_left: s.seconds_left().map(|t| rounded(t, 3)),
        resubmit: s.resubmit.clone(),
        resubmit_array: (!s.resubmit.is_empty()).then(|| array_range(&s.resubmit)),
    };
    serde_json::to_string(&status).expect("a status serialises")
}

/// What `status` says of files among which no shard has written one yet (an empty folder):
/// the count has not begun, or its files are elsewhere.
pub fn nothing_begun(paths: &[PathBuf], files: usize, skipped: &[Skipped], json: bool) -> String {
    if json {
        let status = Status {
            skipped: skipped_names(skipped),
            solutions_so_far_str: "0".to_string(),
            ..Status::default()
        };
        return serde_json::to_string(&status).expect("a status serialises");
    }
    let files = match files {
        0 => "no *.json files".to_string(),
        k => format!(
            "{}, none a shard's result file or checkpoint",
            things(k as u64, "file", "files")
        ),
    };
    let (whose, place) = match paths {
        [one] if one.is_dir() => (format!("{}: ", one.display()), "there"),
        _ => (String::new(), "given"),
    };
    format!(
        "{whose}no shard has written a file yet ({files} {place}): the count has not begun, or \
         its files are elsewhere"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_keep_three_significant_digits() {
        assert_eq!(hours(3600.0 * 1234.4), "1234");
        assert_eq!(hours(3600.0 * 12.34), "12.3");
        assert_eq!(hours(36.0), "0.0100");
        assert_eq!(hours(0.0), "0");
    }

    #[test]
    fn shards_make_an_array_range() {
        let lost = [3, 17, 40, 41, 42, 43, 44, 45];
        assert_eq!(array_range(&lost), "3,17,40-45");
        assert_eq!(array_range(&[0]), "0");
        assert_eq!(array_range(&[0, 1]), "0-1");
    }

    #[test]
    fn nothing_to_resubmit_makes_no_line() {
        assert_eq!(resubmit_line(&[]), None);
        assert_eq!(
            resubmit_line(&[2, 3, 9]).as_deref(),
            Some("resubmit: --array=2-3,9")
        );
    }
}
