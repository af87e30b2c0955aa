//! The files of a long campaign: a disk that fills while a count runs, two processes on one
//! file, result files written over, key files that are pipes, and a folder of shards merged
//! or surveyed as a cluster script leaves it.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use nqueens::persist::Journal;

use common::{cmd, skip};

/// A small file system mounted for one test, unmounted when it ends.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// A tmpfs of `size` (`mount -o size=`), or why there is none here.
    fn mount(size: &str) -> Result<Tmpfs, String> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err("the tests do not run as root, so they cannot mount a tmpfs".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Std::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("no mount command: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Std::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_loses_no_finished_count() {
    let fs = match Tmpfs::mount("64k") {
        Ok(fs) => fs,
        Err(why) => return skip(&why),
    };
    // The empty checkpoint written before the work fits; the thousands of subproblems of n = 18
    // do not.
    let cp = fs.path().join("q18.json");
    let out = cmd()
        .args(["18", "-a", "symmetry", "-t", "2", "--checkpoint"])
        .arg(&cp)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    // The result is printed as usual.
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("18 ") && l.contains("666090624")),
        "{stdout}"
    );
    // At most one warning, when a periodic save first fails (whether the count runs past
    // its first periodic save is the machine's speed; that the first failure, and only it,
    // is told is the recorder's, tested on a clock of its own in `persist::recorder`), and
    // one line about the save at the end.
    let lines: Vec<&str> = stderr.lines().collect();
    let warnings: Vec<&&str> = lines.iter().filter(|l| l.starts_with("warning:")).collect();
    assert!(warnings.len() <= 1, "{stderr}");
    for warning in &warnings {
        assert!(
            warning.contains("could not be saved") && warning.ends_with("the count goes on"),
            "{stderr}"
        );
    }
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("error:") && last.contains("could not be saved"),
        "{stderr}"
    );
    assert_eq!(lines.len(), warnings.len() + 1, "{stderr}");
    // The file holds the last good save, which reads.
    let j = Journal::read(&cp).unwrap();
    assert_eq!(j.n(), 18);
}

/// `NAME.lock` beside `path`.
fn lock_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    name.into()
}

#[test]
fn a_second_count_on_the_same_file_refuses_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (cp, out) = (dir.path().join("c.json"), dir.path().join("s.json"));
    let mut first = Std::new(cargo_bin("nqueens-count"))
        .args(["18", "-a", "symmetry", "-t", "2", "--shard", "0/1", "--out"])
        .arg(&out)
        .arg("--checkpoint")
        .arg(&cp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_until(&mut first, "the first save", || cp.exists());
    for flag in ["--checkpoint", "--out"] {
        let mut second = cmd();
        second.args(["18", "-a", "symmetry", "-t", "2"]);
        let path = if flag == "--out" {
            second.args(["--shard", "0/1"]);
            &out
        } else {
            &cp
        };
        let refused = second.arg(flag).arg(path).output().unwrap();
        let err = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{flag}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        let said = format!("in use by another count (pid {})", first.id());
        assert!(err.contains(&said), "{err}");
        assert!(refused.stdout.is_empty());
    }
    // The refusals came while the first count ran, and it finishes untroubled.
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first count ended too soon"
    );
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success(), "{done:?}");
    assert!(!lock_of(&cp).exists() && !lock_of(&out).exists());
    // Its checkpoint holds every subproblem, and its result merges to the count.
    let config = nqueens::Config::new(18).algorithm(nqueens::Algorithm::Symmetry);
    let job = nqueens::Job::new(&config)
        .unwrap()
        .shard(nqueens::persist::Shard::new(0, 1).unwrap())
        .checkpoint(&cp)
        .unwrap();
    assert_eq!(job.todo_len(), 0);
    let merged = common::stdout_of(&["merge", out.to_str().unwrap(), "--recount", "0"]);
    assert!(merged.contains("666090624 solutions"), "{merged}");
}

