//! The default task: count one board size or a range of them, whole, resumed from a
//! checkpoint, or as one shard of an array job.
//!
//! Everything is done by the library's run API ([`nqueens::Job`]); this file turns the
//! arguments into a job, shows progress, and prints what comes back.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use nqueens::constraint::Board;

use crate::machine::Machine;
use crate::output::{Verdict, verify};
use nqueens::persist::{self, Journal, Key, Shard};
use nqueens::{Algorithm, Config, Control, Counted, Job, Recount, Status};

use crate::args::{CountArgs, ShardArg, Sizes};
use crate::boards;
use crate::exit::{self, Exit, fail, out, say};
use crate::output;
use crate::progress::Progress;

/// Set by Ctrl-C or SIGTERM (after [`install_signal_handler`]); the run stops between
/// subproblems.
pub static CANCEL: AtomicBool = AtomicBool::new(false);

/// Whether work a stop must not lose has begun (a count, an estimate, a recount): before
/// it, while files are read and the plan is built, a signal ends the process at once, as
/// there is nothing to save.
static WORKING: AtomicBool = AtomicBool::new(false);

/// Marks the start (`true`) or the end of work a signal must stop in order
/// ([`WORKING`]).
pub fn working(on: bool) {
    WORKING.store(on, Ordering::SeqCst);
}

/// Installs the SIGINT (Ctrl-C) and SIGTERM handler: before any work, it ends the process at
/// once; during work, it raises [`CANCEL`]; a second signal leaves at once. The exit status
/// is 128 + the signal ([`exit::SIGNAL`]).
pub fn install_signal_handler() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| listen(on_signal));
}

/// What a signal does (on the handler's own thread, not inside the signal).
fn on_signal(signal: u8) {
    exit::SIGNAL.store(signal, Ordering::SeqCst);
    if !WORKING.load(Ordering::SeqCst) {
        say("interrupted before the work began: nothing to save");
        std::process::exit(i32::from(Exit::Interrupted.code()));
    }
    // The bar goes first, so that neither the rest of its line nor the stop message share
    // a line with it.
    crate::progress::clear();
    if CANCEL.swap(true, Ordering::SeqCst) {
        // A second signal: leave at once; the last periodic save stands.
        std::process::exit(i32::from(Exit::Interrupted.code()));
    }
}

/// Calls `handle` with each SIGINT or SIGTERM, from a thread that waits for them.
#[cfg(unix)]
fn listen(handle: fn(u8)) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("nqueens-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                handle(u8::try_from(signal).unwrap_or(2));
            }
        });
}

/// Calls `handle` with each Ctrl-C (as SIGINT).
#[cfg(not(unix))]
fn listen(handle: fn(u8)) {
    let _ = ctrlc::set_handler(move || handle(2));
}

