//! The memory-bounded join: a unit's quadrant groups made on demand instead of listed once per
//! count.
//!
//! The quadrant lists grow about eightfold per two rows (some 18 GiB at n = 24, hundreds of
//! GiB at n = 28), but one row set only ever looks at one *partition* of each quadrant: the
//! placements on exactly the unit's rows of that quadrant (one row mask of the quadrant's
//! 2^h), grouped by the columns they fill. A small search makes those four partitions for
//! each row set, avoiding the middle queens' diagonals as it goes (odd n), and each thread
//! keeps its last partition of each quadrant, which the next row set often shares. Memory per
//! thread is then a few partitions and the unit's half-boards, whatever n, and the search
//! costs a few per cent of the matching (`results/join-log.md`, section 16).
//!
//! Each thread also keeps the partitions it made while they fit its share of the memory budget
//! ([`Cache`]): the units of one middle-queen pair (or neighbouring row sets) come one after
//! another and ask for the same partitions again.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use super::geometry::{Geometry, QuadrantIndex, prefix_sums};
use super::units::binomial;

/// The placements of one quadrant on exactly one row mask, grouped by columns.
#[derive(Debug, Default)]
pub(super) struct Partition {
    /// Group `base + i` (in [`QuadrantIndex`] numbering) is `patterns[start[i]..start[i + 1]]`.
    pub(super) base: u32,
    pub(super) start: Vec<u32>,
    pub(super) patterns: Vec<u64>,
}

/// One thread's partitions, the most recent first to stay, within a byte budget.
#[derive(Debug, Default)]
pub(super) struct Cache {
    kept: HashMap<Spec, Rc<Partition>>,
    /// Specs in the order they were made, oldest first.
    order: VecDeque<Spec>,
    bytes: usize,
    /// Placements as found by the last search: (rank of their columns, pattern).
    found: Vec<(u32, u64)>,
}

impl Cache {
    /// The partition `spec` asks for: kept from before, or made and kept if `budget` bytes
    /// allow (dropping the oldest partitions first).
    pub(super) fn get(
        &mut self,
        budget: usize,
        geo: &Geometry,
        index: &QuadrantIndex,
        spec: Spec,
    ) -> Rc<Partition> {
        debug_assert_eq!(spec.n, geo.n);
        if let Some(p) = self.kept.get(&spec) {
            return Rc::clone(p);
        }
        let made = Rc::new(Partition::make(geo, index, spec, &mut self.found));
        let size = made.bytes();
        if size <= budget {
            while self.bytes + size > budget {
                let Some(old) = self.order.pop_front() else {
                    break;
                };
                if let Some(p) = self.kept.remove(&old) {
                    self.bytes -= p.bytes();
                }
            }
            self.kept.insert(spec, Rc::clone(&made));
            self.order.push_back(spec);
            self.bytes += size;
        }
        made
    }

    /// The search buffer, to let go of where it has grown large.
    pub(super) fn search_buffer(&mut self) -> &mut Vec<(u32, u64)> {
        &mut self.found
    }
}

/// Everything a partition depends on: the placements of the quadrant at `origin` of an n×n
/// board with queens on exactly the quadrant-local `rows`, using only the quadrant-local
/// columns `cols` and no diagonal of `forbid` (the middle queens' diagonal masks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Spec {
    pub(super) n: usize,
    pub(super) origin: (usize, usize),
    pub(super) rows: u32,
    pub(super) cols: u32,
    pub(super) forbid: (u64, u64),
}

/// What one search looks at, in quadrant-local terms: the rows to fill, and per row the
/// columns the middle queens leave, and the pattern bits of each square.
struct Search<'a> {
    index: &'a QuadrantIndex,
    /// Quadrant-local rows that hold a queen, in order.
    rows: Vec<usize>,
    /// Per quadrant row: columns a queen may use (the allowed columns less the squares the
    /// middle queens attack).
    open: [u32; 32],
    /// Pattern bits of the square (row, column), at `row * h + column`.
    bits: Vec<u64>,
    h: usize,
}

