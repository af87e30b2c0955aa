//! The journal file: finished subproblems of one plan (or one shard of it), with their sums and a
//! checksum, read back only when everything in it checks out.
//!
//! Files name a subproblem by its entry of the plan ([`Plan::entry_count`]) and, where the run that
//! wrote it cut the entry into slices, by the slice and the number of slices: `whole` holds
//! the entries counted whole, `slices` the slices of cut ones; never by a run's id, which is
//! not stable. A run that resumes a file cuts the entries the file holds as the file says
//! ([`Journal::cuts`], [`Cut::from_files`]), and the others as it likes, so that how finely a
//! run cuts never decides which files agree.
//!
//! Format version 4 writes this. Versions 2 and 3 wrote the same, with two fields named
//! otherwise: `pieces` for `whole`, and `pieces` in the sums for `counted` (a piece is a chess
//! piece now, and only that). Their files are read, their checksums and tags checked over the
//! text as they wrote it ([`Journal::to_json`]), and they are written back in this version.
//! Version 3 counts the join units of even boards from n = 18 on with the quarter turns, a
//! plan of its own; version 2's files of those boards name the plan without the quarter
//! turns, and are counted on with it ([`Plan::before_quarter_turns`]). Version 1 numbered the
//! subproblems by the subproblems of a plan that put its cut in its hash: where that plan cut
//! no entry, its hash and numbers are version 2's, and its files are read as they are (and
//! written back in this version); where it cut some, its hash is no plan of this version's,
//! and the file is refused with [`Problem::FormatOne`].

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Key, Shard};

mod problem;

use crate::plan::{Algorithm, Cut, MOST_SLICES, Plan, PlanHash, Slice};
use crate::tally::{Counted, Sums};
pub use problem::{JournalError, Problem};

/// The kind of journal file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A checkpoint: resumed by the run that wrote it.
    Checkpoint,
    /// A shard's result file: read by the merge.
    ShardResult,
}

impl Kind {
    /// The `format` field of files of this kind.
    pub fn format(self) -> &'static str {
        match self {
            Kind::Checkpoint => "nqueens-checkpoint",
            Kind::ShardResult => "nqueens-shard-result",
        }
    }

    fn from_format(format: &str) -> Option<Kind> {
        [Kind::Checkpoint, Kind::ShardResult]
            .into_iter()
            .find(|k| k.format() == format)
    }
}

/// The contents of a journal file (fields its accessors tell of are not told again here).
/// Its fields are read through methods and changed only through methods that seal it again
/// ([`Journal::set_counted`], [`Journal::set_meta`]), so that its checksum stays true.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Journal {
    /// [`Kind::format`] of the file's kind.
    pub(crate) format: String,
    pub(crate) version: u32,
    pub(crate) n: usize,
    pub(crate) algorithm: String,
    pub(crate) split_depth: usize,
    pub(crate) plan: PlanHash,
    /// Subproblems in the whole plan (format version 1, whose subproblems were numbered by them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subproblems: Option<u64>,
    /// Entries in the whole plan (from format version 2 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) entries: Option<u64>,
    pub(crate) shard: Option<Shard>,
    /// Entries counted whole: `[entry, count, nodes]`, sorted by entry (format version 1:
    /// `[id, count, nodes]` by the plan's subproblem ids, the entries where nothing was cut).
    #[serde(alias = "pieces")]
    pub(crate) whole: Vec<(u64, u128, u64)>,
    /// Finished slices of entries cut into several: `[entry, slices, index, count, nodes]`,
    /// sorted by entry and index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) slices: Vec<(u64, u64, u64, u128, u64)>,
    pub(crate) sums: Sums,
    /// Free-form facts about the run that wrote the file (program version, host, seconds).
    #[serde(default)]
    pub(crate) meta: BTreeMap<String, String>,
    /// The keyed tag of everything above ([`Key`]), when the file was written with a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tag: Option<String>,
    /// FNV-1a of everything above, as 16 hex digits.
    pub(crate) checksum: String,
    /// The key that tags the journal each time it is sealed (never written).
    #[serde(skip)]
    pub(crate) key: Option<Key>,
    /// For a journal of which only the header was read ([`Journal::read_header`]): the
    /// file's size in bytes (never written).
    #[serde(skip)]
    pub(crate) unread: Option<u64>,
}

