//! Files and streams as a hostile user or a scheduler leaves them: symbolic links, device
//! nodes, stale temporary files, a full stderr.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command as Std, Stdio};

use assert_cmd::Command;
use assert_cmd::cargo::cargo_bin;
use common::skip;
use predicates::prelude::*;

fn cmd() -> Command {
    Command::cargo_bin("nqueens-count").unwrap()
}

#[cfg(unix)]
#[test]
fn a_result_written_through_a_symbolic_link_lands_in_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    cmd()
        .args(["10", "--shard", "0/1", "--out"])
        .arg(&link)
        .assert()
        .success();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    cmd()
        .arg("merge")
        .arg(dir.path().join("real.json"))
        .assert()
        .success()
        .stdout(predicate::str::contains("724 solutions"));
}

#[test]
fn a_device_or_a_folder_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let mut targets = vec![dir.path().to_path_buf()];
    if Path::new("/dev/full").exists() {
        targets.push("/dev/full".into());
    }
    for target in targets {
        for flag in ["--out", "--checkpoint"] {
            let mut c = cmd();
            c.arg("10");
            if flag == "--out" {
                c.args(["--shard", "0/1"]);
            }
            let out = c.arg(flag).arg(&target).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{flag} {target:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            assert!(err.contains("not a regular file"), "{err}");
        }
    }
    assert!(dir.path().is_dir());
}

/// Runs the program with `args` and checks that it fails with exit 1, one line on stderr
/// and nothing on stdout; returns the line.
fn fails_in_one_line(args: &[&str]) -> String {
    let out = cmd().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.is_empty(), "{args:?}: {stdout}");
    err
}

#[test]
fn a_result_file_that_cannot_be_made_is_refused_before_the_count() {
    // /proc exists as a folder but takes no new file, even for the superuser: the refusal
    // comes before the count, not after it.
    if !Path::new("/proc").is_dir() {
        return skip("no /proc here");
    }
    let err = fails_in_one_line(&["13", "--shard", "0/1", "--out", "/proc/nqueens-s.json"]);
    assert!(err.contains("cannot be written"), "{err}");
}

#[test]
fn a_checkpoint_that_cannot_be_saved_prints_nothing_on_stdout() {
    // The table's header comes with its first row: a failed count leaves stdout empty.
    if !Path::new("/proc").is_dir() {
        return skip("no /proc here");
    }
    fails_in_one_line(&["12", "--checkpoint", "/proc/nqueens-c.json"]);
}

#[test]
fn a_temporary_file_left_by_a_killed_run_is_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("k.json");
    fs::write(dir.path().join(".k.json.nqueens-tmp-4294967295"), "half").unwrap();
    cmd()
        .args(["11", "--checkpoint"])
        .arg(&cp)
        .assert()
        .success();
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["k.json"]);
}

#[test]
fn a_full_stderr_never_panics_and_keeps_the_intended_exit_code() {
    if !Path::new("/dev/full").exists() {
        return skip("no /dev/full here");
    }
    for (args, code) in [
        (&["0"][..], 2),
        (&["8", "--verify"][..], 0),
        (&["8", "--stats"][..], 0),
        (&["merge", "no-such-file.json"][..], 1),
        (&["8", "--threads", "9999"][..], 2),
    ] {
        let status = Std::new(cargo_bin("nqueens-count"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(
                fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(code), "{args:?}");
    }
}

#[test]
fn a_result_that_cannot_be_written_at_the_end_is_kept_beside_it() {
    // The target passes the check before the count, then becomes a folder while the count
    // runs (the checkpoint's first save shows that the count has begun).
    let dir = tempfile::tempdir().unwrap();
    let (out, cp) = (dir.path().join("s.json"), dir.path().join("c.json"));
    let mut child = Std::new(cargo_bin("nqueens-count"))
        .args(["18", "-t", "1", "--shard", "0/1", "--out"])
        .arg(&out)
        .arg("--checkpoint")
        .arg(&cp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while !cp.exists() {
        assert!(child.try_wait().unwrap().is_none(), "ended before it began");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    fs::create_dir_all(out.join("in-the-way")).unwrap();
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr).into_owned();
    assert_eq!(done.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(done.stdout.is_empty());
    let kept = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(".unsaved-"))
        .expect("the result kept beside its target");
    assert!(err.contains(&kept.display().to_string()), "{err}");
    // Renamed as the error says, it merges to the count.
    let renamed = dir.path().join("s0.json");
    fs::rename(&kept, &renamed).unwrap();
    cmd()
        .arg("merge")
        .arg(&renamed)
        .assert()
        .success()
        .stdout(predicate::str::contains("666090624 solutions"));
}
