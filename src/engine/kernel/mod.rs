//! The hot loop: an iterative bit-parallel backtrack that counts the completions of one
//! subproblem.
//!
//! Every algorithm in the crate reduces its work to the same shape: a [`Frame`] lists the rows
//! that are still empty, top to bottom, each with the columns that fixed queens (border queens,
//! for the full-symmetry plan) already attack in it, and a [`Start`] says what the rows placed by
//! the plan left behind. The kernel fills the remaining rows one queen at a time with the
//! classic bitmask method (Richards 1997; Somers 2002): free squares are
//! `mask & !(cols | diag | anti | fixed)`, the lowest free bit is taken with
//! `free & free.wrapping_neg()`, and going one row down shifts the two diagonal masks by one bit
//! (by `k` bits when the next empty row is `k` rows further, so rows that already hold a queen
//! cost nothing).
//!
//! Frames where as many columns are free as levels are empty (every frame the plans make) run
//! a loop without data-dependent branches on the squares: the next level is the highest bit
//! of a mask of levels with squares left, and independent searches of the subproblem take
//! turns to overlap their latency. The bottom levels are not searched: on x86-64 with `bmi2`
//! a child five levels above the bottom is queued and the queue is counted in batches from
//! tables of the 120 ways to put the five columns left on the five levels (`Block5`; four
//! levels and 24 ways, `Block`, when the start is closer to the bottom or the last five levels
//! span more than seven board rows); elsewhere the last two levels are counted from the two
//! columns left. Other frames use a
//! plain backtrack that counts the last level by popcount. There is no I/O and no threading
//! here; the block tables are built once per process.

use super::Found;
use crate::board::MAX_N;

/// The empty rows of a subproblem family, as the kernel sees them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// One bit per column of the board.
    pub mask: u64,
    /// How many empty rows the search fills (levels `0..depth`).
    pub depth: usize,
    /// Columns of each level attacked by queens that were fixed before the search (any
    /// direction, any distance). Zero for the plain search.
    pub fixed: [u64; MAX_N],
    /// Board rows between level `l` and level `l + 1` (1 when they are adjacent); the diagonal
    /// masks are shifted by this much when the search goes down.
    pub step: [u32; MAX_N],
}

impl Frame {
    /// A frame of `depth` adjacent rows with nothing fixed, on an `n`-wide board.
    pub fn open(n: usize, depth: usize) -> Frame {
        Frame {
            mask: crate::board::full_mask(n),
            depth,
            fixed: [0; MAX_N],
            step: [1; MAX_N],
        }
    }

    /// The state after placing a queen on column bit `b` at level `level` of state `s`.
    #[inline]
    pub fn descend(&self, s: &Start, b: u64) -> Start {
        let k = self.step[s.level];
        Start {
            level: s.level + 1,
            cols: s.cols | b,
            diag: (s.diag | b) << k,
            anti: (s.anti | b) >> k,
        }
    }

    /// The free squares of the level that `s` is about to fill.
    #[inline]
    pub fn free(&self, s: &Start) -> u64 {
        self.mask & !(s.cols | s.diag | s.anti | self.fixed[s.level])
    }
}

/// The search state at the top of a level: what the rows above have attacked there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Start {
    /// The next level to fill.
    pub level: usize,
    /// Columns already taken.
    pub cols: u64,
    /// Squares of this level attacked along the down-right diagonals (shifted left each row).
    pub diag: u64,
    /// Squares of this level attacked along the down-left diagonals (shifted right each row).
    pub anti: u64,
}

/// Counts the ways to complete `start` within `frame`.
///
/// When the frame is tight (as many free columns as empty levels, as in every frame the plans
/// make), the branch-free loop of `complete_tight` runs; otherwise a plain backtrack.
pub fn complete(frame: &Frame, start: &Start) -> Found {
    let depth = frame.depth;
    if start.level >= depth {
        return Found { count: 1, nodes: 0 };
    }
    let spare = (frame.mask & !start.cols).count_ones() as usize;
    if spare == depth - start.level {
        complete_tight(frame, start)
    } else {
        complete_loose(frame, start)
    }
}

/// Stack slots; a level index is always below 32, its child below 33.
const SLOTS: usize = 64;

/// The ways to fill the last two levels, given the state `(c, d, a)` at the top of level
/// `last - 1`, whose free squares are `f1`; exactly two columns are free (`mask & !c`).
///
/// One queen goes in each remaining column, so there are two candidate fillings; each is
/// possible when both of its squares are free and the two queens are not on one diagonal.
#[inline(always)]
fn last_two(mask: u64, c: u64, d: u64, a: u64, f1: u64, k: u32, fixed_last: u64) -> u64 {
    let f2 = mask & !(c | (d << k) | (a >> k) | fixed_last);
    let rem = mask & !c;
    let u = rem & rem.wrapping_neg();
    let v = rem ^ u;
    let apart = (((u << k) | (u >> k)) & v) == 0;
    let down = (f1 & u != 0) & (f2 & v != 0);
    let up = (f1 & v != 0) & (f2 & u != 0);
    (u64::from(down) + u64::from(up)) * u64::from(apart)
}

/// What the lane loop does with a child at the shape's bulk level instead of entering it:
/// count the ways to fill that level and every level below it.
trait Bottom {
    /// Whether children at the bulk level are queued and counted in batches (no branch in the
    /// turn) rather than counted at once behind a branch.
    const QUEUED: bool = false;
    /// The completions of a child with state `(c, d, a)` and free squares `nf` at the bulk
    /// level.
    fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64;
}

/// The bulk count of the last two levels ([`last_two`]); the bulk level is `last - 1`.
struct LastTwo {
    k_pen: u32,
    fixed_last: u64,
}

