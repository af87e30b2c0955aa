//! Counting accepted subproblems again. A checksum only shows that a file is as its writer left
//! it, and the Burnside check and the per-subproblem bounds catch only some edits: a subproblem
//! whose count was changed (by hand, by faulty memory, by a broken node) with its file resealed
//! passes them. What the distributed counts that are trusted do is recount: a merge or a resume
//! counts a random sample of the subproblems it accepts again, and refuses on the first that
//! differs, naming it and its file. A forged subproblem is caught with the probability that the
//! sample holds it, so the sample is drawn with a fresh seed unless one is given.

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Job;
use super::engines::Engines;
use super::watch::watched;
use crate::error::Error;
use crate::persist::{Claim, Sampled};
use crate::plan::Cut;
use nqueens_engine::random::{Reservoir, XorShift};

/// How many accepted subproblems are counted again before they are trusted.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Recount {
    /// Subproblems drawn at random, recounted until this much time is spent: none is begun
    /// after it, and each one begun is finished (at most a slice's time more, about
    /// [`crate::Config::SLICE_SECONDS`]), so that a long subproblem is checked when drawn.
    For(Duration),
    /// This many subproblems drawn at random (0: none), however long they take.
    Subproblems(u64),
    /// Every subproblem.
    All,
}

impl Recount {
    /// The command line's default: a few seconds.
    pub const DEFAULT: Recount = Recount::For(Duration::from_secs(3));

    /// The most subproblems a merge or a resume draws for this recount: a time budget draws more
    /// than it can use, so that it is never short of subproblems.
    pub fn sample_size(self) -> usize {
        match self {
            Recount::For(_) => 1 << 16,
            Recount::Subproblems(k) => usize::try_from(k).unwrap_or(usize::MAX),
            Recount::All => usize::MAX,
        }
    }
}

impl FromStr for Recount {
    type Err = String;

    /// `all`, a number of subproblems (`0`: none), or seconds with an `s` (`10s`).
    fn from_str(s: &str) -> Result<Recount, String> {
        let bad = || {
            format!("'{s}' is not a recount: give a number of subproblems, seconds as 10s, or all")
        };
        if s == "all" {
            return Ok(Recount::All);
        }
        if let Some(secs) = s.strip_suffix('s') {
            let secs: f64 = secs.parse().map_err(|_| bad())?;
            return Duration::try_from_secs_f64(secs)
                .map(Recount::For)
                .map_err(|_| bad());
        }
        s.parse().map(Recount::Subproblems).map_err(|_| bad())
    }
}

/// What a recount checked.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Recounted {
    /// Subproblems counted again, each equal to its claim.
    pub checked: u64,
    /// Subproblems accepted, of which they were drawn.
    pub of: u64,
    /// The seed of the draw.
    pub seed: u64,
    /// Seconds the recount took.
    pub seconds: f64,
}

impl Recount {
    /// A seed for a draw that nobody can foresee: the clock's nanoseconds and the process
    /// id, mixed, in 53 bits (so that JSON readers of any language read it exactly).
    pub fn fresh_seed() -> u64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mixed = nanos ^ u64::from(std::process::id()).rotate_left(32);
        // One xorshift step spreads the bits; the top 53 are kept.
        XorShift::new(mixed).next() >> 11
    }
}

/// Counts `claims` (subproblems of `cut`, drawn at random, in that order) again on `threads`
/// threads, as `how` says, and refuses on the first whose count differs
/// ([`Error::Recount`]). `of` is the number of subproblems they were drawn from and `seed` the
/// draw's seed, for the report. Raising `cancel` ends it with [`Error::RecountInterrupted`].
pub fn recount(
    cut: &Cut,
    claims: &[Claim],
    (how, of, seed): (Recount, u64, u64),
    threads: usize,
    cancel: Option<&AtomicBool>,
) -> Result<Recounted, Error> {
    let begun = Instant::now();
    let wanted = match how {
        Recount::For(_) | Recount::All => claims.len(),
        Recount::Subproblems(k) => claims.len().min(usize::try_from(k).unwrap_or(usize::MAX)),
    };
    let mut done = Recounted {
        of,
        seed,
        ..Recounted::default()
    };
    if wanted == 0 {
        return Ok(done);
    }
    // The engines a count has, prepared once here on one thread, each thread keeping up to
    // 64 MiB between subproblems.
    let engines = Engines::prepared(cut.plan(), 64 << 20);
    let deadline = match how {
        Recount::For(d) => Some(begun + d),
        Recount::Subproblems(_) | Recount::All => None,
    };
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let checked = AtomicUsize::new(0);
    let mismatch: Mutex<Option<Error>> = Mutex::new(None);
    let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let recount_one = || {
        while !stop.load(Ordering::Relaxed) {
            // A time budget spent: no subproblem is begun after it.
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(claim) = claims[..wanted].get(i) else {
                break;
            };
            let sub = cut.subproblem(claim.id);
            let Some(subproblem) = engines.count(&sub, &stop) else {
                break;
            };
            if subproblem.count != claim.count {
                let found = Error::Recount {
                    id: claim.id,
                    claimed: claim.count,
                    counted: subproblem.count,
                    file: claim.file.as_deref().map(|f| f.to_path_buf()),
                };
                mismatch
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(found);
                stop.store(true, Ordering::Relaxed);
                break;
            }
            checked.fetch_add(1, Ordering::Relaxed);
        }
    };
    // Only a cancel stops a subproblem begun: the deadline stops the drawing.
    watched(&stop, None, cancel, || {
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, wanted) {
                scope.spawn(recount_one);
            }
        });
    });
    if let Some(e) = mismatch.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let checked = checked.into_inner();
    // A stop cuts short only what was begun: an interruption, whatever the budget.
    if cancelled() {
        return Err(Error::RecountInterrupted);
    }
    done.checked = checked as u64;
    done.seconds = begun.elapsed().as_secs_f64();
    Ok(done)
}

