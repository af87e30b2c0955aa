//! The matching's tables in portable code: the shape of a set of bit-transposed tables, how
//! they are built (64×64 bit transposes, then each row the OR of two rows before it) and how
//! a query reads them (one row per chunk, ORed). [`super::tables`] chooses between this code
//! and the vector builds of [`super::x86`], which inline its parts; it imports neither.

/// How a sorted query's rest is held: in 32 or 40 bits where the split leaves that few rest
/// bits, else in 64. A streamed unit's sorted queries are most of what its thread holds (702
/// of the 853 MiB of a heavy n = 28 unit's slice), and their rests come to 26 to 35 bits
/// there (`results/join-log.md`, section 30).
pub(super) trait Rest: Copy + Default + Send + Sync + 'static {
    /// The most rest bits it holds.
    const BITS: usize;
    /// The rest's bits.
    fn wide(self) -> u64;
    /// A rest of at most [`Self::BITS`] bits, as held.
    fn held(rest: u64) -> Self;
}

impl Rest for u64 {
    const BITS: usize = 64;
    #[inline(always)]
    fn wide(self) -> u64 {
        self
    }
    #[inline(always)]
    fn held(rest: u64) -> u64 {
        rest
    }
}

impl Rest for u32 {
    const BITS: usize = 32;
    #[inline(always)]
    fn wide(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn held(rest: u64) -> u32 {
        debug_assert!(rest >> 32 == 0, "a rest of more than 32 bits held in 32");
        rest as u32
    }
}

impl Rest for [u8; 5] {
    const BITS: usize = 40;
    #[inline(always)]
    fn wide(self) -> u64 {
        let [a, b, c, d, e] = self;
        u64::from_le_bytes([a, b, c, d, e, 0, 0, 0])
    }
    #[inline(always)]
    fn held(rest: u64) -> [u8; 5] {
        debug_assert!(rest >> 40 == 0, "a rest of more than 40 bits held in 40");
        let [a, b, c, d, e, ..] = rest.to_le_bytes();
        [a, b, c, d, e]
    }
}

/// Bits per chunk of a pattern in the tables of an unsieved matching (their 64 rows a chunk
/// are cheap to build for the few queries of a small side).
pub(super) const CHUNK: usize = 6;

/// The widest chunks of a sieved matching's tables: the tables of one bin in chunks of 9
/// bits (512 rows of some 8 words) stay in the second-level cache; 10 bits cost more at
/// n = 26 (`results/join-log.md`, section 19).
pub(super) const MAX_WIDTH: usize = 9;

/// The most chunks a pattern of a 32×32 board needs (62 bits, chunks of at least [`CHUNK`]).
pub(super) const MAX_CHUNKS: usize = 11;

/// The shape of one set of tables: `chunks` chunks of `width` pattern bits (pattern bits
/// `width * j ..` in chunk `j`), each of `2^width` rows of `words` words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) chunks: usize,
    pub(super) width: usize,
    pub(super) words: usize,
    /// How many queries ahead of the one matched the query loops ask the caches for: [`AHEAD`]
    /// where the sorted queries are too large for the caches, 0 (nothing fetched ahead) where
    /// they sit in them, as fetching ahead there only displaces the tables.
    pub(super) ahead: usize,
}

/// [`Shape::ahead`] for a side of queries too large for the caches: the runs of queries that
/// fit a table bin lie far apart in it (gigabytes at n = 28), and the processor's own
/// prefetching finds each run late (`results/join-log.md`, section 27).
pub(super) const AHEAD: usize = 64;

impl Shape {
    /// The tables of `len` patterns of `bits` bits in chunks of `width` bits.
    pub(super) fn new(bits: usize, width: usize, len: usize) -> Shape {
        let chunks = bits.div_ceil(width).max(1);
        assert!(chunks <= MAX_CHUNKS && (chunks - 1) * width < 64);
        Shape {
            chunks,
            width,
            words: words_for(len),
            ahead: 0,
        }
    }

    /// Words of one chunk's rows.
    pub(super) fn per_chunk(self) -> usize {
        self.words << self.width
    }