/// Checks the count of every one of `subproblems` (of entries of `plan`) against what a share
/// of its entry can hold ([`Plan::count_bound`]).
pub fn check_bounds<'a>(
    plan: &Plan,
    subproblems: impl IntoIterator<Item = &'a Counted>,
) -> Result<(), Problem> {
    for c in subproblems {
        let bound = plan.count_bound(&plan.entry(c.entry));
        if c.count > bound {
            return Err(Problem::CountTooLarge {
                id: c.id,
                count: c.count,
                bound,
            });
        }
    }
    Ok(())
}

/// The format version files are written in: the plan's ([`crate::plan::FORMAT_VERSION`]).
const VERSION: u32 = crate::plan::FORMAT_VERSION;

/// Files up to this size are read whole by [`Journal::read_header`]; past it, their header
/// alone first: 1 MiB, some 20,000 subproblems.
pub const HEADER_ONLY_ABOVE: u64 = 1 << 20;

/// The fact of `meta` that names the slice times of the runs that wrote a file, in seconds,
/// separated by commas.
const SLICE_SECONDS_META: &str = "slice_seconds";

/// How much of a file [`Journal::read_header`] reads for its header: its fields before the
/// subproblems take a few hundred bytes.
const HEADER_BYTES: u64 = 4096;

/// The fields of a journal that come before its subproblems, as this program writes them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    version: u32,
    n: usize,
    algorithm: String,
    split_depth: usize,
    plan: PlanHash,
    #[serde(default)]
    subproblems: Option<u64>,
    #[serde(default)]
    entries: Option<u64>,
    shard: Option<Shard>,
}

/// The header of a journal from the first bytes of its file: the JSON object up to its list
/// of subproblems (`whole`, or `pieces` before format version 4), which this program writes
/// after the header's fields; `None` if the text does not begin so. The journal returned has
/// the header's fields and nothing else.
fn header(head: &[u8]) -> Option<Journal> {
    let text = std::str::from_utf8(head)
        .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
        .ok()?;
    let end = [",\"whole\":[", ",\"pieces\":["]
        .iter()
        .filter_map(|mark| text.find(mark))
        .min()?;
    let h: Header = serde_json::from_str(&format!("{}}}", &text[..end])).ok()?;
    Some(Journal {
        format: h.format,
        version: h.version,
        n: h.n,
        algorithm: h.algorithm,
        split_depth: h.split_depth,
        plan: h.plan,
        subproblems: h.subproblems,
        entries: h.entries,
        shard: h.shard,
        whole: Vec::new(),
        slices: Vec::new(),
        sums: Sums::default(),
        meta: BTreeMap::new(),
        tag: None,
        checksum: String::new(),
        key: None,
        unread: None,
    })
}

/// Two iterators sorted by `entry`, merged in order.
fn merge_sorted<T>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
    entry: impl Fn(&T) -> u64,
) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if entry(y) < entry(x) => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

impl Journal {
    /// Whether this is a checkpoint (else a shard's result file, or a file of another kind).
    pub fn is_checkpoint(&self) -> bool {
        self.kind() == Some(Kind::Checkpoint)
    }

