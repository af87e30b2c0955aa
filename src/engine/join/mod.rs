//! The join engine: counting by pairing half-boards instead of walking the search tree.
//!
//! Cut the board by a vertical line into a west and an east half (for odd n the middle column
//! and the middle row are taken out first; see below). In a solution every row holds one queen,
//! either west or east of the line, so a solution is a west half-board and an east half-board
//! whose row sets are complements, each a non-attacking placement filling all its side's
//! columns, and with no diagonal shared between them. A diagonal of a west queen meets one of an
//! east queen only where it crosses the line, so each half-board is summarised by a *pattern*:
//! the bits of the diagonals it occupies within the window of diagonals both halves can reach
//! (`2h - 1` diagonals of each direction, h = ⌊n/2⌋). Two half-boards fit iff their patterns
//! share no bit.
//!
//! One *unit* of work fixes the set of rows of the east half. Its half-boards are not searched
//! queen by queen: every partial placement of each quadrant (north-west, north-east, south-west,
//! south-east, h×h each) is listed once per count, grouped by the rows and columns it fills, and
//! a half-board is a north and a south quadrant placement whose rows make up the unit's rows and
//! whose columns make up the side's columns, and whose own diagonals do not meet (one AND of
//! their patterns). The east half-boards of a unit are turned into bit-transposed tables: for
//! each chunk of 6 pattern bits and each of its 64 values, the set (one bit per east half-board)
//! of half-boards that clash with that value. A west pattern's clashing set is the OR of one
//! row per chunk, so one 512-bit OR tests 512 candidates, and the count is the number of zero
//! bits. This is the quadrant/half-board method of the fastest published CPU counters, laid out
//! our own way; the matching loop is compiled for AVX-512 (with `vpopcntq`) and for AVX2 and
//! selected at run time, with a portable build of the same loop elsewhere.
//!
//! Symmetry: for even n the counts of east row sets `S`, its complement (left-right mirror) and
//! both turned upside down (top-bottom mirror) are equal, so one of each orbit is counted with
//! its orbit size as weight (about four times less work). For odd n the queen of the middle
//! column (row m) and the queen of the middle row (column k) are placed first; pairs (m, k) are
//! taken one per orbit of the eight board symmetries and weighted by the orbit size; the centre
//! queen (m = k = n/2) is a frame of its own whose row sets are reduced as for even n.
//!
//! The unique count comes from the same Burnside searches as the other plans
//! ([`crate::symmetry`]).

use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use super::Found;
use crate::symmetry::Sym;

/// Bits per chunk of a pattern in the matching tables.
const CHUNK: usize = 6;
/// The most chunks a pattern of a 32×32 board needs (62 bits).
const MAX_CHUNKS: usize = 11;

/// Calls `$f::<C>(args)` with the chunk count `$c` as a constant (1 to [`MAX_CHUNKS`]), so that
/// each matching loop is compiled with its per-chunk loop unrolled.
macro_rules! by_chunks {
    ($c:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $c {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*),
            _ => $f::<{ $crate::engine::join::MAX_CHUNKS }>($($arg),*),
        }
    };
}

/// The largest board the join engine accepts: its quadrant lists grow about eightfold per two
/// rows (n = 22 lists some 230 million quadrant placements).
pub const MAX_JOIN_N: usize = 23;

/// Placements listed per quadrant for quadrant side h = 0, 1, 2, ... (the empty placement
/// included), as [`Quadrants::build`] lists them (`examples/quadrant_sizes.rs`); the last two
/// are extrapolated (about ×8.6 per step) and only size memory.
const PLACEMENTS: [u64; 13] = [
    1,
    2,
    5,
    18,
    87,
    462,
    2_635,
    16_870,
    118_969,
    915_442,
    7_535_369,
    65_000_000,
    560_000_000,
];

/// Bytes a join count of an n×n board needs on `threads` threads, about: the quadrant lists
/// (and their building), the shared lists filtered by the middle queens (odd n), and per
/// thread the half-board and table buffers of the largest unit.
pub fn memory_needed(n: usize, threads: usize) -> u64 {
    let geo = Geometry::new(n);
    let per_quadrant = PLACEMENTS[geo.h.min(PLACEMENTS.len() - 1)];
    let odd = n % 2 == 1;
    // Groups of equal-size row and column sets: C(2h, h).
    let groups = (0..geo.h as u64).fold(1u64, |c, i| c * (2 * geo.h as u64 - i) / (i + 1));
    let lists = 4 * per_quadrant * if odd { 24 } else { 8 } + 4 * 4 * groups;
    // Small lists are built four at a time with a 24-byte temporary copy each.
    let building = if geo.h <= SMALL_QUADRANT {
        4 * 24 * per_quadrant
    } else {
        0
    };
    // The largest side of a unit: about 3000 half-boards at n = 16, five times more per two rows.
    let side = (3000.0 * 5f64.powf((n as f64 - 16.0) / 2.0)).max(1000.0) as u64;
    let per_thread = 100 * side;
    // Odd n: the lists filtered for a frame (at most the whole lists), shared, kept for the
    // last frames, and one more held by threads still on an older frame.
    let filtered = if odd {
        (FRAMES_KEPT as u64 + 1) * 4 * per_quadrant * 8
    } else {
        0
    };
    // The plan, the program and the allocator's slack: a tenth more and 16 MiB.
    let total = lists + building + filtered + threads as u64 * per_thread;
    total + total / 10 + (16 << 20)
}

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

/// Every non-attacking partial placement of one h×h quadrant (at most one queen per row and per
/// column), grouped by the rows and columns it fills.
#[derive(Clone, Debug)]
pub struct Quadrant {
    /// First board row and column of the quadrant.
    pub origin: (usize, usize),
    /// `start[g]..start[g + 1]` are the placements of group `g` (see [`QuadrantIndex`]).
    start: Vec<u32>,
    /// The pattern of each placement.
    patterns: Vec<u64>,
    /// Diagonal masks (`r + c` and `r - c + n - 1` bits) of each placement; kept for odd n only,
    /// where the middle queens filter the lists.
    diagonals: Vec<(u64, u64)>,
}

/// Quadrant sides up to this are listed in one walk with a temporary copy; larger ones in two
/// walks without one (the copy would be gigabytes from n = 22).
const SMALL_QUADRANT: usize = 9;

