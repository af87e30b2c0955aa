//! The bulk counts of the last four and five levels of a tight frame, from tables of the
//! permutations of the columns left (x86-64 with bmi2 only).
//!
//! At the bulk level of a tight frame the `h` free columns go one to a level, so the
//! completions are the permutations of them whose squares are all free and that put no two
//! queens on one diagonal. Whether a permutation's squares are free is looked up from the free
//! squares of each level, compressed by `pext` to one bit per free column (the free tables);
//! whether it clashes depends only on the gaps between the free columns and the rows of the
//! levels (the clash tables). The count is the popcount of the permutations that pass both.
//! The tables are built once per process (the four-level clash table once per row pattern).
//! Kept apart from [`LastTwo`](super::LastTwo) because these counts exist only where the
//! processor has the extensions they are made of ([`BitExtensions`]).

use super::Bottom;
use crate::kernel::Frame;
use crate::kernel::extensions::BitExtensions;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The permutations of `0..h` in lexicographic order: `perms(h)[p][j]` is the rank (among the
/// bottom's free columns, lowest first) of the column that permutation `p` puts at level `j`.
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

/// The table entry of the permutations `ps` that `keep`: bit `p` set when `keep(ps[p])`.
fn permutations_where(ps: &[Vec<usize>], keep: impl Fn(&[usize]) -> bool) -> u128 {
    ps.iter()
        .enumerate()
        .filter(|(_, perm)| keep(perm))
        .fold(0, |e, (p, _)| e | 1 << p)
}

/// Whether permutation `perm` of the columns `col` (by rank) puts no two queens on one
/// diagonal, where level `j` lies `rows[j]` board rows below the first.
fn peaceful<const H: usize>(col: &[u32; H], perm: &[usize], rows: &[u32; H]) -> bool {
    !(0..H).any(|i| (i + 1..H).any(|j| col[perm[i]].abs_diff(col[perm[j]]) == rows[j] - rows[i]))
}

/// The last `H` levels of `frame` (depth above `H`): the board rows from the first of them
/// down to each, and the squares each may not take whatever the queens above (attacked by
/// fixed queens or off the board).
fn bottom_levels<const H: usize>(frame: &Frame) -> ([u32; H], [u64; H]) {
    let at = frame.depth - H;
    let mut rows = [0u32; H];
    let mut blocked = [0u64; H];
    for j in 0..H {
        if j > 0 {
            rows[j] = rows[j - 1] + frame.step[at + j - 1];
        }
        blocked[j] = frame.fixed[at + j] | !frame.mask;
    }
    (rows, blocked)
}

/// The free squares (all columns, on the board or not) of a level `s` board rows below the
/// bulk level, for a child with state `(c, d, a)` there, where `blocked` are unavailable.
#[inline(always)]
fn free_below(c: u64, d: u64, a: u64, s: u32, blocked: u64) -> u64 {
    !(c | (d << s) | (a >> s) | blocked)
}

/// The gaps between the `N + 1` lowest columns of `rem`: `gaps[i]` is how many columns the one
/// of rank `i + 1` lies right of the one of rank `i`.
#[inline(always)]
fn gaps<const N: usize>(rem: u64) -> [u32; N] {
    let mut r = rem;
    let mut prev = r.trailing_zeros();
    let mut out = [0; N];
    for gap in &mut out {
        r &= r - 1;
        let t = r.trailing_zeros();
        *gap = t - prev;
        prev = t;
    }
    out
}

/// Entries of each half of a four-level free table: the patterns of two levels, 8 bits.
const FREE_ENTRIES: usize = 1 << 8;
/// Entries of a four-level clash table: three gaps of at most 5 bits each, at most 15 bits.
const CLASH_ENTRIES: usize = 1 << 15;

/// The free tables of the four-level bottom, one for levels 0 and 1 and one for levels 2
/// and 3: entry `i` of half `k` has bit `p` set when permutation `p` finds its squares on
/// those levels free, where bit `4 * j + r` of `i` says that the column of rank `r` is free at
/// level `2 * k + j`. Built once.
fn free_table4() -> &'static [[u32; FREE_ENTRIES]; 2] {
    static TABLE: OnceLock<[[u32; FREE_ENTRIES]; 2]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let ps = perms(4);
        let mut t = [[0u32; FREE_ENTRIES]; 2];
        for (k, half) in t.iter_mut().enumerate() {
            for (i, e) in half.iter_mut().enumerate() {
                let fits = |perm: &[usize]| (0..2).all(|j| i >> (4 * j + perm[2 * k + j]) & 1 == 1);
                // 24 permutations: the entry fits in 32 bits.
                *e = permutations_where(&ps, fits) as u32;
            }
        }
        t
    })
}

