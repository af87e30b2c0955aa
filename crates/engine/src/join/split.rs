//! Which bits a unit's patterns are sieved by ([`super::sieve`]): the sieve bits both sides
//! set most often, as many as the table side's size allows, and the rest of each pattern
//! without them and without the bits one side never sets; chosen from figures a side held
//! whole or read buffer by buffer gives alike (`results/join-log.md`, section 18).

use super::rows::Rest;

/// The most sieve bits: at most 2^`MAX_SIEVE` bins.
pub(super) const MAX_SIEVE: usize = 20;

/// The table side is sieved by as many bits (up to [`MAX_SIEVE`]) as leave at least this
/// many table patterns per bin on average; smaller bins spend more on their tables and
/// loop set-up than the sieve saves (`results/join-log.md`, sections 15 and 18).
const MIN_BIN: usize = 384;
/// Sides smaller than this are not sieved: sorting them and building one set of tables per
/// bin costs more than the sieve saves (n = 16 and 18, `results/join-log.md`, section 15).
const MIN_SIEVE: usize = 8192;

/// How a unit's patterns are sieved: `k` sieve bits make the bin (bin bit `i` is pattern
/// bit `sieve[i]`), and the other bits that both sides use make the rest, in order; bits that
/// one side never sets cannot clash and are dropped. Both are gathered a byte at a time
/// through tables, or, where the processor has a fast `pext`, by it ([`Pext`]).
#[derive(Clone, Debug)]
pub(super) struct Split {
    pub(super) k: usize,
    rest_bits: usize,
    bin_lut: Box<[[u32; 256]; 8]>,
    rest_lut: Box<[[u64; 256]; 8]>,
    #[cfg(target_arch = "x86_64")]
    pext: Option<Pext>,
}

impl Split {
    /// The split with bin bits `sieve` (bin bit `i` is pattern bit `sieve[i]`) and, as the
    /// rest, the other bits of `keep` in increasing order.
    pub(super) fn new(sieve: &[usize], keep: u64) -> Split {
        Split::with(sieve, keep, fast_pext())
    }

    /// [`Split::new`], its bins and rests found by `pext` if `pext` (only where the processor
    /// has `bmi2`) and the sieve bits are at most [`MAX_SIEVE`] (more are made in tests
    /// only), else through the byte tables.
    fn with(sieve: &[usize], keep: u64, pext: bool) -> Split {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = pext;
        let sieve_mask = sieve.iter().fold(0u64, |m, &b| m | 1 << b);
        let rest = keep & !sieve_mask;
        let mut bin_lut = Box::new([[0u32; 256]; 8]);
        let mut rest_lut = Box::new([[0u64; 256]; 8]);
        // Each pattern bit's place in the bin or in the rest; a byte's entry is the OR of
        // its lowest bit's and the rest's (one OR an entry).
        let mut bin_bit = [0u32; 64];
        for (i, &b) in sieve.iter().enumerate() {
            bin_bit[b] = 1 << i;
        }
        let mut rest_bit = [0u64; 64];
        let mut next = 0;
        for (b, slot) in rest_bit.iter_mut().enumerate() {
            if rest >> b & 1 == 1 {
                *slot = 1 << next;
                next += 1;
            }
        }
        for (j, (cl, rl)) in bin_lut.iter_mut().zip(rest_lut.iter_mut()).enumerate() {
            for v in 1..256usize {
                let low = v.trailing_zeros() as usize;
                let up = v & (v - 1);
                cl[v] = cl[up] | bin_bit[8 * j + low];
                rl[v] = rl[up] | rest_bit[8 * j + low];
            }
        }
        Split {
            k: sieve.len(),
            rest_bits: rest.count_ones() as usize,
            bin_lut,
            rest_lut,
            #[cfg(target_arch = "x86_64")]
            pext: (pext && sieve.len() <= 2 * ORDER_BITS)
                .then(|| Pext::new(sieve, sieve_mask, rest)),
        }
    }

