//! What the program shows only when standard error is a terminal: the progress bar, which
//! must fit the terminal's width and start a resumed run where its checkpoint left off, the
//! line said before a resumed run's recount, and the line Ctrl-C leaves once the bar is
//! cleared. A pipe shows none of it (the other tests see stderr through pipes), so these run
//! the program in a pseudo-terminal: `script` from util-linux or, without it, python3's `pty`
//! module. Where neither gives one, the tests say why and pass, except under CI
//! (`CI=true`), where they fail.

mod common;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use common::{cmd, saved_counted, skip};
use regex::Regex;

/// A program that runs a shell command line in a new pseudo-terminal, copies what the
/// terminal receives to its own stdout, and exits with the command's status.
#[derive(Clone, Copy, Debug)]
enum Pty {
    /// `script -qefc LINE /dev/null` (util-linux).
    Script,
    /// python3's `pty.spawn`.
    Python,
}

impl Pty {
    /// The command that runs `line` (by `/bin/sh`) in a terminal.
    fn command(self, line: &str) -> Command {
        let mut c = match self {
            Pty::Script => {
                let mut c = Command::new("script");
                c.args(["-qefc", line, "/dev/null"]).env("SHELL", "/bin/sh");
                c
            }
            Pty::Python => {
                let mut c = Command::new("python3");
                c.args([
                    "-c",
                    "import pty, sys\n\
                     s = pty.spawn(['/bin/sh', '-c', sys.argv[1]])\n\
                     sys.exit(s >> 8 if s & 0x7f == 0 else 128 + (s & 0x7f))",
                    line,
                ]);
                c
            }
        };
        c.stdin(Stdio::null());
        c
    }

    /// The first of `script` and python3 that gives a command a terminal for stderr here, or
    /// why neither does.
    fn find() -> Result<Pty, String> {
        static FOUND: OnceLock<Result<Pty, String>> = OnceLock::new();
        FOUND
            .get_or_init(|| {
                let mut why = Vec::new();
                for pty in [Pty::Script, Pty::Python] {
                    match pty.command("test -t 2").output() {
                        Ok(out) if out.status.success() => return Ok(pty),
                        Ok(out) => why.push(format!(
                            "{pty:?} gave no terminal ({}): {}",
                            out.status,
                            String::from_utf8_lossy(&out.stdout).trim()
                        )),
                        Err(e) => why.push(format!("{pty:?} did not start: {e}")),
                    }
                }
                Err(why.join("; "))
            })
            .clone()
    }
}

