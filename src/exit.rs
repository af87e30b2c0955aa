//! How the program ends and speaks: the exit codes, the one place that maps outcomes to them,
//! and writing to stdout and stderr without ever panicking.
//!
//! 0 done, 1 a runtime failure (a bad checkpoint, too little memory, a failed `--verify`, a
//! refused merge), 2 a usage error, 3 from `status` while the count is not complete (shards
//! missing, partial or damaged, or none begun), 128 + the signal when a signal stopped it
//! after saving progress (130 for SIGINT, 143 for SIGTERM), as shells and schedulers expect.

use std::fmt::Display;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU8, Ordering};

use crate::output::Verdict;
use nqueens::Error;

/// How a task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Done.
    Ok,
    /// A runtime failure.
    Failed,
    /// A usage error.
    Usage,
    /// Interrupted after saving what was finished: 128 + the signal ([`SIGNAL`]).
    Interrupted,
    /// `status`: the count is not complete yet (shards missing, partial or damaged).
    Incomplete,
}

/// The signal that stopped the program, for [`Exit::Interrupted`]: SIGINT (2) unless the
/// signal handler stored another.
pub static SIGNAL: AtomicU8 = AtomicU8::new(2);

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::Incomplete => 3,
            Exit::Interrupted => 128 + SIGNAL.load(Ordering::SeqCst),
        }
    }

    /// The exit of a `--verify` check.
    pub fn of_verdict(v: Option<Verdict>) -> Exit {
        match v {
            Some(Verdict::Differs) => Exit::Failed,
            _ => Exit::Ok,
        }
    }
}

/// Prints `error: …` on stderr and returns `exit`.
pub fn fail(exit: Exit, msg: impl Display) -> Exit {
    say(format!("error: {msg}"));
    exit
}

/// Prints a library error as one line and returns its exit: a request the library refuses as
/// asked is a usage error; a failure while running is a runtime one.
pub fn error(e: &Error) -> Exit {
    let exit = if e.is_refusal() {
        Exit::Usage
    } else if e.is_interruption() {
        Exit::Interrupted
    } else {
        Exit::Failed
    };
    fail(exit, e)
}

/// Writes a line to stderr; a stderr that cannot be written to is ignored (the exit code
/// still tells).
pub fn say(line: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Writes a line to stdout; a closed pipe ends the program quietly, any other failure with
/// exit code 1.
pub fn out(line: &str) {
    out_raw(&format!("{line}\n"));
}

/// Writes text to stdout as it is (see [`out`]).
pub fn out_raw(text: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        say(format!("error: cannot write the output: {e}"));
        std::process::exit(i32::from(Exit::Failed.code()));
    }
}

/// Writes what `write` makes to stdout; a closed pipe is success.
pub fn to_stdout(what: &str, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Exit {
    let mut stdout = io::stdout().lock();
    match write(&mut stdout).and_then(|_| stdout.flush()) {
        Ok(()) => Exit::Ok,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => fail(Exit::Failed, format!("cannot write the {what}: {e}")),
    }
}