impl<'a> Search<'a> {
    fn new(geo: &Geometry, index: &'a QuadrantIndex, spec: Spec) -> Search<'a> {
        let Spec {
            origin,
            rows,
            cols,
            forbid,
            ..
        } = spec;
        let h = geo.h;
        let mut open = [0u32; 32];
        let mut bits = vec![0u64; h * h];
        for r in 0..h {
            for c in 0..h {
                let (a, b) = geo.diagonals(origin.0 + r, origin.1 + c);
                bits[r * h + c] = geo.pattern(a, b);
                if cols >> c & 1 == 1 && forbid.0 & a == 0 && forbid.1 & b == 0 {
                    open[r] |= 1 << c;
                }
            }
        }
        Search {
            index,
            rows: (0..h).filter(|r| rows >> r & 1 == 1).collect(),
            open,
            bits,
            h,
        }
    }

    /// Places a queen on `rows[i]` and the rows after it and records each full placement:
    /// `used` are the columns taken, `down` and `up` the columns the queens placed attack
    /// along the two diagonals in row `at` (the row of the last queen, or 0), as in the
    /// classic bitmask search, shifted over the rows skipped.
    fn go(
        &self,
        i: usize,
        at: usize,
        used: u32,
        (down, up): (u64, u64),
        pattern: u64,
        out: &mut Vec<(u32, u64)>,
    ) {
        let Some(&r) = self.rows.get(i) else {
            out.push((self.index.rank(used), pattern));
            return;
        };
        let gap = r - at;
        let (down, up) = (down << gap, up >> gap);
        let mut free = self.open[r] & !used & !((down | up) as u32);
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            let q = 1u64 << c;
            self.go(
                i + 1,
                r,
                used | q as u32,
                (down | q, up | q),
                pattern | self.bits[r * self.h + c],
                out,
            );
        }
    }
}

impl Partition {
    /// Makes the placements `spec` asks for; `found` is a buffer.
    pub(super) fn make(
        geo: &Geometry,
        index: &QuadrantIndex,
        spec: Spec,
        found: &mut Vec<(u32, u64)>,
    ) -> Partition {
        found.clear();
        let search = Search::new(geo, index, spec);
        let first = search.rows.first().copied().unwrap_or(0);
        search.go(0, first, 0, (0, 0), 0, found);
        let groups = binomial(geo.h as u64, search.rows.len() as u64) as usize;
        let mut start = vec![0u32; groups + 1];
        for &(g, _) in found.iter() {
            start[g as usize + 1] += 1;
        }
        prefix_sums(&mut start);
        let mut patterns = vec![0u64; found.len()];
        let mut next = start[..groups].to_vec();
        for &(g, p) in found.iter() {
            let at = &mut next[g as usize];
            patterns[*at as usize] = p;
            *at += 1;
        }
        // The buffer of a partition of n = 28 can hold hundreds of MiB: not kept past a
        // megabyte or so.
        found.clear();
        found.shrink_to(1 << 16);
        Partition {
            base: index.base(spec.rows),
            start,
            patterns,
        }
    }

    /// Bytes the partition holds.
    pub(super) fn bytes(&self) -> usize {
        self.start.capacity() * 4 + self.patterns.capacity() * 8 + 64
    }
}

#[cfg(test)]
mod tests {
    use super::super::quadrant::Quadrants;
    use super::*;

    #[test]
    fn partitions_hold_the_lists_groups() {
        for n in [4, 5, 8, 9, 10, 11, 12] {
            let q = Quadrants::build(n);
            let geo = q.geo;
            let all = (1u32 << geo.h) - 1;
            let mut found = Vec::new();
            for (k, origin) in [(0, 0), (0, geo.far), (geo.far, 0), (geo.far, geo.far)]
                .into_iter()
                .enumerate()
            {
                if n % 2 == 0 && k > 0 {
                    // Even boards keep the north-west list alone.
                    break;
                }
                for rows in 0..=all {
                    let spec = Spec {
                        n,
                        origin,
                        rows,
                        cols: all,
                        forbid: (0, 0),
                    };
                    let part = Partition::make(&geo, &q.index, spec, &mut found);
                    for cols in (0..=all).filter(|c| c.count_ones() == rows.count_ones()) {
                        let g = q.index.group(rows, cols) - part.base as usize;
                        let mut got = part.patterns
                            [part.start[g] as usize..part.start[g + 1] as usize]
                            .to_vec();
                        let mut want = q.listed(k, rows, cols).to_vec();
                        got.sort_unstable();
                        want.sort_unstable();
                        assert_eq!(got, want, "n = {n}, quadrant {k}, {rows:b} {cols:b}");
                    }
                }
            }
        }
    }
}