/// `s` quoted for the shell.
fn quoted(s: impl AsRef<OsStr>) -> String {
    let s = s.as_ref().to_str().expect("a path in UTF-8");
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The program under test, quoted for the shell.
fn program() -> String {
    quoted(env!("CARGO_BIN_EXE_nqueens-count"))
}

/// Runs the shell command line `line` in a terminal `columns` wide and 24 rows high (a
/// terminal with no rows has no size, and the program would fall back on 80 columns).
/// Returns its exit status and what the terminal received, or `None` after [`skip`] when
/// no pseudo-terminal can be had.
fn in_terminal(columns: u16, line: &str) -> Option<(Option<i32>, String)> {
    let pty = match Pty::find() {
        Ok(pty) => pty,
        Err(why) => {
            skip(&format!("no pseudo-terminal: {why}"));
            return None;
        }
    };
    // On a line of its own: `line` may end in `&`, which would take the stty with it.
    let line = format!("stty rows 24 cols {columns} || exit 99\n{line}");
    let out = pty.command(&line).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_ne!(out.status.code(), Some(99), "stty failed: {text}");
    Some((out.status.code(), text))
}

/// Every line drawn in `text`: split at each `\r` and `\n`, escape sequences removed, empty
/// ones left out. Each redraw of the bar is one.
fn drawn(text: &str) -> Vec<String> {
    let escape = Regex::new(r"\x1b\[[0-9;?]*[ -/]*[@-~]").unwrap();
    escape
        .replace_all(text, "")
        .split(['\r', '\n'])
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The lines a terminal shows once it has received `text`, as written (a long line is not
/// wrapped): `\r` goes back to the start of the line, `\n` to the next line, ESC [ 2K erases
/// the line and ESC [ K the rest of it, a character replaces the one under the cursor. No
/// other escape sequence may appear. Trailing spaces are left out; so is the empty line
/// after the last `\n`.
fn screen(text: &str) -> Vec<String> {
    let mut lines: Vec<Vec<char>> = vec![vec![]];
    let mut col = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let line = lines.last_mut().unwrap();
        match c {
            '\r' => col = 0,
            '\n' => {
                lines.push(vec![]);
                col = 0;
            }
            '\x1b' => {
                let mut seq = String::new();
                for c in chars.by_ref() {
                    seq.push(c);
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
                match seq.as_str() {
                    "[2K" => line.clear(),
                    "[K" | "[0K" => line.truncate(col),
                    // indicatif moves the cursor up (ESC [ 1A) only over a drawing that
                    // wrapped: a line too long for the terminal.
                    _ => panic!("an escape sequence the test cannot follow: ESC {seq:?}"),
                }
            }
            c => {
                if col < line.len() {
                    line[col] = c;
                } else {
                    line.resize(col, ' ');
                    line.push(c);
                }
                col += 1;
            }
        }
    }
    if lines.last().is_some_and(Vec::is_empty) {
        lines.pop();
    }
    lines
        .iter()
        .map(|l| l.iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// Counts n = 17 on two threads into the checkpoint `path` and stops it once half its
/// subproblems are done; returns the subproblems saved.
fn half_done_checkpoint(path: &Path) -> usize {
    use nqueens::{Config, Control, Counted, Job, Status};
    use std::sync::atomic::{AtomicBool, Ordering};
    let job = Job::new(&Config::new(17).threads(2))
        .unwrap()
        .checkpoint(path)
        .unwrap();
    let stop = AtomicBool::new(false);
    let observe = |_: &Counted, s: &Status| {
        if s.done * 2 >= s.todo {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let outcome = job
        .run(Control {
            cancel: Some(&stop),
            observer: Some(&observe),
            ..Control::default()
        })
        .unwrap();
    assert!(outcome.cancelled);
    let saved = saved_counted(path).unwrap().len();
    assert_eq!(saved, outcome.counted.len());
    saved
}

#[test]
fn the_progress_line_fits_the_terminal() {
    for columns in [80, 60] {
        let line = format!("{} 17 --threads 2 >/dev/null", program());
        let Some((code, text)) = in_terminal(columns, &line) else {
            return;
        };
        assert_eq!(code, Some(0), "{text:?}");
        let lines = drawn(&text);
        let bars = lines.iter().filter(|l| l.starts_with("n = 17 ")).count();
        assert!(
            bars >= 2,
            "{columns} columns: the bar was not drawn: {text:?}"
        );
        for line in &lines {
            assert!(
                line.chars().count() <= usize::from(columns),
                "{columns} columns: a line of {}: {line:?}",
                line.chars().count()
            );
        }
    }
}

#[test]
fn a_resumed_bar_starts_with_the_work_its_checkpoint_holds() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("half.json");
    let saved = half_done_checkpoint(&cp);
    let line = format!(
        "{} 17 --threads 2 --checkpoint {} --recount 0 >/dev/null",
        program(),
        quoted(&cp)
    );
    let Some((code, text)) = in_terminal(80, &line) else {
        return;
    };
    assert_eq!(code, Some(0), "{text:?}");
    let resumed = Regex::new(r"resumed (\d+) of (\d+) subproblems").unwrap();
    let caps = resumed.captures(&text).expect("a resume line");
    let (done, wanted): (usize, usize) = (caps[1].parse().unwrap(), caps[2].parse().unwrap());
    assert_eq!(done, saved);
    let share = done * 100 / wanted;
    assert!(share >= 40, "{done} of {wanted}: too little for a test");
    let percent = Regex::new(r"(\d+)% \d\d:\d\d:\d\d").unwrap();
    let subproblems = Regex::new(r"(\d+)/(\d+) subproblems").unwrap();
    let bars: Vec<String> = drawn(&text)
        .into_iter()
        .filter(|l| l.starts_with("n = 17 "))
        .collect();
    assert!(!bars.is_empty(), "no bar: {text:?}");
    // The first drawing already counts what was resumed, and so does every later one.
    for bar in &bars {
        let shown: usize = percent.captures(bar).expect("a percentage")[1]
            .parse()
            .unwrap();
        assert!(shown >= share, "{bar:?} after {done} of {wanted} resumed");
        if let Some(c) = subproblems.captures(bar) {
            let (of, all): (usize, usize) = (c[1].parse().unwrap(), c[2].parse().unwrap());
            assert!(
                of >= done && all == wanted,
                "{bar:?} after {done} of {wanted} resumed"
            );
        }
    }
}

#[test]
fn the_recount_before_a_resumed_run_is_announced_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (piped, shown) = (dir.path().join("piped.json"), dir.path().join("shown.json"));
    let saved = half_done_checkpoint(&piped);
    std::fs::copy(&piped, &shown).unwrap();
    let args = "17 --threads 2 --recount 5 --checkpoint";
    let resumed = |cp: &Path| {
        format!(
            "resumed {saved} of 17193 subproblems from {}; ",
            cp.display()
        )
    };
    // Through a pipe, the line after the recount says it all: a log needs no announcement.
    let out = cmd().args(args.split(' ')).arg(&piped).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.starts_with(&resumed(&piped)), "{err}");
    assert!(!err.contains("resuming"), "{err}");
    // On a terminal, the recount is announced on a line of its own before it starts.
    let line = format!("{} {args} {} >/dev/null", program(), quoted(&shown));
    let Some((code, text)) = in_terminal(80, &line) else {
        return;
    };
    assert_eq!(code, Some(0), "{text:?}");
    let lines = screen(&text);
    assert!(lines.len() >= 2, "{lines:#?}");
    let announced = format!(
        "resuming {saved} finished subproblems from {}: recounting 5 of them at random",
        shown.display()
    );
    assert_eq!(lines[0], announced, "{lines:#?}");
    assert!(lines[1].starts_with(&resumed(&shown)), "{lines:#?}");
}

#[test]
fn ctrl_c_clears_the_bar_before_saying_the_count_was_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let cp = quoted(dir.path().join("q.json"));
    // The guide's way to send SIGINT (what Ctrl-C sends) once the checkpoint holds subproblems,
    // by when the bar is drawn, with a way out if the count ends first.
    let line = format!(
        "{} 20 --threads 2 --checkpoint {cp} >/dev/null &\n\
         until grep -qs '\"whole\":\\[\\[' {cp}; do kill -0 $! || break; sleep 0.1; done\n\
         kill -INT $!; wait $!",
        program()
    );
    let Some((code, text)) = in_terminal(80, &line) else {
        return;
    };
    assert_eq!(code, Some(130), "{text:?}");
    assert!(
        drawn(&text).iter().any(|l| l.starts_with("n = 20 [")),
        "the bar was not drawn: {text:?}"
    );
    let lines = screen(&text);
    let last = lines.last().expect("some output");
    let interrupted = Regex::new(
        r"^interrupted: \d+ of 46548 subproblems done and saved to .*q\.json; run the same command again to resume$",
    )
    .unwrap();
    assert!(interrupted.is_match(last), "{lines:#?}");
}

#[test]
fn an_estimate_shows_its_sampling_and_ctrl_c_ends_it_with_130() {
    // n = 21 on one thread would sample for its whole 600 s: the bar shows the time spent,
    // and SIGINT, a second after the sampling threads start, clears it and says what was
    // timed.
    let line = format!(
        "{} 21 --estimate --estimate-seconds 600 -t 1 >/dev/null &\n\
         until grep -qs nqueens-estim /proc/$!/task/*/comm; do kill -0 $! || break; sleep 0.1; done\n\
         sleep 1; kill -INT $!; wait $!",
        program()
    );
    let Some((code, text)) = in_terminal(80, &line) else {
        return;
    };
    assert_eq!(code, Some(130), "{text:?}");
    let lines = drawn(&text);
    let bars: Vec<&String> = lines.iter().filter(|l| l.starts_with("n = 21 [")).collect();
    assert!(!bars.is_empty(), "the bar was not drawn: {text:?}");
    assert!(bars.iter().all(|b| b.contains("estimating")), "{bars:#?}");
    for bar in &bars {
        assert!(bar.chars().count() <= 80, "{bar:?}");
    }
    let screen = screen(&text);
    let last = screen.last().expect("some output");
    assert!(
        last.starts_with("interrupted: sampling stopped after "),
        "{screen:#?}"
    );
    // Through a pipe the same estimate draws nothing (`tests/estimate.rs`).
}