/// Calls `visit(group, d1, d2)` for every placement of the quadrant at `origin`: a depth-first
/// walk over its rows, each empty or holding one queen.
fn walk(
    geo: &Geometry,
    index: &QuadrantIndex,
    origin: (usize, usize),
    mut visit: impl FnMut(usize, u64, u64),
) {
    let mut stack = vec![(0usize, 0u32, 0u32, 0u64, 0u64)];
    while let Some((r, rows, cols, d1, d2)) = stack.pop() {
        if r == geo.h {
            visit(index.group(rows, cols), d1, d2);
            continue;
        }
        stack.push((r + 1, rows, cols, d1, d2));
        for c in 0..geo.h {
            if cols >> c & 1 == 1 {
                continue;
            }
            let (a, b) = geo.diagonals(origin.0 + r, origin.1 + c);
            if d1 & a != 0 || d2 & b != 0 {
                continue;
            }
            stack.push((r + 1, rows | 1 << r, cols | 1 << c, d1 | a, d2 | b));
        }
    }
}

/// Turns per-group counts (at `start[g + 1]`) into group starts.
fn prefix_sums(start: &mut [u32]) {
    for g in 1..start.len() {
        start[g] += start[g - 1];
    }
}

/// Numbering of (rows, columns) groups: masks of equal size, `base[rows] + rank[columns]`.
#[derive(Clone, Debug)]
struct QuadrantIndex {
    base: Vec<u32>,
    rank: Vec<u32>,
    groups: usize,
}

impl QuadrantIndex {
    fn new(h: usize) -> QuadrantIndex {
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
    fn group(&self, rows: u32, cols: u32) -> usize {
        (self.base[rows as usize] + self.rank[cols as usize]) as usize
    }
}

impl Quadrant {
    /// Lists the placements of the quadrant at `origin` of `geo`'s board.
    fn build(geo: &Geometry, index: &QuadrantIndex, origin: (usize, usize)) -> Quadrant {
        Quadrant::build_with(geo, index, origin, geo.h <= SMALL_QUADRANT)
    }

    fn build_with(
        geo: &Geometry,
        index: &QuadrantIndex,
        origin: (usize, usize),
        one_walk: bool,
    ) -> Quadrant {
        let keep = geo.n % 2 == 1;
        let mut start = vec![0u32; index.groups + 1];
        // Small lists: one walk, the placements kept in a temporary list (24 bytes each).
        // Large ones: one walk to count the groups, a second to fill them in place.
        let items = one_walk.then(|| {
            let mut items: Vec<(u32, u64, u64)> = Vec::new();
            walk(geo, index, origin, |g, d1, d2| {
                items.push((g as u32, d1, d2))
            });
            items
        });
        match &items {
            Some(items) => items.iter().for_each(|&(g, ..)| start[g as usize + 1] += 1),
            None => walk(geo, index, origin, |g, _, _| start[g + 1] += 1),
        }
        prefix_sums(&mut start);
        let total = start[index.groups] as usize;
        let mut patterns = vec![0; total];
        let mut diagonals = vec![(0, 0); if keep { total } else { 0 }];
        let mut fill = start.clone();
        let mut place = |g: usize, d1: u64, d2: u64| {
            let at = fill[g] as usize;
            patterns[at] = geo.pattern(d1, d2);
            if keep {
                diagonals[at] = (d1, d2);
            }
            fill[g] += 1;
        };
        match items {
            Some(items) => items
                .into_iter()
                .for_each(|(g, d1, d2)| place(g as usize, d1, d2)),
            None => walk(geo, index, origin, place),
        }
        Quadrant {
            origin,
            start,
            patterns,
            diagonals,
        }
    }

    /// The list of the quadrant east of this west one, as its left-right mirror image: the
    /// group keys' column masks are reversed, the two pattern fields (and the diagonal masks)
    /// trade places, and each group is reversed, which gives exactly the order a walk of the
    /// east quadrant itself would (it prefers the other end of the columns).
    fn mirrored(&self, geo: &Geometry, index: &QuadrantIndex) -> Quadrant {
        let h = geo.h;
        let side = |m: u32| {
            if h == 0 {
                0
            } else {
                m.reverse_bits() >> (32 - h)
            }
        };
        let w = geo.width;
        let field = (1u64 << w) - 1;
        // Group sizes carry over; then each placement moves to its image's group.
        let mut start = vec![0u32; index.groups + 1];
        let mut moves = Vec::with_capacity(index.groups);
        for rows in 0..(1u32 << h) {
            for cols in (0..(1u32 << h)).filter(|c| c.count_ones() == rows.count_ones()) {
                let from = index.group(rows, cols);
                let to = index.group(rows, side(cols));
                start[to + 1] = self.start[from + 1] - self.start[from];
                moves.push((from, to));
            }
        }
        prefix_sums(&mut start);
        let keep = !self.diagonals.is_empty();
        let mut patterns = vec![0; self.patterns.len()];
        let mut diagonals = vec![(0, 0); self.diagonals.len()];
        for (from, to) in moves {
            let src = self.start[from] as usize..self.start[from + 1] as usize;
            let last = start[to + 1] as usize;
            for (i, at) in src.enumerate() {
                let p = self.patterns[at];
                patterns[last - 1 - i] = p >> w | (p & field) << w;
                if keep {
                    let (d1, d2) = self.diagonals[at];
                    diagonals[last - 1 - i] = (d2, d1);
                }
            }
        }
        Quadrant {
            origin: (self.origin.0, geo.far),
            start,
            patterns,
            diagonals,
        }
    }