/// The clash table of the four-level bottom whose level `j` lies `rows[j]` board rows below
/// its first level: entry `g` has bit `p` set when permutation `p` puts no two queens on one
/// diagonal, where field `i` (`width` bits) of `g` is the gap between the free columns of
/// ranks `i` and `i + 1`, less one, capped at `cap - 1` (`cap = rows[3] + 1`: a pair of
/// columns spanning a capped gap is further apart than any two levels). Built once per row
/// pattern.
fn clash_table4(rows: [u32; 4]) -> &'static [u32; CLASH_ENTRIES] {
    type Cache = Mutex<HashMap<[u32; 4], &'static [u32; CLASH_ENTRIES]>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(rows).or_insert_with(|| {
        let cap = rows[3] + 1;
        let width = gap_width(cap);
        let ps = perms(4);
        let mut t = Box::new([0u32; CLASH_ENTRIES]);
        for (g, e) in t.iter_mut().enumerate().take(1 << (width as usize * 3)) {
            let mut col = [0u32; 4];
            let mut valid = true;
            for i in 1..4 {
                let gap = (g >> (width as usize * (i - 1)) & ((1 << width) - 1)) as u32 + 1;
                valid &= gap <= cap;
                col[i] = col[i - 1] + gap;
            }
            if valid {
                *e = permutations_where(&ps, |perm| peaceful(&col, perm, &rows)) as u32;
            }
        }
        Box::leak(t)
    })
}

/// Bits of one gap field in a four-level clash-table index: enough for `0..cap`.
fn gap_width(cap: u32) -> u32 {
    32 - (cap - 1).max(1).leading_zeros()
}

/// The bulk count of the last four levels of a tight frame, from the 24 permutations of the
/// four free columns ([`free_table4`], [`clash_table4`]); the levels may lie on rows further
/// apart than adjacent ones (frames with fixed queens between them). The bulk level is
/// `last - 3`.
pub(in crate::kernel) struct LastFour {
    /// Board rows from the bulk level down to level `j` of the four.
    rows: [u32; 4],
    /// [`Shape::blocked`](crate::kernel::lanes::Shape) of level `j` of the four.
    blocked: [u64; 4],
    /// The clash-table gap cap and field width.
    cap: u32,
    width: u32,
    free: &'static [[u32; FREE_ENTRIES]; 2],
    clash: &'static [u32; CLASH_ENTRIES],
    ext: BitExtensions,
}

impl LastFour {
    /// The count of the last four levels of `frame` (depth above 4), or `None` when the four
    /// levels span too many rows for the clash table's index.
    pub(in crate::kernel) fn new(frame: &Frame, ext: BitExtensions) -> Option<LastFour> {
        let (rows, blocked) = bottom_levels::<4>(frame);
        let cap = rows[3] + 1;
        let width = gap_width(cap);
        if width * 3 > 15 || rows[3] >= 64 {
            return None;
        }
        Some(LastFour {
            rows,
            blocked,
            cap,
            width,
            free: free_table4(),
            clash: clash_table4(rows),
            ext,
        })
    }
}

impl Bottom for LastFour {
    const LEVELS: usize = 4;
    const QUEUED: bool = true;

    #[inline(always)]
    fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64 {
        let rem = mask & !c;
        let mut idx = [self.ext.pext(nf, rem), 0];
        for j in 1..4 {
            let f = free_below(c, d, a, self.rows[j], self.blocked[j]);
            idx[j / 2] |= self.ext.pext(f, rem) << (4 * (j % 2));
        }
        let mut g = 0u32;
        for (i, gap) in (0..).zip(gaps::<3>(rem)) {
            g |= (gap.min(self.cap) - 1) << (self.width * i);
        }
        let ok = self.free[0][idx[0] as usize & (FREE_ENTRIES - 1)]
            & self.free[1][idx[1] as usize & (FREE_ENTRIES - 1)]
            & self.clash[g as usize & (CLASH_ENTRIES - 1)];
        u64::from(ok.count_ones())
    }
}

