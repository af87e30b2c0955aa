//! The quadrant lists: every partial placement of each h×h quadrant, listed once per count and
//! grouped by the rows and columns it fills, from which every unit's half-boards are made. Even
//! n keeps the north-west list only (the other three quadrants are its images under the
//! mirror, the flip and the half turn, made group by group as the half-boards need them); odd
//! n keeps all four, and the lists filtered by the middle queens, shared by the threads per
//! middle-queen pair.

use std::sync::{Arc, Mutex};

use super::geometry::{Geometry, QuadrantIndex, prefix_sums, reversed};
use super::partition::Partition;

use super::units::Middle;

/// Every non-attacking partial placement of one h×h quadrant (at most one queen per row and per
/// column), grouped by the rows and columns it fills.
#[derive(Clone, Debug)]
pub(super) struct Quadrant {
    /// First board row and column of the quadrant.
    origin: (usize, usize),
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
pub(super) const SMALL_QUADRANT: usize = 9;

/// A state of the walk over a quadrant's rows.
#[derive(Clone, Copy, Debug, Default)]
struct State {
    /// The next row of the quadrant to fill or leave empty.
    row: usize,
    /// Rows holding a queen, one bit each.
    rows: u32,
    /// Columns holding a queen, one bit each.
    cols: u32,
    /// The board's diagonal masks of the queens placed ([`Geometry::diagonals`]).
    d1: u64,
    d2: u64,
}

impl State {
    /// The state after the next row is left empty.
    fn skip(self) -> State {
        State {
            row: self.row + 1,
            ..self
        }
    }

    /// The state after a queen in column `c` of the next row, with diagonal masks `(a, b)`.
    fn place(self, c: usize, (a, b): (u64, u64)) -> State {
        State {
            row: self.row + 1,
            rows: self.rows | 1 << self.row,
            cols: self.cols | 1 << c,
            d1: self.d1 | a,
            d2: self.d2 | b,
        }
    }
}

/// Calls `visit(group, d1, d2)` for every placement of the quadrant at `origin` that extends
/// `root` (all of them from `State::default()`): a depth-first walk over its rows, each empty or
/// holding one queen.
fn walk(
    geo: &Geometry,
    index: &QuadrantIndex,
    origin: (usize, usize),
    root: State,
    mut visit: impl FnMut(usize, u64, u64),
) {
    let mut stack = vec![root];
    while let Some(state) = stack.pop() {
        if state.row == geo.h {
            visit(index.group(state.rows, state.cols), state.d1, state.d2);
            continue;
        }
        stack.push(state.skip());
        for c in 0..geo.h {
            if state.cols >> c & 1 == 1 {
                continue;
            }
            let (a, b) = geo.diagonals(origin.0 + state.row, origin.1 + c);
            if state.d1 & a != 0 || state.d2 & b != 0 {
                continue;
            }
            stack.push(state.place(c, (a, b)));
        }
    }
}

/// The walk's states after the quadrant's first row (empty, or one queen on each column): the
/// roots of walks that list disjoint parts of the quadrant, together all of it.
fn first_rows(geo: &Geometry, origin: (usize, usize)) -> Vec<State> {
    let root = State::default();
    if geo.h == 0 {
        return vec![root];
    }
    let mut out = vec![root.skip()];
    for c in 0..geo.h {
        out.push(root.place(c, geo.diagonals(origin.0, origin.1 + c)));
    }
    out
}

/// A slice written from several threads at indices that never coincide.
struct Slots {
    ptr: *mut u64,
    len: usize,
}

// SAFETY: `Slots` only writes, through `put`, to indices the callers keep disjoint between
// threads (each walk owns its own slots), and the slice outlives the threads' scope.
unsafe impl Sync for Slots {}

impl Slots {
    /// Writes `value` at `at`; no other thread may write or read `at` meanwhile.
    fn put(&self, at: usize, value: u64) {
        assert!(at < self.len);
        // SAFETY: `at` is inside the slice (checked); only this walk writes `at` (each walk
        // has its own slots in every group) and nobody reads the slice until every walk ended.
        unsafe { self.ptr.add(at).write(value) }
    }
}

impl Quadrant {
    /// Lists the placements of the quadrant at `origin` of `geo`'s board, in one walk where
    /// `one_walk` says so (small lists), else in two.
    fn build_with(
        geo: &Geometry,
        index: &QuadrantIndex,
        origin: (usize, usize),
        one_walk: bool,
    ) -> Quadrant {
        let (keep, root) = (geo.n % 2 == 1, State::default());
        let mut start = vec![0u32; index.groups + 1];
        // Small lists: one walk, the placements kept in a temporary list (24 bytes each).
        // Large ones: one walk to count the groups, a second to fill them in place.
        let items = one_walk.then(|| {
            let mut items: Vec<(u32, u64, u64)> = Vec::new();
            walk(geo, index, origin, root, |g, d1, d2| {
                items.push((g as u32, d1, d2))
            });
            items
        });
        match &items {
            Some(items) => items.iter().for_each(|&(g, ..)| start[g as usize + 1] += 1),
            None => walk(geo, index, origin, root, |g, _, _| start[g + 1] += 1),
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
            None => walk(geo, index, origin, root, place),
        }
        Quadrant {
            origin,
            start,
            patterns,
            diagonals,
        }
    }

