//! Files crafted to make a merge, a status or a resume spend without end: a shard count of
//! 2^60 (or 0, or an index past it), more shards than the plan has entries, a file of 100 MB,
//! JSON nested thousands deep, a count past u128; and what stands at `NAME.lock` when it is no
//! regular file. Each is refused in one line naming the file, with little memory (measured from
//! the process's own peak), where a file of the program's own would have been read.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{cmd, reseal_to};

/// The file at `path` with `from` replaced by `to` (once), resealed, written to `out`.
fn forge(path: &Path, out: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} in {text}");
    let edited = text.trim_end().replacen(from, to, 1);
    reseal_to(out, &[edited.as_bytes()]);
}

/// The shard field of the file at `path`, as the program wrote it.
fn shard_field(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let start = text.find("\"shard\":").unwrap();
    let end = start + text[start..].find(",\"whole\"").unwrap();
    text[start..end].to_string()
}

/// The two shard results of `12` and a checkpoint of the whole count, in `dir`.
fn genuine(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let [s0, s1, c] = ["s0.json", "s1.json", "c.json"].map(|f| dir.join(f));
    for (i, s) in [&s0, &s1].into_iter().enumerate() {
        cmd()
            .args(["12", "-t", "1", "--shard", &format!("{i}/2"), "--out"])
            .arg(s)
            .assert()
            .success();
    }
    cmd()
        .args(["12", "-t", "1", "--checkpoint"])
        .arg(&c)
        .assert()
        .success();
    (s0, s1, c)
}

/// Runs the program with `args`; returns its exit code, its stderr followed by its stdout
/// (where `status` lists damaged files), and its peak resident memory in KiB (of the process
/// itself, from `wait4`).
fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, i64) {
    let dir = tempfile::tempdir().unwrap();
    let err_path = dir.path().join("stderr");
    // Waited for by `wait4` below, which gives its peak memory (`Child::wait` does not).
    #[allow(clippy::zombie_processes)]
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens-count"))
        .args(args)
        .stdout(fs::File::create(dir.path().join("stdout")).unwrap())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `wait4` waits for the child started above, which nothing else waits for, and
    // writes into the two locals, which outlive the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let said = fs::read_to_string(err_path).unwrap()
        + &fs::read_to_string(dir.path().join("stdout")).unwrap();
    (code, said, usage.ru_maxrss)
}

/// Requires `merge`, `status` and a resume (`--checkpoint`, for a checkpoint) of `bad` to
/// refuse it: exit 1 (`status`: 1, or 3 with the file listed as damaged), the file named on
/// a line with `words` (or, by a merge or a status, left out as a checkpoint), under 100 MiB.
fn refused(bad: &Path, words: &str, checkpoint: bool) {
    let mut runs: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![
            "merge".as_ref(),
            "--recount".as_ref(),
            "0".as_ref(),
            bad.as_ref(),
        ],
        vec!["status".as_ref(), bad.as_ref()],
    ];
    if checkpoint {
        runs.push(vec!["12".as_ref(), "--checkpoint".as_ref(), bad.as_ref()]);
    }
    let name = bad.file_name().unwrap().to_str().unwrap();
    for args in runs {
        let (code, err, peak_kib) = run(&args);
        // `status` lists a damaged file among the shards and exits 3 (incomplete) where the
        // rest names a count; the others fail.
        let status = args[0] == "status" && code == Some(3);
        assert!(code == Some(1) || status, "{args:?}: {code:?} {err}");
        let line = err.lines().find(|l| l.contains(name));
        // A merge or a status leaves a checkpoint out, having read its header alone.
        let left_out = |l: &str| checkpoint && args[0] != "12" && l.contains("1 checkpoint");
        assert!(
            line.is_some_and(|l| l.contains(words) || left_out(l)),
            "{args:?}: no line names {name} with '{words}': {err}"
        );
        assert!(peak_kib < 100 << 10, "{args:?}: peak {peak_kib} KiB");
    }
}