impl Bottom for LastTwo {
    #[inline(always)]
    fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64 {
        last_two(mask, c, d, a, nf, self.k_pen, self.fixed_last)
    }
}

/// The bulk count of a deeper bottom block, made of `pext` (x86-64 with bmi2 only).
#[cfg(target_arch = "x86_64")]
mod block {
    use super::{Bottom, Frame, has_bit_extensions};
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};

    /// Entries of each half of a free-pattern table: the patterns of two levels, at most 8 bits.
    const FREE_ENTRIES: usize = 1 << 8;
    /// Entries of a clash table: `H - 1` gaps of at most 5 bits each, at most 15 bits.
    const CLASH_ENTRIES: usize = 1 << 15;

    /// The permutations of `0..h` in lexicographic order: `perms(h)[p][j]` is the rank (among the
    /// block's free columns, lowest first) of the column that permutation `p` puts at level `j`.
    fn perms(h: usize) -> Vec<Vec<usize>> {
        if h == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for first in 0..h {
            for rest in perms(h - 1) {
                let mut p = vec![first];
                p.extend(rest.into_iter().map(|r| if r >= first { r + 1 } else { r }));
                out.push(p);
            }
        }
        out
    }

    /// The free-pattern tables of an `h`-level block, one for levels 0 and 1 and one for the
    /// levels from 2 down: entry `i` of half `k` has bit `p` set when permutation `p` finds its
    /// squares on those levels free, where bit `h * j + r` of `i` says that the column of rank `r`
    /// is free at level `2 * k + j`. Built once per `h`.
    fn free_table(h: usize) -> &'static [[u32; FREE_ENTRIES]; 2] {
        static TABLES: [OnceLock<[[u32; FREE_ENTRIES]; 2]>; 2] = [OnceLock::new(), OnceLock::new()];
        TABLES[h - 3].get_or_init(|| {
            let ps = perms(h);
            let mut t = [[0u32; FREE_ENTRIES]; 2];
            for (k, half) in t.iter_mut().enumerate() {
                let levels = (2 * k..h).take(2).count();
                for (i, e) in half.iter_mut().enumerate().take(1 << (h * levels)) {
                    for (p, perm) in ps.iter().enumerate() {
                        let fits = (0..levels).all(|j| i >> (h * j + perm[2 * k + j]) & 1 == 1);
                        if fits {
                            *e |= 1 << p;
                        }
                    }
                }
            }
            t
        })
    }

    /// The clash table of an `h`-level block whose level `j` lies `rows[j]` board rows below its
    /// first level: entry `g` has bit `p` set when permutation `p` puts no two queens of the block
    /// on one diagonal, where field `i` (`width` bits) of `g` is the gap between the free columns
    /// of ranks `i` and `i + 1`, less one, capped at `cap - 1` (`cap = rows[h - 1] + 1`: a pair
    /// of columns spanning a capped gap is further apart than any two levels of the block).
    /// Built once per row pattern.
    fn clash_table(rows: &[u32]) -> &'static [u32; CLASH_ENTRIES] {
        type Cache = Mutex<HashMap<Vec<u32>, &'static [u32; CLASH_ENTRIES]>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(rows.to_vec()).or_insert_with(|| {
            let h = rows.len();
            let cap = rows[h - 1] + 1;
            let width = gap_width(cap);
            let ps = perms(h);
            let mut t = Box::new([0u32; CLASH_ENTRIES]);
            for (g, e) in t
                .iter_mut()
                .enumerate()
                .take(1 << (width as usize * (h - 1)))
            {
                let mut col = vec![0u32; h];
                let mut valid = true;
                for i in 1..h {
                    let gap = (g >> (width as usize * (i - 1)) & ((1 << width) - 1)) as u32 + 1;
                    valid &= gap <= cap;
                    col[i] = col[i - 1] + gap;
                }
                if !valid {
                    continue;
                }
                for (p, perm) in ps.iter().enumerate() {
                    let clash = (0..h).any(|i| {
                        (i + 1..h).any(|j| col[perm[i]].abs_diff(col[perm[j]]) == rows[j] - rows[i])
                    });
                    if !clash {
                        *e |= 1 << p;
                    }
                }
            }
            Box::leak(t)
        })
    }

    /// Bits of one gap field in a clash-table index: enough for `0..cap`.
    fn gap_width(cap: u32) -> u32 {
        32 - (cap - 1).max(1).leading_zeros()
    }

    /// The bulk count of the last `H` levels (3 or 4) of a tight frame: the `H` free columns go
    /// one to a level, so the completions are the permutations of them whose squares are all free
    /// (the free squares of each level, compressed by `pext` to one bit per free column, index
    /// [`free_table`]) and that put no two queens on one diagonal (which depends only on the gaps
    /// between the free columns, [`clash_table`]). The bulk level is `last + 1 - H`.
    ///
    /// A `Block` exists only on processors with `bmi1` and `bmi2` (see [`Block::new`]).
    pub(super) struct Block<const H: usize> {
        /// Board rows from the bulk level down to level `at + j`.
        rows: [u32; H],
        /// [`Shape::block`](super::Shape) of level `at + j`.
        block: [u64; H],
        /// The clash-table gap cap and field width.
        cap: u32,
        width: u32,
        free: &'static [[u32; FREE_ENTRIES]; 2],
        clash: &'static [u32; CLASH_ENTRIES],
    }

    impl<const H: usize> Block<H> {
        /// The block of the last `H` levels of `frame` (depth above `H`), or `None` when the
        /// processor lacks the extensions the count is made of.
        pub(super) fn new(frame: &Frame) -> Option<Block<H>> {
            if !has_bit_extensions() {
                return None;
            }
            let at = frame.depth - H;
            let mut rows = [0u32; H];
            let mut block = [0u64; H];
            for j in 0..H {
                if j > 0 {
                    rows[j] = rows[j - 1] + frame.step[at + j - 1];
                }
                block[j] = frame.fixed[at + j] | !frame.mask;
            }
            let cap = rows[H - 1] + 1;
            let width = gap_width(cap);
            if width as usize * (H - 1) > 15 || rows[H - 1] >= 64 {
                return None;
            }
            Some(Block {
                rows,
                block,
                cap,
                width,
                free: free_table(H),
                clash: clash_table(&rows),
            })
        }
    }

    impl<const H: usize> Bottom for Block<H> {
        const QUEUED: bool = true;
        #[inline(always)]
        fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64 {
            use std::arch::x86_64::_pext_u64;
            let rem = mask & !c;
            // SAFETY (all three `_pext_u64` calls): a `Block` is only made when the processor has
            // bmi2 (`Block::new`).
            let mut idx = [unsafe { _pext_u64(nf, rem) }, 0];
            for j in 1..H {
                let s = self.rows[j];
                let f = !(c | (d << s) | (a >> s) | self.block[j]);
                idx[j / 2] |= unsafe { _pext_u64(f, rem) } << (H * (j % 2));
            }
            let mut r = rem;
            let mut prev = r.trailing_zeros();
            let mut g = 0u32;
            for i in 0..H - 1 {
                r &= r - 1;
                let t = r.trailing_zeros();
                g |= ((t - prev).min(self.cap) - 1) << (self.width * i as u32);
                prev = t;
            }
            let ok = self.free[0][idx[0] as usize & (FREE_ENTRIES - 1)]
                & self.free[1][idx[1] as usize & (FREE_ENTRIES - 1)]
                & self.clash[g as usize & (CLASH_ENTRIES - 1)];
            u64::from(ok.count_ones())
        }
    }

    /// Entries of a five-level clash table: four gaps below a cap of at most 8.
    const CLASH5_ENTRIES: usize = 1 << 12;

    /// The free-pattern tables of the five-level block, one per level: entry `i` of table `j`
    /// has bit `p` set when the column of rank `perms(5)[p][j]` is free at level `j`, where bit
    /// `r` of `i` says that the column of rank `r` is free there. Built once.
    fn free_table5() -> &'static [[u128; 32]; 5] {
        static TABLE: OnceLock<[[u128; 32]; 5]> = OnceLock::new();
        TABLE.get_or_init(|| {
            let ps = perms(5);
            let mut t = [[0u128; 32]; 5];
            for (j, level) in t.iter_mut().enumerate() {
                for (i, e) in level.iter_mut().enumerate() {
                    for (p, perm) in ps.iter().enumerate() {
                        if i >> perm[j] & 1 == 1 {
                            *e |= 1 << p;
                        }
                    }
                }
            }
            t
        })
    }

    /// The clash table of the five-level block whose level `j` lies `rows[j]` board rows below
    /// its first level: entry `((g0 * cap + g1) * cap + g2) * cap + g3` has bit `p` set when
    /// permutation `p` puts no two queens of the block on one diagonal, where `g_i + 1` is the
    /// gap between the free columns of ranks `i` and `i + 1`, capped at `cap = rows[4] + 1`
    /// (at most 8). Built once per row pattern.
    fn clash_table5(rows: &[u32; 5]) -> &'static [u128; CLASH5_ENTRIES] {
        type Cache = Mutex<HashMap<[u32; 5], &'static [u128; CLASH5_ENTRIES]>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(*rows).or_insert_with(|| {
            let cap = rows[4] + 1;
            let ps = perms(5);
            let mut t = Box::new([0u128; CLASH5_ENTRIES]);
            let entries = (cap as usize).pow(4);
            for (g, e) in t.iter_mut().enumerate().take(entries) {
                let mut col = [0u32; 5];
                let mut rest = g as u32;
                for i in (1..5).rev() {
                    col[i] = rest % cap + 1;
                    rest /= cap;
                }
                for i in 1..5 {
                    col[i] += col[i - 1];
                }
                for (p, perm) in ps.iter().enumerate() {
                    let clash = (0..5).any(|i| {
                        (i + 1..5).any(|j| col[perm[i]].abs_diff(col[perm[j]]) == rows[j] - rows[i])
                    });
                    if !clash {
                        *e |= 1 << p;
                    }
                }
            }
            Box::leak(t)
        })
    }

    /// The bulk count of the last five levels of a tight frame, as [`Block`] with 120
    /// permutations: one free-pattern table per level ([`free_table5`]) and a clash table
    /// indexed by the capped gaps in mixed radix ([`clash_table5`]). The bulk level is
    /// `last - 4`. With `ADJ` the five levels are adjacent board rows, and the row offsets
    /// and the gap cap are constants of the compiled count. Exists only on processors with
    /// `bmi1` and `bmi2`.
    pub(super) struct Block5<const ADJ: bool> {
        rows: [u32; 5],
        block: [u64; 5],
        cap: u32,
        free: &'static [[u128; 32]; 5],
        clash: &'static [u128; CLASH5_ENTRIES],
    }

    impl<const ADJ: bool> Block5<ADJ> {
        /// The block of the last five levels of `frame` (depth above 5), or `None` when the
        /// processor lacks the extensions, the block spans more than seven board rows, or
        /// (with `ADJ`) its rows are not adjacent.
        pub(super) fn new(frame: &Frame) -> Option<Block5<ADJ>> {
            if !has_bit_extensions() {
                return None;
            }
            let at = frame.depth - 5;
            let mut rows = [0u32; 5];
            let mut block = [0u64; 5];
            for j in 0..5 {
                if j > 0 {
                    rows[j] = rows[j - 1] + frame.step[at + j - 1];
                }
                block[j] = frame.fixed[at + j] | !frame.mask;
            }
            let cap = rows[4] + 1;
            // Only adjacent rows (cap 5): a table for skipped rows (cap up to 8, 4096 entries)
            // takes milliseconds to build, one per row pattern, which showed as +10 ms at
            // n = 14 and gained nothing measurable at n = 16; such frames use four levels.
            // The counts therefore run the `ADJ` form; the general form (offsets read from
            // `rows`) is kept as the tests' reference for it.
            if cap > 5 || (ADJ && rows != [0, 1, 2, 3, 4]) {
                return None;
            }
            Some(Block5 {
                rows,
                block,
                cap,
                free: free_table5(),
                clash: clash_table5(&rows),
            })
        }
    }

    impl<const ADJ: bool> Bottom for Block5<ADJ> {
        const QUEUED: bool = true;
        #[inline(always)]
        fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64 {
            use std::arch::x86_64::_pext_u64;
            let rem = mask & !c;
            // SAFETY (both `_pext_u64` calls): a `Block5` is only made when the processor has
            // bmi2 (`Block5::new`).
            let mut ok = self.free[0][unsafe { _pext_u64(nf, rem) } as usize & 31];
            for j in 1..5 {
                let s = if ADJ { j as u32 } else { self.rows[j] };
                let f = !(c | (d << s) | (a >> s) | self.block[j]);
                ok &= self.free[j][unsafe { _pext_u64(f, rem) } as usize & 31];
            }
            let cap = if ADJ { 5 } else { self.cap };
            let mut r = rem;
            let mut prev = r.trailing_zeros();
            let mut g = 0u32;
            for _ in 0..4 {
                r &= r - 1;
                let t = r.trailing_zeros();
                g = g * cap + (t - prev).min(cap) - 1;
                prev = t;
            }
            ok &= self.clash[g as usize & (CLASH5_ENTRIES - 1)];
            u64::from(ok.count_ones())
        }
    }
}

