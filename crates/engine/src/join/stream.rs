//! The matching of a unit too large to hold ([`count_streamed`]): its sides are read again
//! from the quadrant partitions for each pass, so that a thread holds the smaller side sorted
//! and one group of table bins at a time, with the split, the dealing and the counts of
//! the sides held whole ([`super::sieve`]; `results/join-log.md`, section 18).

use std::sync::atomic::AtomicBool;

use super::deal::deal;
use super::probe::{Phase, Phases, mark};
use super::rows::Rest;
use super::sieve::{Matching, Part};
use super::split::{Split, Stats};
use super::tables::{Sorted, Tables};

/// One side of a unit made anew each time it is read, buffer by buffer, always in the same
/// order ([`count_streamed`]).
pub(super) trait Source {
    /// Hands the side's patterns to `f`, a buffer at a time; `None` if the stop flag rose.
    fn each(&mut self, f: &mut dyn FnMut(&[u64])) -> Option<()>;
}

/// Table patterns a streamed matching holds at once: its table bins are made and matched
/// a group at a time, each group read off the table side anew (`results/join-log.md`,
/// section 18).
pub(super) const GROUP_PATTERNS: usize = 1 << 24;

/// Slices of one unit a worker takes in a row: the run's pool deals a unit's slices in blocks
/// of this many, and the cost of a streamed unit's reads depends on it.
pub const SLICES_A_BLOCK: usize = 16;

/// How many times a whole unit cut into `of` slices does the reads of a streamed probe that
/// read its table side once of `groups` ([`count_streamed`]), the unit's blocks of
/// [`SLICES_A_BLOCK`] slices dealt to `workers` workers at once, one after another (the
/// run's order keeps them together). [`Phase::Reading`]: once for each worker that takes a
/// block of the unit, as each keeps the sorted queries for its next block of it.
/// [`Phase::Gathering`]: a block reads again each group whose border it crosses, and the one
/// it starts in unless the worker holds it from its last block, which lay `workers - 1`
/// blocks before (so a lone worker reads each group once).
pub(super) fn read_scales(groups: usize, of: f64, workers: usize) -> [(Phase, f64); 2] {
    let block = SLICES_A_BLOCK as f64;
    let of = of.max(1.0);
    let blocks = (of / block).ceil();
    let readers = blocks.min(workers.max(1) as f64);
    // The borders of groups one block crosses, on average.
    let crossed = groups as f64 * block.min(of) / of;
    let gathers = blocks * (crossed + (crossed * (readers - 1.0)).min(1.0));
    [(Phase::Reading, readers), (Phase::Gathering, gathers)]
}

/// [`count`] of a share of two sides too large to hold whole: the queries are held sorted by
/// bin, and the table side is read again for each group of its bins, at most `most`
/// patterns ([`GROUP_PATTERNS`]), that the share may match. A probe (one slice of the
/// matching, its phases marked on `phases`) reads the table side once, for the bins it
/// matches alone. The split, the dealing and so the count of every slice are those of
/// [`count`] on the same sides held whole. With `part.sorted`, `t` holds the split, the
/// sorted queries and the last group of the previous call on the same sides, and `stats` are
/// not used. Returns the count, the groups the table side is read in for a whole unit and the
/// scales of the tables and queries ([`Matching::scales`]).
pub(super) fn count_streamed(
    (table, queries): (&mut dyn Source, &mut dyn Source),
    stats: Option<(&Stats, &Stats)>,
    (bits, most): (usize, usize),
    t: &mut Tables,
    stop: &AtomicBool,
    (part, mut phases): (Part, Option<&mut dyn Phases>),
) -> Option<(u64, usize, (f64, f64))> {
    #[cfg(test)]
    super::split::SIEVED.set(super::split::SIEVED.get() + 1);
    if !(part.sorted && t.split.is_some()) {
        t.split = None;
        t.group = None;
        let (ts, qs) = stats.expect("the sides' figures, unless sorted before");
        let split = Split::choose(ts, qs, bits);
        count_by_bin(table, &split, &mut t.table_starts)?;
        count_by_bin(queries, &split, &mut t.query_starts)?;
        // The rests in as few bits as hold them, the last unit's let go first.
        t.sorted = Sorted::default();
        let starts = &t.query_starts;
        t.sorted = match held_bits(&split) {
            32 => Sorted::Narrow(sort_by_bin(queries, &split, starts)?),
            40 => Sorted::Five(sort_by_bin(queries, &split, starts)?),
            _ => Sorted::Wide(sort_by_bin(queries, &split, starts)?),
        };
        #[cfg(test)]
        HELD_AS.set({
            let mut as_ = HELD_AS.get();
            as_[match t.sorted {
                Sorted::Narrow(_) => 0,
                Sorted::Five(_) => 1,
                Sorted::Wide(_) => 2,
            }] += 1;
            as_
        });
        t.split = Some(split);
    }
    mark(&mut phases, Phase::Matching);
    let Tables {
        rows,
        table: group,
        sorted,
        table_starts,
        query_starts,
        split,
        runs,
        group: held,
        ..
    } = t;
    let split = split.as_ref().expect("sorted above or by the last call");
    let dealer = deal(part.slice, table_starts, query_starts, split.bins());
    let buffers = Buffers {
        starts: (table_starts, query_starts),
        dealer: dealer.as_ref(),
        rows,
        runs,
        group,
        held,
    };
    let how = (table, split, most, stop);
    match sorted {
        Sorted::Narrow(v) => match_groups(how, buffers, v, part, phases),
        Sorted::Five(v) => match_groups(how, buffers, v, part, phases),
        Sorted::Wide(v) => match_groups(how, buffers, v, part, phases),
    }
}