/// Runs the program with `args`; requires exit 1, one line on stderr, nothing on stdout,
/// and returns the line.
fn refused(args: &[&str]) -> String {
    let out = cmd().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    err
}

#[test]
fn out_replaces_only_a_result_of_the_same_shard() {
    let dir = tempfile::tempdir().unwrap();
    let board = dir.path().join("board.txt");
    let picture =
        "Q.......\n........\n........\n........\n........\n........\n........\n........\n";
    fs::write(&board, picture).unwrap();
    let board_s = board.to_str().unwrap();
    let err = refused(&["8", "--shard", "0/1", "--out", board_s]);
    assert!(
        err.contains("not a result file") && err.contains("--out would replace it"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&board).unwrap(), picture);

    let result = dir.path().join("s.json");
    let result_s = result.to_str().unwrap();
    common::stdout_of(&["9", "--shard", "0/1", "--out", result_s]);
    let written = fs::read(&result).unwrap();
    for (other, said) in [
        (
            &["8", "--shard", "0/1"][..],
            "the result of another count (n = 9",
        ),
        (
            &["9", "--shard", "1/2"][..],
            "the result of shard 0/1, not 1/2",
        ),
    ] {
        let mut args = other.to_vec();
        args.extend(["--out", result_s]);
        let err = refused(&args);
        assert!(err.contains(said), "{err}");
        assert_eq!(fs::read(&result).unwrap(), written);
    }
    // A checkpoint is no result to replace.
    let cp = dir.path().join("c.json");
    common::stdout_of(&["9", "--checkpoint", cp.to_str().unwrap()]);
    let err = refused(&["9", "--shard", "0/1", "--out", cp.to_str().unwrap()]);
    assert!(err.contains("it is a checkpoint"), "{err}");
    // The same shard of the same count is counted again and replaced.
    let again = common::stdout_of(&["9", "--shard", "0/1", "--out", result_s]);
    assert!(again.contains("written to"), "{again}");
    let merged = common::stdout_of(&["merge", result_s, "--recount", "0"]);
    assert!(merged.contains("352 solutions"), "{merged}");
}