/// What a merge counted again ([`Sampled::recount`]), beyond the checks every file passed
/// (its structure, checksum, sums and bounds; the plan; Burnside's lemma where the plan has
/// a unique count; the keyed tags where a key was given).
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MergeChecks {
    /// The random sample of the subproblems, as `--recount` asked.
    pub sample: Recounted,
    /// The entries cut otherwise than this release cuts them at their files' slice times,
    /// and how many of their subproblems were recounted (all of them, or none under
    /// `--recount 0`).
    pub off_rule: (u64, u64),
    /// The shards recounted whole for an audit, increasing.
    pub audited: Vec<u64>,
    /// Their subproblems, every one recounted.
    pub audit: Recounted,
    /// The shards in all.
    pub shards: u64,
}

impl MergeChecks {
    /// Whether every subproblem of the merge was counted again (and agreed): by the sample,
    /// or by an audit of every shard.
    pub fn recounted_all(&self) -> bool {
        let sample = self.sample.of > 0 && self.sample.checked == self.sample.of;
        let audit = self.shards > 0 && self.audited.len() as u64 == self.shards;
        sample || audit
    }

    /// The chance that an audit of this many shards holds one given wrong shard: the shards
    /// audited over the shards in all.
    pub fn audit_catch(&self) -> f64 {
        if self.shards == 0 {
            return 0.0;
        }
        self.audited.len() as f64 / self.shards as f64
    }
}

impl Sampled {
    /// Counts again, on `threads` threads, and refuses on the first subproblem whose count
    /// differs ([`Error::Recount`], naming its file): first every subproblem of an entry cut
    /// otherwise than this release cuts it (unless `how` recounts none), then every one of
    /// the audited shards, then the random sample as `how` says. Raising `cancel` ends it
    /// with [`Error::RecountInterrupted`].
    pub fn recount(
        &self,
        how: Recount,
        threads: usize,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<MergeChecks, Error> {
        let mut checks = MergeChecks {
            shards: self.merged.shards,
            audited: self.audited.clone(),
            ..MergeChecks::default()
        };
        let all = |claims: &[Claim]| {
            let what = (Recount::All, claims.len() as u64, self.seed);
            recount(&self.cut, claims, what, threads, cancel)
        };
        if how != Recount::Subproblems(0) {
            checks.off_rule = (self.miscut_entries, all(&self.miscut)?.checked);
        } else {
            checks.off_rule = (self.miscut_entries, 0);
        }
        checks.audit = all(&self.audit_claims)?;
        let what = (how, self.subproblems, self.seed);
        checks.sample = recount(&self.cut, &self.sample, what, threads, cancel)?;
        Ok(checks)
    }
}

impl Job {
    /// Counts a random sample of the subproblems this job resumes again, as `how` says, drawn with
    /// `seed`, and refuses on the first that differs ([`Error::Recount`], naming the
    /// checkpoint it came from).
    pub fn recount_resumed(
        &self,
        how: Recount,
        seed: u64,
        cancel: Option<&AtomicBool>,
    ) -> Result<Recounted, Error> {
        self.check_key_kept()?;
        let file = self
            .checkpoint
            .as_ref()
            .map(|(path, _)| Arc::from(path.as_path()));
        let mut rng = XorShift::new(seed);
        let mut sample = Reservoir::new(how.sample_size());
        for p in self.resumed.values() {
            let claim = Claim {
                id: p.id,
                count: p.count,
                file: file.clone(),
            };
            sample.offer(claim, &mut rng);
        }
        let claims = sample.into_shuffled(&mut rng);
        let of = self.resumed.len() as u64;
        recount(&self.cut, &claims, (how, of, seed), self.threads, cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::{MergeOptions, merge};

    #[test]
    fn a_cancelled_recount_of_all_subproblems_is_an_interruption() {
        let dir = tempfile::tempdir().unwrap();
        let files = crate::tests_support::write_shards(dir.path(), 11, 1);
        let options = MergeOptions {
            keep: usize::MAX,
            seed: 7,
            ..MergeOptions::default()
        };
        let s = merge(&files, options).unwrap();
        let cancel = AtomicBool::new(true);
        let err = recount(
            &s.cut,
            &s.sample,
            (Recount::All, s.subproblems, 1),
            1,
            Some(&cancel),
        );
        assert!(matches!(err, Err(Error::RecountInterrupted)), "{err:?}");
        // A time budget already spent ends by itself with what it checked.
        let spent = (Recount::For(Duration::ZERO), s.subproblems, 1);
        let done = recount(&s.cut, &s.sample, spent, 1, None).unwrap();
        assert!(done.checked < s.subproblems);
    }

    #[test]
    fn fresh_seeds_fit_in_53_bits_and_differ() {
        let seeds: Vec<u64> = (0..64).map(|_| Recount::fresh_seed()).collect();
        assert!(seeds.iter().all(|&s| s < 1 << 53));
        assert!(seeds.windows(2).any(|w| w[0] != w[1]));
    }

    #[test]
    fn recounts_are_read_as_subproblems_seconds_or_all() {
        assert_eq!("all".parse(), Ok(Recount::All));
        assert_eq!("0".parse(), Ok(Recount::Subproblems(0)));
        assert_eq!("12".parse(), Ok(Recount::Subproblems(12)));
        assert_eq!(
            "2.5s".parse(),
            Ok(Recount::For(Duration::from_millis(2500)))
        );
        for bad in ["", "-1", "s", "-2s", "lots", "1e400s"] {
            assert!(bad.parse::<Recount>().is_err(), "{bad}");
        }
    }
}
