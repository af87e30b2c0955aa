//! `--estimate`: the projected cost of a count, printed for a person or as one JSON line.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use nqueens::persist::Shard;
use nqueens::{Bytes, MemoryNeeds};
use nqueens::{Estimate, Job};

use crate::args::CountArgs;
use crate::exit::{self, Exit, out, say};
use crate::output::things;
use crate::progress::Sampling;

/// Times a sample of `job` and prints the projection; `Err` carries the exit of a failure.
/// On a terminal a bar shows the sampling's time; Ctrl-C ends the sampling early, prints the
/// projection of what was timed, and exits with 130. Where not even one thread's engines fit
/// the memory available, nothing can be timed: the memory the count needs is printed alone.
pub fn run(
    job: &Job,
    args: &CountArgs,
    shard: Option<Shard>,
    cancel: &AtomicBool,
) -> Result<(), Exit> {
    let budget = Duration::from_secs(args.estimate_seconds);
    let bar = Sampling::new(job.plan().n(), budget, !args.no_progress);
    let result = job.estimate(budget, args.seed, Some(cancel));
    bar.finish();
    let e = match result {
        Ok(e) => e,
        Err(nqueens::Error::Memory { .. }) if !cancel.load(Ordering::SeqCst) => {
            return memory_only(job, args, shard);
        }
        Err(e) => return Err(exit::error(&e)),
    };
    let hours = args.shard_hours.unwrap_or(1.0);
    let sample = Sample::of(&e);
    let interrupted = cancel.load(Ordering::SeqCst);
    // An interrupted sample is as thin as the time it had.
    let had = if interrupted {
        e.spent.as_secs_f64()
    } else {
        args.estimate_seconds as f64
    };
    let needed = thin(sample, had);
    out(&if args.json {
        json(&e, shard, hours, needed, interrupted)
    } else {
        human(&e, shard, hours)
    });
    if e.sample_threads < e.threads {
        say(format!(
            "note: the sample ran on {} of the {} threads: the engines of {} do not fit in the {} \
             available; the projection is for {}",
            e.sample_threads,
            e.threads,
            e.threads,
            Bytes(e.memory.available.unwrap_or(0)),
            things(e.threads as u64, "thread", "threads")
        ));
    }
    if let Some(seconds) = needed {
        let mut why = format!(
            "{} of {} strata, ±{:.0}%",
            e.strata_sampled,
            e.strata,
            100.0 * sample.share
        );
        if sample.skew > SKEW_AT_MOST {
            why += &format!(
                ", skewed {:.2}: a few costly subproblems carry the spread, and a sample this \
                 small mostly misses them",
                sample.skew
            );
        }
        if sample.guessed > GUESSED_AT_MOST {
            why += &format!(
                ", {:.0}% of the projection from strata timed fewer than 10 times, whose \
                 spread is guessed",
                100.0 * sample.guessed
            );
        }
        say(format!(
            "warning: a thin sample ({why}): the projection may be far off and its margin \
             may not hold; {}",
            advice(seconds, e.ran_dry)
        ));
    }
    if interrupted {
        say(format!(
            "interrupted: sampling stopped after {} of the {} asked for; the projection above \
             is from the {} timed",
            span(e.spent.as_secs_f64()),
            span(budget.as_secs_f64()),
            things(e.sampled as u64, "subproblem", "subproblems")
        ));
        return Err(Exit::Interrupted);
    }
    Ok(())
}