/// Runs the count task.
pub fn run(args: &CountArgs) -> Result<Exit, Exit> {
    let board = board(args)?;
    let sizes = match (&board, &args.sizes) {
        (Some(b), _) => Sizes::one(b.n()),
        (None, Some(s)) => {
            crate::args::queens_size(s.largest()).map_err(|e| fail(Exit::Usage, e))?;
            s.clone()
        }
        (None, None) => return Err(fail(Exit::Usage, "give the board size N")),
    };
    if args.verify && (args.shard.is_some() || args.estimate) {
        return Err(fail(
            Exit::Usage,
            "--verify compares a whole count with the published values: give it to merge, not to --shard or --estimate",
        ));
    }
    let single = sizes.single().is_some();
    if !single && (args.checkpoint.is_some() || args.shard.is_some() || args.out.is_some()) {
        return Err(fail(
            Exit::Usage,
            "--checkpoint, --shard and --out take a single N, not a range or a list",
        ));
    }
    let shard = shard(args)?;
    let key = key(args)?;
    if let Some(out) = &args.out
        && let Err(e) = Journal::check_target(out)
    {
        return Err(fail(
            Exit::Failed,
            format!("{}: cannot be written: {e}", out.display()),
        ));
    }
    // Held until the count ends: a second process on the same file refuses at once.
    let mut locks = Vec::new();
    for path in [&args.checkpoint, &args.out].into_iter().flatten() {
        if locks.iter().any(|(p, _)| p == &path) {
            continue;
        }
        // A file that cannot be written is refused first, as itself: its lock file could
        // not be made either.
        Journal::check_target(path).map_err(|e| {
            fail(
                Exit::Failed,
                format!("{}: could not be saved: {e}", path.display()),
            )
        })?;
        let lock = Journal::lock(path).map_err(|e| fail(Exit::Failed, e))?;
        if let Some(why) = lock.unlocked() {
            say(format!(
                "warning: {} is not locked ({why}): a second count given the same file would \
                 not be refused, and the two would overwrite each other's work",
                path.display()
            ));
        }
        locks.push((path, lock));
    }
    install_signal_handler();
    let machine = Machine::detect();
    if args.threads > machine.hardware_threads {
        say(format!(
            "warning: {} on {}: the threads will take turns, which only slows the count",
            output::things(args.threads as u64, "thread", "threads"),
            output::things(
                machine.hardware_threads as u64,
                "hardware thread",
                "hardware threads"
            )
        ));
    }
    let mut worst = Exit::Ok;
    let mut header = !args.json && shard.is_none() && !args.estimate;
    for &n in sizes.all() {
        let given = Given {
            shard,
            board: board.as_ref(),
            key: key.as_ref(),
        };
        let verdict = count_one(n, args, given, &machine, &mut header)?;
        worst = worst.max(Exit::of_verdict(verdict));
    }
    Ok(worst)
}

/// The key of `--key`, read, if given: it tags the files a count writes, so one of them must
/// be asked for.
fn key(args: &CountArgs) -> Result<Option<Key>, Exit> {
    let Some(path) = &args.trust.key else {
        return Ok(None);
    };
    if args.checkpoint.is_none() && args.out.is_none() {
        return Err(fail(
            Exit::Usage,
            "--key tags the files of --out and --checkpoint: give one of them",
        ));
    }
    Key::read(path).map(Some).map_err(|e| fail(Exit::Usage, e))
}

/// What the arguments give one count beyond its size: the shard, the constrained board and
/// the key of its files.
#[derive(Clone, Copy)]
struct Given<'a> {
    shard: Option<Shard>,
    board: Option<&'a Board>,
    key: Option<&'a Key>,
}

/// The constrained board the arguments ask for, if any (one size, no algorithm, nothing to
/// verify against).
fn board(args: &CountArgs) -> Result<Option<Board>, Exit> {
    if !boards::wanted(&args.constraints) {
        return Ok(None);
    }
    let usage = |msg: &str| Err(fail(Exit::Usage, msg));
    let n = match &args.sizes {
        Some(s) => match s.single() {
            Some(n) => Some(n),
            None => return usage("a board or --piece rook takes a single N"),
        },
        None => None,
    };
    if args.algorithm.is_some() {
        return usage(
            "--algorithm chooses among the empty-board counters: constrained and rook boards have their own",
        );
    }
    if args.verify {
        return usage("--verify compares empty queens boards with the published counts");
    }
    boards::load(&args.constraints, n)
}

/// The shard asked for, with `auto/M` resolved from the scheduler's environment.
fn shard(args: &CountArgs) -> Result<Option<Shard>, Exit> {
    let usage = |msg: String| fail(Exit::Usage, msg);
    let shard = match args.shard {
        None => None,
        Some(ShardArg::Fixed { index, count }) => Some(Shard { index, count }),
        Some(ShardArg::Auto { count }) => {
            let index =
                crate::args::shard_index_from_env(|k| std::env::var(k).ok()).map_err(usage)?;
            Some(Shard::new(index, count).map_err(|_| {
                usage(format!(
                    "the scheduler's shard index {index} is out of range for {count} shards"
                ))
            })?)
        }
    };
    match (shard, &args.out) {
        (Some(_), None) if !args.estimate => Err(usage(
            "--shard needs --out FILE for the shard's result file".to_string(),
        )),
        (None, Some(_)) => Err(usage(
            "--out writes a shard's result file: give --shard I/M (0/1 for the whole count)"
                .to_string(),
        )),
        _ => Ok(shard),
    }
}