    /// Number of placements listed.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether no placement is listed (never: the empty placement always is).
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The placements no queen with diagonal masks `(fd1, fd2)` attacks, in the same groups.
    fn filtered(&self, (fd1, fd2): (u64, u64)) -> Lists {
        let mut start = Vec::with_capacity(self.start.len());
        let mut patterns = Vec::new();
        start.push(0);
        for g in 0..self.start.len() - 1 {
            let range = self.start[g] as usize..self.start[g + 1] as usize;
            for (&p, &(d1, d2)) in self.patterns[range.clone()]
                .iter()
                .zip(&self.diagonals[range])
            {
                if d1 & fd1 == 0 && d2 & fd2 == 0 {
                    patterns.push(p);
                }
            }
            start.push(patterns.len() as u32);
        }
        Lists { start, patterns }
    }
}

/// One quadrant's patterns by group, after the middle queens of a frame have filtered them.
#[derive(Clone, Debug, Default)]
struct Lists {
    start: Vec<u32>,
    patterns: Vec<u64>,
}

/// Patterns of the four quadrants as one unit sees them.
#[derive(Clone, Copy)]
struct View<'a> {
    start: [&'a [u32]; 4],
    patterns: [&'a [u64]; 4],
}

impl View<'_> {
    /// Patterns of quadrant `k`'s group of `rows` and `cols` (quadrant-local masks).
    #[inline]
    fn group(&self, index: &QuadrantIndex, k: usize, rows: u32, cols: u32) -> &[u64] {
        let g = index.group(rows, cols);
        &self.patterns[k][self.start[k][g] as usize..self.start[k][g + 1] as usize]
    }
}

/// The four quadrants of a board, built once per count and shared by all threads.
pub struct Quadrants {
    /// Where the lines fall.
    pub geo: Geometry,
    index: QuadrantIndex,
    /// North-west, north-east, south-west, south-east.
    quads: [Quadrant; 4],
    /// Odd n: the lists filtered by the middle queens of the last frames, shared by the
    /// threads (they work on the units of one or two frames at a time).
    frames: Mutex<Vec<(Middle, Arc<[Lists; 4]>)>>,
}

/// Filtered lists kept for the frames most recently asked for.
const FRAMES_KEPT: usize = 2;

impl std::fmt::Debug for Quadrants {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quadrants")
            .field("geo", &self.geo)
            .field("placements", &self.placements())
            .field("bytes", &self.bytes())
            .finish()
    }
}

impl Quadrants {
    /// Lists every quadrant placement of an n×n board.
    pub fn build(n: usize) -> Quadrants {
        let geo = Geometry::new(n);
        let index = QuadrantIndex::new(geo.h);
        // The two west lists are walked, the east ones are their mirror images. Inside a
        // worker pool (the runner builds the lists before the units start) the two sides are
        // made in parallel on that pool; elsewhere one after another.
        let side = |row: usize| {
            let west = Quadrant::build(&geo, &index, (row, 0));
            let east = west.mirrored(&geo, &index);
            (west, east)
        };
        let ((nw, ne), (sw, se)) = if rayon::current_thread_index().is_some() {
            rayon::join(|| side(0), || side(geo.far))
        } else {
            (side(0), side(geo.far))
        };
        Quadrants {
            geo,
            index,
            quads: [nw, ne, sw, se],
            frames: Mutex::new(Vec::new()),
        }
    }

    /// The lists no middle queen of `m` attacks: filtered by the first thread that asks, then
    /// shared.
    fn filtered(&self, m: Middle) -> Arc<[Lists; 4]> {
        let lock = || self.frames.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, lists)) = lock().iter().find(|(f, _)| *f == m) {
            return Arc::clone(lists);
        }
        let (mut fd1, mut fd2) = (0, 0);
        for (r, c) in m.squares(self.geo.n) {
            let (a, b) = self.geo.diagonals(r, c);
            fd1 |= a;
            fd2 |= b;
        }
        let made = Arc::new([0, 1, 2, 3].map(|k| self.quads[k].filtered((fd1, fd2))));
        let mut kept = lock();
        if let Some((_, lists)) = kept.iter().find(|(f, _)| *f == m) {
            // Another thread was quicker.
            return Arc::clone(lists);
        }
        if kept.len() >= FRAMES_KEPT {
            kept.remove(0);
        }
        kept.push((m, Arc::clone(&made)));
        made
    }

    /// Bytes held by the lists.
    pub fn bytes(&self) -> usize {
        self.quads
            .iter()
            .map(|q| q.patterns.len() * 8 + q.diagonals.len() * 16 + q.start.len() * 4)
            .sum::<usize>()
            + self.index.base.len() * 8
    }

    /// Placements in all four quadrants.
    pub fn placements(&self) -> usize {
        self.quads.iter().map(Quadrant::len).sum()
    }

    fn view(&self) -> View<'_> {
        View {
            start: [0, 1, 2, 3].map(|k| &self.quads[k].start[..]),
            patterns: [0, 1, 2, 3].map(|k| &self.quads[k].patterns[..]),
        }
    }
}

/// Queens placed before the join: none for even n; for odd n the queen of the middle column
/// (row `column_queen`) and the queen of the middle row (column `row_queen`), one queen when
/// both are the centre square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Middle {
    /// Row of the middle column's queen.
    pub column_queen: u8,
    /// Column of the middle row's queen.
    pub row_queen: u8,
}

impl Middle {
    fn squares(self, n: usize) -> [(usize, usize); 2] {
        let h = n / 2;
        [
            (usize::from(self.column_queen), h),
            (h, usize::from(self.row_queen)),
        ]
    }
}

/// One unit of the join: the rows of the east half, and the middle queens for odd n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Board rows whose queen stands in the east half (the first of `span` row sets).
    pub east_rows: u32,
    /// The middle queens (odd n only).
    pub middle: Option<Middle>,
    /// How many row sets the unit counts: `east_rows` and the next ones in increasing order of
    /// the subsets of the free rows. More than one only for frames whose row sets are not
    /// reduced by symmetry (odd n, two middle queens), to keep the plan to some thousands of
    /// units per frame family.
    pub span: u32,
}

/// Frames whose row sets are not reduced are cut into about this many units each.
const UNITS_PER_FRAME: usize = 512;

/// The units of an n×n board with their weights: each stands for that many equal counts.
pub fn units(n: usize) -> Vec<(Unit, u8)> {
    let geo = Geometry::new(n);
    let all = (1u32 << n) - 1;
    let mut out = Vec::new();
    if n.is_multiple_of(2) {
        push_row_sets(&geo, all, None, true, &mut out);
        return out;
    }
    let h = geo.h as u8;
    for (middle, weight) in middles(n) {
        let centre = middle.column_queen == h;
        let mut free = all & !(1 << h) & !(1 << middle.column_queen);
        if centre {
            free = all & !(1 << h);
        }
        let mut sets = Vec::new();
        push_row_sets(&geo, free, Some(middle), centre, &mut sets);
        out.extend(sets.into_iter().map(|(u, w)| (u, w * weight)));
    }
    out
}

