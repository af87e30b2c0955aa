//! The README and the guide (`docs/*.md`) are transcripts that run: every `console` block's
//! `$ ` commands are run in order, in one scratch folder per file, and must print what the
//! text shows and exit as it says.
//!
//! The transcript form (that of `trycmd` and `cram`):
//!
//! * `$ command` starts a command, run by `bash -c` with `nqueens-count` on the `PATH`, its
//!   standard error merged into its standard output, no standard input, and the repository's
//!   `examples/` reachable as `examples/`. `> more` continues it on the next line.
//! * `? N` right after the command says its exit status (0 when absent).
//! * The lines up to the next `$ ` or the end of the block are the output. In them `[..]`
//!   stands for any text within a line, and a line `...` for any number of lines. Numbers with
//!   a decimal point (times, rates, percentages of a run), with the unit letter that may follow
//!   them (`84.62 M`, `12.33 k`), stand for any such number, and runs of spaces for any run of
//!   spaces, so tables may realign; whole numbers (the counts) are matched exactly.
//!
//! A command of the program shown in any other kind of block (`sh`, `text`) is refused, so
//! that no example escapes this test.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use regex::Regex;

/// One command of a transcript and what it must do.
#[derive(Debug)]
struct Step {
    /// Where the command starts in its file (1-based), for the failure message.
    line: usize,
    command: String,
    status: i32,
    /// The expected output as written in the text.
    expected: String,
}

/// The longest a documented command may take: examples are for reading, not for waiting.
const LIMIT: Duration = Duration::from_secs(60);

/// The fenced blocks of a Markdown text: (info string, first content line, content lines with
/// the fence's indentation removed).
fn blocks(text: &str) -> Vec<(String, usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, usize, Vec<String>)> = None;
    for (i, raw) in text.lines().enumerate() {
        let indent = raw.len() - raw.trim_start().len();
        let trimmed = raw.trim_start();
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((info.trim().to_string(), indent, i + 2, Vec::new()));
                }
            }
            Some((info, fence_indent, start, mut lines)) => {
                if trimmed.starts_with("```") {
                    out.push((info, start, lines));
                } else {
                    let cut = indent.min(fence_indent);
                    lines.push(raw[cut..].to_string());
                    open = Some((info, fence_indent, start, lines));
                }
            }
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    out
}

/// The steps of one `console` block.
fn steps(start: usize, lines: &[String]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_command = false;
    for (i, line) in lines.iter().enumerate() {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                line: start + i,
                command: command.to_string(),
                status: 0,
                expected: String::new(),
            });
            in_command = true;
            continue;
        }
        let step = steps
            .last_mut()
            .unwrap_or_else(|| panic!("line {}: output before any `$ ` command", start + i));
        if in_command {
            if let Some(more) = line.strip_prefix("> ") {
                step.command.push('\n');
                step.command.push_str(more);
                continue;
            }
            if let Some(code) = line.strip_prefix("? ") {
                step.status = code
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("line {}: `? {code}`", start + i));
                in_command = false;
                continue;
            }
        }
        in_command = false;
        step.expected.push_str(line);
        step.expected.push('\n');
    }
    steps
}

/// The expected output as a pattern (see the module's notes).
fn pattern(expected: &str) -> Regex {
    let token = Regex::new(r"\[\.\.\]|\d+\.\d+(?: [kMGTP]\b)?| +").unwrap();
    let mut re = String::from(r"\A");
    for line in expected.lines() {
        if line == "..." {
            re.push_str(r"(?:[^\n]*\n)*?");
            continue;
        }
        let mut at = 0;
        for m in token.find_iter(line) {
            re.push_str(&regex::escape(&line[at..m.start()]));
            let t = m.as_str();
            re.push_str(if t == "[..]" {
                r"[^\n]*?"
            } else if t.starts_with(' ') {
                " +"
            } else {
                r"\d+(?:\.\d+)?(?: [kMGTP])?"
            });
            at = m.end();
        }
        re.push_str(&regex::escape(&line[at..]));
        re.push_str(r" *\n");
    }
    re.push_str(r"\z");
    Regex::new(&re).unwrap()
}