    /// Words of the whole tables.
    pub(super) fn size(self) -> usize {
        self.chunks * self.per_chunk()
    }
}

/// Calls `$f::<C, _>(args)` with the chunk count `$c` as a constant (1 to [`MAX_CHUNKS`]), so
/// that each matching loop is compiled with its per-chunk loop unrolled, the type of the
/// queries' rests inferred ([`Rest`]); `$f::<S>(args)` calls `$f::<C, S, _>(args)`, `S` a
/// literal.
macro_rules! by_chunks {
    ($c:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $c {
            1 => $f::<1, _>($($arg),*),
            2 => $f::<2, _>($($arg),*),
            3 => $f::<3, _>($($arg),*),
            4 => $f::<4, _>($($arg),*),
            5 => $f::<5, _>($($arg),*),
            6 => $f::<6, _>($($arg),*),
            7 => $f::<7, _>($($arg),*),
            8 => $f::<8, _>($($arg),*),
            9 => $f::<9, _>($($arg),*),
            10 => $f::<10, _>($($arg),*),
            _ => $f::<{ $crate::join::rows::MAX_CHUNKS }, _>($($arg),*),
        }
    };
    ($c:expr, $f:ident::<$s:literal>($($arg:expr),* $(,)?)) => {
        match $c {
            1 => $f::<1, $s, _>($($arg),*),
            2 => $f::<2, $s, _>($($arg),*),
            3 => $f::<3, $s, _>($($arg),*),
            4 => $f::<4, $s, _>($($arg),*),
            5 => $f::<5, $s, _>($($arg),*),
            6 => $f::<6, $s, _>($($arg),*),
            7 => $f::<7, $s, _>($($arg),*),
            8 => $f::<8, $s, _>($($arg),*),
            9 => $f::<9, $s, _>($($arg),*),
            10 => $f::<10, $s, _>($($arg),*),
            _ => $f::<{ $crate::join::rows::MAX_CHUNKS }, $s, _>($($arg),*),
        }
    };
}

/// Words per table row for `k` table patterns: one bit each, whole words.
pub(super) fn words_for(k: usize) -> usize {
    k.div_ceil(64)
}

/// [`super::tables::build_tables`] for any processor.
#[inline(always)]
pub(super) fn build_any(table: &[u64], shape: Shape, t: &mut [u64]) {
    one_bit_rows(table, shape, t);
    fill_rows(shape, t);
}

/// The first step of [`super::tables::build_tables`], inlined into the vector builds too: row 0 of each
/// chunk (the padding bits in chunk 0, nothing in the others) and the rows of one-bit chunk
/// values (the patterns holding that bit).
#[inline(always)]
pub(super) fn one_bit_rows(table: &[u64], shape: Shape, t: &mut [u64]) {
    let (chunks, width, words) = (shape.chunks, shape.width, shape.words);
    let k = table.len();
    let per = shape.per_chunk();
    assert!(words >= words_for(k) && t.len() >= chunks * per);
    for j in 0..chunks {
        t[j * per..j * per + words].fill(0);
    }
    // 64 table patterns at a time: a 64×64 bit transpose turns the patterns (one word each)
    // into one word per pattern bit (one bit per pattern).
    let bits = (chunks * width).min(64);
    for w in 0..words {
        let mut square = [0u64; 64];
        let from = (w * 64).min(k);
        let to = (w * 64 + 64).min(k);
        square[..to - from].copy_from_slice(&table[from..to]);
        transpose64(&mut square);
        for (b, &word) in square[..bits].iter().enumerate() {
            t[(b / width) * per + (1 << (b % width)) * words + w] = word;
        }
    }
    for i in k..words * 64 {
        t[i / 64] |= 1 << (i % 64);
    }
}