#[cfg(target_arch = "x86_64")]
use block::{Block, Block5};

/// What every search of one frame shares: the frame's per-level tables, widened to
/// [`SLOTS`] entries so that masked level indices need no bounds checks, and the bulk count
/// of the levels from `at` down.
struct Shape<B> {
    mask: u64,
    /// Squares a level may not take whatever the queens above: those attacked by fixed queens
    /// and those off the board (`fixed | !mask`), so that free squares are `!(c | d | a |
    /// block)`.
    block: [u64; SLOTS],
    step: [u32; SLOTS],
    /// Bit `l` set for the levels a search enters: those above `at`.
    enter: u32,
    /// The bulk level: a child there is counted by `bottom`, not entered.
    at: usize,
    bottom: B,
}

impl<B> Shape<B> {
    /// The tables of `frame`, with the levels from `at` (at least 1) down counted by `bottom`.
    fn with(frame: &Frame, at: usize, bottom: B) -> Shape<B> {
        let mut sh = Shape {
            mask: frame.mask,
            block: [!frame.mask; SLOTS],
            step: [0; SLOTS],
            enter: (1u32 << at) - 1,
            at,
            bottom,
        };
        for (b, f) in sh.block.iter_mut().zip(frame.fixed) {
            *b |= f;
        }
        sh.step[..MAX_N].copy_from_slice(&frame.step);
        sh
    }
}