/// The report of an estimate that could time nothing, as not even one thread's engines fit
/// the memory available: what the count needs, and what would fit.
fn memory_only(job: &Job, args: &CountArgs, shard: Option<Shard>) -> Result<(), Exit> {
    let m = job.memory_needs();
    let n = job.plan().n();
    let algorithm = job.plan().algorithm();
    if args.json {
        out(&serde_json::to_string(&MemoryOnly {
            n,
            algorithm: algorithm.to_string(),
            threads: m.threads,
            shard: shard.map(|s| s.to_string()),
            subproblems: m.subproblems,
            sampled: 0,
            memory: MemoryRow::of(&m, None),
        })
        .expect("rows serialise"));
    } else {
        let what = match shard {
            Some(s) => format!("shard {s} of n = {n}"),
            None => format!("n = {n}"),
        };
        let threads = things(m.threads as u64, "thread", "threads");
        let mut lines = vec![
            format!("estimate for {what}, {algorithm}, {threads}"),
            "  sampled     nothing: not even one thread's engines fit the memory available"
                .to_string(),
        ];
        lines.extend(memory_lines(&m, shard.is_some(), None, String::new()));
        out(&lines.join("\n"));
    }
    say(format!(
        "warning: nothing was timed: one thread of the {algorithm} algorithm for n = {n} needs \
         more than the {} available; the memory above is what the count needs by the model",
        Bytes(m.available.unwrap_or(0))
    ));
    Ok(())
}

/// Whether the sample is too thin for a margin: fewer than two subproblems timed, or a margin
/// as wide as the projection itself (its interval would reach zero).
fn too_thin(e: &Estimate) -> bool {
    thin_for_a_margin(e.sampled, e.cpu_seconds, e.cpu_margin)
}

/// [`too_thin`] of `sampled` subproblems timed, projecting `cpu` seconds within `margin`.
fn thin_for_a_margin(sampled: usize, cpu: f64, margin: f64) -> bool {
    sampled < 2 || margin >= cpu
}

/// The memory lines of the report: this run's need in its parts (a thread's, the engines'
/// shared tables, the plan and bookkeeping), a shard's of `shards` and the whole count's (for
/// a shard), and what fits the memory available. `peak` is what the sample's process held.
fn memory_lines(m: &MemoryNeeds, is_shard: bool, shards: Option<u64>, peak: String) -> Vec<String> {
    let mut lines = vec![format!(
        "  memory      {} for {} by the model{peak}: {} a thread, {} shared by the threads, {} \
         the plan and the bookkeeping of {}",
        Bytes(m.run()),
        if is_shard { "this shard" } else { "the count" },
        Bytes(m.per_thread),
        Bytes(m.shared()),
        Bytes(m.run() - m.engines),
        things(m.subproblems as u64, "subproblem", "subproblems")
    )];
    let mut more = Vec::new();
    if let Some(k) = shards.filter(|&k| k > 1) {
        more.push(format!("{} a shard of the {k} below", Bytes(m.shard(k))));
    }
    if is_shard {
        more.push(format!(
            "{} the whole count in one process",
            Bytes(m.whole())
        ));
    }
    if !more.is_empty() {
        lines.push(format!("              {}", more.join("; ")));
    }
    if let Some(available) = m.available {
        lines.push(match m.advice {
            None => format!("              {} available: it fits", Bytes(available)),
            Some(advice) => format!(
                "              {} available: it does not fit; {advice}",
                Bytes(available)
            ),
        });
    }
    lines
}

/// The 95% margin, as a share of the CPU time, within which an estimate is called
/// trustworthy: the projections of n = 26 to 28 were checked within it against counted
/// shards (`results/large-n.md`).
const TRUSTED_MARGIN: f64 = 0.25;

/// The largest share of the projection that may come from strata whose spread is guessed
/// ([`Estimate::guessed_share`]) before a sample is called thin: beyond it, the margin is
/// more guess than measurement.
const GUESSED_AT_MOST: f64 = 0.25;

/// The largest skewness of the projection ([`Estimate::skewness`]) whose normal interval is
/// trusted: Cochran's rule for a mean of `k` from a population of skewness `G1`, `k > 25 G1^2`,
/// says the same of one stratum (the skewness of its mean is `G1 / sqrt(k)`).
const SKEW_AT_MOST: f64 = 0.2;

/// What tells whether an estimate's sample is thin.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Strata sampled, of all.
    strata: (usize, usize),
    /// The sampling's margin, as a share of the CPU time.
    share: f64,
    /// [`Estimate::guessed_share`].
    guessed: f64,
    /// Subproblems timed.
    timed: usize,
    /// [`Estimate::short_of_trusted`].
    short: usize,
    /// [`Estimate::skewness`].
    skew: f64,
}

