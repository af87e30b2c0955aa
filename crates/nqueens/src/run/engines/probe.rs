//! The clock of a join unit's probe, for the estimate: the engine counts a portion of the unit
//! and tells where each phase of its work begins and how many times the whole unit does each
//! phase's work ([`join::Phases`]); this times the phases and projects the seconds of the
//! whole unit, the sum over phases of each phase's seconds times its scale.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use nqueens_engine::join::{self, Phase, Phases, Probe, Quadrants, Unit};

/// The seconds counting join unit `unit` takes on this thread, projected from counting the
/// portion of it that `probe` says ([`join::probe_unit`]), as `--estimate` times a unit;
/// `None` if `stop` rose first. Public for the measurement tools in `examples/`.
pub fn time_unit(q: &Quadrants, unit: &Unit, probe: Probe, stop: &AtomicBool) -> Option<f64> {
    let mut clock = PhaseClock::default();
    join::probe_unit(q, unit, probe, &mut clock, stop)?;
    Some(clock.projected)
}

/// Times a probe phase by phase, and adds up each row set's seconds as they scale to the
/// whole unit. What comes before the first phase and after the last settlement is no part of
/// the unit's work, and is left out.
#[derive(Default)]
struct PhaseClock {
    /// The phase under way, and since when.
    phase: Option<(Phase, Instant)>,
    /// The seconds of each phase since the last settlement.
    spent: Vec<(Phase, f64)>,
    /// The seconds of the whole unit projected so far.
    projected: f64,
}

impl Phases for PhaseClock {
    fn begin(&mut self, next: Phase) {
        let now = Instant::now();
        if let Some((phase, since)) = self.phase {
            let secs = now.duration_since(since).as_secs_f64();
            match self.spent.iter_mut().find(|(p, _)| *p == phase) {
                Some((_, sum)) => *sum += secs,
                None => self.spent.push((phase, secs)),
            }
        }
        self.phase = Some((next, now));
    }

    fn settle(&mut self, scales: &[(Phase, f64)]) {
        if let Some((phase, _)) = self.phase {
            self.begin(phase);
        }
        for (phase, secs) in self.spent.drain(..) {
            let scale = scales.iter().find(|(p, _)| *p == phase);
            self.projected += secs * scale.map_or(0.0, |&(_, s)| s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_counts_by_its_own_scale_and_unnamed_ones_not_at_all() {
        let spent = vec![
            (Phase::Sides, 2.0),
            (Phase::Queries, 3.0),
            (Phase::Partitions, 5.0),
        ];
        let mut clock = PhaseClock {
            spent,
            ..PhaseClock::default()
        };
        clock.settle(&[(Phase::Sides, 0.5), (Phase::Queries, 10.0)]);
        assert_eq!(clock.projected, 31.0);
        assert!(clock.spent.is_empty());
    }
}