/// The canonical middle-queen pairs of an odd board with their orbit sizes.
fn middles(n: usize) -> Vec<(Middle, u8)> {
    let h = n / 2;
    let mut out = vec![(
        Middle {
            column_queen: h as u8,
            row_queen: h as u8,
        },
        1,
    )];
    for m in (0..n).filter(|&m| m != h) {
        for k in (0..n).filter(|&k| k != h && m.abs_diff(h) != k.abs_diff(h)) {
            let me = Middle {
                column_queen: m as u8,
                row_queen: k as u8,
            };
            let mut images: Vec<Middle> = Sym::ALL
                .iter()
                .map(|s| {
                    let [a, b] = me.squares(n).map(|q| s.apply(n, q));
                    // One image square is in the middle column, the other in the middle row.
                    let (col, row) = if a.1 == h { (a, b) } else { (b, a) };
                    Middle {
                        column_queen: col.0 as u8,
                        row_queen: row.1 as u8,
                    }
                })
                .collect();
            images.sort_unstable_by_key(|x| (x.column_queen, x.row_queen));
            images.dedup();
            if images[0] == me {
                out.push((me, images.len() as u8));
            }
        }
    }
    out
}

/// The east row sets of one frame: subsets of `free` as large as the east half has free
/// columns; with `reduce`, one per orbit of {complement, upside down} weighted by its size.
fn push_row_sets(
    geo: &Geometry,
    free: u32,
    middle: Option<Middle>,
    reduce: bool,
    out: &mut Vec<(Unit, u8)>,
) {
    let n = geo.n;
    let east_cols = geo.h - usize::from(middle.is_some_and(|m| usize::from(m.row_queen) > geo.h));
    let slots = free.count_ones() as usize;
    let flip = |s: u32| {
        if n == 0 {
            0
        } else {
            s.reverse_bits() >> (32 - n)
        }
    };
    if !reduce {
        let sets: Vec<u32> = Combinations::new(slots, east_cols)
            .map(|i| deposit(i, free))
            .collect();
        let span = sets.len().div_ceil(UNITS_PER_FRAME).max(1);
        for chunk in sets.chunks(span) {
            let unit = Unit {
                east_rows: chunk[0],
                middle,
                span: chunk.len() as u32,
            };
            out.push((unit, 1));
        }
        return;
    }
    for i in Combinations::new(slots, east_cols) {
        let s = deposit(i, free);
        let c = free & !s;
        let mut orbit = [s, c, flip(s), flip(c)];
        orbit.sort_unstable();
        if orbit[0] < s {
            continue;
        }
        let weight = 1 + orbit.windows(2).filter(|w| w[0] != w[1]).count() as u8;
        let unit = Unit {
            east_rows: s,
            middle,
            span: 1,
        };
        out.push((unit, weight));
    }
}

/// The `k`-subsets of `0..m` as bit masks, in increasing order (Gosper's hack).
struct Combinations {
    next: Option<u64>,
    limit: u64,
}

impl Combinations {
    fn new(m: usize, k: usize) -> Combinations {
        Combinations {
            next: (k <= m).then(|| (1u64 << k) - 1),
            limit: 1u64 << m,
        }
    }
}

impl Iterator for Combinations {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let x = self.next?;
        self.next = if x == 0 {
            None
        } else {
            let c = x & x.wrapping_neg();
            let r = x + c;
            let y = (((r ^ x) >> 2) / c) | r;
            (y < self.limit).then_some(y)
        };
        Some(x)
    }
}

/// Spreads the low bits of `x` over the set bits of `mask` (a portable `pdep`).
fn deposit(mut x: u64, mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    while m != 0 && x != 0 {
        let b = m & m.wrapping_neg();
        if x & 1 == 1 {
            out |= b;
        }
        x >>= 1;
        m &= m - 1;
    }
    out
}

/// Gathers the bits of `x` at the set bits of `mask` into the low bits (a portable `pext`).
fn extract(x: u32, mask: u32) -> u64 {
    let mut out = 0;
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let b = m & m.wrapping_neg();
        if x & b != 0 {
            out |= 1 << i;
        }
        i += 1;
        m &= m - 1;
    }
    out
}

/// The row set after `s` among the subsets of `free` of the same size, in increasing order.
fn next_row_set(s: u32, free: u32) -> Option<u32> {
    let x = extract(s, free);
    let mut it = Combinations {
        next: Some(x),
        limit: 1u64 << free.count_ones(),
    };
    it.next();
    it.next().map(|y| deposit(y, free))
}

#[derive(Default)]
struct Scratch {
    east: Vec<u64>,
    west: Vec<u64>,
    tables: Vec<u64>,
    /// Odd n: the quadrant lists filtered by the current frame's middle queens, that frame,
    /// and the board size.
    frame: Option<(usize, Middle, Arc<[Lists; 4]>)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Counts the solutions of one unit.
pub fn count_unit(q: &Quadrants, unit: &Unit) -> Found {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        count_unit_with(q, unit, s)
    })
}

fn count_unit_with(q: &Quadrants, unit: &Unit, s: &mut Scratch) -> Found {
    let geo = &q.geo;
    let all = u32::MAX >> (32 - geo.n);
    let side_cols = (1u32 << geo.h) - 1;
    let (mut free_rows, mut west_cols, mut east_cols) = (all, side_cols, side_cols);
    let mut view = q.view();
    if let Some(m) = unit.middle {
        for (r, c) in m.squares(geo.n) {
            free_rows &= !(1 << r);
            if c < geo.h {
                west_cols &= !(1 << c);
            } else if c >= geo.far {
                east_cols &= !(1 << (c - geo.far));
            }
        }
        // Units of one frame come one after another, so the lists are filtered about once
        // per frame and shared by the threads.
        if !matches!(&s.frame, Some((n, f, _)) if *n == geo.n && *f == m) {
            // Let go of the old frame's copy first, so it can be freed while filtering.
            s.frame = None;
            s.frame = Some((geo.n, m, q.filtered(m)));
        }
        let lists = &s.frame.as_ref().expect("just filled").2;
        view = View {
            start: [0, 1, 2, 3].map(|k| &lists[k].start[..]),
            patterns: [0, 1, 2, 3].map(|k| &lists[k].patterns[..]),
        };
    }
    let mut east = std::mem::take(&mut s.east);
    let mut west = std::mem::take(&mut s.west);
    let mut total = Found::default();
    let mut rows = Some(unit.east_rows);
    for _ in 0..unit.span {
        let Some(east_rows) = rows else { break };
        halves(q, &view, [1, 3], east_rows, east_cols, &mut east);
        halves(
            q,
            &view,
            [0, 2],
            free_rows & !east_rows,
            west_cols,
            &mut west,
        );
        // The smaller side becomes the tables, the larger one the queries.
        let (table, queries) = if east.len() <= west.len() {
            (&east, &west)
        } else {
            (&west, &east)
        };
        total.count += count_fitting(table, queries, geo.pattern_bits(), &mut s.tables);
        total.nodes += (east.len() + west.len()) as u64;
        rows = next_row_set(east_rows, free_rows);
    }
    s.east = east;
    s.west = west;
    total
}