/// The bits each sorted query of `split` is held in ([`super::rows::Rest`]): 32, 40 or 64.
fn held_bits(split: &Split) -> usize {
    let bits = split.rest_bits();
    #[cfg(test)]
    let bits = bits.max(HELD_BITS.get());
    [32, 40].into_iter().find(|&b| bits <= b).unwrap_or(64)
}

#[cfg(test)]
thread_local! {
    /// Tests: a streamed matching's rests held as if they had at least this many bits, so that
    /// small boards take the paths of 40- and 64-bit rests.
    pub(super) static HELD_BITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Tests: the streamed matchings whose queries were sorted into 32, 40 and 64-bit rests.
    pub(super) static HELD_AS: std::cell::Cell<[usize; 3]> = const { std::cell::Cell::new([0; 3]) };
}

/// The buffers a streamed matching runs on: the bin starts of both sides, the dealer of its
/// share, the tables' rows and runs, and the group of table bins it holds.
struct Buffers<'a> {
    starts: (&'a [usize], &'a [usize]),
    dealer: Option<&'a (super::deal::Dealer, Vec<u64>)>,
    rows: &'a mut Vec<u64>,
    runs: &'a mut Vec<(usize, usize)>,
    group: &'a mut Vec<u64>,
    held: &'a mut Option<(usize, usize)>,
}

/// The matching of [`count_streamed`] once the queries are sorted (`sorted`, their rests
/// held as `W`): the table side gathered a group at a time, or once for a probe.
fn match_groups<W: Rest>(
    (table, split, most, stop): (&mut dyn Source, &Split, usize, &AtomicBool),
    b: Buffers<'_>,
    sorted: &[W],
    part: Part,
    phases: Option<&mut dyn Phases>,
) -> Option<(u64, usize, (f64, f64))> {
    let (table_starts, query_starts) = b.starts;
    let (group, held) = (b.group, b.held);
    let probing = phases.is_some();
    let mut m = Matching::new(
        split,
        (table_starts, sorted, query_starts),
        b.dealer,
        (b.rows, b.runs),
    );
    let ranges = groups(table_starts, most);
    let mut total = 0;
    m.phases = phases.map(|p| p as &mut dyn Phases);
    if probing {
        // The bins the probe matches, gathered in one read of the table side.
        let touched = m.touched();
        *held = None;
        mark(&mut m.phases, Phase::Gathering);
        gather(table, split, table_starts, &touched, group)?;
        mark(&mut m.phases, Phase::Matching);
        let (mut next, mut from) = (0, 0);
        for r in touched {
            m.pass_over(next..r.start);
            let size = table_starts[r.end] - table_starts[r.start];
            total += m.bins(r.clone(), &group[from..from + size], stop)?;
            (next, from) = (r.end, from + size);
        }
    } else {
        for range in ranges.iter().cloned() {
            if m.skip(range.clone()) {
                continue;
            }
            if *held != Some((range.start, range.end)) {
                *held = None;
                gather(
                    table,
                    split,
                    table_starts,
                    std::slice::from_ref(&range),
                    group,
                )?;
                *held = Some((range.start, range.end));
            }
            total += m.bins(range, group, stop)?;
        }
    }
    Some((total, ranges.len(), m.scales(part.slice)))
}

/// Reads a side again and returns the rests of its patterns sorted by bin, as `starts` lays
/// them out.
fn sort_by_bin<W: Rest>(side: &mut dyn Source, split: &Split, starts: &[usize]) -> Option<Vec<W>> {
    let mut out = vec![W::default(); *starts.last().expect("a start per bin and one")];
    let mut next = starts[..split.bins()].to_vec();
    side.each(&mut |buffer| split.scatter::<true, W>(buffer, 0, &mut next, &mut out))?;
    Some(out)
}

