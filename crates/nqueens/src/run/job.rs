//! One run of a plan ([`Job`]): its cut, threads, shard, resumed subproblems, checkpoint and
//! key; building it, resuming it, checking its memory and running it on the pool. Apart from
//! the module's root, so that the runner's parts that extend a job (its estimate, its recount,
//! its memory needs) import it and it imports none of them back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::budget::{BYTES_PER_SUBPROBLEM, Budget, MemoryNeeds, fit_budget};
use super::cost::{CostModel, SLICE_SECONDS};
use super::outcome::Outcome;
use super::pool::{self, Control};
use super::rules::{file_rules, most_file_bytes};
use super::status::Status;

use crate::config::Config;
use crate::error::{Error, MemoryAdvice};
use crate::persist::{Journal, JournalError, Key, Kind, Problem, Recorder, Shard, check_bounds};
use crate::plan::{Cut, Plan};
use crate::system::{self, Bytes, SystemClock};
use crate::tally::{Counted, Sums};

/// How often a checkpoint is rewritten while a run goes on, unless told otherwise.
const SAVE_EVERY: Duration = Duration::from_secs(3);

/// One run of a plan: which part of it, on how many threads, resumed from what, saved where.
#[derive(Debug)]
pub struct Job {
    /// The plan, cut into slices for this run.
    pub(super) cut: Cut,
    /// What the plan's entries cost, which decides the cut and the order of the work.
    pub(super) costs: CostModel,
    /// Whether the configuration fixed the split depth (else a checkpoint may choose it).
    pub(super) fixed_depth: bool,
    pub(super) threads: usize,
    pub(super) memory: Option<u64>,
    pub(super) shard: Option<Shard>,
    pub(super) resumed: BTreeMap<u64, Counted>,
    pub(super) checkpoint: Option<(PathBuf, Journal)>,
    pub(super) save_every: Duration,
    /// The key that tags the checkpoint and the shard's result, and checks a resumed one.
    pub(super) key: Option<Key>,
    /// The slice times the entries of this run's files are cut with: those of the checkpoint
    /// resumed (as it says), and this run's own.
    pub(super) slice_times: Vec<f64>,
    /// The entries a resumed checkpoint cut otherwise than this release cuts them at its
    /// slice times, which this run counts again, and the finished subproblems of them it
    /// dropped.
    pub(super) recut: (u64, u64),
}

impl Job {
    /// Checks `config` and builds its plan.
    pub fn new(config: &Config) -> Result<Job, Error> {
        if config.thread_count() > Config::MAX_THREADS {
            return Err(Error::Threads {
                asked: config.thread_count(),
                max: Config::MAX_THREADS,
            });
        }
        let depth = config.fixed_split_depth();
        check_plan_fits(config)?;
        let (n, algorithm) = (config.n(), config.chosen_algorithm());
        let plan = Plan::of(n, algorithm, config.constrained_board(), depth)?;
        let seconds = config
            .chosen_slice_time()
            .map_or(SLICE_SECONDS, |t| t.as_secs_f64())
            .max(Config::SHORTEST_SLICE_SECONDS);
        let costs = CostModel::new(&plan, seconds);
        let cut = Cut::fresh(plan, |_, _, work| costs.slices(work));
        Ok(Job {
            cut,
            slice_times: vec![costs.slice_seconds()],
            costs,
            fixed_depth: depth.is_some(),
            threads: config.resolved_threads().min(Config::MAX_THREADS),
            memory: config.memory_budget(),
            shard: None,
            resumed: BTreeMap::new(),
            checkpoint: None,
            save_every: SAVE_EVERY,
            key: None,
            recut: (0, 0),
        })
    }

    /// The same job restricted to `shard` of the plan.
    pub fn shard(mut self, shard: Shard) -> Job {
        self.shard = Some(shard);
        let cut = &self.cut;
        self.resumed.retain(|&id, _| shard.owns(cut, id));
        self
    }

