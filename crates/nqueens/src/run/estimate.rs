//! What a count will cost before it is run: a stratified sample of its subproblems is timed on
//! the threads the count would use, and scaled up to the whole plan (or shard), with an
//! interval. For a cluster run of months this decides the number of shards and their length;
//! for a user it says whether to start at all.
//!
//! The subproblems are sorted into strata of similar cost (the classes each engine gives its
//! work, [`super::engines::Engine::class`]), and sampled round by round, one more per stratum
//! each round, in a seeded pseudo-random order, until the time budget is spent. Each
//! stratum's total is its size times its mean time; the interval is the usual normal one of
//! a stratified mean (Cochran, *Sampling Techniques*, 1977, ch. 5). An engine may time a
//! subproblem on a share of its work ([`super::engines::Engine::time`]), so that even at
//! n = 28, where one subproblem takes hours, many are sampled within minutes.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Job;
use super::allocation::{Allocation, TRUSTED, largest_spread, mean_variance};
use super::budget::MemoryNeeds;
use super::class::Class;
use super::engines::Engines;
use super::watch::watched;
use crate::error::{Error, MemoryAdvice};
use crate::plan::{Algorithm, Subproblem};
use crate::system::{self, Clock, SystemClock};
use nqueens_engine::random::{Reservoir, XorShift, shuffle};

/// Samples drawn from one stratum at most.
const PER_STRATUM: usize = 256;

/// The relative standard deviation of a count's time between runs of the same work on the
/// same machine: the pooled spread of 13 counts of four shards of n = 22 to 25, each counted
/// three or four times on a shared 2-core VM (`results/estimate-calibration.md`). The time a
/// sample measures varies as much as the count's, so the interval of what a count takes
/// holds it twice over ([`Estimate::margin`]).
pub const MACHINE_SPREAD: f64 = 0.06;

/// How an estimate reads the time: the clock its sampling is measured by, and how it times one
/// subproblem. An estimate times on this machine ([`Job::estimate`]); the unit tests give
/// times of their own, so that what the estimate makes of them is checked exactly.
struct Timing<'t> {
    /// The clock the sampling reads.
    clock: &'t dyn Clock,
    /// The projected seconds of one subproblem counted with the engines given; `None` if the
    /// stop flag rose first.
    time: &'t (dyn Fn(&Engines, &Subproblem, usize, &AtomicBool) -> Option<f64> + Sync),
}

/// [`Engines::time`]: a subproblem timed on this machine.
fn measured(engines: &Engines, sub: &Subproblem, workers: usize, stop: &AtomicBool) -> Option<f64> {
    engines.time(sub, workers, stop)
}