impl Shape<LastTwo> {
    /// The tables of `frame`, whose depth must be at least 3, with the last two levels
    /// counted by [`last_two`].
    fn new(frame: &Frame) -> Shape<LastTwo> {
        let last = frame.depth - 1;
        let pen = last - 1;
        let bottom = LastTwo {
            k_pen: frame.step[pen],
            fixed_last: frame.fixed[last],
        };
        Shape::with(frame, pen, bottom)
    }
}

/// The stack of one depth-first search in progress: slot `l` holds what the queens above
/// level `l` attack there and the squares of level `l` not yet tried.
struct Lane {
    cols: [u64; SLOTS],
    diag: [u64; SLOTS],
    anti: [u64; SLOTS],
    free: [u64; SLOTS],
}

/// Where a search stands (kept apart from its [`Lane`] so that it lives in registers): bit `l`
/// of `live` says that level `l` has untried squares, `lv` is the highest such level.
#[derive(Clone, Copy)]
struct Cursor {
    live: u32,
    lv: usize,
}

impl Lane {
    fn empty() -> Lane {
        Lane {
            cols: [0; SLOTS],
            diag: [0; SLOTS],
            anti: [0; SLOTS],
            free: [0; SLOTS],
        }
    }

    /// Makes the lane search the squares `free` of level `l`, from the state `(c, d, a)`.
    #[inline(always)]
    fn begin(&mut self, l: usize, c: u64, d: u64, a: u64, free: u64) -> Cursor {
        self.cols[l & 63] = c;
        self.diag[l & 63] = d;
        self.anti[l & 63] = a;
        self.free[l & 63] = free;
        Cursor {
            live: u32::from(free != 0) << l,
            lv: l,
        }
    }

