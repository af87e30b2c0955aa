//! `--estimate`: the projected cost of a count, printed for a person or as one JSON line.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Serialize;

use nqueens::Bytes;
use nqueens::persist::Shard;
use nqueens::{Estimate, Job};

use crate::args::CountArgs;
use crate::exit::{self, Exit, out};
use crate::output::things;

/// Times a sample of `job` and prints the projection; `Err` carries the exit of a failure.
pub fn run(
    job: &Job,
    args: &CountArgs,
    shard: Option<Shard>,
    cancel: &AtomicBool,
) -> Result<(), Exit> {
    let e = job
        .estimate(
            Duration::from_secs(args.estimate_seconds),
            args.seed,
            Some(cancel),
        )
        .map_err(|e| exit::error(&e))?;
    let hours = args.shard_hours.unwrap_or(1.0);
    let share = e.cpu_margin / e.cpu_seconds.max(f64::MIN_POSITIVE);
    let sampled = (e.strata_sampled, e.strata);
    let needed = thin(sampled, share, args.estimate_seconds as f64);
    out(&if args.json {
        json(&e, shard, hours, needed)
    } else {
        human(&e, shard, hours)
    });
    if let Some(seconds) = needed {
        let share = 100.0 * share;
        eprintln!(
            "warning: a thin sample ({} of {} strata, ±{share:.0}%): the projection may be far \
             off; sample for about {} (--estimate-seconds {}) for a margin within {:.0}%",
            e.strata_sampled,
            e.strata,
            span(seconds),
            seconds.ceil() as u64,
            100.0 * TRUSTED_MARGIN
        );
    }
    Ok(())
}

/// The 95% margin, as a share of the CPU time, within which an estimate is called
/// trustworthy: the projections of n = 26 to 28 were checked within it against counted
/// shards (`results/large-n.md`).
const TRUSTED_MARGIN: f64 = 0.25;

/// The seconds of sampling a trustworthy estimate would need, where a sample of `budget`
/// seconds that reached `(sampled, strata)` strata with a margin of `share` of the CPU time
/// is thin: a stratum not sampled, or a margin past [`TRUSTED_MARGIN`]. The margin shrinks as
/// the square root of the subproblems timed, and every stratum needs its share; at least twice
/// the budget. `None` where the sample is not thin.
fn thin((sampled, strata): (usize, usize), share: f64, budget: f64) -> Option<f64> {
    if sampled >= strata && share <= TRUSTED_MARGIN {
        return None;
    }
    let strata = strata as f64 / sampled.max(1) as f64;
    let margin = (share / TRUSTED_MARGIN).powi(2);
    Some(budget.max(1.0) * strata.max(margin).max(2.0))
}

