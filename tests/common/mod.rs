//! Helpers the command-line tests share: the built program, its standard output when it
//! succeeds, signals sent at a moment the test has seen rather than guessed, and skips that
//! CI does not allow.

// Each test file uses some of these helpers.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;

/// The program under test.
pub fn cmd() -> Command {
    Command::cargo_bin("nqueens-count").unwrap()
}

/// The standard output of a run that must succeed (its stderr in the failure message).
pub fn stdout_of(args: &[&str]) -> String {
    let out = cmd().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Starts the program with `args`, its stdout discarded and its stderr kept.
pub fn spawn<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Child {
    std::process::Command::cargo_bin("nqueens-count")
        .unwrap()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `ready()` holds, looking every 50 ms; fails if `child` ends first or if two
/// minutes pass, naming `what` it waited for.
pub fn wait_until(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let begun = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut pipe, &mut err);
            }
            panic!("the program ended before {what}: {status:?} {err}");
        }
        assert!(
            begun.elapsed() < Duration::from_secs(120),
            "waited two minutes for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the process `pid` runs a thread whose name starts with `prefix` (from Linux's
/// `/proc`; a name is cut to 15 bytes there): the program names its threads, so a test can
/// wait for the one it means to reach.
pub fn runs_thread(pid: u32, prefix: &str) -> bool {
    let tasks = format!("/proc/{pid}/task");
    std::fs::read_dir(tasks).is_ok_and(|dir| {
        dir.flatten().any(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|name| name.starts_with(prefix))
        })
    })
}

/// The CPU seconds the threads of process `pid` whose names start with `prefix` have used
/// (from Linux's `/proc`, in the kernel's clock ticks): a test waits on the work a thread
/// did, not on a wall-clock sleep that a loaded machine makes too short.
pub fn thread_cpu_seconds(pid: u32, prefix: &str) -> f64 {
    // SAFETY: `sysconf` reads a constant of the system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0.0;
    };
    let mut used = 0u64;
    for task in dir.flatten() {
        let named = std::fs::read_to_string(task.path().join("comm"))
            .is_ok_and(|name| name.starts_with(prefix));
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // The fields after the name (which ends at the last ')'), from the state (field 3
        // of proc(5)): utime and stime are fields 14 and 15.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |r| r.1)
            .split_whitespace()
            .collect();
        if named && fields.len() > 12 {
            let tick = |k: usize| fields[k - 3].parse::<u64>().unwrap_or(0);
            used += tick(14) + tick(15);
        }
    }
    used as f64 / ticks
}

/// The subproblems a journal (a checkpoint or a shard's file) holds, when it can be read.
pub fn saved_counted(path: &Path) -> Option<Vec<serde_json::Value>> {
    let text = std::fs::read(path).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    v["whole"].as_array().cloned()
}

/// Sends `signal` to `child`, and requires it to end with exit status 128 + `signal` (130
/// for SIGINT, 143 for SIGTERM) within seconds; returns its stderr.
pub fn signal_and_wait(child: Child, signal: i32) -> String {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: `kill` only sends a signal to the child started by the caller, which has not
    // been waited for, so its process id is still its own.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let signalled = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(128 + signal), "{err}");
    assert!(took < Duration::from_secs(10), "took {took:?} to stop");
    err
}

/// Says why a test was skipped; under CI (`CI=true`) a skip fails the test instead, so that
/// CI never passes a check it did not run.
pub fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("skipped under CI, which must run it: {why}");
    }
    eprintln!("skipped: {why}");
}

/// Whether `tool` is missing (it does not run with `--version`); if so, the test is skipped
/// with `why` (a failure under CI, as [`skip`] says) and the caller returns.
pub fn lacks(tool: &str, why: &str) -> bool {
    let missing = std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_err();
    if missing {
        skip(why);
    }
    missing
}

/// The text of a journal (its JSON on one line, in the program's order of fields) with its
/// checksum made anew over `pieces`, the text in parts, as a forger reseals a file: the
/// checksum is FNV-1a of the text with an empty checksum, the last field. Written to `to`
/// piece by piece, so that a large file is never held in memory here.
pub fn reseal_to(to: &Path, pieces: &[&[u8]]) {
    let mut text: Vec<u8> = Vec::new();
    let last = pieces.len() - 1;
    let end = pieces[last];
    let at = find(end, b"\"checksum\":\"").expect("a checksum") + b"\"checksum\":\"".len();
    let unsealed_end = [&end[..at], b"\"}"].concat();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for piece in pieces[..last].iter().copied().chain([&unsealed_end[..]]) {
        for &b in piece {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    let mut f = std::fs::File::create(to).unwrap();
    for piece in &pieces[..last] {
        std::io::Write::write_all(&mut f, piece).unwrap();
    }
    text.extend_from_slice(&end[..at]);
    text.extend_from_slice(format!("{h:016x}\"}}\n").as_bytes());
    std::io::Write::write_all(&mut f, &text).unwrap();
}

/// Where `needle` first occurs in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Writes an executable shell script: `#!/bin/sh`, then `body`.
pub fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
