//! Where the dividing lines of the join fall, the diagonal patterns they define, and the
//! numbering of a quadrant's (rows, columns) groups: kept apart because every other part of
//! the engine (quadrant lists, partitions, units, memory estimate) speaks in these terms.

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

/// Numbering of (rows, columns) groups: masks of equal size, `base[rows] + rank[columns]`.
#[derive(Clone, Debug)]
pub(super) struct QuadrantIndex {
    base: Vec<u32>,
    rank: Vec<u32>,
    /// Number of groups: C(2h, h).
    pub(super) groups: usize,
}

impl QuadrantIndex {
    /// The numbering for quadrants of side `h`.
    pub(super) fn new(h: usize) -> QuadrantIndex {
        let size = 1usize << h;
        let mut rank = vec![0u32; size];
        let mut seen = vec![0u32; h + 1];
        for (m, r) in rank.iter_mut().enumerate() {
            let k = m.count_ones() as usize;
            *r = seen[k];
            seen[k] += 1;
        }
        let mut base = vec![0u32; size];
        let mut next = 0u32;
        for (m, b) in base.iter_mut().enumerate() {
            *b = next;
            next += seen[m.count_ones() as usize];
        }
        QuadrantIndex {
            base,
            rank,
            groups: next as usize,
        }
    }

    #[inline]
    pub(super) fn group(&self, rows: u32, cols: u32) -> usize {
        (self.base[rows as usize] + self.rank[cols as usize]) as usize
    }

    /// Bytes the numbering holds.
    pub(super) fn bytes(&self) -> usize {
        (self.base.len() + self.rank.len()) * 4
    }

    /// The number of the first group of `rows`.
    pub(super) fn base(&self, rows: u32) -> u32 {
        self.base[rows as usize]
    }

    /// The place of `cols` among the column masks of its size.
    #[inline]
    pub(super) fn rank(&self, cols: u32) -> u32 {
        self.rank[cols as usize]
    }
}

/// Turns per-group counts (at `start[g + 1]`) into group starts.
pub(super) fn prefix_sums(start: &mut [u32]) {
    for g in 1..start.len() {
        start[g] += start[g - 1];
    }
}

/// `x` reversed in its `h` low bits (a side's columns or rows seen from the other end).
pub(super) fn reversed(x: u32, h: usize) -> u32 {
    if h == 0 {
        0
    } else {
        x.reverse_bits() >> (32 - h)
    }
}