/// A duration in the largest unit that keeps it readable.
fn span(seconds: f64) -> String {
    match seconds {
        s if s < 120.0 => format!("{s:.1} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s if s < 3.0 * 86400.0 => format!("{:.1} h", s / 3600.0),
        s if s < 2.0 * 365.0 * 86400.0 => format!("{:.1} days", s / 86400.0),
        s => format!("{:.1} years", s / (365.25 * 86400.0)),
    }
}

fn human(e: &Estimate, shard: Option<Shard>, hours: f64) -> String {
    let what = match shard {
        Some(s) => format!("shard {s} of n = {}", e.n),
        None => format!("n = {}", e.n),
    };
    let (lo, hi) = e.wall_range();
    let share = 100.0 * e.cpu_margin / e.cpu_seconds.max(f64::MIN_POSITIVE);
    let threads = things(e.threads as u64, "thread", "threads");
    let peak = e.peak_memory.map_or(String::new(), |p| {
        format!(" (this sample peaked at {})", Bytes(p))
    });
    let shards = match e.shards(hours) {
        u64::MAX => format!("a shard of {hours} h cannot even finish its set-up"),
        k => format!("{k} of {hours} h each on {threads}"),
    };
    [
        format!("estimate for {what}, {}, {threads}", e.algorithm),
        format!(
            "  sampled     {} of {} in {} of {}, in {}",
            e.sampled,
            things(e.subproblems as u64, "subproblem", "subproblems"),
            e.strata_sampled,
            things(e.strata as u64, "stratum", "strata"),
            span(e.spent.as_secs_f64())
        ),
        format!(
            "  wall time   {} on {threads} (95%: {} to {}), set-up {}",
            span(e.wall_seconds()),
            span(lo),
            span(hi),
            span(e.setup_seconds)
        ),
        format!(
            "  CPU time    {} CPU-hours (±{share:.0}%)",
            in_hours(e.cpu_seconds / 3600.0)
        ),
        format!(
            "  memory      {} by the model{peak}",
            Bytes(e.memory_needed)
        ),
        format!("  shards      {shards}"),
    ]
    .join("\n")
}

/// Hours to three significant digits (a small count's 0.00608 CPU-hours did not show as
/// 0.0), whole from 100 on, without trailing zeros (3.00 is 3).
fn in_hours(h: f64) -> String {
    if h >= 100.0 || h <= 0.0 || !h.is_finite() {
        return format!("{h:.0}");
    }
    let decimals = (2 - h.log10().floor() as i32).clamp(0, 8) as usize;
    let text = format!("{h:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[derive(Serialize)]
struct Row {
    n: usize,
    algorithm: String,
    threads: usize,
    shard: Option<String>,
    subproblems: usize,
    sampled: usize,
    strata: usize,
    strata_sampled: usize,
    wall_seconds: f64,
    wall_seconds_low: f64,
    wall_seconds_high: f64,
    cpu_hours: f64,
    cpu_hours_margin: f64,
    setup_seconds: f64,
    memory_bytes: u64,
    peak_memory_bytes: Option<u64>,
    shard_hours: f64,
    shards: Option<u64>,
    estimate_seconds: f64,
    /// The sampling seconds a trustworthy estimate needs, where this sample is thin.
    thin_sample_needs_seconds: Option<f64>,
}

fn json(e: &Estimate, shard: Option<Shard>, hours: f64, needed: Option<f64>) -> String {
    let (lo, hi) = e.wall_range();
    let row = Row {
        n: e.n,
        algorithm: e.algorithm.to_string(),
        threads: e.threads,
        shard: shard.map(|s| s.to_string()),
        subproblems: e.subproblems,
        sampled: e.sampled,
        strata: e.strata,
        strata_sampled: e.strata_sampled,
        wall_seconds: e.wall_seconds(),
        wall_seconds_low: lo,
        wall_seconds_high: hi,
        cpu_hours: e.cpu_seconds / 3600.0,
        cpu_hours_margin: e.cpu_margin / 3600.0,
        setup_seconds: e.setup_seconds,
        memory_bytes: e.memory_needed,
        peak_memory_bytes: e.peak_memory,
        shard_hours: hours,
        shards: Some(e.shards(hours)).filter(|&k| k != u64::MAX),
        estimate_seconds: e.spent.as_secs_f64(),
        thin_sample_needs_seconds: needed,
    };
    serde_json::to_string(&row).expect("rows serialise")
}

#[cfg(test)]
mod tests {
    use super::{TRUSTED_MARGIN, in_hours, thin};

    #[test]
    fn a_thin_sample_says_how_long_a_trustworthy_one_takes() {
        assert_eq!(thin((16, 16), 0.1, 60.0), None);
        assert_eq!(thin((16, 16), TRUSTED_MARGIN, 60.0), None);
        // Three of sixteen strata at ±114% (n = 28 with 20 s): 21 times the budget for the
        // margin, 5.3 for the strata.
        let needed = thin((3, 16), 1.14, 20.0).unwrap();
        assert!(
            (needed - 20.0 * (1.14f64 / 0.25).powi(2)).abs() < 1e-6,
            "{needed}"
        );
        // Every stratum sampled but a wide margin: at least twice the budget.
        assert_eq!(thin((4, 4), 0.26, 60.0), Some(120.0));
        assert_eq!(thin((2, 8), 0.1, 60.0), Some(240.0));
    }

    #[test]
    fn hours_keep_three_significant_digits() {
        assert_eq!(in_hours(0.006076), "0.00608");
        assert_eq!(in_hours(1.634), "1.63");
        assert_eq!(in_hours(12.25), "12.2");
        assert_eq!(in_hours(122.4), "122");
        assert_eq!(in_hours(1_283_000.0), "1283000");
        assert_eq!(in_hours(0.0), "0");
    }
}
