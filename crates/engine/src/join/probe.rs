//! What a probe of a unit is ([`Probe`]) and what it tells whoever times it ([`Phases`]): the
//! engine reads no clock, so a probe marks where each phase of its work begins and, row set by
//! row set, how many times the whole unit does the work each phase did. The unit's seconds
//! are the sum over phases of each phase's seconds times its scale.

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
    /// The workers a run deals the unit's blocks of slices to at once (the count's threads):
    /// a streamed unit's sides are read once by each worker that takes a block of it
    /// ([`super::SLICES_A_BLOCK`]), where the run's order keeps a unit's blocks together.
    pub workers: usize,
}

impl Probe {
    /// The whole unit (one not cut into slices): every row set, the matching in one slice.
    /// A slice of a unit probed with it matches the whole unit's pairs. Each phase it settles
    /// stands for itself once, but the partitions, which stand for none (a run makes them
    /// once for the units that share them): the seconds of a unit as a run spends them.
    pub const WHOLE: Probe = Probe {
        row_sets: u32::MAX,
        bins: usize::MAX,
        seed: 0,
        workers: 1,
    };
}

/// The phases of a probe's work, each scaled apart to the whole unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Making a row set's half-boards, held whole.
    Sides,
    /// Making a row set's partitions, which a run makes once for the units that share them.
    Partitions,
    /// A streamed unit's sides read for their figures, and its queries sorted.
    Reading,
    /// A streamed unit's table side read for the bins a share matches.
    Gathering,
    /// The matching outside the table bins: the sides held whole sorted by bin, the dealing,
    /// the walk past the bins, the ties, a matching without a sieve.
    Matching,
    /// Building a table bin's tables.
    Tables,
    /// The queries against a table bin.
    Queries,
}

/// Whoever times a probe. Told between steps of the work (a row set, a table bin), never
/// within one.
pub trait Phases {
    /// The work from here on is of `phase`, until the next call.
    fn begin(&mut self, phase: Phase);
    /// The work of each phase since the last settlement stands for `scale` times as much of
    /// the whole unit's, each `(phase, scale)` of `scales`; that of a phase not named, for none.
    fn settle(&mut self, scales: &[(Phase, f64)]);
}

/// No one timing: the phases go unmarked.
impl Phases for () {
    fn begin(&mut self, _: Phase) {}
    fn settle(&mut self, _: &[(Phase, f64)]) {}
}

/// Tells `phases`, if any, that `phase` begins.
pub(super) fn mark(phases: &mut Option<&mut dyn Phases>, phase: Phase) {
    if let Some(p) = phases {
        p.begin(phase);
    }
}