/// Runs the program with `args` (stdout a pipe), killing it if it has not ended within
/// `limit`; returns its exit code and stderr.
fn run_within(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let mut child = Std::new(cargo_bin("nqueens-count"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let begun = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if begun.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn a_key_that_is_a_pipe_is_refused_rather_than_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("key.fifo");
    let made = Std::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return skip("no mkfifo here");
    }
    let result = dir.path().join("s.json");
    let cp = dir.path().join("c.json");
    let (fifo_s, result_s) = (fifo.to_str().unwrap(), result.to_str().unwrap());
    let cp_s = cp.to_str().unwrap();
    common::stdout_of(&["10", "--shard", "0/1", "--out", result_s]);
    let limit = Duration::from_secs(20);
    for key in [fifo_s, "/dev/stdout"] {
        for args in [
            &["10", "--shard", "0/1", "--out", result_s, "--key", key][..],
            &["10", "--checkpoint", cp_s, "--key", key][..],
            &["merge", result_s, "--key", key][..],
        ] {
            let (code, err) = run_within(args, limit);
            assert_eq!(code, Some(2), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains("not a regular file"), "{args:?}: {err}");
        }
    }
    assert!(!cp.exists());
}

/// `merge` of the files or folders `paths`, recounting nothing.
fn merge_unrecounted(paths: &[impl AsRef<std::ffi::OsStr>]) -> std::process::Output {
    cmd()
        .arg("merge")
        .args(paths)
        .args(["--recount", "0"])
        .output()
        .unwrap()
}

/// Counts the shards of n = 16 into `dir` as `scripts/cluster/gnu-parallel.sh 16 M DIR` does
/// (`shard-I.json`, each with its checkpoint `ckpt-I.json`), for the indices `which`.
fn gnu_parallel_shards(dir: &Path, m: u64, which: impl IntoIterator<Item = u64>) {
    for i in which {
        let shard = format!("{i}/{m}");
        let cp = dir.join(format!("ckpt-{i}.json"));
        let out = dir.join(format!("shard-{i}.json"));
        let args = ["16", "--shard", &shard, "--threads", "1"];
        let mut c = cmd();
        c.args(args)
            .arg("--checkpoint")
            .arg(&cp)
            .arg("--out")
            .arg(&out);
        c.assert().success();
    }
}

/// The `*.json` files of `dir`, in order of name (what `DIR/*.json` gives).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn merge_reads_a_cluster_folder_and_skips_what_is_no_shard_result() {
    let dir = tempfile::tempdir().unwrap();
    let m = 4;
    gnu_parallel_shards(dir.path(), m, 0..m);
    // The script's merge keeps its JSON beside the shards.
    let shards: Vec<PathBuf> = (0..m)
        .map(|i| dir.path().join(format!("shard-{i}.json")))
        .collect();
    let out = cmd()
        .arg("merge")
        .args(&shards)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    fs::write(dir.path().join("merged.json"), &out.stdout).unwrap();
    assert_eq!(json_files(dir.path()).len(), 9);

    let folder = [dir.path().as_os_str().to_owned()];
    let globbed: Vec<_> = json_files(dir.path())
        .into_iter()
        .map(PathBuf::into_os_string)
        .collect();
    for files in [&folder[..], &globbed[..]] {
        let out = merge_unrecounted(files);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stderr}");
        assert!(
            stdout.contains("n = 16: 14772512 solutions, 1846955 unique"),
            "{stdout}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("note: skipped 5 files that are no shard results: 4 checkpoints")
                && stderr.contains("1 file that is no journal")
                && stderr.contains("merged.json"),
            "{stderr}"
        );
    }

    // A damaged result of the count still fails the merge, and a shard with no good result
    // file is named: partial, as its checkpoint is complete.
    let text = fs::read_to_string(&shards[1]).unwrap();
    fs::write(&shards[1], &text[..text.len() / 2]).unwrap();
    fs::remove_file(&shards[2]).unwrap();
    let out = merge_unrecounted(&[dir.path()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("damaged") && stderr.contains("shard-1.json"),
        "{stderr}"
    );
    for i in [1, 2] {
        let partial = format!(
            "error: partial: shard {i}: its checkpoint {} is complete, but the shard has no good \
             result file: rerun it to write it",
            dir.path().join(format!("ckpt-{i}.json")).display()
        );
        assert!(stderr.contains(&partial), "{stderr}");
    }
    assert!(!stderr.contains("missing"), "{stderr}");
    assert!(!stderr.contains("unknown field"), "{stderr}");
}

