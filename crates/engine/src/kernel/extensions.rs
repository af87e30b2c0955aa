//! Proof that this processor has the x86-64 bit-manipulation extensions ([`BitExtensions`]),
//! which the lane loop ([`super::lanes`]) and the bottoms' tables both take. Apart from both,
//! so that neither imports the other: the lane loop imports the bottoms. Built on x86-64
//! only.

/// Proof that this processor has the x86-64 bit-manipulation extensions `popcnt`, `lzcnt`,
/// `bmi1` and `bmi2`: only [`BitExtensions::detect`] makes one. The code that needs them
/// takes one, so that each `unsafe` use rests on that single check.
#[derive(Clone, Copy, Debug)]
pub(super) struct BitExtensions(());

impl BitExtensions {
    /// The proof, where the processor has the extensions. Detected once (the standard
    /// library caches the answer).
    pub(super) fn detect() -> Option<BitExtensions> {
        let here = std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2");
        here.then_some(BitExtensions(()))
    }

    /// The bits of `x` selected by `mask`, packed to the low end (`pext`).
    #[inline(always)]
    pub(super) fn pext(self, x: u64, mask: u64) -> u64 {
        // SAFETY: `_pext_u64` needs bmi2, and a `BitExtensions` exists only where `detect`
        // found it.
        unsafe { std::arch::x86_64::_pext_u64(x, mask) }
    }
}