/// The projected cost of a count (or of one shard of it).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Board size.
    pub n: usize,
    /// Counting method.
    pub algorithm: Algorithm,
    /// Threads the count would use.
    pub threads: usize,
    /// Threads the sample ran on: [`Estimate::threads`], or fewer where the engines of that
    /// many do not fit the memory available.
    pub sample_threads: usize,
    /// Subproblems of the count (of this shard, if one).
    pub subproblems: usize,
    /// Subproblems timed.
    pub sampled: usize,
    /// Strata (classes of subproblems alike in cost) the subproblems fell into.
    pub strata: usize,
    /// Strata of which at least one subproblem was timed.
    pub strata_sampled: usize,
    /// Projected CPU seconds of the whole count (all threads together).
    pub cpu_seconds: f64,
    /// Half-width of the 95% interval of `cpu_seconds` from the sampling alone: the spread
    /// between the subproblems timed, with Student's t for the degrees of freedom the strata's
    /// spreads were measured with ([`Estimate::margin`] adds the machine's).
    pub cpu_margin: f64,
    /// The share of `cpu_seconds` projected from strata timed fewer than ten times, whose
    /// spread is not measured but guessed from the others' (0 to 1). Where it is large, the
    /// margin rests on guesses (a 20-s sample of n = 25 `--shard 0/32768`: all of it; of
    /// n = 28 in 300 s: 1 to 4%, `results/large-n.md`).
    pub guessed_share: f64,
    /// The subproblems more those strata need to be timed ten times each.
    pub short_of_trusted: usize,
    /// The skewness of the projection itself, from the third moments of the strata timed at
    /// least three times. The normal (or t) interval of a mean wants it under about 0.2: a
    /// sample of `k` from one population of skewness `G1` holds Cochran's rule `k > 25 G1^2`
    /// (*Sampling Techniques*, 3rd ed., section 2.15). Where a few costly subproblems carry
    /// the spread, a small sample mostly misses them: its spread, and so its margin, comes out
    /// too small (the units of n = 28 have a skewness near 1.6, `results/large-n.md`).
    pub skewness: f64,
    /// Every subproblem drawn for the sample (at most 256 a stratum) was timed
    /// before the budget ran out: sampling longer would time no more.
    pub ran_dry: bool,
    /// Seconds spent before the subproblems start (building what the engines share, such as
    /// lists), measured.
    pub setup_seconds: f64,
    /// Bytes the count needs by the memory model: the engines (with what each thread may keep
    /// between subproblems), the plan and the subproblems' bookkeeping.
    pub memory_needed: u64,
    /// The same in its parts (a thread's, a shard's, the whole count's), and what fits.
    pub memory: MemoryNeeds,
    /// The peak resident memory of this process after sampling, when known.
    pub peak_memory: Option<u64>,
    /// Time the estimate took.
    pub spent: Duration,
}

impl Estimate {
    /// Projected wall-clock seconds on [`Estimate::threads`] threads: the set-up, then the
    /// subproblems spread over the threads.
    pub fn wall_seconds(&self) -> f64 {
        self.setup_seconds + self.cpu_seconds / self.threads as f64
    }

    /// Half-width of the 95% interval of the CPU seconds a count will take: the sampling's
    /// ([`Estimate::cpu_margin`]) and the machine's, whose time for the same work varies from
    /// run to run by [`MACHINE_SPREAD`], both in the sample and in the count.
    pub fn margin(&self) -> f64 {
        let machine = 1.96 * MACHINE_SPREAD * self.cpu_seconds;
        (self.cpu_margin * self.cpu_margin + 2.0 * machine * machine).sqrt()
    }

    /// The 95% interval of [`Estimate::wall_seconds`], from [`Estimate::margin`].
    pub fn wall_range(&self) -> (f64, f64) {
        let (t, margin) = (self.threads as f64, self.margin());
        (
            self.setup_seconds + (self.cpu_seconds - margin).max(0.0) / t,
            self.setup_seconds + (self.cpu_seconds + margin) / t,
        )
    }

    /// Shards of at most `hours` each on [`Estimate::threads`] threads that the count needs,
    /// from the upper end of the interval (each shard also pays the set-up).
    pub fn shards(&self, hours: f64) -> u64 {
        let t = self.threads as f64;
        let per_shard = hours * 3600.0 - self.setup_seconds;
        if per_shard <= 0.0 {
            return u64::MAX;
        }
        let work = (self.cpu_seconds + self.margin()) / t;
        ((work / per_shard).ceil() as u64).max(1)
    }
}

impl Job {
    /// Projects the cost of running this job ([`Estimate`]) by timing a sample of its
    /// subproblems for about `budget` (plus the set-up), drawn with `seed`; raising `cancel`
    /// ends the sampling early with what was timed.
    pub fn estimate(
        &self,
        budget: Duration,
        seed: u64,
        cancel: Option<&AtomicBool>,
    ) -> Result<Estimate, Error> {
        let timing = Timing {
            clock: &SystemClock,
            time: &measured,
        };
        self.estimate_timed(budget, seed, cancel, &timing)
    }