/// The patterns of one side's half-boards: queens on exactly `rows` (board rows) and `cols`
/// (side-local columns), from the quadrants `[north, south]` of `view`.
fn halves(
    q: &Quadrants,
    view: &View<'_>,
    [north, south]: [usize; 2],
    rows: u32,
    cols: u32,
    out: &mut Vec<u64>,
) {
    let geo = &q.geo;
    out.clear();
    let side = (1u32 << geo.h) - 1;
    let north_rows = rows & side;
    let south_rows = (rows >> geo.far) & side;
    let a = north_rows.count_ones() as usize;
    if a + south_rows.count_ones() as usize != cols.count_ones() as usize {
        return;
    }
    for i in Combinations::new(cols.count_ones() as usize, a) {
        let x = deposit(i, cols);
        let ns = view.group(&q.index, north, north_rows, x);
        if ns.is_empty() {
            continue;
        }
        let ss = view.group(&q.index, south, south_rows, cols & !x);
        pair_up(ns, ss, out);
    }
}

/// Appends `p | q` for every pair of north and south patterns that share no diagonal. The
/// north and south queens of one side can only meet on diagonals inside the pattern window, so
/// one AND decides.
#[inline]
fn pair_up(north: &[u64], south: &[u64], out: &mut Vec<u64>) {
    for &p in north {
        let len = out.len();
        out.resize(len + south.len(), 0);
        let tail = &mut out[len..];
        let mut k = 0;
        // Written unconditionally, kept by advancing: no branch on the data.
        for &q in south {
            tail[k] = p | q;
            k += usize::from(p & q == 0);
        }
        out.truncate(len + k);
    }
}

/// The number of pairs (t, q), t from `table` and q from `queries`, whose patterns share no bit.
pub fn count_fitting(table: &[u64], queries: &[u64], bits: usize, tables: &mut Vec<u64>) -> u64 {
    if table.is_empty() || queries.is_empty() {
        return 0;
    }
    if table.len() * queries.len() <= PAIRWISE_LIMIT {
        return count_pairwise(table, queries);
    }
    let chunks = bits.div_ceil(CHUNK).max(1);
    let words = build_tables(table, chunks, tables);
    let bl = 0..words / 8;
    match level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { x86::query_avx512(chunks, queries, tables, words, bl) },
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::query_avx2(chunks, queries, tables, words, bl) },
        Level::Portable => query_any(chunks, queries, tables, words, bl),
    }
}

/// A range of 512-candidate blocks of the tables (matching a slab of blocks at a time so that
/// it stays in cache was measured: no gain at n = 20).
type Blocks = std::ops::Range<usize>;

/// Below this many candidate pairs, testing every pair beats building tables (the tables of
/// one 512-candidate block take some 3000 word writes).
const PAIRWISE_LIMIT: usize = 16 * 1024;

/// Pairs sharing no bit, one AND each.
fn count_pairwise(table: &[u64], queries: &[u64]) -> u64 {
    queries
        .iter()
        .map(|&q| table.iter().map(|&t| u64::from(t & q == 0)).sum::<u64>())
        .sum()
}

/// Fills the bit-transposed tables of `table` and returns the words per row (a multiple of 8).
///
/// Row `(j, v)` holds, for chunk `j` and chunk value `v`, one bit per table pattern: set when
/// the pattern shares a bit with `v` in chunk `j`. Bits past the last pattern are set in every
/// row of chunk 0, so they are never counted.
fn build_tables(table: &[u64], chunks: usize, t: &mut Vec<u64>) -> usize {
    match level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { x86::build_avx512(table, chunks, t) },
        _ => build_any(table, chunks, t),
    }
}

#[inline(always)]
fn build_any(table: &[u64], chunks: usize, t: &mut Vec<u64>) -> usize {
    let k = table.len();
    let words = k.div_ceil(512) * 8;
    let per = words << CHUNK;
    if t.len() < chunks * per {
        t.resize(chunks * per, 0);
    }
    // Row 0 of every chunk is never written below; the one-bit rows are written whole.
    for j in 0..chunks {
        t[j * per..j * per + words].fill(0);
    }
    // The one-bit rows, 64 table patterns at a time: a 64×64 bit transpose turns the patterns
    // (one word each) into one word per pattern bit (one bit per pattern).
    let bits = (chunks * CHUNK).min(64);
    for w in 0..words {
        let mut block = [0u64; 64];
        let from = (w * 64).min(k);
        let to = (w * 64 + 64).min(k);
        block[..to - from].copy_from_slice(&table[from..to]);
        transpose64(&mut block);
        for (b, &word) in block[..bits].iter().enumerate() {
            t[(b / CHUNK) * per + (1 << (b % CHUNK)) * words + w] = word;
        }
    }
    for i in k..words * 64 {
        t[i / 64] |= 1 << (i % 64);
    }
    let blocks = words / 8;
    for j in 0..chunks {
        let (rows, _) = t[j * per..(j + 1) * per].as_chunks_mut::<8>();
        for v in 1..(1usize << CHUNK) {
            let low = v & v.wrapping_neg();
            // Row 0 of chunk 0 holds the padding, which every row of chunk 0 needs too.
            if low == v && j > 0 {
                continue;
            }
            let rest = v & (v - 1);
            for b in 0..blocks {
                let (x, y) = (rows[rest * blocks + b], rows[low * blocks + b]);
                for ((o, x), y) in rows[v * blocks + b].iter_mut().zip(x).zip(y) {
                    *o = x | y;
                }
            }
        }
    }
    words
}