/// Entries of the five-level clash table: four gaps, each capped at 5, in radix 5.
const CLASH5_ENTRIES: usize = 5 * 5 * 5 * 5;

/// The free tables of the five-level bottom, one per level: entry `i` of table `j` has bit
/// `p` set when the column of rank `perms(5)[p][j]` is free at level `j`, where bit `r` of `i`
/// says that the column of rank `r` is free there. Built once.
fn free_table5() -> &'static [[u128; 32]; 5] {
    static TABLE: OnceLock<[[u128; 32]; 5]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let ps = perms(5);
        let mut t = [[0u128; 32]; 5];
        for (j, level) in t.iter_mut().enumerate() {
            for (i, e) in level.iter_mut().enumerate() {
                *e = permutations_where(&ps, |perm| i >> perm[j] & 1 == 1);
            }
        }
        t
    })
}

/// The clash table of the five-level bottom (five adjacent rows): entry
/// `((g0 * 5 + g1) * 5 + g2) * 5 + g3` has bit `p` set when permutation `p` puts no two queens
/// on one diagonal, where `g_i + 1` is the gap between the free columns of ranks `i` and
/// `i + 1`, capped at 5 (columns five or more apart share no diagonal within five rows).
/// Built once.
fn clash_table5() -> &'static [u128; CLASH5_ENTRIES] {
    static TABLE: OnceLock<[u128; CLASH5_ENTRIES]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let ps = perms(5);
        let mut t = [0u128; CLASH5_ENTRIES];
        for (g, e) in t.iter_mut().enumerate() {
            let mut col = [0u32; 5];
            let mut rest = g as u32;
            for i in (1..5).rev() {
                col[i] = rest % 5 + 1;
                rest /= 5;
            }
            for i in 1..5 {
                col[i] += col[i - 1];
            }
            *e = permutations_where(&ps, |perm| peaceful(&col, perm, &[0, 1, 2, 3, 4]));
        }
        t
    })
}

/// The bulk count of the last five levels of a tight frame when they are five adjacent board
/// rows, from the 120 permutations of the five free columns: one free table per level
/// ([`free_table5`]) and a clash table indexed by the capped gaps ([`clash_table5`]). The row
/// offsets and the gap cap are constants of the compiled count. The bulk level is `last - 4`.
pub(in crate::kernel) struct LastFive {
    /// [`Shape::blocked`](crate::kernel::lanes::Shape) of level `j` of the five.
    blocked: [u64; 5],
    free: &'static [[u128; 32]; 5],
    clash: &'static [u128; CLASH5_ENTRIES],
    ext: BitExtensions,
}

impl LastFive {
    /// The count of the last five levels of `frame` (depth above 5), or `None` when they are
    /// not five adjacent board rows. (Rows further apart would need a clash table per row
    /// pattern with gaps capped at up to 8, too slow to build for what it gains; such frames
    /// use [`LastFour`]. See results/kernel-log.md, section 13.)
    pub(in crate::kernel) fn new(frame: &Frame, ext: BitExtensions) -> Option<LastFive> {
        let (rows, blocked) = bottom_levels::<5>(frame);
        if rows != [0, 1, 2, 3, 4] {
            return None;
        }
        Some(LastFive {
            blocked,
            free: free_table5(),
            clash: clash_table5(),
            ext,
        })
    }
}

impl Bottom for LastFive {
    const LEVELS: usize = 5;
    const QUEUED: bool = true;

    #[inline(always)]
    fn count(&self, mask: u64, c: u64, d: u64, a: u64, nf: u64) -> u64 {
        let rem = mask & !c;
        let mut ok = self.free[0][self.ext.pext(nf, rem) as usize & 31];
        for j in 1..5 {
            let f = free_below(c, d, a, j as u32, self.blocked[j]);
            ok &= self.free[j][self.ext.pext(f, rem) as usize & 31];
        }
        let g = gaps::<4>(rem)
            .into_iter()
            .fold(0, |g, gap| g * 5 + gap.min(5) - 1);
        // Below 625, as the five columns are apart, so the index check never fails (it costs
        // less than a formula whose bound the compiler can prove; see results/kernel-log.md).
        ok &= self.clash[g as usize];
        u64::from(ok.count_ones())
    }
}