    /// Places one queen (the lane must be live) and returns the completions it settled.
    ///
    /// The child's state is always written to its slot, and the next level is the highest bit
    /// of `live` (the child, or the nearest ancestor with squares left). A child at the bulk
    /// level `sh.at` is not entered: with a queued bottom it is written to `q` and kept when
    /// it has free squares (no branch); otherwise it is counted at once behind the only
    /// data-dependent branch (which mispredicts too often for a deeper bottom).
    #[inline(always)]
    fn turn<B: Bottom>(&mut self, at: &mut Cursor, sh: &Shape<B>, q: &mut Pending) -> u64 {
        // Below 32 (the highest bit of a `u32`), so `next` indexes a slot without a mask.
        let lv = at.lv & 31;
        let f = self.free[lv];
        let b = f & f.wrapping_neg();
        let rest = f ^ b;
        self.free[lv] = rest;
        let k = sh.step[lv];
        let c = self.cols[lv] | b;
        let d = (self.diag[lv] | b) << k;
        let a = (self.anti[lv] | b) >> k;
        let next = lv + 1;
        let nf = !(c | d | a | sh.block[next]);
        let bulk = if B::QUEUED {
            q.push(c, d, a, (next == sh.at) & (nf != 0));
            0
        } else if next == sh.at {
            sh.bottom.count(sh.mask, c, d, a, nf)
        } else {
            0
        };
        self.cols[next] = c;
        self.diag[next] = d;
        self.anti[next] = a;
        self.free[next] = nf;
        let mut live = at.live ^ (u32::from(rest == 0) << lv);
        live |= (u32::from(nf != 0) << next) & sh.enter;
        at.live = live;
        // `| 1` keeps the index in range when the lane has just run dry; `live` says so.
        at.lv = (31 - (live | 1).leading_zeros()) as usize;
        bulk
    }

    /// Hands one untried square of this lane's shallowest live level to `thief` (which must
    /// be empty), if this lane keeps something to do.
    /// Returns the thief's new cursor, or `None` when this lane has a single square left.
    #[inline(always)]
    fn give(&mut self, at: &mut Cursor, thief: &mut Lane) -> Option<Cursor> {
        let live = at.live;
        let l = live.trailing_zeros() as usize;
        let f = self.free[l & 63];
        if live & live.wrapping_sub(1) == 0 && f & f.wrapping_sub(1) == 0 {
            return None;
        }
        let s = 1u64 << (63 - f.leading_zeros());
        let rest = f ^ s;
        self.free[l & 63] = rest;
        if rest == 0 {
            at.live ^= 1 << l;
        }
        Some(thief.begin(
            l,
            self.cols[l & 63],
            self.diag[l & 63],
            self.anti[l & 63],
            s,
        ))
    }
}

/// Capacity of a [`Pending`] queue.
const QCAP: usize = 32;

/// Children at the bulk level waiting to be counted, for bottoms that count in batches (the
/// lane loop drains it when fewer than one round of pushes is left; the loop over a batch
/// has no data-dependent branch but its end).
struct Pending {
    c: [u64; QCAP],
    d: [u64; QCAP],
    a: [u64; QCAP],
    n: usize,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            c: [0; QCAP],
            d: [0; QCAP],
            a: [0; QCAP],
            n: 0,
        }
    }

    /// Writes a child to the next free entry, and keeps it when `take` (no branch: an entry
    /// not kept is overwritten by the next push). There must be room (`n < QCAP`).
    #[inline(always)]
    fn push(&mut self, c: u64, d: u64, a: u64, take: bool) {
        let i = self.n & (QCAP - 1);
        self.c[i] = c;
        self.d[i] = d;
        self.a[i] = a;
        self.n += usize::from(take);
    }

    /// Counts the completions of every queued child and empties the queue.
    #[inline(always)]
    fn drain<B: Bottom>(&mut self, sh: &Shape<B>) -> u64 {
        let mut count = 0;
        for i in 0..self.n.min(QCAP) {
            let (c, d, a) = (self.c[i], self.d[i], self.a[i]);
            let nf = !(c | d | a | sh.block[sh.at & 63]);
            count += sh.bottom.count(sh.mask, c, d, a, nf);
        }
        self.n = 0;
        count
    }
}

/// How many searches [`complete_tight`] interleaves.
const LANES: usize = 3;

/// Runs `L` interleaved lanes over the search below `start` (level `base`, squares `first`)
/// until all run dry; returns the completions and the nodes.
///
/// Always inlined, so that each caller (see [`run_lanes`]) compiles it for its own
/// instruction set.
#[inline(always)]
fn lanes<const L: usize, B: Bottom>(
    sh: &Shape<B>,
    base: usize,
    start: &Start,
    first: u64,
) -> (u64, u64) {
    let mut lane: [Lane; L] = std::array::from_fn(|_| Lane::empty());
    let mut cur = [Cursor { live: 0, lv: 0 }; L];
    cur[0] = lane[0].begin(base, start.cols, start.diag, start.anti, first);
    let mut count = 0u64;
    let mut nodes = 0u64;
    let mut q = Pending::new();
    loop {
        if B::QUEUED && q.n > QCAP - L {
            count += q.drain(sh);
        }
        if cur.iter().any(|c| c.live == 0) {
            if refill(&mut lane, &mut cur) {
                for i in 0..L {
                    count += lane[i].turn(&mut cur[i], sh, &mut q);
                }
                nodes += L as u64;
                continue;
            }
            if cur.iter().all(|c| c.live == 0) {
                count += q.drain(sh);
                break;
            }
            for i in 0..L {
                if cur[i].live != 0 {
                    count += lane[i].turn(&mut cur[i], sh, &mut q);
                    nodes += 1;
                }
            }
            continue;
        }
        for i in 0..L {
            count += lane[i].turn(&mut cur[i], sh, &mut q);
        }
        nodes += L as u64;
    }
    (count, nodes)
}

/// Gives every dry lane a square from another lane that can spare one; returns whether every
/// lane is live afterwards.
#[inline(always)]
fn refill<const L: usize>(lane: &mut [Lane; L], cur: &mut [Cursor; L]) -> bool {
    for i in 0..L {
        if cur[i].live != 0 {
            continue;
        }
        for j in 0..L {
            if j == i || cur[j].live == 0 {
                continue;
            }
            let (donor, thief) = if j < i {
                let (lo, hi) = lane.split_at_mut(i);
                (&mut lo[j], &mut hi[0])
            } else {
                let (lo, hi) = lane.split_at_mut(j);
                (&mut hi[0], &mut lo[i])
            };
            if let Some(c) = donor.give(&mut cur[j], thief) {
                cur[i] = c;
                break;
            }
        }
    }
    cur.iter().all(|c| c.live != 0)
}