    /// An empty journal of `kind` for `plan` (and `shard`).
    ///
    /// ```
    /// use nqueens::persist::{Journal, Kind, Shard};
    /// use nqueens::{Algorithm, Plan};
    ///
    /// let plan = Plan::build(8, Algorithm::Symmetry, None)?;
    /// let journal = Journal::new(Kind::ShardResult, &plan, Some(Shard::new(1, 4)?));
    /// assert!(!journal.is_checkpoint());
    /// assert_eq!((journal.n(), journal.plan_hash()), (8, plan.hash()));
    /// assert_eq!((journal.shard(), journal.counted_len()), (Shard::new(1, 4).ok(), 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(kind: Kind, plan: &Plan, shard: Option<Shard>) -> Journal {
        let mut j = Journal {
            format: kind.format().to_string(),
            version: VERSION,
            n: plan.n(),
            algorithm: plan.algorithm().name().to_string(),
            split_depth: plan.split_depth(),
            plan: plan.hash(),
            subproblems: None,
            entries: Some(plan.entry_count()),
            shard,
            whole: Vec::new(),
            slices: Vec::new(),
            sums: Sums::default(),
            meta: BTreeMap::new(),
            tag: None,
            checksum: String::new(),
            key: None,
            unread: None,
        };
        j.seal();
        j
    }

    /// The same journal, tagged with `key` now and each time it changes.
    pub fn keyed(mut self, key: &Key) -> Journal {
        self.key = Some(key.clone());
        self.seal();
        self
    }

    /// The keyed tag the file carries, if any (64 hex digits).
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// Checks the journal's tag against `key`: refused when it has none
    /// (`Problem::Untagged`) or when it is not the tag `key` gives its contents
    /// (`Problem::Tag`).
    pub fn check_tag(&self, key: &Key) -> Result<(), Problem> {
        let tag = self.tag.as_deref().ok_or(Problem::Untagged)?;
        let verified = key.verifies(self.tag_message().as_bytes(), tag);
        verified.then_some(()).ok_or(Problem::Tag)
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The plan's split depth.
    pub fn split_depth(&self) -> usize {
        self.split_depth
    }

    /// The plan's hash.
    pub fn plan_hash(&self) -> PlanHash {
        self.plan
    }

    /// Entries in the whole plan (a version-1 file's subproblems, which were its entries
    /// where it is read at all).
    pub fn entries(&self) -> u64 {
        self.entries.or(self.subproblems).unwrap_or(0)
    }

    /// The format version that wrote the file.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The shard covered, if any.
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// The number of finished subproblems: entries counted whole and slices.
    pub fn counted_len(&self) -> usize {
        self.whole.len() + self.slices.len()
    }

    /// How the file's run cut the entries it holds: `(entry, slices)` in increasing order of
    /// entry, once each. A run resuming the file cuts them so (its [`Cut`]).
    pub fn cuts(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let whole = self.whole.iter().map(|p| (p.0, 1));
        let mut last = None;
        let cut = self
            .slices
            .iter()
            .filter_map(move |s| (last.replace(s.0) != Some(s.0)).then_some((s.0, s.1)));
        merge_sorted(whole, cut, |p| p.0)
    }

    /// `plan` (the file's) cut as the file cuts the entries it holds ([`Journal::cuts`]), and
    /// its other entries whole: the cut whose ids [`Journal::counted_map`] gives.
    pub fn cut_of(&self, plan: Plan) -> Cut {
        Cut::from_files(plan, self.cuts(), |_, others| vec![1; others.len()])
    }

    /// Finished subproblems as `(entry, slice, count, nodes)`, in increasing order of entry and
    /// slice; a whole entry is slice 0 of 1.
    fn entry_counts(&self) -> impl Iterator<Item = (u64, Slice, u128, u64)> + '_ {
        let whole = self.whole.iter().map(|&(e, c, k)| (e, Slice::WHOLE, c, k));
        let cut = self
            .slices
            .iter()
            .map(|&(e, of, index, c, k)| (e, Slice { index, of }, c, k));
        merge_sorted(whole, cut, |p| p.0)
    }

    /// The slice times of the runs that wrote the file (`slice_seconds` in its facts, as
    /// they cut its entries), or `default` for a file that does not say.
    pub fn slice_times(&self, default: f64) -> Vec<f64> {
        let said: Vec<f64> = self
            .meta
            .get(SLICE_SECONDS_META)
            .map(|v| v.split(',').filter_map(|t| t.trim().parse().ok()).collect())
            .unwrap_or_default();
        let said: Vec<f64> = said.into_iter().filter(|t| *t > 0.0).collect();
        if said.is_empty() { vec![default] } else { said }
    }

    /// Adds `seconds` to the slice times the file says its runs cut with.
    pub fn add_slice_time(&mut self, seconds: f64, default: f64) {
        let mut times = if self.meta.contains_key(SLICE_SECONDS_META) || self.counted_len() > 0 {
            self.slice_times(default)
        } else {
            Vec::new()
        };
        if !times.contains(&seconds) {
            times.push(seconds);
        }
        let text: Vec<String> = times.iter().map(|t| t.to_string()).collect();
        self.set_meta(SLICE_SECONDS_META, text.join(","));
    }

    /// The entries the file holds cut otherwise than `rules` say a run of this release cuts
    /// them at any of the file's slice times ([`Journal::slice_times`]), increasing: a file
    /// relabelled (a partly counted entry marked whole, a whole one marked a slice), or
    /// written by a release that cut otherwise.
    pub fn cut_otherwise(&self, plan: &Plan, rules: super::Rules) -> Vec<u64> {
        let cuts: Vec<(u64, u64)> = self.cuts().collect();
        let entries: Vec<u64> = cuts.iter().map(|c| c.0).collect();
        let mut agrees = vec![false; cuts.len()];
        for seconds in self.slice_times(rules.default_seconds) {
            let rule = (rules.slices)(plan, seconds, &entries);
            for ((ok, (_, of)), want) in agrees.iter_mut().zip(&cuts).zip(rule) {
                *ok |= *of == want;
            }
        }
        entries
            .into_iter()
            .zip(agrees)
            .filter_map(|(e, ok)| (!ok).then_some(e))
            .collect()
    }

    /// The first entry whose counts two journals of one shard (cut alike) disagree on, with
    /// each one's count of it.
    pub(crate) fn first_difference(&self, other: &Journal) -> Option<(u64, u128, u128)> {
        let mut a = self.entry_counts().peekable();
        let mut b = other.entry_counts().peekable();
        loop {
            match (a.next(), b.next()) {
                (None, None) => return None,
                (Some(x), Some(y)) if (x.0, x.1, x.2) == (y.0, y.1, y.2) => {}
                (x, y) => {
                    let entry = x.or(y).map_or(0, |p| p.0);
                    return Some((entry, x.map_or(0, |p| p.2), y.map_or(0, |p| p.2)));
                }
            }
        }
    }

    /// Sums over the subproblems (weights applied).
    pub fn sums(&self) -> &Sums {
        &self.sums
    }

    /// Facts about the run that wrote the file (program version, host, seconds).
    pub fn meta(&self) -> &BTreeMap<String, String> {
        &self.meta
    }

    /// The file's kind (checked when read).
    pub(crate) fn kind(&self) -> Option<Kind> {
        Kind::from_format(&self.format)
    }

    /// The algorithm the file names, if this program knows it.
    pub fn algorithm(&self) -> Option<Algorithm> {
        Algorithm::from_name(&self.algorithm)
    }

    /// The journal as the one line of JSON its file holds, in the field names of its version:
    /// a file of versions 1 to 3 named `whole` and the sums' `counted` both `pieces`. Those are
    /// the first `"whole":[` and the first `"counted":` of the text, as no field before them
    /// holds a string or an object with such a field (`meta`, the one free-form field, comes
    /// after them), so the text that file's checksum and tag were made over comes back.
    pub fn to_json(&self) -> String {
        let text = serde_json::to_string(self).expect("journals serialise");
        if self.version >= 4 {
            return text;
        }
        text.replacen("\"whole\":[", "\"pieces\":[", 1)
            .replacen("\"counted\":", "\"pieces\":", 1)
    }

    /// The checksum the contents call for (the tag included).
    fn expected_checksum(&self) -> String {
        let mut unsealed = self.clone();
        unsealed.checksum = String::new();
        crate::hash::hex_of(unsealed.to_json().as_bytes())
    }

    /// What the keyed tag covers: the file's JSON without its tag and with an empty checksum.
    fn tag_message(&self) -> String {
        let mut untagged = self.clone();
        untagged.checksum = String::new();
        untagged.tag = None;
        untagged.to_json()
    }

    /// Recomputes the tag (with a key) and the checksum after a change: what
    /// [`Self::tag_message`] and [`Self::expected_checksum`] check, made in place rather than
    /// on copies, since a shard's journal is saved every few seconds and may hold millions of
    /// subproblems.
    fn seal(&mut self) {
        self.checksum.clear();
        if self.key.is_some() {
            self.tag = None;
            let message = self.to_json();
            self.tag = self.key.as_ref().map(|k| k.tag(message.as_bytes()));
        }
        self.checksum = crate::hash::hex_of(self.to_json().as_bytes());
    }

    /// Makes the header this version's, for `plan` (the file's own plan, checked): a file of
    /// an earlier version is written back in this one.
    pub fn upgrade(&mut self, plan: &Plan) {
        if self.version != VERSION {
            self.version = VERSION;
            self.subproblems = None;
            self.entries = Some(plan.entry_count());
            self.seal();
        }
    }

    /// Sets a fact in `meta`.
    pub fn set_meta(&mut self, name: &str, value: impl Into<String>) {
        self.meta.insert(name.to_string(), value.into());
        self.seal();
    }

    /// Replaces the subproblems (and their sums) with `subproblems`, subproblems of `plan` by
    /// the ids of one cut of it: each is written by its entry and slice.
    pub fn set_counted(&mut self, plan: &Plan, subproblems: &BTreeMap<u64, Counted>) {
        self.whole.clear();
        self.slices.clear();
        for p in subproblems.values() {
            let Slice { index, of } = p.slice;
            if of == 1 {
                self.whole.push((p.entry, p.count, p.nodes));
            } else {
                self.slices.push((p.entry, of, index, p.count, p.nodes));
            }
        }
        self.sums = Sums::of(plan, subproblems.values());
        self.seal();
    }

    /// The subproblems as a map by the ids of `cut`, which must cut the entries the file holds
    /// as the file says ([`Journal::cuts`]).
    pub fn counted_map(&self, cut: &Cut) -> Result<BTreeMap<u64, Counted>, Problem> {
        let mut map = BTreeMap::new();
        for (entry, slice, count, nodes) in self.entry_counts() {
            if entry >= cut.plan().entry_count() {
                return Err(Problem::Disorder);
            }
            let run = cut.slices_of_entry(entry);
            if run != slice.of {
                return Err(Problem::Cut {
                    entry,
                    file: slice.of,
                    run,
                });
            }
            let id = cut.first_id(entry) + slice.index;
            let counted = Counted {
                id,
                entry,
                slice,
                count,
                nodes,
            };
            map.insert(id, counted);
        }
        Ok(map)
    }

    /// Reads and checks a journal on its own terms: it parses, its checksum holds, its shard
    /// exists, its subproblems are sorted, unique and inside the plan's id range, and no entry
    /// is cut into more slices than a run cuts one. The file is read whole, whatever its size
    /// ([`Journal::read_at_most`] caps it).
    pub fn read(path: &Path) -> Result<Journal, JournalError> {
        Journal::read_at_most(path, u64::MAX)
    }

    /// [`Journal::read`] of a file of at most `most` bytes: a larger one is refused unread
    /// (`Problem::TooLarge`).
    pub fn read_at_most(path: &Path, most: u64) -> Result<Journal, JournalError> {
        let bytes = Journal::size(path)?;
        if bytes > most {
            return Err(JournalError::invalid(path)(Problem::TooLarge {
                bytes,
                most,
            }));
        }
        let text = fs::read(path).map_err(JournalError::read(path))?;
        Journal::parse(path, &text)
    }

    /// The size of the regular file at `path`: a device or a folder is no journal (and
    /// reading /dev/zero would never end).
    fn size(path: &Path) -> Result<u64, JournalError> {
        let unreadable = JournalError::read(path);
        let meta = fs::metadata(path).map_err(unreadable)?;
        if !meta.is_file() {
            return Err(unreadable(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a folder, device or pipe)",
            )));
        }
        Ok(meta.len())
    }

    /// Reads the file at `path` whole when it is small (up to [`HEADER_ONLY_ABOVE`] bytes),
    /// else its header alone: what it is, its board, algorithm, plan and shard, from its first
    /// few kilobytes, so that its size can be weighed against what a file of its plan and
    /// shard can hold before it is read ([`Journal::is_header_only`], [`Journal::unread`]).
    /// A large file whose header does not come first, as this program writes it, is refused
    /// (`Problem::Unshaped`).
    pub fn read_header(path: &Path) -> Result<Journal, JournalError> {
        let bytes = Journal::size(path)?;
        if bytes <= HEADER_ONLY_ABOVE {
            return Journal::read(path);
        }
        let invalid = JournalError::invalid(path);
        let mut head = Vec::new();
        let file = fs::File::open(path).map_err(JournalError::read(path))?;
        std::io::Read::read_to_end(&mut std::io::Read::take(file, HEADER_BYTES), &mut head)
            .map_err(JournalError::read(path))?;
        let mut j = header(&head).ok_or_else(|| invalid(Problem::Unshaped(bytes)))?;
        j.unread = Some(bytes);
        if j.kind().is_none() {
            return Err(invalid(Problem::Kind(j.format)));
        }
        j.check_header().map_err(invalid)?;
        Ok(j)
    }

    /// Whether only the header of the file was read ([`Journal::read_header`]): its
    /// subproblems, sums and checksum are not in this value.
    pub fn is_header_only(&self) -> bool {
        self.unread.is_some()
    }

    /// The size of the file of which only the header was read.
    pub fn unread(&self) -> Option<u64> {
        self.unread
    }

    /// The checks of the header alone: a version this program reads, a shard that exists, no
    /// more shards than the plan's entries.
    fn check_header(&self) -> Result<(), Problem> {
        if !matches!(self.version, 1..=VERSION) {
            return Err(Problem::Version(self.version));
        }
        if let Some(s) = self.shard {
            if super::Shard::new(s.index, s.count).is_err() {
                return Err(Problem::NoSuchShard(s));
            }
            if s.count > self.entries().max(1) {
                return Err(Problem::ShardCount {
                    count: s.count,
                    entries: self.entries(),
                });
            }
        }
        Ok(())
    }

    /// Parses and checks the text of the file at `path` ([`Journal::read`]).
    fn parse(path: &Path, bytes: &[u8]) -> Result<Journal, JournalError> {
        let invalid = JournalError::invalid(path);
        let j: Journal = serde_json::from_slice(bytes).map_err(|e| {
            invalid(if bytes.is_empty() {
                Problem::Empty
            } else if serde_json::from_slice::<serde_json::Value>(bytes).is_err() {
                Problem::NotJson(e)
            } else {
                Problem::Foreign(e)
            })
        })?;
        if j.kind().is_none() {
            return Err(invalid(Problem::Kind(j.format)));
        }
        let shaped = match j.version {
            1 => j.subproblems.is_some() && j.entries.is_none() && j.slices.is_empty(),
            // Versions 2 and 3 wrote what this one writes, under two older names; their plans
            // are this version's, but for a version-2 even join board's
            // (`Plan::before_quarter_turns`).
            2 | 3 | VERSION => j.subproblems.is_none() && j.entries.is_some(),
            v => return Err(invalid(Problem::Version(v))),
        };
        if j.checksum != j.expected_checksum() {
            return Err(invalid(Problem::Checksum));
        }
        j.check_header().map_err(invalid)?;
        if let Some(s) = j.slices.iter().find(|s| s.1 > MOST_SLICES) {
            return Err(invalid(Problem::TooManySlices {
                entry: s.0,
                of: s.1,
                most: MOST_SLICES,
            }));
        }
        if !shaped || !j.well_ordered() {
            return Err(invalid(Problem::Disorder));
        }
        Ok(j)
    }

    /// Whether the subproblems are sorted, unique and inside the plan's entries, and the slices of
    /// each cut entry agree on their number and fit in it.
    fn well_ordered(&self) -> bool {
        let entries = self.entries();
        let whole = self.whole.windows(2).all(|w| w[0].0 < w[1].0)
            && self.whole.iter().all(|p| p.0 < entries);
        let cut = self
            .slices
            .iter()
            .all(|s| s.0 < entries && s.1 > 1 && s.2 < s.1)
            && self.slices.windows(2).all(|w| {
                (w[0].0, w[0].2) < (w[1].0, w[1].2) && (w[0].0 != w[1].0 || w[0].1 == w[1].1)
            });
        // No entry both whole and cut.
        let cut_entries: std::collections::BTreeSet<u64> =
            self.slices.iter().map(|s| s.0).collect();
        let apart = self.whole.iter().all(|p| !cut_entries.contains(&p.0));
        whole && cut && apart
    }

    /// Checks that this journal was written for the plan of `cut` (which cuts the entries the
    /// file holds as the file says, [`Journal::cuts`]) and `shard`, and that its sums are those
    /// of its subproblems; returns the subproblems by the ids of `cut`
    /// ([`Journal::counted_map`]), which the checks made.
    pub fn check_against(
        &self,
        cut: &Cut,
        shard: Option<Shard>,
    ) -> Result<BTreeMap<u64, Counted>, Problem> {
        let plan = cut.plan();
        if self.n != plan.n() {
            return Err(Problem::Board {
                file: self.n,
                run: plan.n(),
            });
        }
        if self.algorithm != plan.algorithm().name() {
            return Err(Problem::Algorithm {
                file: self.algorithm.clone(),
                run: plan.algorithm(),
            });
        }
        if self.plan == plan.hash() && self.entries() != plan.entry_count() {
            return Err(Problem::Subproblems {
                file: self.entries(),
                plan: self.plan,
                run: plan.entry_count(),
            });
        }
        if self.plan != plan.hash() && self.version == 1 && self.split_depth == plan.split_depth() {
            return Err(Problem::FormatOne {
                file_plan: self.plan,
                run_plan: plan.hash(),
            });
        }
        if self.plan != plan.hash() {
            return Err(Problem::Plan {
                file_depth: self.split_depth,
                file_plan: self.plan,
                run_depth: plan.split_depth(),
                run_plan: plan.hash(),
            });
        }
        if self.shard != shard {
            return Err(Problem::Shard {
                file: self.shard,
                run: shard,
            });
        }
        if let Some(s) = self.shard
            && let Some((entry, ..)) = self.entry_counts().find(|&(e, ..)| !plan.owns_entry(s, e))
        {
            return Err(Problem::NotInShard { entry, shard: s });
        }
        let subproblems = self.counted_map(cut)?;
        check_bounds(plan, subproblems.values())?;
        if Sums::of(plan, subproblems.values()) != self.sums {
            return Err(Problem::Sums);
        }
        Ok(subproblems)
    }

    /// Checks, before any work, that a journal can be written at `path`: what it names is a
    /// regular file or nothing yet, in a folder that exists and takes new files (the temporary
    /// file a write makes there is made and removed, so that a folder the user may not write
    /// to, or a read-only file system, is found before hours of counting rather than after).
    pub fn check_target(path: &Path) -> std::io::Result<()> {
        super::atomic::check_target(path)
    }

    /// Writes the journal atomically (`super::write_atomic`).
    pub fn write(&self, path: &Path) -> Result<(), JournalError> {
        let mut text = self.to_json().into_bytes();
        text.push(b'\n');
        super::write_atomic(path, &text).map_err(|source| JournalError::Save {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests;