/// Counts shard `index` of `m` of n = 16 in-process with a checkpoint at `path`, stopped
/// once `k` subproblems are done; returns (subproblems saved, subproblems the shard owns).
fn stopped_shard(path: &Path, index: u64, m: u64, k: usize) -> (usize, usize) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let config = nqueens::Config::new(16).threads(1);
    let job = nqueens::Job::new(&config)
        .unwrap()
        .shard(nqueens::persist::Shard::new(index, m).unwrap())
        .checkpoint(path)
        .unwrap();
    let (stop, done) = (AtomicBool::new(false), AtomicUsize::new(0));
    let observe = |_: &nqueens::Counted, _: &nqueens::Status| {
        if done.fetch_add(1, Ordering::SeqCst) + 1 >= k {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let outcome = job
        .run(nqueens::Control {
            cancel: Some(&stop),
            observer: Some(&observe),
            ..nqueens::Control::default()
        })
        .unwrap();
    assert!(outcome.cancelled);
    let saved = Journal::read(path).unwrap().counted_len();
    (saved, job.wanted_len())
}

#[test]
fn status_names_the_shards_done_partial_missing_and_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let m = 4;
    gnu_parallel_shards(dir.path(), m, [0, 3]);
    let (have, want) = stopped_shard(&dir.path().join("ckpt-1.json"), 1, m, 100);
    assert!(have > 0 && have < want, "{have} of {want}");
    let text = fs::read_to_string(dir.path().join("shard-0.json")).unwrap();
    fs::write(dir.path().join("shard-x.json"), &text[..text.len() / 2]).unwrap();

    let out = cmd().arg("status").arg(dir.path()).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    // Not complete: exit status 3.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stdout.starts_with("n = 16, join, plan "), "{stdout}");
    assert!(stdout.contains("\n  done      2 shards: 0,3\n"), "{stdout}");
    let partial = format!("\n  partial   1 shard: 1 ({have} of {want} subproblems)\n");
    assert!(stdout.contains(&partial), "{stdout}");
    assert!(stdout.contains("\n  missing   1 shard: 2\n"), "{stdout}");
    assert!(
        stdout.contains("shard-x.json: not a checkpoint or result file, or truncated"),
        "{stdout}"
    );
    assert!(stdout.contains("\n  left      about "), "{stdout}");
    assert!(stdout.ends_with("\nresubmit: --array=1-2\n"), "{stdout}");

    let out = cmd()
        .arg("status")
        .arg(dir.path())
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["done"], serde_json::json!([0, 3]));
    assert_eq!(v["missing"], serde_json::json!([2]));
    assert_eq!(
        v["partial"],
        serde_json::json!([{"shard": 1, "subproblems": have, "of": want, "checkpoint_complete": false}])
    );
    assert_eq!(v["damaged"].as_array().unwrap().len(), 1);
    // The sum so far is the done shards' and the partial one's.
    let sum: u128 = ["shard-0.json", "shard-3.json", "ckpt-1.json"]
        .iter()
        .map(|f| Journal::read(&dir.path().join(f)).unwrap().sums().total)
        .sum();
    assert_eq!(v["solutions_so_far_str"], sum.to_string());
    assert!(v["shard_seconds_left"].as_f64().unwrap() >= 0.0);

    // The merge of the same folder gives each shard the same verdict.
    fs::remove_file(dir.path().join("shard-x.json")).unwrap();
    let out = merge_unrecounted(&[dir.path()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let partial = format!(
        "error: partial: shard 1: its checkpoint {} has {have} of its {want} subproblems",
        dir.path().join("ckpt-1.json").display()
    );
    assert!(stderr.contains(&partial), "{stderr}");
    assert!(stderr.contains("missing: shard 2 of 4"), "{stderr}");

    // Every shard done: exit status 0.
    fs::remove_file(dir.path().join("ckpt-1.json")).unwrap();
    gnu_parallel_shards(dir.path(), m, [1, 2]);
    let out = cmd().arg("status").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\n  done      4 shards: 0-3\n"), "{stdout}");
}

#[test]
fn a_merge_says_how_much_it_recounted_and_how_to_recount_all() {
    // A recount of a sample says what the rest was checked by, and the option that
    // recounts every subproblem; a recount of every subproblem says no more than that they agree.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..2 {
        let out = dir.path().join(format!("s{i}.json"));
        cmd()
            .args(["12", "-t", "1", "--shard", &format!("{i}/2"), "--out"])
            .arg(&out)
            .assert()
            .success();
    }
    let line = |recount: &str| {
        let out = cmd()
            .args(["merge", "--recount", recount])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let sample = line("3");
    assert!(
        sample.contains("recounted 3 of 276 subproblems (1.1%) at random"),
        "{sample}"
    );
    assert!(
        sample.contains("--recount all recounts every one") && !sample.contains("verified"),
        "{sample}"
    );
    let all = line("all");
    assert!(
        all.contains("recounted all 276 subproblems in") && !all.contains("--recount all"),
        "{all}"
    );
    assert!(all.contains("all agree: verified)"), "{all}");
}