/// The kernel for tight frames: every level has exactly as many free columns as levels remain.
///
/// The search runs as independent lanes whose turns alternate, so that the processor
/// overlaps their dependency chains; a lane that runs dry takes over a square from the
/// shallowest live level of another (measured at n = 16 with [`last_two`]: 2 lanes 1.33 s,
/// 3 lanes 1.26 s, 4 lanes 1.42 s). Where the processor allows it and the start is above
/// level `last - 4`, a child at level `last - 4` is not entered: it is queued and counted by a
/// [`Block5`] ([`BLOCK5_LANES`] lanes). Failing that (start at `last - 4`, or a block spanning
/// more than seven rows), above level `last - 3` the same with a [`Block`] of four levels
/// ([`BLOCK_LANES`] lanes). Otherwise a child at level `last - 1` is not entered:
/// its completions are counted by [`last_two`] ([`LANES`] lanes).
fn complete_tight(frame: &Frame, start: &Start) -> Found {
    let depth = frame.depth;
    let mask = frame.mask;
    let last = depth - 1;
    let first_free = frame.free(start);
    let base = start.level;
    if base == last {
        return Found {
            count: u64::from(first_free != 0),
            nodes: 0,
        };
    }
    if base + 1 == last {
        let count = last_two(
            mask,
            start.cols,
            start.diag,
            start.anti,
            first_free,
            frame.step[base],
            frame.fixed[last],
        );
        return Found { count, nodes: 0 };
    }
    #[cfg(target_arch = "x86_64")]
    if base + 5 < depth
        && let Some((count, nodes)) = block5_lanes::<true>(frame, start, first_free)
    {
        return Found { count, nodes };
    }
    #[cfg(target_arch = "x86_64")]
    if base + BLOCK < depth
        && let Some(bottom) = Block::<BLOCK>::new(frame)
    {
        let sh = Shape::with(frame, depth - BLOCK, bottom);
        // SAFETY: a `Block` exists only when the processor has the extensions.
        let (count, nodes) = unsafe { lanes_bmi::<BLOCK_LANES, _>(&sh, base, start, first_free) };
        return Found { count, nodes };
    }
    let sh = Shape::new(frame);
    let (count, nodes) = run_lanes(&sh, base, start, first_free);
    Found { count, nodes }
}

/// Levels counted in bulk by a [`Block`] where the processor allows it (3 levels measured
/// 0.99 s at n = 16, 4 levels 0.92 s).
#[cfg(target_arch = "x86_64")]
const BLOCK: usize = 4;
/// Lanes interleaved with a [`Block`] bottom (measured at n = 16: 2 lanes 0.92 s, 3 lanes
/// 0.94 s).
#[cfg(target_arch = "x86_64")]
const BLOCK_LANES: usize = 2;
/// Lanes interleaved with a [`Block5`] bottom (measured at n = 16: 1 lane 0.98 s, 2 lanes
/// 0.78 s, 3 lanes 0.74 s, 4 lanes 0.76 s; the four-level block with 2 lanes 0.87-0.91 s;
/// with constant row offsets for adjacent rows: 2 lanes 0.689 s, 3 lanes 0.705 s, 4 lanes
/// 0.76 s).
#[cfg(target_arch = "x86_64")]
const BLOCK5_LANES: usize = 2;

/// The lane search below `start` (squares `first`) with the last five levels of `frame`
/// counted by a [`Block5`], or `None` where that block cannot be made. The start must be
/// above level `depth - 5`.
#[cfg(target_arch = "x86_64")]
fn block5_lanes<const ADJ: bool>(frame: &Frame, start: &Start, first: u64) -> Option<(u64, u64)> {
    let sh = Shape::with(frame, frame.depth - 5, Block5::<ADJ>::new(frame)?);
    // SAFETY: a `Block5` exists only when the processor has the extensions.
    Some(unsafe { lanes_bmi::<BLOCK5_LANES, _>(&sh, start.level, start, first) })
}

/// [`lanes`] compiled for the baseline instruction set of the target.
fn lanes_portable(sh: &Shape<LastTwo>, base: usize, start: &Start, first: u64) -> (u64, u64) {
    lanes::<LANES, _>(sh, base, start, first)
}

/// [`lanes`] compiled with the x86-64 bit-manipulation extensions (`popcnt`, `lzcnt`, `bmi1`,
/// `bmi2`): three-operand shifts and `andn`, `blsi`, `blsr` and `lzcnt` shorten each turn.
///
/// # Safety
///
/// The processor must support `popcnt`, `lzcnt`, `bmi1` and `bmi2`; [`has_bit_extensions`]
/// says so.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
unsafe fn lanes_bmi<const L: usize, B: Bottom>(
    sh: &Shape<B>,
    base: usize,
    start: &Start,
    first: u64,
) -> (u64, u64) {
    lanes::<L, _>(sh, base, start, first)
}

/// Whether this processor has the extensions [`lanes_bmi`] is compiled for. Detected once
/// (the standard library caches the answer).
#[cfg(target_arch = "x86_64")]
fn has_bit_extensions() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
}

/// Runs [`lanes`] with the fastest variant this processor supports. Both variants compute
/// the same function; they differ only in the instructions they are made of.
#[inline]
fn run_lanes(sh: &Shape<LastTwo>, base: usize, start: &Start, first: u64) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if has_bit_extensions() {
        // SAFETY: `lanes_bmi` needs popcnt, lzcnt, bmi1 and bmi2, and the processor was just
        // found to have all four.
        return unsafe { lanes_bmi::<LANES, _>(sh, base, start, first) };
    }
    lanes_portable(sh, base, start, first)
}

