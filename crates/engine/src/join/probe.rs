//! What a probe of a unit is ([`Probe`]) and what it tells whoever times it: the engine reads
//! no clock, so a probe marks where each phase of its work begins ([`Phases::begin`]) and, row
//! set by row set, how many times the whole unit does the work of each phase that the probe
//! did ([`Phases::settle`] with [`Scales`]). The caller times the phases and projects the
//! unit's seconds: the sum over phases of each phase's seconds times its scale.

/// How much of a unit [`super::probe_unit`] counts.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    /// Row sets of a unit counted, spread evenly over its span (at least 1).
    pub row_sets: u32,
    /// Table bins of the sieve matched, about: the matching is cut into one slice per so
    /// many bins and one of them, chosen by `seed`, is matched; small sides are matched
    /// whole.
    pub bins: usize,
    /// Chooses which slice.
    pub seed: usize,
}

/// The phases of a probe's work, each scaled apart to the whole unit ([`Scales`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Making a row set's half-boards held whole, and sorting them by bin.
    Sides,
    /// Making a row set's partitions, which a run makes once for the units that share them
    /// (each thread keeps those it made): no part of the unit's own time.
    Partitions,
    /// A streamed unit's reads of its sides for their figures, and its queries sorted: what
    /// each block of slices a worker takes reads anew.
    Reading,
    /// A streamed unit's read of its table side for the bins a share matches.
    Gathering,
    /// The matching outside the table bins: the dealing, the walk past the bins, the ties, a
    /// matching without a sieve.
    Matching,
    /// Building a table bin's tables.
    Tables,
    /// The queries against a table bin.
    Queries,
}

impl Phase {
    /// Every phase, in the order of [`Scales`].
    pub const ALL: [Phase; 7] = [
        Phase::Sides,
        Phase::Partitions,
        Phase::Reading,
        Phase::Gathering,
        Phase::Matching,
        Phase::Tables,
        Phase::Queries,
    ];
}

/// How many times the whole unit does the work each phase of a probe did, phase by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scales([f64; 7]);

impl Scales {
    /// The scale of `phase`.
    pub fn of(&self, phase: Phase) -> f64 {
        self.0[phase as usize]
    }

    /// Every phase scaled by `by`: the tables and the queries by `tables` and `queries` more (a
    /// sieved matching scales them apart), and each phase of `rest` by its own factor more.
    pub(super) fn new(by: f64, (tables, queries): (f64, f64), rest: &[(Phase, f64)]) -> Scales {
        let mut s = Scales([by; 7]);
        s.0[Phase::Tables as usize] *= tables;
        s.0[Phase::Queries as usize] *= queries;
        for &(phase, scale) in rest {
            s.0[phase as usize] = by * scale;
        }
        s
    }
}

/// Whoever times a probe: told where each phase begins, and what the phases since the last
/// settlement stand for. Called between steps of the work (a row set, a table bin), never
/// within one.
pub trait Phases {
    /// The work from here on is of `phase`, until the next call.
    fn begin(&mut self, phase: Phase);
    /// The work of each phase since the last settlement (or since the first phase) stands for
    /// `scales.of(phase)` times as much of the whole unit.
    fn settle(&mut self, scales: &Scales);
}

/// No one timing: the phases go unmarked.
impl Phases for () {
    fn begin(&mut self, _: Phase) {}
    fn settle(&mut self, _: &Scales) {}
}

/// Tells `phases`, if any, that `phase` begins.
pub(super) fn mark(phases: &mut Option<&mut dyn Phases>, phase: Phase) {
    if let Some(p) = phases {
        p.begin(phase);
    }
}
