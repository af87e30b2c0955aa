//! Random numbers where a count needs them to be the same from run to run: the estimate's
//! sample of subproblems, the subproblems a merge or a resume recounts, and the tests' and
//! benchmarks' data. A leaf of the import rule, so
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
/// A uniform random sample of at most `cap` of the items offered one by one, without holding
/// the others (reservoir sampling, Vitter's algorithm R): a plan of hundreds of millions of
/// subproblems is never listed.
#[derive(Clone, Debug)]
pub struct Reservoir<T> {
    cap: usize,
    seen: u64,
    kept: Vec<T>,
}

impl<T> Reservoir<T> {
    /// An empty sample of at most `cap` items.
    pub fn new(cap: usize) -> Reservoir<T> {
        Reservoir {
            cap,
            seen: 0,
            kept: Vec::new(),
        }
    }

    /// Offers one item: kept with probability `cap / seen`, in place of a random one.
    pub fn offer(&mut self, item: T, rng: &mut XorShift) {
        self.seen += 1;
        if self.kept.len() < self.cap {
            self.kept.push(item);
        } else if let Some(slot) = self.kept.get_mut((rng.next() % self.seen) as usize) {
            *slot = item;
        }
    }

    /// The sample, in a random order.
    pub fn into_shuffled(mut self, rng: &mut XorShift) -> Vec<T> {
        shuffle(&mut self.kept, rng);
        self.kept
    }
}

/// Shuffles `xs` in place (Fisher and Yates) with `rng`.
pub fn shuffle<T>(xs: &mut [T], rng: &mut XorShift) {
    for i in (1..xs.len()).rev() {
        xs.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
}
