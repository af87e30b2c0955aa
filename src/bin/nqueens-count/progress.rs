//! The progress bar: the share of the estimated work done, subproblems done, the running
//! count, the rate, and the time left once the library can tell it ("estimating" before).
//! Only on a terminal, always on stderr.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::{Job, Piece, Plan, Status, Sums};

/// Steps of the bar.
const STEPS: u64 = 10_000;

/// A progress display for one count (a no-op when hidden).
pub struct Progress<'a> {
    bar: Option<ProgressBar>,
    plan: &'a Plan,
    /// The sums with the resumed pieces, and this run's nodes.
    state: Mutex<(Sums, u128)>,
}

impl<'a> Progress<'a> {
    /// A bar for what `job` has left to do; hidden unless `show` and stderr is a terminal.
    pub fn new(job: &'a Job, show: bool) -> Progress<'a> {
        let plan = job.plan();
        let resumed = Sums::of(plan, job.resumed().values());
        let bar = (show && std::io::stderr().is_terminal()).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {percent:>3}%  {msg}  elapsed {elapsed_precise}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix(format!("n = {}", plan.n));
            bar.set_message(format!(
                "0/{} subproblems, estimating the time left",
                job.todo_len()
            ));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Progress {
            bar,
            plan,
            state: Mutex::new((resumed, 0)),
        }
    }

    /// Notes a finished piece and where the run stands.
    pub fn piece(&self, piece: &Piece, status: &Status) {
        let Some(bar) = &self.bar else { return };
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0.add(self.plan, piece);
        st.1 += u128::from(piece.nodes);
        let (sums, nodes) = *st;
        drop(st);
        bar.set_position((status.fraction * STEPS as f64) as u64);
        let secs = status.elapsed.as_secs_f64().max(1e-3);
        let left = status.remaining.map_or_else(
            || "estimating the time left".to_string(),
            |r| format!("about {} left", HumanDuration(r)),
        );
        bar.set_message(format!(
            "{}/{} subproblems, {} solutions so far, {} nodes/s, {left}",
            status.done,
            status.todo,
            sums.total,
            crate::output::si(nodes as f64 / secs)
        ));
    }

    /// Whether the bar is shown (a hidden one needs no news of the pieces).
    pub fn shown(&self) -> bool {
        self.bar.is_some()
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