/// Reads the table side once and gathers the rests of the bins `ranges` (in increasing
/// order, apart from each other) into `out`: each bin as `starts` lays it out, each range
/// right after the one before.
fn gather(
    table: &mut dyn Source,
    split: &Split,
    starts: &[usize],
    ranges: &[std::ops::Range<usize>],
    out: &mut Vec<u64>,
) -> Option<()> {
    out.clear();
    let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
        return Some(());
    };
    let (lo, hi) = (first.start, last.end);
    // Where the next pattern of each bin between the ranges goes (none between them).
    let mut next = vec![usize::MAX; hi - lo];
    for r in ranges {
        let at = out.len();
        for a in r.clone() {
            next[a - lo] = at + starts[a] - starts[r.start];
        }
        out.resize(at + starts[r.end] - starts[r.start], 0);
    }
    table.each(&mut |buffer| split.scatter::<false, u64>(buffer, lo, &mut next, out))
}

/// The bin counts of a streamed side as starts: bin `c` is `starts[c]..starts[c + 1]`.
fn count_by_bin(side: &mut dyn Source, split: &Split, starts: &mut Vec<usize>) -> Option<()> {
    starts.clear();
    starts.resize(split.bins() + 1, 0);
    side.each(&mut |buffer| split.count(buffer, starts))?;
    for c in 1..starts.len() {
        starts[c] += starts[c - 1];
    }
    Some(())
}