    /// The split of a table side and its queries (`bits`-bit patterns), from their
    /// [`Stats`]: as many sieve bits as [`sieve_bits`] allows, the ones both sides set most
    /// often (their densities multiplied), which cut the candidate pairs most per bit
    /// (`results/join-log.md`, section 18). Depends on the patterns alone.
    pub(super) fn choose(table: &Stats, queries: &Stats, bits: usize) -> Split {
        let all = if bits >= 64 { !0 } else { (1u64 << bits) - 1 };
        let keep = table.or & queries.or & all;
        let (dt, dq) = (&table.ones, &queries.ones);
        let mut order: Vec<usize> = (0..64).filter(|&b| keep >> b & 1 == 1).collect();
        order.sort_by_key(|&b| (std::cmp::Reverse(u128::from(dt[b]) * u128::from(dq[b])), b));
        order.truncate(sieve_bits(table.len));
        // The table side's sparsest sieve bits become the low bin bits, so that the
        // query bins fitting a table bin often make long runs (see `fitting_runs`).
        order.sort_by_key(|&b| (dt[b], b));
        Split::new(&order, keep)
    }

    /// Number of bins.
    pub(super) fn bins(&self) -> usize {
        1 << self.k
    }

    /// The bin of a pattern: its sieve bits.
    #[inline]
    pub(super) fn bin(&self, p: u64) -> usize {
        let mut c = 0;
        for (j, lut) in self.bin_lut.iter().enumerate() {
            c |= lut[((p >> (8 * j)) & 0xff) as usize];
        }
        c as usize
    }

    /// The pattern's kept bits other than its sieve bits, gathered into the low bits.
    #[inline]
    pub(super) fn rest(&self, p: u64) -> u64 {
        let mut r = 0;
        for (j, lut) in self.rest_lut.iter().enumerate() {
            r |= lut[((p >> (8 * j)) & 0xff) as usize];
        }
        r
    }

    /// Adds each of `patterns` to its bin's count, `starts[bin + 1]`.
    pub(super) fn count(&self, patterns: &[u64], starts: &mut [usize]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(x) = &self.pext {
            // SAFETY: a `Pext` is made only where the processor has `bmi2` (`fast_pext`).
            return unsafe { x.count(patterns, starts) };
        }
        count_with(patterns, starts, |p| self.bin(p));
    }

    /// Writes the rest of each of `patterns` whose bin `c` is in `lo..lo + next.len()` to
    /// `out[next[c - lo]]` and moves that place on; bins whose place is `usize::MAX` are
    /// passed over, as are bins out of the range. `ALL`: every pattern's bin is in the range
    /// and has a place (a whole side sorted), so neither is checked.
    pub(super) fn scatter<const ALL: bool, W: Rest>(
        &self,
        patterns: &[u64],
        lo: usize,
        next: &mut [usize],
        out: &mut [W],
    ) {
        assert!(self.rest_bits <= W::BITS, "rests too wide to hold");
        #[cfg(target_arch = "x86_64")]
        if let Some(x) = &self.pext {
            // SAFETY: a `Pext` is made only where the processor has `bmi2` (`fast_pext`).
            return unsafe { x.scatter::<ALL, W>(patterns, lo, next, out) };
        }
        scatter_with::<ALL, W>(patterns, (lo, next, out), |p| self.bin(p), |p| self.rest(p));
    }

    /// Bits in a rest.
    pub(super) fn rest_bits(&self) -> usize {
        self.rest_bits
    }
}

/// The counting loop of [`Split::count`], for either way of finding a bin.
#[inline(always)]
fn count_with(patterns: &[u64], starts: &mut [usize], bin: impl Fn(u64) -> usize) {
    for &p in patterns {
        starts[bin(p) + 1] += 1;
    }
}

/// The loop of [`Split::scatter`], for either way of finding a bin and a rest.
#[inline(always)]
fn scatter_with<const ALL: bool, W: Rest>(
    patterns: &[u64],
    (lo, next, out): (usize, &mut [usize], &mut [W]),
    bin: impl Fn(u64) -> usize,
    rest: impl Fn(u64) -> u64,
) {
    for &p in patterns {
        let c = bin(p).wrapping_sub(lo);
        if ALL || next.get(c).is_some_and(|&at| at != usize::MAX) {
            out[next[c]] = W::held(rest(p));
            next[c] += 1;
        }
    }
}