/// The checkpoint at `--checkpoint`, when it exists, read once.
fn existing_checkpoint(args: &CountArgs) -> Result<Option<Journal>, Exit> {
    match &args.checkpoint {
        Some(path) if path.exists() => Journal::read_header(path)
            .map(Some)
            .map_err(|e| exit::error(&e.into())),
        _ => Ok(None),
    }
}

/// The configuration for `n`: the arguments, and where they name no algorithm, the
/// checkpoint's own (the job then takes the checkpoint's plan; see [`Job::checkpoint_read`]).
fn config(n: usize, args: &CountArgs, existing: Option<&Journal>, board: Option<&Board>) -> Config {
    let mut config = match board {
        Some(b) => Config::board(b.clone()).threads(args.threads),
        None => {
            let algorithm = match (args.algorithm, existing) {
                (Some(a), _) => a.into(),
                (None, Some(j)) => j.algorithm().unwrap_or(Algorithm::default_for(n)),
                (None, None) => Algorithm::default_for(n),
            };
            Config::new(n).threads(args.threads).algorithm(algorithm)
        }
    };
    if let Some(bytes) = args.memory {
        config = config.memory(bytes);
    }
    if let Some(d) = args.split_depth {
        config = config.split_depth(d);
    }
    if let Some(s) = args.slice_seconds {
        config = config.slice_time(std::time::Duration::from_secs_f64(s));
    }
    config
}

/// A finished shard's result that could not be written to `path`: kept in the first place
/// that takes it (beside `path`, then the temporary folder), else printed on stdout, so that
/// the count is never lost; the error says where it went.
fn keep_unsaved(result: &Journal, path: &Path, e: &persist::JournalError) -> Exit {
    let name = path
        .file_name()
        .map_or("result.json".into(), |f| f.to_string_lossy());
    let pid = std::process::id();
    let beside = path.with_file_name(format!("{name}.unsaved-{pid}"));
    let temporary = std::env::temp_dir().join(format!("{name}.unsaved-{pid}"));
    for place in [beside, temporary] {
        if result.write(&place).is_ok() {
            return fail(
                Exit::Failed,
                format!(
                    "{e}; the finished result is kept in {}: rename it to {} to merge it",
                    place.display(),
                    path.display()
                ),
            );
        }
    }
    out(&result.to_json());
    fail(
        Exit::Failed,
        format!(
            "{e}; the finished result is on stdout: save it as {} to merge it",
            path.display()
        ),
    )
}

/// Refuses, before the count, an `--out` file that exists and is not a result of this very
/// shard (the same n, algorithm, plan and shard), which the result would replace: an input
/// board, a checkpoint, another shard's result. An empty file holds nothing to lose.
fn check_replaceable(path: &Path, job: &Job, shard: Shard) -> Result<(), Exit> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    // What is no regular file is refused by the write itself, before the count.
    if !meta.is_file() || meta.len() == 0 {
        return Ok(());
    }
    let plan = job.plan();
    let what = match Journal::read_header(path) {
        Err(_) => "it is not a result file of this program".to_string(),
        Ok(j) if j.is_checkpoint() => "it is a checkpoint".to_string(),
        Ok(j)
            if j.n() == plan.n()
                && j.algorithm() == Some(plan.algorithm())
                && j.plan_hash() == plan.hash() =>
        {
            match j.shard() {
                Some(s) if s == shard => return Ok(()),
                Some(s) => format!("it is the result of shard {s}, not {shard}"),
                None => "it is the result of a whole run".to_string(),
            }
        }
        Ok(j) => format!(
            "it is the result of another count (n = {}, {}, plan {}, {})",
            j.n(),
            j.algorithm().map_or("an unknown algorithm", |a| a.name()),
            j.plan_hash(),
            j.shard()
                .map_or("a whole run".to_string(), |s| format!("shard {s}"))
        ),
    };
    Err(fail(
        Exit::Failed,
        format!(
            "{}: {what}, and --out would replace it: move it away or give another file",
            path.display()
        ),
    ))
}