    /// The same job with `subproblems` already done (from an earlier run of the same plan and
    /// cut, [`Job::cut`]). Each must name its subproblem as this job's cut does: its id, entry
    /// and slice. A subproblem counted under another cut (a run with another slice time) is
    /// refused ([`Error::OtherCut`]): its id names other work here. Resume such a run from its
    /// checkpoint instead ([`Job::checkpoint`]), which cuts the entries it holds as it did.
    pub fn resume(mut self, subproblems: impl IntoIterator<Item = Counted>) -> Result<Job, Error> {
        for p in subproblems {
            let inside = (p.id as usize) < self.cut.len();
            if !inside || self.shard.is_some_and(|s| !s.owns(&self.cut, p.id)) {
                return Err(Error::ForeignSubproblem {
                    id: p.id,
                    subproblems: self.cut.len(),
                    shard: self.shard,
                });
            }
            if !self.cut.names(p.id, p.entry, p.slice) {
                let (entry, index) = self.cut.entry_and_slice(p.id);
                return Err(Error::OtherCut {
                    id: p.id,
                    theirs: (p.entry, p.slice.index, p.slice.of),
                    ours: (entry, index, self.cut.slices_of_entry(entry)),
                });
            }
            if let Err(Problem::CountTooLarge { id, count, bound }) =
                check_bounds(self.cut.plan(), [&p])
            {
                return Err(Error::ImpossibleCount { id, count, bound });
            }
            self.resumed.insert(p.id, p);
        }
        Ok(self)
    }

    /// The same job keeping a checkpoint at `path`: when the file exists, it must be a
    /// checkpoint of this plan and shard, and the run resumes from it; finished subproblems are
    /// saved every few seconds, when the run is cancelled, and at its end.
    pub fn checkpoint(self, path: &Path) -> Result<Job, Error> {
        let existing = path
            .exists()
            .then(|| Journal::read_header(path))
            .transpose()?;
        self.checkpoint_read(path, existing)
    }

    /// [`Job::checkpoint`] with the file at `path` already read (`None`: it does not exist
    /// yet), or its header alone ([`Journal::read_header`]: the file is then read whole here,
    /// if it is no larger than a checkpoint of this job's plan and shard can be,
    /// [`most_file_bytes`]). Where the configuration left the split depth to the default, a
    /// checkpoint made with a fixed split depth resumes with that plan.
    pub fn checkpoint_read(mut self, path: &Path, existing: Option<Journal>) -> Result<Job, Error> {
        Journal::check_target(path).map_err(|source| JournalError::Save {
            path: path.to_path_buf(),
            source,
        })?;
        let journal = match existing {
            Some(j) => {
                // The file's plan: where the configuration left the split depth to the
                // default, one of the file's depth; a count begun under format version 2
                // (before the quarter turns) goes on with the plan it began with.
                let resplit = !self.fixed_depth;
                let plan = self
                    .cut
                    .into_plan()
                    .for_file(j.plan, j.split_depth, resplit);
                let j = match j.unread() {
                    Some(_) => {
                        let most = most_file_bytes(&plan, self.shard);
                        Journal::read_at_most(path, most)?
                    }
                    None => j,
                };
                // The entries the file holds are cut as its run cut them.
                self.cut = cut_as(&self.costs, plan, j.cuts());
                let invalid = |problem| JournalError::Invalid {
                    path: path.to_path_buf(),
                    problem,
                };
                // An empty checkpoint has no subproblem to forge.
                if let Some(key) = &self.key
                    && j.counted_len() > 0
                {
                    j.check_tag(key).map_err(invalid)?;
                }
                let subproblems = j.check_against(&self.cut, self.shard).map_err(invalid)?;
                let (job, subproblems) = self.recut_off_rule(&j, subproblems);
                self = job;
                self = self.resume(subproblems.into_values())?;
                for t in j.slice_times(SLICE_SECONDS) {
                    if !self.slice_times.contains(&t) {
                        self.slice_times.push(t);
                    }
                }
                j
            }
            None => Journal::new(Kind::Checkpoint, self.cut.plan(), self.shard),
        };
        let journal = match &self.key {
            Some(key) => journal.keyed(key),
            None => journal,
        };
        self.checkpoint = Some((path.to_path_buf(), journal));
        Ok(self)
    }