/// The bins cut into runs of consecutive bins of at most `most` patterns each (a bin
/// larger than that is a run of its own).
fn groups(starts: &[usize], most: usize) -> Vec<std::ops::Range<usize>> {
    let bins = starts.len() - 1;
    let mut out = Vec::new();
    let mut from = 0;
    for c in 1..=bins {
        if starts[c] - starts[from] > most && c - 1 > from {
            out.push(from..c - 1);
            from = c - 1;
        }
    }
    if from < bins {
        out.push(from..bins);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::super::tests::streaming;
    use super::super::{
        Phase, Phases, Probe, Quadrants, SCRATCH, Slice, Unit, count_unit, count_unit_with,
        matching, sieve, unit_sides, units,
    };
    use super::read_scales;

    /// The scales a probe settled its row sets with.
    #[derive(Default)]
    struct Settled(Vec<Vec<(Phase, f64)>>);

    impl Phases for Settled {
        fn begin(&mut self, _: Phase) {}
        fn settle(&mut self, scales: &[(Phase, f64)]) {
            self.0.push(scales.to_vec());
        }
    }

    /// Some units of n = 16 and 18 whose sides are sieved, each with its board's quadrants
    /// and the size of its larger side.
    fn sieved_units(mut each: impl FnMut(usize, &Quadrants, &Unit, usize)) {
        for n in [16, 18] {
            let q = Quadrants::bounded(n, 1 << 20);
            let all = units(n);
            for (u, _) in all.iter().step_by(all.len() / 9) {
                let (east, west) = unit_sides(&q, u);
                let (small, large) = (east.len().min(west.len()), east.len().max(west.len()));
                if matching::sieved(small, large) {
                    each(n, &q, u, large);
                }
            }
        }
    }

    /// `probe` of `unit`, streamed in table groups of 2^10 patterns: the pairs it found and
    /// the scales its one row set settled with.
    fn probe_streamed(q: &Quadrants, unit: &Unit, probe: Probe) -> (u64, Vec<(Phase, f64)>) {
        let never = AtomicBool::new(false);
        let mut settled = Settled::default();
        let got = streaming(Some((0, 1 << 10)), || {
            SCRATCH.with(|s| {
                let how = (Some(probe), &mut settled as &mut dyn Phases);
                count_unit_with(q, unit, &mut s.borrow_mut(), &never, how)
            })
        });
        let found = got.expect("never stopped");
        let [scales] = &settled.0[..] else {
            panic!("one row set, settled once: {:?}", settled.0);
        };
        (found.count, scales.clone())
    }

    #[test]
    fn a_probe_times_the_ties_of_the_quarter_turns_as_the_units_first_slice_counts_them() {
        // With the quarter turns, a row set's half-boards at its value (the ties) are
        // counted with the unit's first slice; a probe of any slice whose seed is a multiple
        // of 4 times them apart, and stands for a 64th of them four times over.
        let n = 16;
        let q = Quadrants::bounded_turning(n, 1 << 20, true);
        let never = AtomicBool::new(false);
        let mut checked = 0;
        let all = units(n);
        let probed = |unit: &Unit, seed| {
            let mut settled = Settled::default();
            let probe = Probe {
                row_sets: 1,
                bins: 1,
                seed,
                workers: 1,
            };
            let got = streaming(Some((0, 1 << 10)), || {
                SCRATCH.with(|s| {
                    let how = (Some(probe), &mut settled as &mut dyn Phases);
                    count_unit_with(&q, unit, &mut s.borrow_mut(), &never, how)
                })
            });
            (got.expect("never stopped").count, settled.0)
        };
        for (u, _) in all.iter().step_by(all.len() / 9) {
            let unit = Unit {
                slice: Slice { index: 5, of: 64 },
                ..*u
            };
            let (count, settled) = probed(&unit, 0);
            let [_, ties] = &settled[..] else {
                continue;
            };
            assert_eq!(ties, &[(Phase::Matching, 4.0 / 64.0)], "{u:?}");
            // A probe of another seed leaves them out; neither counts them.
            let (other, settled) = probed(&unit, 4 * 7 + 1);
            assert_eq!(settled.len(), 1, "{u:?}");
            assert!(count + other <= 2 * count_unit(&q, u).count, "{u:?}");
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} units with ties probed");
    }

    #[test]
    fn a_probe_matches_the_slice_it_stands_for() {
        // Units streamed in table groups of 2^10 patterns: a probe gathers the bins it
        // matches in one read of the table side and must match exactly the pairs of the
        // slice it stands for (its offset of `stride`); its reads stand for a whole unit's,
        // its half-boards (read, never made) for none.
        let mut checked = 0;
        sieved_units(|n, q, u, large| {
            let bins = 3;
            let stride = (sieve::bins_for(large) / bins).max(1);
            for seed in [0, 7] {
                let probe = Probe {
                    row_sets: 1,
                    bins,
                    seed,
                    workers: 1,
                };
                let (found, scales) = probe_streamed(q, u, probe);
                let of = |p| scales.iter().find(|s| s.0 == p).map_or(0.0, |s| s.1);
                assert_eq!(of(Phase::Reading), 1.0, "{scales:?}");
                assert!(of(Phase::Gathering) >= 1.0, "{scales:?}");
                assert_eq!(of(Phase::Sides) + of(Phase::Partitions), 0.0, "{scales:?}");
                let slice = Slice {
                    index: (seed % stride) as u64,
                    of: stride as u64,
                };
                let want = count_unit(q, &Unit { slice, ..*u }).count;
                assert_eq!(found, want, "n = {n}, {u:?}, seed {seed}");
                checked += usize::from(want > 0);
            }
        });
        assert!(checked >= 4, "only {checked} probes held a fitting pair");
    }

    #[test]
    fn a_probe_of_a_slice_reads_for_its_share_of_the_runs_blocks() {
        // A run deals the 64 slices of a streamed unit in blocks of 16 to its workers, each
        // of which reads the sides once: as many reads as workers, 4 at most, of which a probe
        // of one slice stands for a 64th, whatever share of the matching the probe itself
        // matches.
        let mut checked = 0;
        sieved_units(|n, q, u, _| {
            if u.span != 1 {
                return;
            }
            let of = 64;
            let unit = Unit {
                slice: Slice { index: 5, of },
                ..*u
            };
            for (bins, workers, reads) in [(1, 1, 1.0), (3, 2, 2.0), (1, 8, 4.0)] {
                let probe = Probe {
                    row_sets: 1,
                    bins,
                    seed: 0,
                    workers,
                };
                let (_, scales) = probe_streamed(q, &unit, probe);
                let reading = scales.iter().find(|s| s.0 == Phase::Reading).map(|s| s.1);
                assert_eq!(
                    reading,
                    Some(reads / of as f64),
                    "n = {n}, {u:?}, bins {bins}, workers {workers}"
                );
                checked += 1;
            }
        });
        assert!(checked >= 6, "only {checked} probes checked");
    }

    #[test]
    fn a_lone_worker_gathers_each_group_once_and_more_workers_more_often() {
        let groups = 10;
        let gathers = |of: f64, workers| read_scales(groups, of, workers)[1].1;
        // One block: the whole unit, each group once.
        assert_eq!(gathers(8.0, 1), 10.0);
        assert_eq!(gathers(8.0, 4), 10.0);
        // 160 slices in 10 blocks, each crossing one border on average.
        assert_eq!(gathers(160.0, 1), 10.0);
        assert_eq!(gathers(160.0, 2), 20.0);
        // Groups of 1,600 slices: a worker mostly holds the group of its next block.
        assert!(
            (gathers(16_000.0, 2) - 20.0).abs() < 1e-9,
            "{}",
            gathers(16_000.0, 2)
        );
        assert!(gathers(16_000.0, 1000) > 1000.0);
    }
}