/// Transposes a 64×64 bit matrix in place: afterwards bit `e` of `a[b]` is what bit `b` of
/// `a[e]` was. Six rounds of masked swaps of ever smaller blocks (Hacker's Delight, 7-3).
#[inline(always)]
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// Instruction sets the matching loop is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512vpopcntdq") && has!("popcnt") {
                return Level::Avx512;
            }
            if has!("avx2") && has!("popcnt") {
                return Level::Avx2;
            }
        }
        Level::Portable
    })
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The matching loop compiled for wider vectors; callers check the features first.

    use super::Blocks;

    use std::arch::x86_64::{
        __m512i, _mm256_loadu_si256, _mm256_or_si256, _mm256_storeu_si256, _mm512_add_epi64,
        _mm512_loadu_si512, _mm512_or_si512, _mm512_popcnt_epi64, _mm512_reduce_add_epi64,
        _mm512_setzero_si512,
    };

    /// # Safety
    /// The processor must support `avx512f`, `avx512vpopcntdq` and `popcnt`.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    pub unsafe fn query_avx512(c: usize, q: &[u64], t: &[u64], words: usize, bl: Blocks) -> u64 {
        by_chunks!(c, query512(q, t, words, bl))
    }

    /// The loop of [`super::query`] written with 512-bit operations: one load and OR per chunk
    /// and block, one `vpopcntq` per block.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    fn query512<const C: usize>(queries: &[u64], tables: &[u64], words: usize, bl: Blocks) -> u64 {
        let rows = super::row_blocks::<C>(tables, words, &bl);
        let mut set = 0u64;
        for &p in queries {
            let at = super::row_offsets::<C>(p, words);
            let mut acc = _mm512_setzero_si512();
            for b in bl.clone() {
                // SAFETY (all loads): `rows[i]` is a whole, in-bounds 64-byte row block.
                let mut a: __m512i = unsafe { _mm512_loadu_si512(rows[at[0] + b].as_ptr().cast()) };
                for &j in &at[1..] {
                    let row = unsafe { _mm512_loadu_si512(rows[j + b].as_ptr().cast()) };
                    a = _mm512_or_si512(a, row);
                }
                acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(a));
            }
            set += _mm512_reduce_add_epi64(acc) as u64;
        }
        (queries.len() * bl.len() * 512) as u64 - set
    }

    /// # Safety
    /// The processor must support `avx512f`.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn build_avx512(table: &[u64], chunks: usize, t: &mut Vec<u64>) -> usize {
        super::build_any(table, chunks, t)
    }

    /// # Safety
    /// The processor must support `avx2` and `popcnt`.
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn query_avx2(c: usize, q: &[u64], t: &[u64], words: usize, bl: Blocks) -> u64 {
        by_chunks!(c, query256(q, t, words, bl))
    }

    /// The loop of [`super::query`] with 256-bit ORs and a scalar `popcnt` per word.
    #[target_feature(enable = "avx2,popcnt")]
    fn query256<const C: usize>(queries: &[u64], tables: &[u64], words: usize, bl: Blocks) -> u64 {
        let rows = super::row_blocks::<C>(tables, words, &bl);
        let mut set = 0u64;
        for &p in queries {
            let at = super::row_offsets::<C>(p, words);
            for b in bl.clone() {
                // SAFETY (all loads): each half of `rows[i]` is 32 in-bounds bytes.
                let first = &rows[at[0] + b];
                let mut lo = unsafe { _mm256_loadu_si256(first.as_ptr().cast()) };
                let mut hi = unsafe { _mm256_loadu_si256(first[4..].as_ptr().cast()) };
                for &j in &at[1..] {
                    let row = &rows[j + b];
                    lo = _mm256_or_si256(lo, unsafe { _mm256_loadu_si256(row.as_ptr().cast()) });
                    hi = _mm256_or_si256(hi, unsafe {
                        _mm256_loadu_si256(row[4..].as_ptr().cast())
                    });
                }
                let mut out = [0u64; 8];
                unsafe {
                    _mm256_storeu_si256(out.as_mut_ptr().cast(), lo);
                    _mm256_storeu_si256(out[4..].as_mut_ptr().cast(), hi);
                }
                set += out.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
            }
        }
        (queries.len() * bl.len() * 512) as u64 - set
    }
}

#[inline(always)]
fn query_any(chunks: usize, queries: &[u64], tables: &[u64], words: usize, bl: Blocks) -> u64 {
    by_chunks!(chunks, query(queries, tables, words, bl))
}

/// The tables as 512-bit row blocks, checked to hold `C` chunks of rows of `words` words and
/// the blocks `bl`.
#[inline(always)]
fn row_blocks<'a, const C: usize>(tables: &'a [u64], words: usize, bl: &Blocks) -> &'a [[u64; 8]] {
    assert!(bl.end <= words / 8);
    let (rows, _) = tables.as_chunks::<8>();
    assert!(rows.len() >= C * (words << CHUNK) / 8);
    rows
}

/// The index of the first row block of pattern `p`'s row in each chunk: chunk `j`'s rows
/// start at `j * 64 * words` words, value `v`'s row at `v * words` within them.
#[inline(always)]
fn row_offsets<const C: usize>(p: u64, words: usize) -> [usize; C] {
    let per = words << CHUNK;
    let mut at = [0usize; C];
    for (j, a) in at.iter_mut().enumerate() {
        let v = ((p >> (CHUNK * j)) as usize) & ((1 << CHUNK) - 1);
        *a = (j * per + v * words) / 8;
    }
    at
}