    /// The finished subproblems of `j` (read with the plan cut as it says) without those of
    /// the entries it cut otherwise than this release cuts them at its slice times (a file
    /// relabelled, a partly counted entry marked whole or the reverse, or written by a release
    /// that cut otherwise): those entries are cut as this run cuts them and counted again,
    /// and the others keep the file's cut, their ids those of the plan cut anew.
    fn recut_off_rule(
        mut self,
        j: &Journal,
        subproblems: BTreeMap<u64, Counted>,
    ) -> (Job, BTreeMap<u64, Counted>) {
        let off = j.cut_otherwise(self.cut.plan(), file_rules());
        if off.is_empty() {
            return (self, subproblems);
        }
        let is_off = |e: &u64| off.binary_search(e).is_ok();
        let before = subproblems.len();
        let kept: Vec<Counted> = subproblems
            .into_values()
            .filter(|c| !is_off(&c.entry))
            .collect();
        self.recut = (off.len() as u64, (before - kept.len()) as u64);
        let plan = self.cut.into_plan();
        self.cut = cut_as(&self.costs, plan, j.cuts().filter(|(e, _)| !is_off(e)));
        let cut = &self.cut;
        let kept = kept
            .into_iter()
            .map(|c| {
                let id = cut.first_id(c.entry) + c.slice.index;
                (id, Counted { id, ..c })
            })
            .collect();
        (self, kept)
    }

    /// The entries a resumed checkpoint cut otherwise than this release cuts them at its
    /// slice times, which this run counts again (their finished subproblems were dropped),
    /// and how many finished subproblems of them were dropped.
    pub fn recut(&self) -> (u64, u64) {
        self.recut
    }

    /// Refuses to go on from a tagged checkpoint without its key: the run would write it back
    /// untagged.
    pub(crate) fn check_key_kept(&self) -> Result<(), Error> {
        match &self.checkpoint {
            Some((path, journal)) if journal.tag().is_some() && self.key.is_none() => {
                Err(JournalError::Invalid {
                    path: path.clone(),
                    problem: Problem::KeyNeeded,
                }
                .into())
            }
            _ => Ok(()),
        }
    }

    /// The same job tagging the files it writes (its checkpoint, a shard's result) with
    /// `key` ([`Key`]); a checkpoint it resumes must carry that key's tag, whether it was
    /// opened before or after this call.
    pub fn key(mut self, key: Key) -> Result<Job, Error> {
        if let Some((path, journal)) = self.checkpoint.take() {
            let resumed = !self.resumed.is_empty();
            if resumed && let Err(problem) = journal.check_tag(&key) {
                return Err(JournalError::Invalid { path, problem }.into());
            }
            self.checkpoint = Some((path, journal.keyed(&key)));
        }
        self.key = Some(key);
        Ok(self)
    }

    /// The same job saving its checkpoint at most every `interval`.
    pub fn save_every(mut self, interval: Duration) -> Job {
        self.save_every = interval;
        self
    }

    /// The plan: what every run of this count agrees on (its entries, their weights, its
    /// hash).
    pub fn plan(&self) -> &Plan {
        self.cut.plan()
    }

    /// This run's cut of the plan: how many slices each entry is cut into, and the ids of
    /// the subproblems, which are this run's ([`Counted::id`]) and not stable: another slice
    /// time numbers them otherwise.
    pub fn cut(&self) -> &Cut {
        &self.cut
    }

    /// Worker threads the run uses.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The ids this run covers (its shard's, or all), in increasing order.
    pub fn wanted(&self) -> Vec<u64> {
        self.wanted_ids().collect()
    }