/// The second step of [`super::tables::build_tables`]: the one-bit rows of chunk 0 take in the padding of
/// its row 0, then the rows of values `2^b + r` (`0 < r < 2^b`) are the OR of row `r` and
/// row `2^b`, bit by bit. In this order a row is made from rows written long before it, never
/// from the row just stored (the vector build's masked stores do not forward to loads).
#[inline(always)]
pub(super) fn fill_rows(shape: Shape, t: &mut [u64]) {
    let (chunks, width, words) = (shape.chunks, shape.width, shape.words);
    let per = shape.per_chunk();
    for j in 0..chunks {
        let rows = &mut t[j * per..(j + 1) * per];
        for b in 0..width {
            let hi = 1 << b;
            let (done, upper) = rows.split_at_mut(hi * words);
            if j == 0 {
                for (o, x) in upper[..words].iter_mut().zip(&done[..words]) {
                    *o |= x;
                }
            }
            let (high, made) = upper.split_at_mut(words);
            for r in 1..hi {
                let row = &mut made[(r - 1) * words..r * words];
                let low = &done[r * words..(r + 1) * words];
                for ((o, x), y) in row.iter_mut().zip(low).zip(high.iter()) {
                    *o = x | y;
                }
            }
        }
    }
}

/// Transposes a 64×64 bit matrix in place: afterwards bit `e` of `a[b]` is what bit `b` of
/// `a[e]` was. Six rounds of masked swaps of ever smaller sub-squares (Hacker's Delight, 7-3),
/// each round a loop over whole runs of rows with a constant stride, so that the rounds of
/// 32, 16, 8 and 4 rows compile to vector operations.
#[inline(always)]
pub(super) fn transpose64(a: &mut [u64; 64]) {
    swap_round::<32>(a, 0x0000_0000_ffff_ffff);
    swap_round::<16>(a, 0x0000_ffff_0000_ffff);
    swap_round::<8>(a, 0x00ff_00ff_00ff_00ff);
    swap_round::<4>(a, 0x0f0f_0f0f_0f0f_0f0f);
    swap_round::<2>(a, 0x3333_3333_3333_3333);
    swap_round::<1>(a, 0x5555_5555_5555_5555);
}

/// One round of [`transpose64`]: in each run of `2 * J` rows, the bits of mask `m` of the
/// second half swap with the bits `J` places above them in the first half.
#[inline(always)]
fn swap_round<const J: usize>(a: &mut [u64; 64], m: u64) {
    for run in a.chunks_exact_mut(2 * J) {
        let (lo, hi) = run.split_at_mut(J);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let t = ((*x >> J) ^ *y) & m;
            *x ^= t << J;
            *y ^= t;
        }
    }
}

/// The portable build of the query loop.
#[inline(always)]
pub(super) fn query_any<W: Rest>(shape: Shape, queries: &[W], tables: &[u64]) -> u64 {
    by_chunks!(shape.chunks, query_words(queries, tables, shape))
}

/// The first word of pattern `p`'s row in each chunk: chunk `j`'s rows start at
/// `j * 2^width * words` words, value `v`'s row at `v * words` within them. Checks that the
/// tables hold `C` chunks, so every row `[at[j], at[j] + words)` is inside them.
#[inline(always)]
pub(super) fn row_offsets<const C: usize>(tables: &[u64], p: u64, shape: Shape) -> [usize; C] {
    let per = shape.per_chunk();
    assert!(tables.len() >= C * per && shape.width < 64);
    let mask = (1usize << shape.width) - 1;
    let mut at = [0usize; C];
    for (j, a) in at.iter_mut().enumerate() {
        let v = ((p >> (shape.width * j)) as usize) & mask;
        *a = j * per + v * shape.words;
    }
    at
}

/// For each query, ORs one table row per chunk, a word at a time, and counts the candidates
/// left clear: the portable build of the query loop.
#[inline(always)]
pub(super) fn query_words<const C: usize, W: Rest>(
    queries: &[W],
    tables: &[u64],
    shape: Shape,
) -> u64 {
    let words = shape.words;
    let mut set = 0u64;
    for p in queries.iter().map(|q| q.wide()) {
        let at = row_offsets::<C>(tables, p, shape);
        for w in 0..words {
            let mut x = tables[at[0] + w];
            for &j in &at[1..] {
                x |= tables[j + w];
            }
            set += u64::from(x.count_ones());
        }
    }
    (queries.len() * words * 64) as u64 - set
}