/// Whether this processor has a fast `pext` (BMI2): every one that has it but AMD's and
/// Hygon's before Zen 3 (family 19h), where it is microcoded, hundreds of cycles, far slower
/// than the byte tables (AMD's *Software Optimization Guide for Family 17h*, instruction
/// latencies). Found once.
fn fast_pext() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *FAST.get_or_init(|| {
            use std::arch::x86_64::__cpuid;
            if !std::arch::is_x86_feature_detected!("bmi2") {
                return false;
            }
            let v = __cpuid(0);
            let vendor = [v.ebx, v.edx, v.ecx].map(u32::to_le_bytes).concat();
            if vendor != b"AuthenticAMD" && vendor != b"HygonGenuine" {
                return true;
            }
            let f = __cpuid(1).eax;
            let base = (f >> 8) & 0xf;
            let family = if base == 0xf {
                base + ((f >> 20) & 0xff)
            } else {
                base
            };
            family >= 0x19
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A split's bins and rests by `pext`: the rest is the kept bits other than the sieve bits
/// in increasing order, which is what `pext` gathers; the bin numbers the sieve bits in the
/// sieve's order (densest first, not by place), so the sieve bits gathered by `pext` are
/// renumbered through two tables of 10 bits each. Made only where `bmi2` is there.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Debug)]
struct Pext {
    sieve: u64,
    rest: u64,
    order: Box<[[u32; 1 << ORDER_BITS]; 2]>,
}

/// The sieve bits each of [`Pext`]'s renumbering tables takes: two cover [`MAX_SIEVE`].
#[cfg(target_arch = "x86_64")]
const ORDER_BITS: usize = 10;
#[cfg(target_arch = "x86_64")]
const _: () = assert!(2 * ORDER_BITS >= MAX_SIEVE);

#[cfg(target_arch = "x86_64")]
impl Pext {
    /// The split of sieve bits `sieve` (their mask `mask`) and rest `rest`.
    fn new(sieve: &[usize], mask: u64, rest: u64) -> Pext {
        // Bit `j` of the gathered sieve bits is the `j`-th lowest sieve bit: its bin bit.
        let place: Vec<usize> = (0..64)
            .filter(|&b| mask >> b & 1 == 1)
            .map(|b| sieve.iter().position(|&s| s == b).expect("a sieve bit"))
            .collect();
        let mut order = Box::new([[0u32; 1 << ORDER_BITS]; 2]);
        for (h, table) in order.iter_mut().enumerate() {
            for (v, slot) in table.iter_mut().enumerate() {
                *slot = (0..ORDER_BITS)
                    .filter(|&t| v >> t & 1 == 1)
                    .filter_map(|t| place.get(ORDER_BITS * h + t))
                    .fold(0, |o, &i| o | 1 << i);
            }
        }
        Pext {
            sieve: mask,
            rest,
            order,
        }
    }

    #[inline]
    #[target_feature(enable = "bmi2")]
    fn bin(&self, p: u64) -> usize {
        use std::arch::x86_64::_pext_u64;
        let v = _pext_u64(p, self.sieve) as usize;
        let low = self.order[0][v & ((1 << ORDER_BITS) - 1)];
        (low | self.order[1][v >> ORDER_BITS]) as usize
    }

    #[target_feature(enable = "bmi2")]
    fn count(&self, patterns: &[u64], starts: &mut [usize]) {
        count_with(patterns, starts, |p| self.bin(p));
    }

    #[target_feature(enable = "bmi2")]
    fn scatter<const ALL: bool, W: Rest>(
        &self,
        patterns: &[u64],
        lo: usize,
        next: &mut [usize],
        out: &mut [W],
    ) {
        use std::arch::x86_64::_pext_u64;
        let rest = |p| _pext_u64(p, self.rest);
        scatter_with::<ALL, W>(patterns, (lo, next, out), |p| self.bin(p), rest);
    }
}

/// What a split is chosen from: a side's length, the bits any of its patterns sets, and how
/// often each bit is set among a sample of its patterns (those whose hash falls in one
/// sixteenth), so that a side seen buffer by buffer gives the same figures as one held whole.
#[derive(Clone, Debug)]
pub(super) struct Stats {
    pub(super) len: usize,
    or: u64,
    ones: [u64; 64],
}

impl Default for Stats {
    fn default() -> Stats {
        Stats {
            len: 0,
            or: 0,
            ones: [0; 64],
        }
    }
}

impl Stats {
    /// Adds a buffer of patterns. The OR runs over every pattern; the sampled ones are first
    /// gathered without a branch (each pattern is written, and kept only if its hash falls in
    /// the sample), then their bits counted a byte at a time into byte-wide counters, as this
    /// pass is a visible part of the small units of small boards.
    pub(super) fn add(&mut self, buffer: &[u64]) {
        self.len += buffer.len();
        self.or |= buffer.iter().fold(0, |or, &p| or | p);
        // Fewer than 256 patterns a part, so no byte counter overflows.
        let mut kept = [0u64; 255];
        for part in buffer.chunks(kept.len()) {
            let mut n = 0;
            for &p in part {
                kept[n] = p;
                n += usize::from(in_sample(p));
            }
            // Byte `i` of `counts[j]` counts bit `8 * j + i`.
            let mut counts = [0u64; 8];
            for &p in &kept[..n] {
                for (j, c) in counts.iter_mut().enumerate() {
                    *c += SPREAD[((p >> (8 * j)) & 0xff) as usize];
                }
            }
            for (j, c) in counts.iter().enumerate() {
                for (i, b) in c.to_le_bytes().iter().enumerate() {
                    self.ones[8 * j + i] += u64::from(*b);
                }
            }
        }
    }

    /// The figures of a whole side.
    pub(super) fn of(side: &[u64]) -> Stats {
        let mut s = Stats::default();
        s.add(side);
        s
    }
}

/// Whether pattern `p` is among the sixteenth of a side whose bits [`Stats`] counts: by a
/// hash of the pattern alone, so a side seen whole or buffer by buffer gives the same sample.
fn in_sample(p: u64) -> bool {
    p.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60 == 0
}

/// For each byte value, one byte per bit: byte `i` is bit `i` of the value.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        let mut i = 0;
        while i < 8 {
            t[v] |= ((v as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        v += 1;
    }
    t
};

#[cfg(test)]
thread_local! {
    /// Tests: every side sieved, however small ([`pays`]), by this many bits (at most
    /// [`MAX_SIEVE`], and at most the bits both sides use), in place of [`sieve_bits`]'s
    /// choice; so that small boards take the paths of the large units of large boards.
    pub(super) static FORCED_SIEVE: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
    /// Tests: the sieved matchings counted on this thread (held or streamed, each slice
    /// once), so that a test can tell that its matchings were sieved.
    pub(super) static SIEVED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Sieve bits for a table side of `len` patterns: as many as leave [`MIN_BIN`] patterns
/// per bin on average.
pub(super) fn sieve_bits(len: usize) -> usize {
    #[cfg(test)]
    if let Some(k) = FORCED_SIEVE.get() {
        return k.min(MAX_SIEVE);
    }
    (0..=MAX_SIEVE)
        .rev()
        .find(|&k| len >> k >= MIN_BIN)
        .unwrap_or(0)
}

/// Whether sieving pays for a table side of `len` patterns (the larger side of a unit).
pub(super) fn pays(len: usize) -> bool {
    #[cfg(test)]
    if FORCED_SIEVE.get().is_some() {
        return true;
    }
    len >= MIN_SIEVE
}

/// The number of bins a table side of `len` patterns is sieved into (at most).
pub(super) fn bins_for(len: usize) -> usize {
    1 << sieve_bits(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures by their definition: the OR of every pattern, and each bit counted over
    /// the patterns whose hash falls in the sample.
    fn by_definition(side: &[u64]) -> Stats {
        let mut s = Stats {
            len: side.len(),
            ..Stats::default()
        };
        for &p in side {
            s.or |= p;
            if in_sample(p) {
                for (b, one) in s.ones.iter_mut().enumerate() {
                    *one += p >> b & 1;
                }
            }
        }
        s
    }

    /// `Split::count` and `Split::scatter` place every pattern as `bin` and `rest` say, with
    /// the byte tables and (where the processor has `bmi2`) with `pext`: sieve bits in any
    /// order and up to the most, whole sides and ranges of bins with gaps.
    #[test]
    fn counts_and_scatters_by_tables_and_by_pext_agree_with_bin_and_rest() {
        let mut rng = crate::random::XorShift::new(0x0bad_5eed_1234_5678);
        let pext = cfg!(target_arch = "x86_64") && std::arch::is_x86_feature_detected!("bmi2");
        for k in [0, 1, 5, 10, 11, MAX_SIEVE] {
            let keep = rng.next() | rng.next() | ((1 << 40) - 1);
            let mut bits: Vec<usize> = (0..64).filter(|&b| keep >> b & 1 == 1).collect();
            // A random order of the sieve bits, as `choose` orders them by density.
            for i in (1..bits.len()).rev() {
                bits.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            bits.truncate(k);
            let patterns: Vec<u64> = (0..3000).map(|_| rng.next() & rng.next() & keep).collect();
            let plain = Split::with(&bits, keep, false);
            let mut want_starts = vec![0; plain.bins() + 1];
            for &p in &patterns {
                want_starts[plain.bin(p) + 1] += 1;
            }
            let begin: Vec<usize> = (want_starts.iter())
                .scan(0, |sum, &n| {
                    *sum += n;
                    Some(*sum)
                })
                .take(plain.bins())
                .collect();
            let (lo, hi) = (plain.bins() / 3, plain.bins() - plain.bins() / 4);
            let mut ways = vec![plain.clone()];
            if pext {
                ways.push(Split::with(&bits, keep, true));
            }
            for split in &ways {
                let mut starts = vec![0; split.bins() + 1];
                split.count(&patterns, &mut starts);
                assert_eq!(starts, want_starts, "{k} bits");
                // A whole side sorted; then bins `lo..hi` but every third.
                let mut next = begin.clone();
                let mut out = vec![0; patterns.len()];
                let mut want = out.clone();
                split.scatter::<true, u64>(&patterns, 0, &mut next, &mut out);
                let mut some: Vec<usize> = (lo..hi)
                    .map(|c| {
                        if c.is_multiple_of(3) {
                            usize::MAX
                        } else {
                            begin[c]
                        }
                    })
                    .collect();
                let mut some_out = vec![0; out.len()];
                let mut some_want = some_out.clone();
                split.scatter::<false, u64>(&patterns, lo, &mut some, &mut some_out);
                let mut at = begin.clone();
                for &p in &patterns {
                    let c = plain.bin(p);
                    want[at[c]] = plain.rest(p);
                    if (lo..hi).contains(&c) && !c.is_multiple_of(3) {
                        some_want[at[c]] = plain.rest(p);
                    }
                    at[c] += 1;
                }
                assert!(out == want && next == at, "{k} bits, whole");
                assert!(some_out == some_want, "{k} bits, bins {lo}..{hi}");
            }
        }
        if !pext {
            crate::tests_support::skip(
                "this processor has no bmi2: the byte tables alone were checked",
            );
        }
    }

    #[test]
    fn stats_count_the_sample_whole_or_buffer_by_buffer() {
        let mut rng = crate::random::XorShift::new(0x1234_5678_9abc_def0);
        let side: Vec<u64> = (0..5000)
            .map(|i| {
                let x = rng.next();
                // Some patterns narrower, as a side's patterns share their high bits.
                if i % 3 == 0 { x & 0xffff_ffff_ffff } else { x }
            })
            .collect();
        let want = by_definition(&side);
        assert!(
            want.ones.iter().sum::<u64>() > 0,
            "the sample holds patterns"
        );
        let whole = Stats::of(&side);
        assert_eq!(
            (whole.len, whole.or, whole.ones),
            (want.len, want.or, want.ones)
        );
        for buffer in [1, 254, 255, 256, 1000] {
            let mut s = Stats::default();
            for part in side.chunks(buffer) {
                s.add(part);
            }
            assert_eq!(
                (s.len, s.or, s.ones),
                (want.len, want.or, want.ones),
                "{buffer}"
            );
        }
    }
}