    /// [`Job::wanted`], one at a time.
    fn wanted_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.cut.shard_ids(self.shard.unwrap_or(Shard::WHOLE))
    }

    /// The subproblems resumed from earlier runs.
    pub fn resumed(&self) -> &BTreeMap<u64, Counted> {
        &self.resumed
    }

    /// The ids still to count.
    pub fn todo(&self) -> Vec<u64> {
        self.todo_ids().collect()
    }

    /// The order in which a run of this job on `threads` threads hands out what is left to
    /// count: blocks of consecutive ids, each as its first id and its length, which each free
    /// worker takes in turn. For tools that simulate the pool on more threads than the
    /// machine has.
    pub fn work_order(&self, threads: usize) -> Vec<(u64, u32)> {
        super::pool::order(&self.cut, &self.costs, &self.todo(), threads.max(1))
    }

    /// [`Job::todo`], one at a time.
    pub(super) fn todo_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.wanted_ids()
            .filter(|id| !self.resumed.contains_key(id))
    }

    /// How many ids this run covers (its shard's, or all).
    pub fn wanted_len(&self) -> usize {
        match self.shard {
            Some(s) => s.len(&self.cut),
            None => self.cut.len(),
        }
    }

    /// How many ids are still to count.
    pub fn todo_len(&self) -> usize {
        self.wanted_len() - self.resumed.len()
    }

    /// Checks that counting what is left fits in the memory budget, or where none was given,
    /// in what this process may use (only the engines that keep lists matter), and
    /// refuses, with advice, what does not fit.
    pub fn check_memory(&self) -> Result<(), Error> {
        self.check_memory_for(self.todo_len())
    }

    /// [`Job::check_memory`] for a run keeping the bookkeeping of `subproblems` subproblems.
    pub(super) fn check_memory_for(&self, subproblems: usize) -> Result<(), Error> {
        let available = self.available();
        let budget = Budget {
            threads: self.threads,
            subproblems,
            shard: self.shard.unwrap_or(Shard::WHOLE),
            available,
        };
        fit_budget(&self.cut, budget)
    }

    /// The memory this job needs by the model, in its parts, and what fits where it does not.
    pub fn memory_needs(&self) -> MemoryNeeds {
        let engines = self.costs.engines();
        let bare = |t: usize| engines.bytes(t).unwrap_or(64 << 20);
        // The partitions a thread may keep depend on the threads sharing the memory: those of
        // this job's count.
        let cache = self.cache_per_thread() as u64;
        let threads = self.threads as u64;
        let advice = match self.check_memory() {
            Err(Error::Memory { advice, .. }) => Some(advice),
            _ => None,
        };
        MemoryNeeds {
            threads: self.threads,
            engines: bare(self.threads).saturating_add(threads.saturating_mul(cache)),
            per_thread: bare(2).saturating_sub(bare(1)).saturating_add(cache),
            plan: self.cut.bytes(),
            per_subproblem: BYTES_PER_SUBPROBLEM,
            subproblems: self.todo_len(),
            whole_subproblems: self.cut.len(),
            available: self.available(),
            advice,
        }
    }

    /// The bytes each thread may keep between subproblems, by what the budget leaves
    /// ([`Engines::cache`]).
    pub(super) fn cache_per_thread(&self) -> usize {
        self.cache_for(self.threads)
    }

    /// [`Job::cache_per_thread`] on `threads` threads.
    pub(super) fn cache_for(&self, threads: usize) -> usize {
        self.costs.engines().cache(threads, self.available())
    }

    /// The bytes this job may use: `--memory`, else what the system allows, when known.
    pub(super) fn available(&self) -> Option<u64> {
        self.memory.or_else(system::available_memory)
    }

    /// Counts what is left: checks the memory, saves the checkpoint once before the work (so
    /// that an unwritable path fails at once), runs the pool, and saves at the end. A save
    /// that fails once the work has begun does not stop it ([`Control::save_failed`]): the
    /// counts come back with the error in [`Outcome::unsaved`].
    pub fn run(&self, control: Control<'_>) -> Result<Outcome, Error> {
        let begun = Instant::now();
        let plan = self.cut.plan();
        self.check_key_kept()?;
        // Checked before the ids are listed: at n = 26 they alone take gigabytes.
        if self.todo_len() > 0 {
            self.check_memory()?;
        }
        let todo = self.todo();
        let recorder = self.checkpoint.as_ref().map(|(path, journal)| {
            // Written back in this version's format (a version-1 file's header made anew).
            let mut journal = journal.clone();
            journal.upgrade(plan);
            for &t in &self.slice_times {
                journal.add_slice_time(t, SLICE_SECONDS);
            }
            let resumed = self.resumed.clone();
            let tell = control.save_failed;
            let every = self.save_every;
            Recorder::new(plan, path, journal, resumed, every, &SystemClock, tell)
        });
        if let Some(r) = &recorder {
            r.flush()?;
        }
        let record = |p: &Counted, s: &Status| {
            if let Some(r) = &recorder {
                r.record(p);
            }
            if let Some(f) = control.observer {
                f(p, s);
            }
        };
        let inner = Control {
            cancel: control.cancel,
            observer: Some(&record),
            save_failed: None,
        };
        let worked = pool::execute(
            &self.cut,
            &self.costs,
            self.cache_per_thread(),
            &todo,
            self.threads,
            &inner,
        )?;
        let mut unsaved = None;
        if let Some(r) = &recorder {
            if !worked.subproblems.is_empty() {
                r.set_meta("program", program());
            }
            unsaved = r.flush().err().map(std::sync::Arc::new);
        }
        let mut subproblems = self.resumed.clone();
        subproblems.extend(worked.subproblems.iter().map(|p| (p.id, *p)));
        let sums = Sums::of(plan, subproblems.values());
        let complete = worked.subproblems.len() == todo.len();
        let whole = complete && self.shard.is_none();
        if whole && plan.has_unique() && !sums.burnside_holds(plan.n()) {
            return Err(Error::Integrity {
                n: plan.n(),
                checkpoint: self.checkpoint.as_ref().map(|(path, _)| path.clone()),
                total: sums.total,
                half_turn: sums.half_turn,
                quarter_turn: sums.quarter_turn,
            });
        }
        Ok(Outcome {
            n: plan.n(),
            algorithm: plan.algorithm(),
            subproblems: self.cut.len(),
            split_depth: plan.split_depth(),
            shard: self.shard,
            unique: whole.then(|| sums.unique(plan)).flatten(),
            sums,
            nodes: worked.subproblems.iter().map(|p| u128::from(p.nodes)).sum(),
            fresh: worked.subproblems.len(),
            complete,
            cancelled: worked.cancelled,
            threads: self.threads,
            elapsed: begun.elapsed(),
            busy: worked.busy,
            peak_memory: system::peak_memory(),
            counted: subproblems,
            unsaved,
        })
    }

    /// The result file of a finished (or partial) shard run: its subproblems, with the program,
    /// host, seconds and threads in `meta`.
    pub fn shard_result(&self, outcome: &Outcome) -> Journal {
        let plan = self.cut.plan();
        let mut j = Journal::new(Kind::ShardResult, plan, self.shard);
        if let Some(key) = &self.key {
            j = j.keyed(key);
        }
        j.set_meta("program", program());
        j.set_meta("host", system::host_name());
        j.set_meta("seconds", format!("{:.3}", outcome.elapsed.as_secs_f64()));
        j.set_meta("threads", outcome.threads.to_string());
        for &t in &self.slice_times {
            j.add_slice_time(t, SLICE_SECONDS);
        }
        j.set_counted(plan, &outcome.counted);
        j
    }
}

