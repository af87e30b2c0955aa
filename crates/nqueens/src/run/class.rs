//! The classes of subproblems alike in cost: one classing for the two places that group subproblems
//! by cost, the estimate (which samples each class apart, stratified sampling) and the pool's time
//! left (which paces each class by its own measured rate). A run-time matter: each engine's
//! adapter classes its own work ([`super::engines::Engine::class`]), the kernel's by the cost
//! model's estimates.

/// A class of subproblems alike in cost: the engine that counts them (by its rank, which
/// orders the classes of a plan) and the engine's own class of the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    engine: u8,
    key: u64,
}

impl Class {
    /// The class `key` of the engine of rank `engine`.
    pub(super) fn new(engine: u8, key: u64) -> Class {
        Class { engine, key }
    }
}

/// The half-octave of an estimate: estimates within a factor of √2 share it.
pub(super) fn half_octave(estimate: f64) -> u32 {
    (2.0 * estimate.max(1.0).log2()).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_within_a_half_octave_share_a_class() {
        assert_eq!(half_octave(0.0), 0);
        assert_eq!(half_octave(1.0), 0);
        assert_eq!(half_octave(1.4), 0);
        assert_eq!(half_octave(1.5), 1);
        assert_eq!(half_octave(4.0), 4);
        assert_eq!(half_octave(5.0), 4);
        assert!(Class::new(0, 9) < Class::new(1, 0));
    }
}