impl Sample {
    fn of(e: &Estimate) -> Sample {
        Sample {
            strata: (e.strata_sampled, e.strata),
            share: e.cpu_margin / e.cpu_seconds.max(f64::MIN_POSITIVE),
            guessed: e.guessed_share,
            timed: e.sampled,
            short: e.short_of_trusted,
            skew: e.skewness,
        }
    }
}

/// The seconds of sampling a trustworthy estimate would need, where a sample `s` of `budget`
/// seconds is thin: a stratum not sampled, a margin past [`TRUSTED_MARGIN`], more than
/// [`GUESSED_AT_MOST`] of the projection from strata whose spread is guessed, or a skewness
/// past [`SKEW_AT_MOST`]. The margin and the skewness shrink as the square root of the
/// subproblems timed, every stratum needs its share, and the guessed strata their
/// subproblems short of ten; at least twice the budget. `None` where the sample is not thin.
fn thin(s: Sample, budget: f64) -> Option<f64> {
    let (sampled, strata) = s.strata;
    if sampled >= strata
        && s.share <= TRUSTED_MARGIN
        && s.guessed <= GUESSED_AT_MOST
        && s.skew <= SKEW_AT_MOST
    {
        return None;
    }
    let strata = strata as f64 / sampled.max(1) as f64;
    let margin = (s.share / TRUSTED_MARGIN).powi(2);
    let guessed = if s.guessed > GUESSED_AT_MOST {
        (s.timed + s.short) as f64 / s.timed.max(1) as f64
    } else {
        1.0
    };
    let skew = (s.skew / SKEW_AT_MOST).powi(2);
    Some(budget.max(1.0) * strata.max(margin).max(guessed).max(skew).max(2.0))
}

/// What a thin sample's warning advises: `seconds` of sampling; or, where the sample `dry`
/// timed every subproblem drawn for it, that more seconds would not help.
fn advice(seconds: f64, dry: bool) -> String {
    if dry {
        return "every subproblem drawn for the sample (at most 256 a stratum) was timed, so \
                sampling longer would not help"
            .to_string();
    }
    format!(
        "sample for about {} (--estimate-seconds {}) for a margin within {:.0}% on measured \
         spreads",
        span(seconds),
        seconds.ceil() as u64,
        100.0 * TRUSTED_MARGIN
    )
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
    let share = 100.0 * e.margin() / e.cpu_seconds.max(f64::MIN_POSITIVE);
    let threads = things(e.threads as u64, "thread", "threads");
    let peak = e.peak_memory.map_or(String::new(), |p| {
        format!(" (this sample peaked at {})", Bytes(p))
    });
    let shards = e.shards(hours);
    let shards_line = match shards {
        u64::MAX => format!("a shard of {hours} h cannot even finish its set-up"),
        k => format!("{k} of {hours} h each on {threads}"),
    };
    let (interval, margin) = if too_thin(e) {
        (
            "95%: no interval, too thin a sample".to_string(),
            "margin unknown: too thin a sample".to_string(),
        )
    } else {
        (
            format!("95%: {} to {}", span(lo), span(hi)),
            format!("±{share:.0}%"),
        )
    };
    let on = if e.sample_threads < e.threads {
        format!(" on {} of the threads", e.sample_threads)
    } else {
        String::new()
    };
    let mut lines = vec![
        format!("estimate for {what}, {}, {threads}", e.algorithm),
        format!(
            "  sampled     {} of {} in {} of {}, in {}{on}",
            e.sampled,
            things(e.subproblems as u64, "subproblem", "subproblems"),
            e.strata_sampled,
            things(e.strata as u64, "stratum", "strata"),
            span(e.spent.as_secs_f64())
        ),
        format!(
            "  wall time   {} on {threads} ({interval}), set-up {}",
            span(e.wall_seconds()),
            span(e.setup_seconds)
        ),
        format!(
            "  CPU time    {} CPU-hours ({margin})",
            in_hours(e.cpu_seconds / 3600.0)
        ),
    ];
    let k = (shards != u64::MAX).then_some(shards);
    lines.extend(memory_lines(&e.memory, shard.is_some(), k, peak));
    lines.push(format!("  shards      {shards_line}"));
    lines.join("\n")
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
    /// The threads the sample ran on (fewer where the engines of all do not fit).
    sample_threads: usize,
    wall_seconds: f64,
    /// The 95% interval; null where the sample is too thin for one.
    wall_seconds_low: Option<f64>,
    wall_seconds_high: Option<f64>,
    cpu_hours: f64,
    cpu_hours_margin: Option<f64>,
    too_thin_for_a_margin: bool,
    /// The share of the projection from strata timed fewer than ten times, their spread
    /// guessed from the others'.
    guessed_share: f64,
    /// The subproblems more those strata need to be timed ten times each.
    short_of_trusted: usize,
    /// The projection's skewness; past 0.2 its interval is not trusted.
    skewness: f64,
    setup_seconds: f64,
    memory_bytes: u64,
    peak_memory_bytes: Option<u64>,
    #[serde(flatten)]
    memory: MemoryRow,
    shard_hours: f64,
    shards: Option<u64>,
    estimate_seconds: f64,
    /// The sampling seconds a trustworthy estimate needs, where this sample is thin (null
    /// where the sample ran dry: more seconds would time no more).
    thin_sample_needs_seconds: Option<f64>,
    /// Every subproblem drawn for the sample was timed.
    sample_ran_dry: bool,
    /// Ctrl-C (or SIGTERM) ended the sampling early.
    interrupted: bool,
}