/// Plain backtrack for frames with spare columns (never made by the plans; kept so that any
/// frame gives the right count). The last level is counted by popcount.
fn complete_loose(frame: &Frame, start: &Start) -> Found {
    let depth = frame.depth;
    let mask = frame.mask;
    let first_free = frame.free(start);
    let last = depth - 1;
    if start.level == last {
        return Found {
            count: u64::from(first_free.count_ones()),
            nodes: 0,
        };
    }

    let mut cols = [0u64; MAX_N];
    let mut diag = [0u64; MAX_N];
    let mut anti = [0u64; MAX_N];
    let mut free = [0u64; MAX_N];
    let base = start.level;
    let mut lv = base;
    cols[lv] = start.cols;
    diag[lv] = start.diag;
    anti[lv] = start.anti;
    free[lv] = first_free;
    let mut count = 0u64;
    let mut nodes = 0u64;

    loop {
        let f = free[lv];
        if f == 0 {
            if lv == base {
                break;
            }
            lv -= 1;
            continue;
        }
        let b = f & f.wrapping_neg();
        free[lv] = f ^ b;
        nodes += 1;
        let k = frame.step[lv];
        let c = cols[lv] | b;
        let d = (diag[lv] | b) << k;
        let a = (anti[lv] | b) >> k;
        let next = lv + 1;
        let nf = mask & !(c | d | a | frame.fixed[next]);
        if next == last {
            count += u64::from(nf.count_ones());
        } else if nf != 0 {
            lv = next;
            cols[lv] = c;
            diag[lv] = d;
            anti[lv] = a;
            free[lv] = nf;
        }
    }
    Found { count, nodes }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain recursive count, no tricks, for cross-checking.
    fn naive(n: usize, row: usize, cols: u64, d: u64, a: u64) -> u64 {
        if row == n {
            return 1;
        }
        let full = crate::board::full_mask(n);
        let mut free = full & !(cols | d | a);
        let mut total = 0;
        while free != 0 {
            let b = free & free.wrapping_neg();
            free ^= b;
            total += naive(n, row + 1, cols | b, (d | b) << 1, (a | b) >> 1);
        }
        total
    }

    #[test]
    fn open_frame_counts_whole_boards() {
        let known = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680];
        for (i, &q) in known.iter().enumerate() {
            let n = i + 1;
            let t = complete(&Frame::open(n, n), &Start::default());
            assert_eq!(t.count, q, "n = {n}");
            assert_eq!(t.count, naive(n, 0, 0, 0, 0));
        }
    }

    #[test]
    fn counts_from_a_prefix_match_the_recursive_count() {
        let n = 9;
        let frame = Frame::open(n, n);
        let root = Start::default();
        let mut sum = 0;
        for c in 0..n {
            let s = frame.descend(&root, 1 << c);
            let t = complete(&frame, &s);
            assert_eq!(t.count, naive(n, 1, s.cols, s.diag, s.anti));
            sum += t.count;
        }
        assert_eq!(sum, 352);
    }

    #[test]
    fn fixed_squares_and_steps_are_honoured() {
        // A 5x5 board whose middle row (row 2) already holds a queen in column 2: the search
        // fills rows 0, 1, 3, 4, and must jump two rows between levels 1 and 2.
        let n = 5;
        let mut frame = Frame::open(n, 4);
        let rows = [0usize, 1, 3, 4];
        for (l, &r) in rows.iter().enumerate() {
            let dist = r.abs_diff(2);
            let mut attacked = 0u64;
            if 2 + dist < n {
                attacked |= 1 << (2 + dist);
            }
            if dist <= 2 {
                attacked |= 1 << (2 - dist);
            }
            frame.fixed[l] = attacked;
            if l + 1 < rows.len() {
                frame.step[l] = (rows[l + 1] - r) as u32;
            }
        }
        let start = Start {
            cols: 1 << 2,
            ..Start::default()
        };
        // Solutions of 5-queens with a queen at (2, 2): 2 of them (the two with the centre).
        assert_eq!(complete(&frame, &start).count, 2);
    }

    #[test]
    fn a_finished_start_counts_one() {
        let frame = Frame::open(4, 4);
        let s = Start {
            level: 4,
            ..Start::default()
        };
        assert_eq!(complete(&frame, &s), Found { count: 1, nodes: 0 });
    }

    #[test]
    fn tight_and_loose_kernels_agree_on_every_subproblem() {
        use crate::plan::{Algorithm, Plan, Work};
        for n in 4..=11 {
            for alg in Algorithm::ALL {
                for depth in [1usize, 2] {
                    let Ok(plan) = Plan::build(n, alg, Some(depth)) else {
                        continue;
                    };
                    for sub in &plan.subproblems {
                        if let Work::Complete { frame, start, .. } = sub.work {
                            let f = &plan.frames[frame as usize];
                            if start.level >= f.depth {
                                continue;
                            }
                            let t = complete_tight(f, &start);
                            let l = complete_loose(f, &start);
                            assert_eq!(t.count, l.count, "n = {n} {alg} sub {}", sub.id);
                            assert!(t.nodes <= l.nodes);
                        }
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn instruction_set_variants_agree_on_every_subproblem() {
        use crate::plan::{Algorithm, Plan, Work};
        if !has_bit_extensions() {
            eprintln!("no popcnt/lzcnt/bmi1/bmi2 here: only the portable variant can run");
            return;
        }
        let mut compared = 0;
        let mut blocks = [0; 3];
        let mut spread = [0; 3];
        for n in 4..=12 {
            for alg in Algorithm::ALL {
                for depth in [None, Some(1usize), Some(2)] {
                    let Ok(plan) = Plan::build(n, alg, depth) else {
                        continue;
                    };
                    for sub in &plan.subproblems {
                        let Work::Complete { frame, start, .. } = sub.work else {
                            continue;
                        };
                        let f = &plan.frames[frame as usize];
                        if start.level + 3 > f.depth {
                            continue;
                        }
                        let first = f.free(&start);
                        let sh = Shape::new(f);
                        let portable = lanes_portable(&sh, start.level, &start, first);
                        // SAFETY: the processor has the extensions (checked above).
                        let fast =
                            unsafe { lanes_bmi::<LANES, _>(&sh, start.level, &start, first) };
                        assert_eq!(
                            portable, fast,
                            "n = {n} {alg} depth {depth:?} sub {}",
                            sub.id
                        );
                        compared += 1;
                        for h in [3, 4, 5] {
                            let Some((count, nodes)) = block_lanes(h, f, &start) else {
                                continue;
                            };
                            assert_eq!(
                                count, portable.0,
                                "block {h}: n = {n} {alg} depth {depth:?} sub {}",
                                sub.id
                            );
                            assert!(nodes <= portable.1);
                            blocks[h - 3] += 1;
                            let rows = (f.depth - h..f.depth - 1).map(|l| f.step[l]).sum::<u32>();
                            if rows >= h as u32 {
                                spread[h - 3] += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(compared > 100);
        assert!(blocks.iter().all(|&b| b > 100), "{blocks:?}");
        // Tie frames (border queens in the bottom rows) whose block spans skipped rows. The
        // five-level block is made only over adjacent rows (see `Block5::new`), so it has none.
        assert!(spread[..2].iter().all(|&b| b > 10), "{spread:?}");
    }

    /// The count of the lane search with the last `h` levels counted by a [`Block`], where
    /// the start is above the block and the processor has the extensions.
    #[cfg(target_arch = "x86_64")]
    fn block_lanes(h: usize, f: &Frame, start: &Start) -> Option<(u64, u64)> {
        fn run<const H: usize>(f: &Frame, start: &Start) -> Option<(u64, u64)> {
            if start.level + H >= f.depth {
                return None;
            }
            let sh = Shape::with(f, f.depth - H, Block::<H>::new(f)?);
            let first = f.free(start);
            // SAFETY: a `Block` exists only when the processor has the extensions.
            Some(unsafe { lanes_bmi::<BLOCK_LANES, _>(&sh, start.level, start, first) })
        }
        fn run5(f: &Frame, start: &Start) -> Option<(u64, u64)> {
            if start.level + 5 >= f.depth {
                return None;
            }
            let first = f.free(start);
            let generic = block5_lanes::<false>(f, start, first)?;
            if let Some(adjacent) = block5_lanes::<true>(f, start, first) {
                assert_eq!(adjacent, generic, "{f:?} {start:?}");
            }
            Some(generic)
        }
        match h {
            3 => run::<3>(f, start),
            4 => run::<4>(f, start),
            5 => run5(f, start),
            _ => None,
        }
    }

    /// Random tight frames against the plain backtrack, through [`complete`] and through every
    /// block height: a few queens placed at random on an `n`-board, the frame made of the
    /// other rows (rows up to 5 apart, squares attacked by the placed queens fixed), started at
    /// level 0, 1 or 2.
    #[test]
    fn random_tight_frames_match_the_plain_backtrack() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        let mut found = 0;
        #[cfg(target_arch = "x86_64")]
        let mut blocks = [0; 3];
        for _ in 0..3000 {
            let n = 7 + next(8);
            let mut queens: Vec<(usize, usize)> = Vec::new();
            for _ in 0..1 + next(4) {
                let (r, c) = (next(n), next(n));
                let peaceful = queens
                    .iter()
                    .all(|&(qr, qc)| qr != r && qc != c && qr.abs_diff(r) != qc.abs_diff(c));
                if peaceful {
                    queens.push((r, c));
                }
            }
            let rows: Vec<usize> = (0..n)
                .filter(|&r| queens.iter().all(|q| q.0 != r))
                .collect();
            let mut frame = Frame::open(n, rows.len());
            for (l, &r) in rows.iter().enumerate() {
                for &(qr, qc) in &queens {
                    let d = r.abs_diff(qr);
                    frame.fixed[l] |= (1u64 << (qc + d) | 1u64 << qc >> d) & frame.mask;
                }
                if l + 1 < rows.len() {
                    frame.step[l] = (rows[l + 1] - r) as u32;
                }
            }
            let mut start = Start {
                cols: queens.iter().fold(0, |m, q| m | 1 << q.1),
                ..Start::default()
            };
            for _ in 0..next(3) {
                let f = frame.free(&start);
                if f == 0 {
                    break;
                }
                let b = if next(2) == 0 {
                    f & f.wrapping_neg()
                } else {
                    1 << (63 - f.leading_zeros())
                };
                start = frame.descend(&start, b);
            }
            let plain = complete_loose(&frame, &start);
            assert_eq!(
                complete(&frame, &start).count,
                plain.count,
                "{frame:?} {start:?}"
            );
            found += usize::from(plain.count > 0);
            #[cfg(target_arch = "x86_64")]
            for h in [3, 4, 5] {
                if let Some((count, _)) = block_lanes(h, &frame, &start) {
                    assert_eq!(count, plain.count, "block {h}: {frame:?} {start:?}");
                    blocks[h - 3] += 1;
                }
            }
        }
        assert!(found > 300, "{found}");
        #[cfg(target_arch = "x86_64")]
        if has_bit_extensions() {
            assert!(blocks.iter().all(|&b| b > 500), "{blocks:?}");
        }
    }

    #[test]
    fn loose_frames_use_the_plain_backtrack() {
        // Four rows of an 8-wide board: more free columns than levels.
        let frame = Frame::open(8, 4);
        let t = complete(&frame, &Start::default());
        let l = complete_loose(&frame, &Start::default());
        assert_eq!(t, l);
        assert!(t.count > 0);
    }
}
