//! Random numbers where a count needs them to be the same from run to run: the estimate's
//! sample of subproblems, and the tests' and benchmarks' data. A leaf of the import rule, so
//! that any layer may use it.

/// A small, fast, seedable generator (xorshift64, Marsaglia 2003) for reproducible random
/// choices: the estimate's sample, test and benchmark data; not for anything that needs
/// real randomness.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.max(1))
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `m` (m > 0).
    pub fn below(&mut self, m: usize) -> usize {
        (self.next() % m as u64) as usize
    }
}
