//! The progress bar: the share of the estimated work done, the time elapsed, then as many of
//! these as fit the terminal's width, most useful first: the time left once the library can
//! tell it ("estimating" before), subproblems done, the running count, the rate. Only on a
//! terminal, always on stderr, one line that never wraps (a wrapped line leaves a stale
//! fragment when it is cleared). `--estimate` shows a bar of its own while it samples.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::{Counted, Job, Plan, Status, Sums};

/// Steps of the bar.
const STEPS: u64 = 10_000;

/// The terminal's width when it cannot be told.
const DEFAULT_COLUMNS: usize = 80;

/// The bar shown, so that a signal can clear it before the program says why it stops.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A progress display for one count (a no-op when hidden).
pub struct Progress<'a> {
    bar: Option<ProgressBar>,
    plan: &'a Plan,
    /// The sums with the resumed subproblems, and this run's nodes.
    state: Mutex<(Sums, u128)>,
    /// The subproblems resumed from a checkpoint, and those the run covers in all.
    resumed: (usize, usize),
}

/// The width of the bar itself on a terminal `columns` wide; 0: no bar, the terminal is too
/// narrow for one.
fn bar_width(columns: usize) -> usize {
    if columns < 50 {
        0
    } else {
        (columns / 8).clamp(10, 30)
    }
}

/// The template for a bar `bar` wide: the fixed fields, then the message, which indicatif
/// cuts to the room left (`wide_msg`).
fn template(bar: usize) -> String {
    if bar == 0 {
        "{prefix} {percent:>3}% {elapsed_precise} {wide_msg}".to_string()
    } else {
        format!("{{prefix}} [{{bar:{bar}}}] {{percent:>3}}% {{elapsed_precise}} {{wide_msg}}")
    }
}

/// The columns the template's fixed fields take with this prefix: the bar and its brackets,
/// the percentage (`100%`), the elapsed time (`00:00:00`) and the spaces between.
fn fixed_width(prefix: &str, bar: usize) -> usize {
    let bar = if bar == 0 { 0 } else { bar + 3 };
    prefix.chars().count() + 1 + bar + 4 + 1 + 8 + 1
}

/// As many whole `fields` as fit `room` columns, in their order, joined by ", ".
fn message(fields: &[String], room: usize) -> String {
    let mut text = String::new();
    for field in fields {
        let sep = if text.is_empty() { "" } else { ", " };
        if text.chars().count() + sep.len() + field.chars().count() > room {
            break;
        }
        text.push_str(sep);
        text.push_str(field);
    }
    text
}

/// The terminal's width (stderr's), or [`DEFAULT_COLUMNS`].
fn columns() -> usize {
    console::Term::stderr()
        .size_checked()
        .map_or(DEFAULT_COLUMNS, |(_, cols)| usize::from(cols))
}

/// The bar's position once `fraction` of this run's work is done, `resumed` of the `wanted`
/// subproblems having been done before it: resumed subproblems count as done, so that a run resumed at
/// 22% starts its bar there.
fn position(resumed: usize, wanted: usize, fraction: f64) -> u64 {
    let before = resumed as f64 / wanted.max(1) as f64;
    let done = before + (1.0 - before) * fraction;
    (done * STEPS as f64) as u64
}

/// The room left for the message on a terminal `columns` wide, after the fixed fields.
fn room(prefix: &str, columns: usize) -> usize {
    columns.saturating_sub(fixed_width(prefix, bar_width(columns)))
}

impl<'a> Progress<'a> {
    /// A bar for what `job` has left to do; hidden unless `show` and stderr is a terminal.
    pub fn new(job: &'a Job, show: bool) -> Progress<'a> {
        let plan = job.plan();
        let resumed = Sums::of(plan, job.resumed().values());
        let (done, wanted) = (job.resumed().len(), job.wanted_len());
        let bar = (show && std::io::stderr().is_terminal()).then(|| {
            let columns = columns();
            let prefix = format!("n = {}", plan.n());
            let fields = [
                "estimating the time left".to_string(),
                format!("{done}/{wanted} subproblems"),
            ];
            let text = message(&fields, room(&prefix, columns));
            // Set up whole before it is first drawn (the tick draws it): a resumed run's bar
            // shows what its checkpoint holds from the start.
            let bar =
                ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr_with_hz(4))
                    .with_style(
                        ProgressStyle::with_template(&template(bar_width(columns)))
                            .expect("valid template")
                            .progress_chars("=> "),
                    )
                    .with_prefix(prefix)
                    .with_message(text)
                    .with_position(position(done, wanted, 0.0));
            bar.enable_steady_tick(Duration::from_millis(250));
            *SHOWN.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
            bar
        });
        Progress {
            bar,
            plan,
            state: Mutex::new((resumed, 0)),
            resumed: (done, wanted),
        }
    }

    /// Notes a finished subproblem and where the run stands.
    pub fn finished(&self, counted: &Counted, status: &Status) {
        let Some(bar) = &self.bar else { return };
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0.add(self.plan, counted);
        st.1 += u128::from(counted.nodes);
        let (sums, nodes) = *st;
        drop(st);
        let (resumed, wanted) = self.resumed;
        bar.set_position(position(resumed, wanted, status.fraction));
        let secs = status.elapsed.as_secs_f64().max(1e-3);
        let fields = [
            status.remaining.map_or_else(
                || "estimating the time left".to_string(),
                |r| format!("about {} left", HumanDuration(r)),
            ),
            format!("{}/{} subproblems", resumed + status.done, wanted),
            format!("{} solutions so far", sums.total),
            format!("{} nodes/s", crate::output::si(nodes as f64 / secs)),
        ];
        let prefix = format!("n = {}", self.plan.n());
        bar.set_message(message(&fields, room(&prefix, columns())));
    }

