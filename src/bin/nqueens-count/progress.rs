//! The progress bar: subproblems done, the running count, the rate, and a time estimate
//! weighted by the plan's size estimates. Only on a terminal, always on stderr.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::{Job, Piece, Plan, Sums};

/// Units the whole plan's estimated work is scaled to.
const UNITS: f64 = 1e9;

/// A progress display for one count (a no-op when hidden).
pub struct Progress<'a> {
    bar: Option<ProgressBar>,
    plan: &'a Plan,
    unit: f64,
    /// Pieces done by this run, the sums with the resumed ones, and this run's nodes.
    state: Mutex<(u64, Sums, u128)>,
    todo: u64,
}

impl<'a> Progress<'a> {
    /// A bar for what `job` has left to do; hidden unless `show` and stderr is a terminal.
    pub fn new(job: &'a Job, show: bool) -> Progress<'a> {
        let plan = job.plan();
        let todo = job.todo();
        let resumed = &Sums::of(plan, job.resumed().values());
        let work: f64 = todo
            .iter()
            .map(|&id| plan.subproblems[id as usize].estimate)
            .sum();
        let unit = if work > 0.0 { UNITS / work } else { 1.0 };
        let bar = (show && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(UNITS as u64),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {percent:>3}%  {msg}  elapsed {elapsed_precise}  ETA {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix(format!("n = {}", plan.n));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        let p = Progress {
            bar,
            plan,
            unit,
            state: Mutex::new((0, *resumed, 0)),
            todo: todo.len() as u64,
        };
        p.refresh(0, resumed, 0);
        p
    }

    fn refresh(&self, done: u64, sums: &Sums, nodes: u128) {
        if let Some(bar) = &self.bar {
            let secs = bar.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!(
                "{done}/{} subproblems, {} solutions so far, {} nodes/s",
                self.todo,
                sums.total,
                crate::output::si(nodes as f64 / secs)
            ));
        }
    }

    /// Notes a finished piece.
    pub fn piece(&self, piece: &Piece) {
        let Some(bar) = &self.bar else { return };
        let est = self.plan.subproblems[piece.id as usize].estimate;
        bar.inc((est * self.unit) as u64);
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0 += 1;
        st.1.add(self.plan, piece);
        st.2 += u128::from(piece.nodes);
        let (done, sums, nodes) = *st;
        drop(st);
        self.refresh(done, &sums, nodes);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