    /// [`Job::estimate`], reading the time as `timing` says.
    fn estimate_timed(
        &self,
        budget: Duration,
        seed: u64,
        cancel: Option<&AtomicBool>,
        timing: &Timing<'_>,
    ) -> Result<Estimate, Error> {
        let clock = timing.clock;
        let begun = clock.now();
        let plan = self.cut.plan();
        // The sample holds no run's bookkeeping: only the engines must fit, on as many of the
        // count's threads as they fit on.
        let sample_threads = self.sample_threads()?;
        // Before the sample takes its share of what is available.
        let memory = self.memory_needs();
        let mut rng = XorShift::new(seed);
        let (sizes, allocation) = self.draw(&mut rng);
        let todo: usize = sizes.iter().sum();
        let strata = sizes.len();
        let allocation = Mutex::new(allocation);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(sample_threads)
            .thread_name(|i| format!("nqueens-estimate-{i}"))
            .build()?;
        let set_up = clock.now();
        static NEVER: AtomicBool = AtomicBool::new(false);
        let cancel_flag = cancel.unwrap_or(&NEVER);
        let prepared =
            super::pool::prepare(&pool, plan, self.cache_for(sample_threads), cancel_flag);
        let Some(engines) = prepared else {
            return Err(Error::EstimateInterrupted);
        };
        let setup_seconds = clock.now().duration_since(set_up).as_secs_f64();
        // The watcher stops the sample at the budget, on this machine's clock, or when asked.
        let stop = AtomicBool::new(false);
        let deadline = Instant::now() + budget;
        let sampling = Sampling {
            pool: &pool,
            allocation: &allocation,
            engines: &engines,
            timing,
        };
        let times = watched(&stop, Some(deadline), cancel, || {
            self.time_sample(&sampling, todo, strata, &stop)
        });
        if times.is_empty() && todo > 0 {
            return Err(if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                Error::EstimateInterrupted
            } else {
                Error::NothingSampled {
                    seconds: budget.as_secs(),
                }
            });
        }
        let ran_dry = allocation.lock().is_ok_and(|a| a.dry());
        let whole = engines.times_whole();
        let p = project(&sizes, &times, whole);
        Ok(Estimate {
            n: plan.n(),
            algorithm: plan.algorithm(),
            threads: self.threads,
            subproblems: todo,
            sampled: times.len(),
            strata,
            strata_sampled: p.sampled,
            cpu_seconds: p.total,
            cpu_margin: p.margin,
            guessed_share: p.guessed,
            short_of_trusted: p.short,
            skewness: p.skew,
            ran_dry,
            setup_seconds,
            sample_threads,
            memory_needed: memory.run(),
            memory,
            peak_memory: system::peak_memory(),
            spent: clock.now().duration_since(begun),
        })
    }

    /// The threads the sample runs on: the count's, or where their engines do not fit the
    /// memory available, the most that do (the projection is still for the count's threads);
    /// the refusal where not even one thread's do.
    fn sample_threads(&self) -> Result<usize, Error> {
        match self.check_memory_for(0) {
            Ok(()) => Ok(self.threads),
            Err(Error::Memory {
                advice: MemoryAdvice::Threads(t),
                ..
            }) => Ok(t),
            Err(e) => Err(e),
        }
    }

    /// Draws the sample of the subproblems this job would count, stratum by stratum: per
    /// stratum its size, and its ids to time in a seeded random order ([`Allocation`]).
    fn draw(&self, rng: &mut XorShift) -> (Vec<usize>, Allocation) {
        let cut = &self.cut;
        // Per stratum, its size and a uniform random sample of at most PER_STRATUM of its ids.
        let mut strata: BTreeMap<Class, (usize, Reservoir<u64>)> = BTreeMap::new();
        // The slices of an entry are alike but for the slice, and a stratum holds slices alike
        // in cost (its entries are cut alike, or fall into strata by the size of a slice): one
        // entry stands for all its slices, and one of them is drawn if the entry is.
        let mut offer = |s: &Subproblem, slices: u64, rng: &mut XorShift| {
            let (size, kept) = strata
                .entry(self.costs.class(s))
                .or_insert_with(|| (0, Reservoir::new(PER_STRATUM)));
            *size += slices as usize;
            kept.offer(s.id + rng.next() % slices, rng);
        };
        match (self.resumed.is_empty(), self.shard) {
            // A whole count: entry by entry.
            (true, None) => {
                for (s, slices) in cut.entries() {
                    offer(&s, slices, rng);
                }
            }
            (true, Some(shard)) => {
                for (s, slices) in cut.shard_entries(shard) {
                    offer(&s, slices, rng);
                }
            }
            (false, _) => {
                for s in cut.subproblems_at(self.todo_ids()) {
                    offer(&s, 1, rng);
                }
            }
        }
        let sizes: Vec<usize> = strata.values().map(|r| r.0).collect();
        let queues = strata
            .into_values()
            .map(|r| r.1.into_shuffled(rng))
            .collect::<Vec<_>>();
        let mut first: Vec<usize> = (0..queues.len()).collect();
        shuffle(&mut first, rng);
        let allocation = Allocation::new(&sizes, queues, first);
        (sizes, allocation)
    }

    /// Times the drawn subproblems `s.allocation` hands out with `s.engines` on every thread
    /// of `s.pool` until they run dry, `stop` rises, or sampling has taken a quarter of the
    /// count's projected wall time (of `todo` subproblems) with all `strata` reached (counting
    /// would then take little longer). Returns each timed subproblem's stratum and projected
    /// seconds.
    fn time_sample(
        &self,
        s: &Sampling<'_>,
        todo: usize,
        strata: usize,
        stop: &AtomicBool,
    ) -> Vec<(usize, f64)> {
        let lock = || s.allocation.lock().unwrap_or_else(|e| e.into_inner());
        let clock = s.timing.clock;
        let seconds_since = |t: Instant| clock.now().duration_since(t).as_secs_f64();
        let began = clock.now();
        let times: Mutex<Vec<(usize, f64)>> = Mutex::new(Vec::new());
        s.pool.broadcast(|_| {
            while !stop.load(Ordering::Relaxed) {
                let Some((k, id)) = lock().next() else { break };
                let begun = clock.now();
                let timed =
                    (s.timing.time)(s.engines, &self.cut.subproblem(id), self.threads, stop);
                let Some(secs) = timed else {
                    lock().abandon(k);
                    continue;
                };
                lock().record(k, secs, seconds_since(begun));
                let mut t = times.lock().unwrap_or_else(|e| e.into_inner());
                t.push((k, secs));
                let mean = t.iter().map(|x| x.1).sum::<f64>() / t.len() as f64;
                let wall = mean * todo as f64 / self.threads as f64;
                if t.len() >= strata && seconds_since(began) * 4.0 > wall {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        });
        times.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the sample's threads share: the pool they run on, the allocation that hands out the
/// subproblems, the engines that count them, and how they are timed.
struct Sampling<'s> {
    pool: &'s rayon::ThreadPool,
    allocation: &'s Mutex<Allocation>,
    engines: &'s Engines,
    timing: &'s Timing<'s>,
}

/// What a sample projects ([`project`]).
#[derive(Debug, PartialEq)]
struct Projection {
    /// The stratified total, in seconds.
    total: f64,
    /// The half-width of its 95% interval.
    margin: f64,
    /// The strata sampled.
    sampled: usize,
    /// [`Estimate::guessed_share`].
    guessed: f64,
    /// [`Estimate::short_of_trusted`].
    short: usize,
    /// [`Estimate::skewness`].
    skew: f64,
}

/// The stratified total of the times (`(stratum, seconds)`) for strata of `sizes`, with its
/// 95% interval. A stratum sampled fewer than [`TRUSTED`] times keeps at least the largest
/// relative spread of the others ([`mean_variance`]); one not sampled at all (the budget ran
/// out) the mean of all samples, with a spread as large as that mean. With `whole` (the
/// subproblems were timed whole), a stratum timed in full carries no error (the
/// finite-population correction); otherwise it does. The interval takes Student's t, not the
/// normal 1.96, for the degrees of freedom of the spreads by Satterthwaite's approximation
/// (Cochran, *Sampling Techniques*, 3rd ed., section 5.4): a total whose variance comes from
/// a few strata sampled a few times each is known less well than the normal interval says.
fn project(sizes: &[usize], times: &[(usize, f64)], whole: bool) -> Projection {
    let mut by: Vec<Vec<f64>> = vec![Vec::new(); sizes.len()];
    for &(k, t) in times {
        by[k].push(t);
    }
    let all_mean = times.iter().map(|t| t.1).sum::<f64>() / times.len().max(1) as f64;
    let spread = largest_spread(&by);
    let (mut total, mut variance, mut sampled) = (0.0, 0.0, 0);
    let (mut guessed, mut short, mut df_terms, mut third) = (0.0, 0, 0.0, 0.0);
    for (xs, &size) in by.iter().zip(sizes) {
        let size = size as f64;
        let (mean, var) = mean_variance(xs, all_mean, spread);
        if !xs.is_empty() {
            sampled += 1;
        }
        let k = xs.len().max(1) as f64;
        total += size * mean;
        // The finite-population correction: a stratum sampled whole has no error.
        let fpc = if whole {
            (1.0 - k / size).max(0.0)
        } else {
            1.0
        };
        let v = size * size * var / k * fpc;
        variance += v;
        // A spread from fewer than two samples is borrowed whole: one degree of freedom.
        df_terms += v * v / (k - 1.0).max(1.0);
        // The third cumulant of the stratum's share, its k-statistic k3 scaled as the share's
        // (N^3 k3 / k^2), with the finite population's correction (1 - f)(1 - 2f).
        if xs.len() >= 3 {
            let m3 =
                xs.iter().map(|x| (x - mean).powi(3)).sum::<f64>() * k / ((k - 1.0) * (k - 2.0));
            let f = if whole { (k / size).min(1.0) } else { 0.0 };
            third += size.powi(3) * m3 / (k * k) * ((1.0 - f) * (1.0 - 2.0 * f)).max(0.0);
        }
        if xs.len() < TRUSTED && fpc > 0.0 {
            guessed += size * mean;
            short += TRUSTED - xs.len();
        }
    }
    let df = if df_terms > 0.0 {
        variance * variance / df_terms
    } else {
        f64::INFINITY
    };
    Projection {
        total,
        margin: t_975(df) * variance.sqrt(),
        sampled,
        guessed: if total > 0.0 { guessed / total } else { 0.0 },
        short,
        skew: if variance > 0.0 {
            third / variance.powf(1.5)
        } else {
            0.0
        },
    }
}

/// The 97.5% point of Student's t with `df` degrees of freedom (the half-width of a 95%
/// interval in standard errors): exact for one and two, else the Cornish-Fisher expansion
/// in 1/df (Abramowitz and Stegun 26.7.5), within 0.004 from three on; 1.96 at infinity.
fn t_975(df: f64) -> f64 {
    const Z: f64 = 1.959_964;
    if df < 1.5 {
        return 12.706;
    }
    if df < 2.5 {
        return 4.303;
    }
    let z2 = Z * Z;
    let g1 = Z * (z2 + 1.0) / 4.0;
    let g2 = Z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = Z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = Z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    let r = 1.0 / df;
    Z + r * (g1 + r * (g2 + r * (g3 + r * g4)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_support::FixedClock;

    /// `job`'s estimate drawn with `seed`, each subproblem taking `cost` seconds of a clock
    /// that only the timing moves: the sample ends on its own (past a quarter of the count's
    /// time), never on this machine's clock.
    fn estimate_costed(
        job: &Job,
        seed: u64,
        cost: &(dyn Fn(&Subproblem) -> f64 + Sync),
    ) -> Estimate {
        let clock = FixedClock::default();
        let known = |_: &Engines, s: &Subproblem, _: usize, _: &AtomicBool| {
            let c = cost(s);
            clock.advance(Duration::from_secs_f64(c));
            Some(c)
        };
        let timing = Timing {
            clock: &clock,
            time: &known,
        };
        job.estimate_timed(Duration::from_secs(3600), seed, None, &timing)
            .unwrap()
    }

    #[test]
    fn a_stratified_projection_adds_up_the_strata() {
        // Two strata: 10 subproblems of about 1 s and 100 of about 0.1 s.
        let times = [(0, 0.9), (0, 1.1), (1, 0.1), (1, 0.1), (1, 0.1)];
        let p = project(&[10, 100], &times, true);
        assert!((p.total - 20.0).abs() < 1e-9, "{p:?}");
        assert_eq!(p.sampled, 2);
        // Both spreads are guessed (the largest relative spread, at least 0.5): variances of
        // 100 * 0.25 / 2 * (1 - 2/10) = 10 and 10^4 * 0.0025 / 3 * (1 - 3/100); from
        // 2.47 degrees of freedom, t = 4.303 standard errors.
        let (v0, v1) = (10.0, 1e4 * 0.0025 / 3.0 * 0.97);
        let df = (v0 + v1) * (v0 + v1) / (v0 * v0 + v1 * v1 / 2.0);
        assert!(df > 1.5 && df < 2.5, "{df}");
        assert!(
            (p.margin - 4.303 * f64::sqrt(v0 + v1)).abs() < 1e-9,
            "{p:?}"
        );
        assert_eq!((p.guessed, p.short), (1.0, 8 + 7));
        // A stratum sampled whole carries no error, nor a guess.
        let p = project(&[2], &[(0, 1.0), (0, 3.0)], true);
        assert_eq!((p.total, p.margin, p.guessed, p.short), (4.0, 0.0, 0.0, 0));
        // Unless the subproblems were timed on a share of their work.
        let p = project(&[2], &[(0, 1.0), (0, 3.0)], false);
        assert!(p.margin > 0.0 && p.guessed == 1.0, "{p:?}");
        // An unsampled stratum is counted at the mean, with a wide margin.
        let p = project(&[1, 10], &[(0, 2.0)], true);
        assert_eq!(p.total, 22.0);
        assert!(p.margin > 10.0);
        assert_eq!(p.sampled, 1);
    }

    #[test]
    fn strata_timed_ten_times_or_more_are_trusted() {
        // Stratum 0 timed 40 times (its own spread), stratum 1 four times of its 50 (guessed).
        let mut times: Vec<(usize, f64)> = (0..40).map(|i| (0, 1.0 + (i % 4) as f64)).collect();
        times.extend([(1, 1.0), (1, 1.0), (1, 1.0), (1, 1.0)]);
        let p = project(&[1000, 50], &times, false);
        assert!((p.total - 2550.0).abs() < 1e-9, "{p:?}");
        assert!((p.guessed - 50.0 / 2550.0).abs() < 1e-12, "{p:?}");
        assert_eq!(p.short, 6);
        // Stratum 0's own variance, 50/39, over 40 samples; stratum 1's guessed, (0.5 * 1)^2
        // over 4: nearly all the variance has 39 degrees of freedom, and t is 2.02.
        let (v0, v1) = (1e6 * (50.0 / 39.0) / 40.0, 2500.0 * 0.25 / 4.0);
        let df = (v0 + v1) * (v0 + v1) / (v0 * v0 / 39.0 + v1 * v1 / 3.0);
        assert!(df > 39.0 && df < 40.0, "{df}");
        assert!(
            (p.margin - t_975(df) * f64::sqrt(v0 + v1)).abs() < 1e-9,
            "{p:?}"
        );
        assert!((t_975(df) - 2.02).abs() < 0.005);
    }

    #[test]
    fn the_skewness_is_the_projections_own() {
        // One stratum of 1000 timed 10 times, one of them costly: the projection's skewness
        // is the sample's, k3 / s^3, over the square root of the sample's size.
        let xs = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 10.0];
        let times: Vec<(usize, f64)> = xs.iter().map(|&x| (0, x)).collect();
        let p = project(&[1000], &times, false);
        let (k, m) = (10.0, 1.9);
        let s2 = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (k - 1.0);
        let k3 = xs.iter().map(|x| f64::powi(x - m, 3)).sum::<f64>() * k / ((k - 1.0) * (k - 2.0));
        let g1 = k3 / s2.powf(1.5);
        assert!((p.skew - g1 / k.sqrt()).abs() < 1e-9, "{p:?} {g1}");
        // Cochran's rule: k > 25 G1^2 wants 251 of these, so the projection is skewed.
        assert!(p.skew > 0.2 && 25.0 * g1 * g1 > 250.0, "{p:?} {g1}");
        // Alike or symmetric costs, none; a stratum timed whole, none.
        let even: Vec<(usize, f64)> = (0..12).map(|i| (0, [1.0, 2.0, 3.0][i % 3])).collect();
        assert!(project(&[1000], &even, false).skew.abs() < 1e-9);
        assert_eq!(project(&[10], &times, true).skew, 0.0);
    }

    #[test]
    fn t_points_match_the_tables() {
        // Student's t, 97.5% points (Fisher and Yates' tables).
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (3.0, 3.182),
            (5.0, 2.571),
            (10.0, 2.228),
            (30.0, 2.042),
            (120.0, 1.980),
        ] {
            assert!((t_975(df) - t).abs() < 0.004, "{df}: {}", t_975(df));
        }
        assert_eq!(t_975(f64::INFINITY), 1.959_964);
    }

    #[test]
    fn a_sample_runs_on_the_threads_whose_engines_fit() {
        // n = 20 on 8 threads under a budget that holds the engines of 2 threads (and the
        // plan): the sample runs on 2, the projection is for 8, and the advice says 2 fit.
        let probe = Job::new(&crate::Config::new(20).threads(8)).unwrap();
        let engines = |t| probe.costs.engines().bytes(t).unwrap();
        let budget = engines(2) + probe.cut().bytes() + (engines(3) - engines(2)) / 2;
        let job = Job::new(&crate::Config::new(20).threads(8).memory(budget)).unwrap();
        assert!(job.check_memory().is_err());
        // Each subproblem timed takes a second of a clock of its own.
        let e = estimate_costed(&job, 7, &|_| 1.0);
        assert_eq!((e.threads, e.sample_threads), (8, 2));
        assert_eq!(e.memory.available, Some(budget));
        assert!(e.memory.advice.is_some(), "{e:?}");
        assert!(e.memory.run() > budget);
        // Not even one thread's engines: the refusal stands.
        let tiny = Job::new(&crate::Config::new(20).threads(8).memory(1 << 20)).unwrap();
        let refused = tiny.estimate(Duration::from_millis(300), 7, None);
        assert!(matches!(refused, Err(Error::Memory { .. })), "{refused:?}");
    }

    #[test]
    fn shards_cover_the_upper_end_of_the_interval() {
        let e = Estimate {
            n: 20,
            algorithm: Algorithm::Join,
            threads: 4,
            subproblems: 100,
            sampled: 10,
            strata: 3,
            strata_sampled: 3,
            cpu_seconds: 4.0 * 3600.0 * 10.0,
            cpu_margin: 4.0 * 3600.0,
            guessed_share: 0.0,
            short_of_trusted: 0,
            skewness: 0.0,
            ran_dry: false,
            setup_seconds: 0.0,
            sample_threads: 4,
            memory_needed: 1,
            memory: MemoryNeeds {
                threads: 4,
                engines: 1,
                per_thread: 0,
                plan: 0,
                per_subproblem: 128,
                subproblems: 0,
                whole_subproblems: 0,
                available: None,
                advice: None,
            },
            peak_memory: None,
            spent: Duration::ZERO,
        };
        assert_eq!(e.wall_seconds(), 36000.0);
        // ±4 h from the sampling and 6% of 40 h twice over from the machine: ±7.76 h, so
        // 11.94 h a thread at the upper end.
        assert!(
            (e.margin() / 3600.0 - 7.762).abs() < 0.001,
            "{}",
            e.margin()
        );
        assert_eq!(e.shards(1.0), 12);
        assert_eq!(e.shards(100.0), 1);
        let (lo, hi) = e.wall_range();
        assert!(lo < e.wall_seconds() && hi > e.wall_seconds());
    }

    #[test]
    fn small_counts_are_projected_from_the_times_sampled() {
        // Every subproblem takes a quarter of a second of a clock that only the timing moves:
        // the projection is a quarter of a second a subproblem, and on one thread the sample
        // ends with the first subproblem past a quarter of the count's time, all strata
        // reached. The budget, on this machine's clock, never comes.
        for alg in [Algorithm::Join, Algorithm::Symmetry] {
            for threads in [1, 2] {
                let config = crate::Config::new(12).algorithm(alg).threads(threads);
                let job = Job::new(&config).unwrap();
                let e = estimate_costed(&job, 7, &|_| 0.25);
                let todo = job.todo().len();
                assert_eq!(e.subproblems, todo);
                assert_eq!(e.strata_sampled, e.strata, "{e:?}");
                let projected = 0.25 * todo as f64;
                assert!(
                    (e.cpu_seconds - projected).abs() < 1e-9 * projected,
                    "{e:?}"
                );
                if threads == 1 {
                    assert_eq!(e.sampled, (todo / 4 + 1).max(e.strata), "{e:?}");
                } else {
                    assert!(e.sampled >= e.strata && e.sampled <= todo, "{e:?}");
                }
                assert_eq!((e.threads, e.sample_threads), (threads, threads));
                memory_is_the_runs(&job, &e);
            }
        }
    }

    #[test]
    fn the_interval_holds_the_true_cost_at_least_nine_times_in_ten() {
        // Every subproblem takes a cost of its own, known in advance (its model estimate times
        // a factor from 1/range to range drawn from its id), on a clock that only the timing
        // moves: over 40 seeds, the 95% interval holds the sum of those costs at least 36
        // times. (Trusting the spread of two samples, it held 19 and 36 times at range 4.)
        for (alg, range) in [(Algorithm::Symmetry, 4.0), (Algorithm::Join, 4.0)]
            .into_iter()
            .chain([(Algorithm::Symmetry, 16.0), (Algorithm::Join, 16.0)])
        {
            let job = Job::new(&crate::Config::new(12).algorithm(alg).threads(1)).unwrap();
            let cost = |s: &Subproblem| {
                let u = XorShift::new(s.id.wrapping_mul(0x9e37_79b9) + 1).next() as f64;
                job.costs.estimate(s) * 1e-3 * f64::powf(range, 2.0 * u / u64::MAX as f64 - 1.0)
            };
            let truth: f64 = job
                .todo()
                .iter()
                .map(|&id| cost(&job.cut.subproblem(id)))
                .sum();
            let held = (0..40)
                .filter(|&seed| {
                    let e = estimate_costed(&job, seed, &cost);
                    assert!(e.sampled < e.subproblems, "{e:?}");
                    (e.cpu_seconds - truth).abs() <= e.cpu_margin
                })
                .count();
            assert!(held >= 36, "{alg}, factors to {range}: {held} of 40");
        }
    }

    /// The memory an estimate says a count needs is the run's own: its plan and its
    /// subproblems' bookkeeping, as the run's own check counts them, and for the kernel's plans
    /// the engines and their caches.
    fn memory_is_the_runs(job: &Job, e: &Estimate) {
        assert_eq!(e.memory.run(), e.memory_needed);
        let book = crate::run::budget::bookkeeping(job.cut(), e.subproblems);
        assert!(e.memory_needed > book);
        if job.plan().algorithm() == Algorithm::Symmetry {
            let threads = e.threads;
            assert_eq!(
                e.memory_needed,
                job.costs.engines().bytes(threads).unwrap_or(64 << 20)
                    + book
                    + (threads * job.cache_per_thread()) as u64
            );
        }
    }
}