/// `plan` cut as a file resumed says for the entries of `recorded` (`(entry, slices)`), and
/// the others as `costs` (the run's cost model) cuts them.
fn cut_as(costs: &CostModel, plan: Plan, recorded: impl Iterator<Item = (u64, u64)>) -> Cut {
    Cut::from_files(plan, recorded, |plan, others| {
        others
            .iter()
            .map(|&e| costs.slices(&plan.entry(e)))
            .collect()
    })
}

/// Refuses a default plan whose building would not fit in the memory `config` may use
/// ([`crate::plan::build_bytes`]): its lists would abort the process, or get it killed,
/// before any later check could speak.
fn check_plan_fits(config: &Config) -> Result<(), Error> {
    let (n, algorithm) = (config.n(), config.chosen_algorithm());
    let needed = match (config.constrained_board(), config.fixed_split_depth()) {
        (None, None) => crate::plan::build_bytes(n, algorithm),
        (None, Some(depth)) => crate::plan::fixed_build_bytes(n, algorithm, depth)?,
        (Some(_), _) => None,
    };
    let available = config.memory_budget().or_else(system::available_memory);
    match (needed, available) {
        (Some(needed), Some(available)) if needed > available => Err(Error::Memory {
            n,
            algorithm,
            threads: config.resolved_threads().min(Config::MAX_THREADS),
            needed: Bytes(needed),
            available: Bytes(available),
            advice: match config.fixed_split_depth() {
                Some(depth) => MemoryAdvice::SplitDepthNeeds {
                    depth,
                    bytes: Bytes(needed),
                },
                None => MemoryAdvice::PlanNeeds(Bytes(needed)),
            },
        }),
        _ => Ok(()),
    }
}

/// The program named in the files it writes.
fn program() -> String {
    format!("nqueens-count {}", env!("CARGO_PKG_VERSION"))
}