    /// Even n: the list of patterns alone, walked from each of the first row's choices
    /// ([`first_rows`]), on the current worker pool if called inside one. A counting pass gives
    /// each of these walks its own run of slots in every group, a second pass fills them in
    /// place (no temporary copy).
    fn build_split(geo: &Geometry, index: &QuadrantIndex, origin: (usize, usize)) -> Quadrant {
        use rayon::prelude::*;
        let roots = first_rows(geo, origin);
        let in_pool = rayon::current_thread_index().is_some();
        let count = |root: &State| {
            let mut c = vec![0u32; index.groups];
            walk(geo, index, origin, *root, |g, _, _| c[g] += 1);
            c
        };
        let mut slots: Vec<Vec<u32>> = if in_pool {
            roots.par_iter().map(count).collect()
        } else {
            roots.iter().map(count).collect()
        };
        // Each group holds the placements of the first walk, then of the second, and so on.
        let mut start = vec![0u32; index.groups + 1];
        let mut next = 0u32;
        for (g, s) in start.iter_mut().enumerate().take(index.groups) {
            *s = next;
            for walk_slots in &mut slots {
                let k = walk_slots[g];
                walk_slots[g] = next;
                next += k;
            }
        }
        start[index.groups] = next;
        let mut patterns = vec![0u64; next as usize];
        let out = Slots {
            ptr: patterns.as_mut_ptr(),
            len: patterns.len(),
        };
        let fill = |(root, mut at): (&State, Vec<u32>)| {
            walk(geo, index, origin, *root, |g, d1, d2| {
                out.put(at[g] as usize, geo.pattern(d1, d2));
                at[g] += 1;
            });
        };
        if in_pool {
            roots.par_iter().zip(slots).for_each(fill);
        } else {
            roots.iter().zip(slots).for_each(fill);
        }
        Quadrant {
            origin,
            start,
            patterns,
            diagonals: Vec::new(),
        }
    }

    /// The list of the quadrant east of this west one, as its left-right mirror image: the
    /// group keys' column masks are reversed, the two pattern fields (and the diagonal masks)
    /// trade places, and each group is reversed, which gives exactly the order a walk of the
    /// east quadrant itself would (it prefers the other end of the columns). That order decides
    /// how the matching loop reuses table rows (`results/join-log.md`, section 11).
    fn mirrored(&self, geo: &Geometry, index: &QuadrantIndex) -> Quadrant {
        let h = geo.h;
        let side = |m: u32| reversed(m, h);
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
    fn len(&self) -> usize {
        self.patterns.len()
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

/// One quadrant's patterns by group, after a pair of middle queens has filtered them.
#[derive(Clone, Debug, Default)]
pub(super) struct Lists {
    start: Vec<u32>,
    patterns: Vec<u64>,
}

/// Patterns of the four quadrants as one unit sees them.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    start: [&'a [u32]; 4],
    patterns: [&'a [u64]; 4],
    /// The first group each `start` describes: 0 for whole lists, a row mask's first group
    /// for partitions.
    base: [u32; 4],
}

impl View<'_> {
    /// The four filtered lists of one middle-queen pair.
    pub(super) fn of(lists: &[Lists; 4]) -> View<'_> {
        View {
            start: [0, 1, 2, 3].map(|k| &lists[k].start[..]),
            patterns: [0, 1, 2, 3].map(|k| &lists[k].patterns[..]),
            base: [0; 4],
        }
    }

    /// The four partitions of one row set (memory-bounded join): only their row masks may be
    /// asked for.
    pub(super) fn parts<'a>(parts: [&'a Partition; 4]) -> View<'a> {
        View {
            start: [0, 1, 2, 3].map(|k| &parts[k].start[..]),
            patterns: [0, 1, 2, 3].map(|k| &parts[k].patterns[..]),
            base: [0, 1, 2, 3].map(|k| parts[k].base),
        }
    }

    /// Patterns of quadrant `k`'s group of `rows` and `cols` (quadrant-local masks).
    #[inline(always)]
    pub(super) fn group(&self, index: &QuadrantIndex, k: usize, rows: u32, cols: u32) -> &[u64] {
        let g = index.group(rows, cols) - self.base[k] as usize;
        &self.patterns[k][self.start[k][g] as usize..self.start[k][g + 1] as usize]
    }
}

