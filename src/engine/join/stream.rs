//! The matching of a unit too large to hold ([`count_streamed`]): its sides are read again
//! from the quadrant partitions for each pass, so that a thread holds the smaller side sorted
//! and one group of table classes at a time, with the split, the dealing and the counts of
//! the sides held whole ([`super::sieve`]; `results/join-log.md`, section 18).

use std::sync::atomic::AtomicBool;

use super::matching::Tables;
use super::sieve::{Matching, Part, Share, deal};
use super::split::{Split, Stats};

/// One side of a unit made anew each time it is read, block by block, always in the same
/// order ([`count_streamed`]).
pub(super) trait Source {
    /// Hands the side's patterns to `f`, a block at a time; `None` if the stop flag rose.
    fn each(&mut self, f: &mut dyn FnMut(&[u64])) -> Option<()>;
}

/// Table patterns a streamed matching holds at once: its table classes are made and matched
/// a group at a time, each group read off the table side anew (`results/join-log.md`,
/// section 18).
pub(super) const GROUP_PATTERNS: usize = 1 << 24;

/// [`count`] (with a slice, or with a sample, [`time`]: then the seconds of reading and
/// sorting the sides and the projected seconds of the matching) of two sides too large to
/// hold whole: the queries are held sorted by class, and the table side is read again for each
/// group of its classes, at most `most` patterns ([`GROUP_PATTERNS`]), that the share may match. The
/// split, the dealing and so the count of every slice are those of [`count`] on the same
/// sides held whole. With `part.sorted`, `t` holds the split, the sorted queries and the
/// last group of the previous call on the same sides, and `stats` are not used.
#[allow(clippy::too_many_arguments)]
pub(super) fn count_streamed(
    table: &mut dyn Source,
    queries: &mut dyn Source,
    stats: Option<(&Stats, &Stats)>,
    (bits, most): (usize, usize),
    t: &mut Tables,
    stop: &AtomicBool,
    share: Share,
) -> Option<(u64, f64, f64)> {
    let begun = std::time::Instant::now();
    let reuse = matches!(share, Share::Slice(Part { sorted: true, .. })) && t.split.is_some();
    if !reuse {
        t.split = None;
        t.group = None;
        let (ts, qs) = stats.expect("the sides' figures, unless sorted before");
        let split = Split::choose(ts, qs, bits);
        count_by_class(table, &split, &mut t.table_starts)?;
        count_by_class(queries, &split, &mut t.query_starts)?;
        let (starts, out) = (&t.query_starts, &mut t.queries);
        out.clear();
        out.resize(*starts.last().expect("a start per class and one"), 0);
        let mut next = starts[..split.classes()].to_vec();
        queries.each(&mut |block| {
            for &p in block {
                let c = split.class(p);
                out[next[c]] = split.rest(p);
                next[c] += 1;
            }
        })?;
        t.split = Some(split);
    }
    let mut sorted = begun.elapsed().as_secs_f64();
    let Tables {
        rows,
        table: group,
        queries: sorted_queries,
        table_starts,
        query_starts,
        split,
        runs,
        group: held,
    } = t;
    let split = split.as_ref().expect("sorted above or by the last call");
    let classes = split.classes();
    let dealer = deal(share, table_starts, query_starts, classes);
    let mut m = Matching::new(
        split,
        (table_starts, sorted_queries, query_starts),
        dealer.as_ref(),
        (rows, runs),
    );
    let mut total = 0;
    for range in groups(table_starts, most) {
        if m.skip(range.clone()) {
            continue;
        }
        if *held != Some((range.start, range.end)) {
            let made = std::time::Instant::now();
            *held = None;
            let (from, to) = (table_starts[range.start], table_starts[range.end]);
            group.clear();
            group.resize(to - from, 0);
            let mut next: Vec<usize> = table_starts[range.clone()]
                .iter()
                .map(|&x| x - from)
                .collect();
            let (lo, hi) = (range.start, range.end);
            table.each(&mut |block| {
                for &p in block {
                    let c = split.class(p);
                    if (lo..hi).contains(&c) {
                        group[next[c - lo]] = split.rest(p);
                        next[c - lo] += 1;
                    }
                }
            })?;
            *held = Some((lo, hi));
            sorted += made.elapsed().as_secs_f64();
        }
        total += m.classes(range, group, stop)?;
    }
    let matched = begun.elapsed().as_secs_f64() - sorted;
    Some((total, sorted, m.scale(share) * matched))
}

/// The class counts of a streamed side as starts: class `c` is `starts[c]..starts[c + 1]`.
fn count_by_class(side: &mut dyn Source, split: &Split, starts: &mut Vec<usize>) -> Option<()> {
    starts.clear();
    starts.resize(split.classes() + 1, 0);
    side.each(&mut |block| {
        for &p in block {
            starts[split.class(p) + 1] += 1;
        }
    })?;
    for c in 1..starts.len() {
        starts[c] += starts[c - 1];
    }
    Some(())
}

/// The classes cut into runs of consecutive classes of at most `most` patterns each (a class
/// larger than that is a run of its own).
fn groups(starts: &[usize], most: usize) -> Vec<std::ops::Range<usize>> {
    let classes = starts.len() - 1;
    let mut out = Vec::new();
    let mut from = 0;
    for c in 1..=classes {
        if starts[c] - starts[from] > most && c - 1 > from {
            out.push(from..c - 1);
            from = c - 1;
        }
    }
    if from < classes {
        out.push(from..classes);
    }
    out
}