/// The memory fields of the JSON line.
#[derive(Serialize)]
struct MemoryRow {
    memory_per_thread_bytes: u64,
    memory_shared_bytes: u64,
    memory_plan_and_bookkeeping_bytes: u64,
    /// A shard's need, for the shards the line suggests.
    memory_per_shard_bytes: Option<u64>,
    memory_whole_count_bytes: u64,
    memory_available_bytes: Option<u64>,
    /// Whether the count fits the memory available (null where that is unknown).
    memory_fits: Option<bool>,
    /// What would fit, where it does not.
    memory_advice: Option<String>,
}

impl MemoryRow {
    fn of(m: &MemoryNeeds, shards: Option<u64>) -> MemoryRow {
        MemoryRow {
            memory_per_thread_bytes: m.per_thread,
            memory_shared_bytes: m.shared(),
            memory_plan_and_bookkeeping_bytes: m.run() - m.engines,
            memory_per_shard_bytes: shards.map(|k| m.shard(k)),
            memory_whole_count_bytes: m.whole(),
            memory_available_bytes: m.available,
            memory_fits: m.available.map(|_| m.advice.is_none()),
            memory_advice: m.advice.map(|a| a.to_string()),
        }
    }
}

/// The JSON line of an estimate that timed nothing (see [`memory_only`]).
#[derive(Serialize)]
struct MemoryOnly {
    n: usize,
    algorithm: String,
    threads: usize,
    shard: Option<String>,
    subproblems: usize,
    sampled: usize,
    #[serde(flatten)]
    memory: MemoryRow,
}

fn json(
    e: &Estimate,
    shard: Option<Shard>,
    hours: f64,
    needed: Option<f64>,
    interrupted: bool,
) -> String {
    let (lo, hi) = e.wall_range();
    let thin = too_thin(e);
    let shards = Some(e.shards(hours)).filter(|&k| k != u64::MAX);
    let row = Row {
        n: e.n,
        algorithm: e.algorithm.to_string(),
        threads: e.threads,
        shard: shard.map(|s| s.to_string()),
        subproblems: e.subproblems,
        sampled: e.sampled,
        strata: e.strata,
        strata_sampled: e.strata_sampled,
        sample_threads: e.sample_threads,
        wall_seconds: e.wall_seconds(),
        wall_seconds_low: (!thin).then_some(lo),
        wall_seconds_high: (!thin).then_some(hi),
        cpu_hours: e.cpu_seconds / 3600.0,
        cpu_hours_margin: (!thin).then_some(e.margin() / 3600.0),
        too_thin_for_a_margin: thin,
        guessed_share: e.guessed_share,
        short_of_trusted: e.short_of_trusted,
        skewness: e.skewness,
        setup_seconds: e.setup_seconds,
        memory_bytes: e.memory_needed,
        peak_memory_bytes: e.peak_memory,
        memory: MemoryRow::of(&e.memory, shards),
        shard_hours: hours,
        shards,
        estimate_seconds: e.spent.as_secs_f64(),
        thin_sample_needs_seconds: needed.filter(|_| !e.ran_dry),
        sample_ran_dry: e.ran_dry,
        interrupted,
    };
    serde_json::to_string(&row).expect("rows serialise")
}