/// The four quadrants of a board, built once per count and shared by all threads.
pub struct Quadrants {
    /// Where the lines fall.
    pub geo: Geometry,
    pub(super) index: QuadrantIndex,
    /// North-west, north-east, south-west, south-east for odd n; the north-west one alone for
    /// even n.
    quads: Vec<Quadrant>,
    /// Odd n: the lists filtered by the most recent middle-queen pairs, shared by the threads
    /// (they work on the units of one or two pairs at a time).
    by_middle: Mutex<Vec<(Middle, Arc<[Lists; 4]>)>>,
    /// Memory-bounded layout: the bytes of partitions each thread may keep.
    pub(super) cache: usize,
    /// Even n: whether the units are counted with the quarter turns ([`super::quarter`]).
    pub(super) quarter_turns: bool,
}

/// Filtered lists kept for the middle-queen pairs most recently asked for.
pub(super) const MIDDLES_KEPT: usize = 2;

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
        let base = Quadrants::bounded(n, 0);
        let (geo, index) = (&base.geo, &base.index);
        if n.is_multiple_of(2) {
            // The other three quadrants are images of this one ([`Quadrants::north_west`]).
            let quads = vec![Quadrant::build_split(geo, index, (0, 0))];
            return Quadrants { quads, ..base };
        }
        // The two west lists are walked, the east ones are their mirror images. Inside a
        // worker pool (the runner builds the lists before the units start) the two sides are
        // made in parallel on that pool; elsewhere one after another.
        let side = |row: usize| {
            let west = Quadrant::build_with(geo, index, (row, 0), geo.h <= SMALL_QUADRANT);
            let east = west.mirrored(geo, index);
            (west, east)
        };
        let ((nw, ne), (sw, se)) = if rayon::current_thread_index().is_some() {
            rayon::join(|| side(0), || side(geo.far))
        } else {
            (side(0), side(geo.far))
        };
        let quads = vec![nw, ne, sw, se];
        Quadrants { quads, ..base }
    }

    /// The memory-bounded layout: no list at all; each unit makes its own partitions
    /// (the `partition` module), and each thread keeps up to `cache` bytes of them.
    pub fn bounded(n: usize, cache: usize) -> Quadrants {
        let geo = Geometry::new(n);
        Quadrants {
            geo,
            index: QuadrantIndex::new(geo.h),
            quads: Vec::new(),
            by_middle: Mutex::new(Vec::new()),
            cache,
            quarter_turns: false,
        }
    }

    /// The memory-bounded layout ([`Quadrants::bounded`]) counting the units of an even board
    /// with the quarter turns where `quarter_turns` says so (`join/quarter.rs`): each unit's
    /// count then weighs its solutions by 0, 1 or 2, and the units, weighted as before, add up
    /// to the board's total with about half the candidate pairs. Odd boards are counted as
    /// ever.
    pub fn bounded_turning(n: usize, cache: usize, quarter_turns: bool) -> Quadrants {
        Quadrants {
            quarter_turns: quarter_turns && n.is_multiple_of(2),
            ..Quadrants::bounded(n, cache)
        }
    }

    /// Whether this is the memory-bounded layout (no lists).
    pub fn is_bounded(&self) -> bool {
        self.quads.is_empty()
    }

    /// The patterns of quadrant `k`'s listed group of `rows` and `cols` (quadrant-local masks).
    pub(super) fn listed(&self, k: usize, rows: u32, cols: u32) -> &[u64] {
        let q = &self.quads[k];
        let g = self.index.group(rows, cols);
        &q.patterns[q.start[g] as usize..q.start[g + 1] as usize]
    }

    /// The lists no middle queen of `m` attacks: filtered by the first thread that asks, then
    /// shared.
    pub(super) fn filtered(&self, m: Middle) -> Arc<[Lists; 4]> {
        let lock = || self.by_middle.lock().unwrap_or_else(|e| e.into_inner());
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
        if kept.len() >= MIDDLES_KEPT {
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
            + self.index.bytes()
    }

    /// Placements in all four quadrants (for even n, the north-west list's four times).
    pub fn placements(&self) -> usize {
        self.quads.iter().map(Quadrant::len).sum::<usize>() * 4 / self.quads.len().max(1)
    }

    /// Even n: the north-west list's group ([`Quadrants::listed`]).
    #[inline]
    pub(super) fn north_west(&self, rows: u32, cols: u32) -> &[u64] {
        self.listed(0, rows, cols)
    }
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

    #[test]
    fn one_walk_two_walks_and_split_walks_list_the_same() {
        for n in [2, 4, 6, 9, 10, 12, 13] {
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
            if n % 2 == 1 {
                continue;
            }
            // Even n: the split walks fill the same groups, each in an order of its own.
            let a = Quadrant::build_with(&geo, &index, (0, 0), false);
            let b = Quadrant::build_split(&geo, &index, (0, 0));
            assert_eq!(a.start, b.start, "n = {n}");
            for g in 0..index.groups {
                let range = a.start[g] as usize..a.start[g + 1] as usize;
                let mut x = a.patterns[range.clone()].to_vec();
                let mut y = b.patterns[range].to_vec();
                x.sort_unstable();
                y.sort_unstable();
                assert_eq!(x, y, "n = {n}, group {g}");
            }
        }
    }
}