#[test]
fn impossible_shards_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, _, c) = genuine(dir.path());
    let cases: [(&str, u64, u64, &str); 4] = [
        ("huge", 0, 1 << 60, "shards of a plan of 276 entries"),
        ("zero", 0, 0, "does not exist"),
        ("past", 5, 2, "does not exist"),
        ("many", 0, 277, "shards of a plan of 276 entries"),
    ];
    for (name, index, count, words) in cases {
        for (from, kind) in [(&s0, "result"), (&c, "checkpoint")] {
            let bad = dir.path().join(format!("{name}-{kind}.json"));
            let claim = format!("\"shard\":{{\"index\":{index},\"count\":{count}}}");
            forge(from, &bad, &shard_field(from), &claim);
            refused(&bad, words, kind == "checkpoint");
        }
    }
}

#[test]
fn a_file_larger_than_its_plan_can_fill_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, _, c) = genuine(dir.path());
    for (from, kind) in [(&s0, "result"), (&c, "checkpoint")] {
        let bad = dir.path().join(format!("large-{kind}.json"));
        // A fact of 100 MiB in `meta` (whose keys come in order: `pad` before `program`).
        let text = fs::read_to_string(from).unwrap();
        let at = text.find("\"program\":").unwrap();
        let (head, tail) = text.trim_end().split_at(at);
        let chunk = vec![b'x'; 1 << 20];
        let mut pieces: Vec<&[u8]> = vec![head.as_bytes(), b"\"pad\":\""];
        pieces.extend(std::iter::repeat_n(&chunk[..], 100));
        pieces.extend([&b"\","[..], tail.as_bytes()]);
        reseal_to(&bad, &pieces);
        assert!(fs::metadata(&bad).unwrap().len() > 100 << 20);
        refused(&bad, "refused unread", kind == "checkpoint");
    }
    // A large file whose header does not come first, as the program writes it.
    let bad = dir.path().join("unshaped.json");
    let text = format!(
        "{{\"meta\":{{\"pad\":\"{}\"}},\"format\":\"nqueens-checkpoint\"}}",
        "x".repeat(2 << 20)
    );
    fs::write(&bad, text).unwrap();
    refused(
        &bad,
        "does not begin as a checkpoint or result file does",
        true,
    );
}

#[test]
fn deep_nesting_and_numbers_past_u128_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, _, c) = genuine(dir.path());
    for (from, kind) in [(&s0, "result"), (&c, "checkpoint")] {
        // A count past u128, in a file resealed around it.
        let text = fs::read_to_string(from).unwrap();
        let first = text.find("\"whole\":[[").unwrap() + "\"whole\":[[".len();
        let comma = first + text[first..].find(',').unwrap();
        let past = "1".repeat(40);
        let edited = format!("{}{past}{}", &text[..comma + 1], &text[comma + 1..]);
        let bad = dir.path().join(format!("past-u128-{kind}.json"));
        reseal_to(&bad, &[edited.trim_end().as_bytes()]);
        refused(&bad, "out of range", kind == "checkpoint");
        // Lists nested 100,000 deep where the subproblems go.
        let head = &text[..text.find("\"whole\":").unwrap()];
        let depth = 100_000;
        let deep = format!(
            "{head}\"whole\":{}{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let bad = dir.path().join(format!("deep-{kind}.json"));
        fs::write(&bad, deep).unwrap();
        refused(
            &bad,
            "not a checkpoint or result file",
            kind == "checkpoint",
        );
    }
}

#[cfg(unix)]
#[test]
fn a_pipe_a_device_or_a_folder_at_the_lock_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("a.json.lock");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `mkfifo` reads the NUL-terminated path, which outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("b.json.lock")).unwrap();
    fs::create_dir(dir.path().join("c.json.lock")).unwrap();
    for name in ["a.json", "b.json", "c.json"] {
        let path = dir.path().join(name);
        for flag in ["--checkpoint", "--out"] {
            let mut c = cmd();
            c.args(["10", "-t", "1"]);
            if flag == "--out" {
                c.args(["--shard", "0/1"]);
            }
            let out = c
                .arg(flag)
                .arg(&path)
                .timeout(std::time::Duration::from_secs(60));
            let out = out.output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name} {flag}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.contains(&format!("{name}.lock is not a regular file")),
                "{err}"
            );
        }
    }
}

#[test]
fn a_shard_count_past_the_plan_s_entries_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = cmd()
        .args(["12", "--shard", "0/4294967296", "--out"])
        .arg(dir.path().join("s.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("at most 276 shards"), "{err}");
    assert!(!dir.path().join("s.json").exists());
}