#[cfg(test)]
mod tests {
    use super::{
        GUESSED_AT_MOST, SKEW_AT_MOST, Sample, TRUSTED_MARGIN, advice, in_hours, thin,
        thin_for_a_margin,
    };

    #[test]
    fn a_thin_sample_says_how_long_a_trustworthy_one_takes() {
        // A sample of 100 subproblems in `strata`, at a margin of `share`.
        let s = |strata, share| Sample {
            strata,
            share,
            guessed: 0.0,
            timed: 100,
            short: 0,
            skew: 0.0,
        };
        assert_eq!(thin(s((16, 16), 0.1), 60.0), None);
        assert_eq!(thin(s((16, 16), TRUSTED_MARGIN), 60.0), None);
        // Three of sixteen strata at ±114% (n = 28 with 20 s): 21 times the budget for the
        // margin, 5.3 for the strata.
        let needed = thin(s((3, 16), 1.14), 20.0).unwrap();
        assert!(
            (needed - 20.0 * (1.14f64 / 0.25).powi(2)).abs() < 1e-6,
            "{needed}"
        );
        // Every stratum sampled but a wide margin: at least twice the budget.
        assert_eq!(thin(s((4, 4), 0.26), 60.0), Some(120.0));
        assert_eq!(thin(s((2, 8), 0.1), 60.0), Some(240.0));
        // A narrow margin, but most of the projection from strata whose spread is guessed
        // (n = 28 with 300 s: 144 subproblems in 16 strata): thin, until those strata have
        // their 10 each; a quarter of it guessed is still trusted.
        let guessed = |guessed, short| Sample {
            guessed,
            short,
            ..s((16, 16), 0.2)
        };
        assert_eq!(thin(guessed(0.6, 60), 300.0), Some(300.0 * 2.0));
        assert_eq!(thin(guessed(0.6, 400), 300.0), Some(300.0 * 5.0));
        assert_eq!(thin(guessed(GUESSED_AT_MOST, 400), 300.0), None);
        // A narrow margin from a skewed sample: thin, until the skewness would fall to 0.2.
        let skewed = |skew| Sample {
            skew,
            ..s((16, 16), 0.2)
        };
        assert_eq!(thin(skewed(SKEW_AT_MOST), 300.0), None);
        assert_eq!(thin(skewed(0.25), 300.0), Some(600.0));
        assert!((thin(skewed(0.4), 300.0).unwrap() - 1200.0).abs() < 1e-9);
    }

    #[test]
    fn a_margin_as_wide_as_the_projection_or_one_subproblem_is_too_thin() {
        // n = 28 sampled for 2 s: one subproblem, "95%: 0.0 s to 5.1 years".
        assert!(thin_for_a_margin(1, 7.5e7, 0.0));
        assert!(thin_for_a_margin(0, 0.0, 0.0));
        // ±114%: the interval would reach zero.
        assert!(thin_for_a_margin(3, 1.0, 1.14));
        assert!(thin_for_a_margin(3, 1.0, 1.0));
        assert!(!thin_for_a_margin(2, 1.0, 0.99));
        assert!(!thin_for_a_margin(103, 1.0, 0.16));
    }

    #[test]
    fn a_sample_that_ran_dry_asks_for_no_more_seconds() {
        assert_eq!(
            advice(1079.0, false),
            "sample for about 18.0 min (--estimate-seconds 1079) for a margin within 25% on \
             measured spreads"
        );
        // n = 27 given 1,079 s: every drawn subproblem timed after 499 s.
        let dry = advice(5910.0, true);
        assert!(dry.contains("sampling longer would not help"), "{dry}");
        assert!(!dry.contains("--estimate-seconds"), "{dry}");
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
