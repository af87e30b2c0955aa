//! The clock of a join unit's probe, for the estimate: the engine counts a portion of the unit
//! and tells where each phase of its work begins and how many times the whole unit does each
//! phase's work ([`join::Phases`]); this times the phases and projects the seconds of the
//! whole unit, the sum over phases of each phase's seconds times its scale.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use nqueens_engine::join::{self, Phase, Phases, Probe, Quadrants, Scales, Unit};

/// The seconds counting `unit` takes on this thread, projected from counting the portion of it
/// that `probe` says ([`join::probe_unit`]); `None` if `stop` rose first.
pub(crate) fn time_unit(
    q: &Quadrants,
    unit: &Unit,
    probe: Probe,
    stop: &AtomicBool,
) -> Option<f64> {
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
    /// Seconds of each phase since the last settlement, in the order of [`Phase::ALL`].
    spent: [f64; Phase::ALL.len()],
    /// The seconds of the whole unit projected so far.
    projected: f64,
}

impl PhaseClock {
    /// Adds the seconds of the phase under way to its sum, and starts `next` now.
    fn lap(&mut self, next: Option<Phase>) {
        let now = Instant::now();
        if let Some((phase, since)) = self.phase {
            self.spent[phase as usize] += now.duration_since(since).as_secs_f64();
        }
        self.phase = next.map(|p| (p, now));
    }
}

impl Phases for PhaseClock {
    fn begin(&mut self, phase: Phase) {
        self.lap(Some(phase));
    }

    fn settle(&mut self, scales: &Scales) {
        let phase = self.phase.map(|(p, _)| p);
        self.lap(phase);
        for p in Phase::ALL {
            self.projected += self.spent[p as usize] * scales.of(p);
        }
        self.spent = Default::default();
    }
}
