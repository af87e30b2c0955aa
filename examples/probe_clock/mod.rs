//! The measurement tools' clock of a join unit's probe, as the estimate times one: the engine
//! marks the phases of its work and what each stands for ([`join::Phases`]), and the unit's
//! seconds are the sum over phases of each phase's seconds times its scale.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use nqueens_engine::join::{self, Phase, Phases, Probe, Quadrants, Unit};

/// The seconds counting `unit` takes on this thread, projected from the probe `probe`.
pub fn time_unit(q: &Quadrants, unit: &Unit, probe: Probe) -> f64 {
    let mut clock = Clock::default();
    let never = AtomicBool::new(false);
    join::probe_unit(q, unit, probe, &mut clock, &never).expect("never stopped");
    clock.projected
}

/// The phase under way and since when, the phases timed since the last settlement, and the
/// unit's seconds projected so far.
#[derive(Default)]
struct Clock {
    at: Option<(Phase, Instant)>,
    spent: Vec<(Phase, f64)>,
    projected: f64,
}

impl Phases for Clock {
    fn begin(&mut self, phase: Phase) {
        let now = Instant::now();
        if let Some((p, since)) = self.at {
            self.spent.push((p, (now - since).as_secs_f64()));
        }
        self.at = Some((phase, now));
    }

    fn settle(&mut self, scales: &[(Phase, f64)]) {
        if let Some((p, _)) = self.at {
            self.begin(p);
        }
        for (p, secs) in self.spent.drain(..) {
            let scale = scales.iter().find(|s| s.0 == p).map_or(0.0, |s| s.1);
            self.projected += secs * scale;
        }
    }
}