    /// Whether the bar is shown (a hidden one needs no news of the subproblems).
    pub fn shown(&self) -> bool {
        self.bar.is_some()
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        clear();
    }
}

/// The bar of an estimate's sampling (`--estimate`): the share of its time budget spent, the
/// time elapsed, and what it does, redrawn four times a second by a thread of its own, since
/// the sample reports nothing until it ends. Only on a terminal, like [`Progress`].
pub struct Sampling {
    bar: Option<ProgressBar>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Sampling {
    /// A bar for sampling n = `n` for about `budget`; hidden unless `show` and stderr is a
    /// terminal.
    pub fn new(n: usize, budget: Duration, show: bool) -> Sampling {
        if !(show && std::io::stderr().is_terminal()) {
            return Sampling {
                bar: None,
                ticker: None,
            };
        }
        let columns = columns();
        let prefix = format!("n = {n}");
        let fields = [
            "estimating".to_string(),
            format!(
                "timing a sample for up to {} s",
                budget.as_secs_f64().round()
            ),
        ];
        let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr_with_hz(4))
            .with_style(
                ProgressStyle::with_template(&template(bar_width(columns)))
                    .expect("valid template")
                    .progress_chars("=> "),
            )
            .with_prefix(prefix.clone())
            .with_message(message(&fields, room(&prefix, columns)));
        bar.enable_steady_tick(Duration::from_millis(250));
        *SHOWN.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        let ticking = bar.clone();
        let ticker = std::thread::Builder::new()
            .name("nqueens-estimate-bar".into())
            .spawn(move || {
                let begun = std::time::Instant::now();
                while !ticking.is_finished() {
                    ticking.set_position(sampled(begun.elapsed(), budget));
                    std::thread::sleep(Duration::from_millis(250));
                }
            })
            .ok();
        Sampling {
            bar: Some(bar),
            ticker,
        }
    }

    /// Removes the bar and stops its thread.
    pub fn finish(self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        clear();
        if let Some(t) = self.ticker {
            let _ = t.join();
        }
    }
}

/// The bar's position `elapsed` into a sampling of `budget`: its share, short of the end
/// until the sample ends (the set-up comes on top of the budget).
fn sampled(elapsed: Duration, budget: Duration) -> u64 {
    let share = elapsed.as_secs_f64() / budget.as_secs_f64().max(1e-3);
    (share.min(0.99) * STEPS as f64) as u64
}

/// Removes the bar shown, if any, at once: a signal calls it before the program says that
/// it stops, so that the words do not land on the bar's line.
pub fn clear() {
    let shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(bar) = shown {
        bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_fits_the_terminal_and_keeps_the_first_fields() {
        let fields = [
            "about 12 minutes left".to_string(),
            "12345/30573 subproblems".to_string(),
            "4968057848 solutions so far".to_string(),
            "187.36 M nodes/s".to_string(),
        ];
        for columns in [30, 40, 50, 60, 72, 80, 100, 120, 200, 400] {
            let bar = bar_width(columns);
            let prefix = "n = 28";
            let fixed = fixed_width(prefix, bar);
            let text = message(&fields, columns.saturating_sub(fixed));
            let line = fixed + text.chars().count();
            assert!(line <= columns.max(fixed), "{columns}: {line} columns");
            // Whole fields, in their order.
            let shown: Vec<&str> = if text.is_empty() {
                vec![]
            } else {
                text.split(", ").collect()
            };
            assert_eq!(shown, fields[..shown.len()], "{columns}");
            if columns >= 80 {
                assert!(shown.len() >= 2, "{columns}: {text}");
                assert!(bar >= 10, "{columns}");
            }
        }
        assert_eq!(message(&fields, 200).split(", ").count(), 4);
        // The fixed fields are what the template holds.
        assert_eq!(
            template(10),
            "{prefix} [{bar:10}] {percent:>3}% {elapsed_precise} {wide_msg}"
        );
        assert_eq!(
            fixed_width("n = 28", 10),
            "n = 28 [0123456789] 100% 00:00:00 ".len()
        );
        assert_eq!(fixed_width("n = 28", 0), "n = 28 100% 00:00:00 ".len());
    }

    #[test]
    fn a_sampling_bar_follows_the_time_and_stops_short_of_the_end() {
        let budget = Duration::from_secs(60);
        assert_eq!(sampled(Duration::ZERO, budget), 0);
        assert_eq!(sampled(Duration::from_secs(30), budget), STEPS / 2);
        assert_eq!(sampled(Duration::from_secs(600), budget), STEPS * 99 / 100);
    }

    #[test]
    fn resumed_subproblems_count_as_done_from_the_start() {
        assert_eq!(position(0, 200, 0.0), 0);
        assert_eq!(position(50, 200, 0.0), STEPS / 4);
        assert_eq!(position(50, 200, 0.5), STEPS * 5 / 8);
        assert_eq!(position(50, 200, 1.0), STEPS);
        assert_eq!(position(0, 0, 0.0), 0);
    }
}