/// For each query, ORs one table row per chunk, 512 candidates at a time, and counts the
/// candidates left clear.
#[inline(always)]
fn query<const C: usize>(queries: &[u64], tables: &[u64], words: usize, bl: Blocks) -> u64 {
    let rows = row_blocks::<C>(tables, words, &bl);
    let mut total = 0u64;
    for &p in queries {
        let at = row_offsets::<C>(p, words);
        let mut clear = [0u64; 8];
        for b in bl.clone() {
            let mut a = rows[at[0] + b];
            for &j in &at[1..] {
                for (x, y) in a.iter_mut().zip(&rows[j + b]) {
                    *x |= y;
                }
            }
            for (c, x) in clear.iter_mut().zip(a) {
                *c += u64::from((!x).count_ones());
            }
        }
        total += clear.iter().sum::<u64>();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every non-attacking placement (at most one queen per row and column) of the quadrant,
    /// by brute force over all subsets of its squares.
    fn brute_quadrant(geo: &Geometry, origin: (usize, usize)) -> Vec<(u32, u32, u64, u64)> {
        let h = geo.h;
        let mut out = Vec::new();
        for set in 0u64..(1 << (h * h)) {
            let sq: Vec<(usize, usize)> = (0..h * h)
                .filter(|i| set >> i & 1 == 1)
                .map(|i| (i / h, i % h))
                .collect();
            let ok = sq.iter().enumerate().all(|(i, a)| {
                sq[i + 1..]
                    .iter()
                    .all(|b| a.0 != b.0 && a.1 != b.1 && a.0.abs_diff(b.0) != a.1.abs_diff(b.1))
            });
            if ok {
                let (mut rows, mut cols, mut d1, mut d2) = (0, 0, 0, 0);
                for &(r, c) in &sq {
                    rows |= 1 << r;
                    cols |= 1 << c;
                    let (a, b) = geo.diagonals(origin.0 + r, origin.1 + c);
                    d1 |= a;
                    d2 |= b;
                }
                out.push((rows, cols, d1, d2));
            }
        }
        out
    }

    #[test]
    fn quadrants_list_every_placement_in_its_group() {
        for n in [4, 5, 6, 7, 8, 9] {
            let q = Quadrants::build(n);
            for quad in &q.quads {
                let mut want = brute_quadrant(&q.geo, quad.origin);
                assert_eq!(quad.len(), want.len(), "n = {n}");
                let mut got = Vec::new();
                for rows in 0..(1u32 << q.geo.h) {
                    for cols in 0..(1u32 << q.geo.h) {
                        if rows.count_ones() == cols.count_ones() {
                            let g = q.index.group(rows, cols);
                            for i in quad.start[g] as usize..quad.start[g + 1] as usize {
                                let (d1, d2) = quad.diagonals.get(i).copied().unwrap_or((0, 0));
                                got.push((rows, cols, quad.patterns[i], d1, d2));
                            }
                        }
                    }
                }
                // Even boards keep patterns only.
                let mut want: Vec<_> = want
                    .drain(..)
                    .map(|(r, c, d1, d2)| {
                        let p = q.geo.pattern(d1, d2);
                        if n % 2 == 1 {
                            (r, c, p, d1, d2)
                        } else {
                            (r, c, p, 0, 0)
                        }
                    })
                    .collect();
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "n = {n}, quadrant at {:?}", quad.origin);
            }
        }
    }

    /// East or west half-boards of `rows`, by a direct column-by-column search.
    fn brute_halves(geo: &Geometry, west: bool, rows: u32, frame: &[(usize, usize)]) -> Vec<u64> {
        let cols: Vec<usize> = if west {
            (0..geo.h).collect()
        } else {
            (geo.far..geo.n).collect()
        };
        let cols: Vec<usize> = cols
            .into_iter()
            .filter(|&c| frame.iter().all(|f| f.1 != c))
            .collect();
        let mut out = Vec::new();
        fn go(
            geo: &Geometry,
            cols: &[usize],
            rows: u32,
            placed: &mut Vec<(usize, usize)>,
            frame: &[(usize, usize)],
            out: &mut Vec<u64>,
        ) {
            let Some((&c, rest)) = cols.split_first() else {
                let (mut d1, mut d2) = (0, 0);
                for &(r, c) in placed.iter() {
                    let (a, b) = geo.diagonals(r, c);
                    d1 |= a;
                    d2 |= b;
                }
                out.push(geo.pattern(d1, d2));
                return;
            };
            for r in 0..geo.n {
                let free = rows >> r & 1 == 1
                    && placed
                        .iter()
                        .chain(frame)
                        .all(|&(pr, pc)| pr != r && pr.abs_diff(r) != pc.abs_diff(c));
                if free {
                    placed.push((r, c));
                    go(geo, rest, rows, placed, frame, out);
                    placed.pop();
                }
            }
        }
        go(geo, &cols, rows, &mut Vec::new(), frame, &mut out);
        out
    }

    /// The one-row-set units a unit stands for.
    fn single_row_sets(n: usize, u: Unit) -> Vec<Unit> {
        let all = (1u32 << n) - 1;
        let free = u.middle.map_or(all, |m| {
            m.squares(n).iter().fold(all, |f, &(r, _)| f & !(1 << r))
        });
        let mut out = vec![Unit { span: 1, ..u }];
        while out.len() < u.span as usize {
            let s = next_row_set(out.last().unwrap().east_rows, free).unwrap();
            out.push(Unit {
                east_rows: s,
                ..out[0]
            });
        }
        out
    }

    #[test]
    fn spans_cover_every_row_set_once() {
        for n in [9, 11, 13] {
            let mut seen = std::collections::HashSet::new();
            for (u, _) in units(n) {
                for one in single_row_sets(n, u) {
                    assert!(seen.insert(one), "{one:?} twice");
                }
            }
            let frames = middles(n).len() - 1;
            let h = n / 2;
            let binom = |a: u64, b: u64| (0..b).fold(1u64, |c, i| c * (a - i) / (i + 1));
            // Each two-queen frame: all h- or (h-1)-subsets of the 2h-1 free rows; the centre
            // frame: one per orbit.
            let centre = seen
                .iter()
                .filter(|u| u.middle.unwrap().column_queen as usize == h);
            let two = seen.len() - centre.count();
            assert_eq!(
                two as u64,
                frames as u64 * binom(2 * h as u64 - 1, h as u64),
                "n = {n}"
            );
        }
    }

    #[test]
    fn half_boards_match_a_direct_search() {
        for n in [4, 5, 6, 7, 8, 9, 10, 11] {
            let q = Quadrants::build(n);
            for unit in units(n)
                .into_iter()
                .flat_map(|(u, _)| single_row_sets(n, u))
            {
                let frame: Vec<(usize, usize)> = unit
                    .middle
                    .map(|m| m.squares(n).to_vec())
                    .unwrap_or_default();
                let all = (1u32 << n) - 1;
                let free = frame.iter().fold(all, |f, &(r, _)| f & !(1 << r));
                let side = (1u32 << q.geo.h) - 1;
                let (mut wc, mut ec) = (side, side);
                let (mut fd1, mut fd2) = (0, 0);
                for &(r, c) in &frame {
                    let (a, b) = q.geo.diagonals(r, c);
                    fd1 |= a;
                    fd2 |= b;
                    if c < q.geo.h {
                        wc &= !(1 << c);
                    } else if c >= q.geo.far {
                        ec &= !(1 << (c - q.geo.far));
                    }
                }
                for (west, rows, cols) in [
                    (false, unit.east_rows, ec),
                    (true, free & !unit.east_rows, wc),
                ] {
                    let sides = if west { [0, 2] } else { [1, 3] };
                    let mut got = Vec::new();
                    let lists = [0, 1, 2, 3].map(|k| {
                        if n % 2 == 1 {
                            q.quads[k].filtered((fd1, fd2))
                        } else {
                            Lists {
                                start: q.quads[k].start.clone(),
                                patterns: q.quads[k].patterns.clone(),
                            }
                        }
                    });
                    let view = View {
                        start: [0, 1, 2, 3].map(|k| &lists[k].start[..]),
                        patterns: [0, 1, 2, 3].map(|k| &lists[k].patterns[..]),
                    };
                    halves(&q, &view, sides, rows, cols, &mut got);
                    let mut want = brute_halves(&q.geo, west, rows, &frame);
                    got.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(got, want, "n = {n}, {unit:?}, west = {west}");
                }
            }
        }
    }

    #[test]
    fn fitting_pairs_match_pairwise_tests() {
        // A small deterministic generator: patterns of several densities and lengths around
        // the 512-candidate blocks.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut tables = Vec::new();
        for (bits, t_len, q_len) in [(6, 1, 1), (30, 700, 90), (34, 512, 33), (62, 1025, 40)] {
            let mask = if bits == 64 { !0 } else { (1u64 << bits) - 1 };
            let t: Vec<u64> = (0..t_len)
                .map(|_| next() & next() & next() & mask)
                .collect();
            let q: Vec<u64> = (0..q_len).map(|_| next() & next() & mask).collect();
            let want: u64 = q
                .iter()
                .map(|a| t.iter().filter(|&&b| a & b == 0).count() as u64)
                .sum();
            assert_eq!(count_fitting(&t, &q, bits, &mut tables), want);
            // The portable build of the loop, whatever this processor has.
            let chunks = bits.div_ceil(CHUNK);
            let words = build_tables(&t, chunks, &mut tables);
            assert_eq!(query_any(chunks, &q, &tables, words, 0..words / 8), want);
            // Slabs add up to the whole.
            let half = words / 16;
            let split = query_any(chunks, &q, &tables, words, 0..half)
                + query_any(chunks, &q, &tables, words, half..words / 8);
            assert_eq!(split, want);
            // And every vector build this processor can run.
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx2") && has!("popcnt") {
                    let got = unsafe { x86::query_avx2(chunks, &q, &tables, words, 0..words / 8) };
                    assert_eq!(got, want, "avx2");
                }
                if has!("avx512f") && has!("avx512vpopcntdq") && has!("popcnt") {
                    let got =
                        unsafe { x86::query_avx512(chunks, &q, &tables, words, 0..words / 8) };
                    assert_eq!(got, want, "avx512");
                }
            }
        }
    }

    #[test]
    fn one_walk_and_two_walks_list_the_same() {
        for n in [6, 9, 12, 13] {
            let geo = Geometry::new(n);
            let index = QuadrantIndex::new(geo.h);
            for origin in [(0, 0), (geo.far, geo.far)] {
                let a = Quadrant::build_with(&geo, &index, origin, true);
                let b = Quadrant::build_with(&geo, &index, origin, false);
                assert_eq!(
                    (&a.start, &a.patterns, &a.diagonals),
                    (&b.start, &b.patterns, &b.diagonals)
                );
            }
        }
    }

    #[test]
    fn the_memory_table_holds_the_list_sizes() {
        for n in 2..=17 {
            let q = Quadrants::build(n);
            assert_eq!(q.placements() as u64, 4 * PLACEMENTS[q.geo.h], "n = {n}");
            assert_eq!(q.index.groups as u64, {
                let h = q.geo.h as u64;
                (0..h).fold(1u64, |c, i| c * (2 * h - i) / (i + 1))
            });
            assert!(memory_needed(n, 1) >= q.bytes() as u64);
            assert!(memory_needed(n, 4) > memory_needed(n, 1));
        }
    }

    #[test]
    fn the_bit_transpose_swaps_rows_and_columns() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut a = [0u64; 64];
        for v in a.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *v = x;
        }
        let before = a;
        transpose64(&mut a);
        for (b, row) in a.iter().enumerate() {
            for (e, pattern) in before.iter().enumerate() {
                assert_eq!(row >> e & 1, pattern >> b & 1, "bit {b} of pattern {e}");
            }
        }
    }

    #[test]
    fn middle_pairs_cover_every_placement_once() {
        for n in [5, 7, 9, 11] {
            let h = n / 2;
            let mut weighted = 0usize;
            for (m, w) in middles(n) {
                weighted += usize::from(w);
                let [a, b] = m.squares(n);
                assert!(
                    a == b || (a.0 != b.0 && a.1 != b.1 && a.0.abs_diff(b.0) != a.1.abs_diff(b.1))
                );
            }
            // All non-attacking pairs (m, k) off the centre, plus the centre.
            let pairs = (0..n)
                .filter(|&m| m != h)
                .flat_map(|m| (0..n).map(move |k| (m, k)))
                .filter(|&(m, k)| k != h && m.abs_diff(h) != k.abs_diff(h))
                .count();
            assert_eq!(weighted, pairs + 1, "n = {n}");
        }
    }

    #[test]
    fn row_set_weights_add_up_to_every_row_set() {
        for n in [4, 6, 8, 10] {
            let total: usize = units(n).iter().map(|&(_, w)| usize::from(w)).sum();
            let h = n / 2;
            let all = (0u32..1 << n)
                .filter(|s| s.count_ones() as usize == h)
                .count();
            assert_eq!(total, all, "n = {n}");
        }
    }

    #[test]
    fn units_add_up_to_the_known_totals() {
        for n in 1..=12 {
            let q = Quadrants::build(n);
            let total: u128 = units(n)
                .iter()
                .map(|(u, w)| u128::from(count_unit(&q, u).count) * u128::from(*w))
                .sum();
            assert_eq!(Some(total), crate::known::total(n), "n = {n}");
        }
    }
}
