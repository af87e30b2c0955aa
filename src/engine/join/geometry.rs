//! Where the dividing lines of the join fall, and the diagonal patterns they define: kept apart
//! because every other part of the engine (quadrant lists, units, memory estimate) speaks in
//! these terms.

/// Where the dividing lines fall on an n×n board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Board size.
    pub n: usize,
    /// Quadrant side: ⌊n/2⌋.
    pub h: usize,
    /// First column of the east half and first row of the south half (`n - h`).
    pub far: usize,
    /// Diagonals of each direction in a pattern (`2h - 1`).
    pub width: usize,
}

impl Geometry {
    /// The geometry of an n×n board.
    pub fn new(n: usize) -> Geometry {
        let h = n / 2;
        Geometry {
            n,
            h,
            far: n - h,
            width: (2 * h).saturating_sub(1),
        }
    }

    /// Bits in a pattern.
    pub fn pattern_bits(&self) -> usize {
        2 * self.width
    }

    /// The pattern of a set of queens given by their diagonal masks: bit `r + c` of `d1` and
    /// bit `r - c + n - 1` of `d2` for each queen. Only diagonals that queens of both halves can
    /// reach are kept: those numbered `n - h ..= n + h - 2` in both directions.
    #[inline]
    pub fn pattern(&self, d1: u64, d2: u64) -> u64 {
        let m = (1u64 << self.width) - 1;
        ((d1 >> self.far) & m) | (((d2 >> self.far) & m) << self.width)
    }

    /// The diagonal masks of the square `(r, c)`.
    #[inline]
    pub fn diagonals(&self, r: usize, c: usize) -> (u64, u64) {
        (1 << (r + c), 1 << (r + self.n - 1 - c))
    }
}