/// Runs one command in `dir` and returns its exit status and merged output.
fn run(dir: &Path, command: &str) -> (i32, String) {
    let program = PathBuf::from(env!("CARGO_BIN_EXE_nqueens-count"));
    let path = format!(
        "{}:{}",
        program.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env("COLUMNS", "100")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("PBS_ARRAY_INDEX")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut pipe, &mut out).unwrap();
        out
    });
    let begun = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if begun.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("`{command}` ran past {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

/// Runs every transcript of one file; returns its failures, one paragraph each.
fn check(file: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("examples"), scratch.path().join("examples")).unwrap();
    let mut failures = Vec::new();
    for (info, start, lines) in blocks(&text) {
        if info != "console" && ["", "sh", "bash", "shell", "text"].contains(&info.as_str()) {
            for (i, line) in lines.iter().enumerate() {
                let shown = line.trim_start().trim_start_matches("$ ");
                if shown.starts_with("nqueens-count ") {
                    failures.push(format!(
                        "{file}:{}: a command in a `{info}` block: show it in a `console` \
                         block with its output",
                        start + i
                    ));
                }
            }
            continue;
        }
        if info != "console" {
            continue;
        }
        for step in steps(start, &lines) {
            let (status, output) = run(scratch.path(), &step.command);
            if status != step.status || !pattern(&step.expected).is_match(&output) {
                failures.push(format!(
                    "{file}:{}: $ {}\n--- expected (exit {}):\n{}--- got (exit {status}):\n{output}",
                    step.line, step.command, step.status, step.expected
                ));
            }
        }
    }
    failures
}

fn assert_runs(file: &str) {
    let failures = check(file);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn readme_runs_as_shown() {
    assert_runs("README.md");
}

#[test]
fn the_readme_is_a_front_page() {
    // What it is, the two commands, examples and links: the rest belongs in docs/.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = std::fs::read_to_string(root.join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(lines < 150, "README.md has {lines} lines");
}

#[test]
fn guide_runs_as_shown() {
    assert_runs("docs/guide.md");
}

#[test]
fn every_document_is_checked() {
    // A new page under docs/ with commands needs a test above.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tested = ["docs/guide.md"];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = format!("docs/{}", entry.unwrap().file_name().to_string_lossy());
        let text = std::fs::read_to_string(root.join(&name)).unwrap();
        let runs = blocks(&text).iter().any(|(info, _, _)| info == "console");
        assert!(
            !runs || tested.contains(&name.as_str()),
            "{name} has transcripts but no test runs it"
        );
        if !tested.contains(&name.as_str()) {
            assert!(
                check(&name).is_empty(),
                "{name} shows a command outside a transcript"
            );
        }
    }
}

#[test]
fn the_pattern_holds_counts_exactly() {
    let p = pattern("16   14772512   0.094 s   84.62 M\n");
    assert!(p.is_match("16 14772512 1.5 s 12.33 k\n"));
    assert!(p.is_match("16 14772512 0.5 s 0.00\n"));
    assert!(!p.is_match("16 14772513 0.094 s 84.62 M\n"));
    assert!(!p.is_match("16 14772512 0.094 s 84.62 M\nmore\n"));
    let p = pattern("a\n...\nz [..]\n");
    assert!(p.is_match("a\nb\nc\nz anything\n"));
    assert!(p.is_match("a\nz \n"));
    assert!(!p.is_match("a\nb\n"));
    let s = steps(
        1,
        &[
            "$ x".into(),
            "> y".into(),
            "? 2".into(),
            "out".into(),
            "$ z".into(),
        ],
    );
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].command.as_str(), s[0].status), ("x\ny", 2));
    assert_eq!(s[0].expected, "out\n");
    assert_eq!((s[1].line, s[1].expected.as_str()), (5, ""));
}