/// Counts one n and prints it; `Ok` carries the `--verify` verdict, `Err` an exit that ends
/// the whole command.
fn count_one(
    n: usize,
    args: &CountArgs,
    given: Given,
    machine: &Machine,
    header: &mut bool,
) -> Result<Option<Verdict>, Exit> {
    let Given { shard, board, key } = given;
    let existing = existing_checkpoint(args)?;
    if board.is_none()
        && existing.as_ref().and_then(Journal::algorithm) == Some(Algorithm::Constrained)
    {
        // A file of another count, as one of another n or algorithm: exit 1.
        let path = args
            .checkpoint
            .as_deref()
            .unwrap_or(Path::new(""))
            .display();
        return Err(fail(
            Exit::Failed,
            format!(
                "{path}: written for a constrained board: give its --board, --allowed and --piece"
            ),
        ));
    }
    let config = config(n, args, existing.as_ref(), board);
    if let Some(depth) = args.split_depth
        && args.algorithm.is_none()
        && config.chosen_algorithm() == Algorithm::Join
    {
        // The user chose a depth, not the algorithm: name the default that has none.
        return Err(fail(
            Exit::Usage,
            format!(
                "--split-depth {depth} does not apply to join, the default algorithm for n = {n}, \
                 which has no split depth: add --algorithm symmetry (or plain)"
            ),
        ));
    }
    let mut job = Job::new(&config).map_err(|e| exit::error(&e))?;
    if let Some(s) = shard {
        // A shard past the entries would own nothing, and its files be refused.
        let entries = job.plan().entry_count();
        if s.count > entries {
            return Err(fail(
                Exit::Usage,
                format!(
                    "--shard {s}: the plan of n = {n} ({}) has {}, so it takes at most {entries} \
                     shards",
                    job.plan().algorithm().name(),
                    output::things(entries, "entry", "entries")
                ),
            ));
        }
        job = job.shard(s);
    }
    if let Some(key) = key {
        job = job.key(key.clone()).map_err(|e| exit::error(&e))?;
    }
    if let Some(path) = &args.checkpoint {
        job = job
            .checkpoint_read(path, existing)
            .map_err(|e| exit::error(&e))?;
    }
    if args.estimate {
        // The estimate checks what its sample needs; the run's bookkeeping is in its report.
        working(true);
        crate::estimate::run(&job, args, shard, &CANCEL)?;
        working(false);
        return Ok(None);
    }
    if let (Some(s), Some(path)) = (shard, &args.out) {
        check_replaceable(path, &job, s)?;
    }
    job.check_memory().map_err(|e| exit::error(&e))?;
    working(true);
    if let Some(path) = args
        .checkpoint
        .as_ref()
        .filter(|_| !job.resumed().is_empty())
    {
        let seed = args.trust.recount_seed.unwrap_or_else(Recount::fresh_seed);
        let how = args.trust.recount;
        // Said before it starts: the recount takes seconds before any progress shows.
        let first = match how {
            Recount::For(t) => Some(format!(
                "recounting a random sample of them for up to {:.1} s",
                t.as_secs_f64()
            )),
            Recount::Subproblems(0) => None,
            Recount::Subproblems(k) => Some(format!("recounting {k} of them at random")),
            Recount::All => Some("recounting every one of them".to_string()),
            _ => Some("recounting a random sample of them".to_string()),
        };
        // On a terminal, where the silence would show; logs get the line after it.
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
        if let Some(first) = first.filter(|_| terminal && !args.no_progress) {
            say(format!(
                "resuming {} finished subproblems from {}: {first}",
                job.resumed().len(),
                path.display()
            ));
        }
        let (entries, dropped) = job.recut();
        if entries > 0 {
            say(format!(
                "{}: {} cut otherwise than this release cuts them at the file's slice times \
                 (a file relabelled, or written by another release): their {} dropped, and \
                 the entries counted again",
                path.display(),
                output::things(entries, "entry is", "entries are"),
                output::things(dropped, "finished subproblem", "finished subproblems")
            ));
        }
        let done = job
            .recount_resumed(how, seed, Some(&CANCEL))
            .map_err(|e| exit::error(&e))?;
        say(format!(
            "resumed {} of {} from {}; checked: structure, checksum, sums and bounds against \
             the plan{}; {}{}",
            job.resumed().len(),
            output::things(job.wanted_len() as u64, "subproblem", "subproblems"),
            path.display(),
            if args.trust.key.is_some() {
                ", keyed tag"
            } else {
                ""
            },
            output::recount_words(&done, how),
            if job.todo_len() == 0 {
                "; nothing was left to count: the result is the file's"
            } else {
                ""
            }
        ));
    }
    let progress = Progress::new(&job, !args.no_progress);
    let observe = |p: &Counted, s: &Status| progress.finished(p, s);
    // A failed save does not stop the count: told once, when it first happens.
    let save_failed = |e: &persist::JournalError| {
        crate::progress::clear();
        say(format!("warning: {e}; the count goes on"));
    };
    let result = job.run(Control {
        cancel: Some(&CANCEL),
        observer: progress.shown().then_some(&observe as _),
        save_failed: Some(&save_failed),
    });
    progress.finish();
    let outcome = result.map_err(|e| exit::error(&e))?;
    if outcome.cancelled {
        let done = outcome.counted.len();
        let wanted = output::things(job.wanted_len() as u64, "subproblem", "subproblems");
        say(match (&args.checkpoint, &outcome.unsaved) {
            (Some(path), Some(e)) => format!(
                "interrupted: {done} of {wanted} done, but not saved ({e}): {} holds the last save",
                path.display()
            ),
            (Some(path), None) => format!(
                "interrupted: {done} of {wanted} done and saved to {}; run the same command again to resume",
                path.display()
            ),
            (None, _) => format!(
                "interrupted: {done} of {wanted} done, none saved (use --checkpoint FILE to keep them)"
            ),
        });
        return Err(Exit::Interrupted);
    }
    if let (Some(s), Some(path)) = (shard, &args.out) {
        let result = job.shard_result(&outcome);
        if let Err(e) = result.write(path) {
            return Err(keep_unsaved(&result, path, &e));
        }
        out(&output::shard_line(&outcome, s, path, args.json));
        working(false);
        return match &outcome.unsaved {
            Some(e) => Err(unsaved(e)),
            None => Ok(None),
        };
    }
    let counts = outcome.counts().expect("a whole, finished count");
    let verdict = args.verify.then(|| verify(n, counts.total, counts.unique));
    // The table's header comes with its first row, so that a count that fails (a checkpoint
    // that cannot be written, a refused sum, threads that do not start) prints nothing on
    // stdout.
    if std::mem::take(header) {
        out(&output::header());
    }
    out(&if args.json {
        output::json_row(&counts, verdict, machine)
    } else {
        output::human_row(&counts)
    });
    if let Some(note) = board.and_then(|b| boards::rook_hint(&args.constraints, b, counts.total)) {
        say(note);
    }
    if args.stats {
        say(output::stats(&counts, machine));
    }
    if let Some(v) = verdict {
        say(output::verdict_words(n, v, counts.unique));
    }
    working(false);
    match &outcome.unsaved {
        Some(e) => Err(unsaved(e)),
        None => Ok(verdict),
    }
}

/// The exit of a count that finished (its result printed) but whose checkpoint's last save
/// failed: one line, exit 1.
fn unsaved(e: &persist::JournalError) -> Exit {
    fail(
        Exit::Failed,
        format!("{e}; the result above is whole, but the checkpoint holds only its last save"),
    )
}
