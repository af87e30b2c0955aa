//! A count split as a large cluster would split it: thousands of shard files, merged in one
//! call, with the missing ones named as ranges.

mod common;

use std::path::PathBuf;

use assert_cmd::Command;
use nqueens::persist::Shard;
use nqueens::{Algorithm, Config, Job};

const SHARDS: u64 = 2000;

/// Writes the result files of every shard of n = 16 (join) into `dir`, in-process.
fn write_all(dir: &std::path::Path) -> Vec<PathBuf> {
    let config = Config::new(16).algorithm(Algorithm::Join).threads(1);
    (0..SHARDS)
        .map(|i| {
            let job = Job::new(&config)
                .unwrap()
                .shard(Shard::new(i, SHARDS).unwrap());
            let outcome = job.run(Default::default()).unwrap();
            let path = dir.join(format!("q16-{i:04}.json"));
            job.shard_result(&outcome).write(&path).unwrap();
            path
        })
        .collect()
}

#[test]
fn two_thousand_shards_merge_and_missing_ones_are_named_as_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_all(dir.path());
    let merged = Command::cargo_bin("nqueens-count")
        .unwrap()
        .arg("merge")
        .args(&files)
        .arg("--json")
        .output()
        .unwrap();
    assert!(merged.status.success(), "{merged:?}");
    let text = String::from_utf8_lossy(&merged.stdout);
    assert!(text.contains("\"solutions\":14772512"), "{text}");
    assert!(text.contains("\"unique\":1846955"), "{text}");

    // 37 shards lost: 20 in a row, 11 in a row, 5 in a row and a single one.
    let lost: Vec<u64> = (100..120)
        .chain(500..511)
        .chain(1990..1995)
        .chain([7])
        .collect();
    assert_eq!(lost.len(), 37);
    let kept: Vec<&PathBuf> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| !lost.contains(&(*i as u64)))
        .map(|(_, p)| p)
        .collect();
    let out = Command::cargo_bin("nqueens-count")
        .unwrap()
        .arg("merge")
        .args(kept)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("shards 7,100-119,500-510,1990-1994 of 2000"),
        "{err}"
    );
}

/// Runs `scripts/cluster/gnu-parallel.sh 8 3 DIR` through a wrapper of the program that
/// logs each of its commands; returns (exit code, stdout, stderr, the logged commands).
fn gnu_parallel(dir: &std::path::Path) -> (Option<i32>, String, String, Vec<String>) {
    let bin = assert_cmd::cargo::cargo_bin("nqueens-count");
    let log = dir.join("calls.log");
    let wrapper = dir.join("nqueens-wrapper");
    common::write_script(
        &wrapper,
        &format!(
            "echo \"$1\" >> '{}'\nexec '{}' \"$@\"",
            log.display(),
            bin.display()
        ),
    );
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/cluster/gnu-parallel.sh"
    );
    let out = std::process::Command::new("bash")
        .arg(script)
        .args(["8", "3"])
        .arg(dir.join("q8"))
        .env("NQUEENS_BIN", &wrapper)
        .env("USE_XARGS", "1")
        .env("JOBS", "2")
        .output()
        .unwrap();
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        calls.lines().map(String::from).collect(),
    )
}

#[test]
fn the_one_machine_script_merges_once_and_says_to_run_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr, calls) = gnu_parallel(dir.path());
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(
        calls.iter().filter(|c| *c == "merge").count(),
        1,
        "{calls:?}"
    );
    assert!(
        stdout.contains("n = 8: 92 solutions, 12 unique"),
        "{stdout}"
    );
    let merged = std::fs::read_to_string(dir.path().join("q8/merged.json")).unwrap();
    assert!(merged.contains("\"solutions\":92"), "{merged}");
    // A damaged shard: the merge refuses it once, and the advice is to run the script again.
    std::fs::write(dir.path().join("q8/shard-1.json"), "damaged").unwrap();
    let (code, _, stderr, calls) = gnu_parallel(dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(calls, ["merge"], "{stderr}");
    assert!(
        stderr.contains("then run the same command again"),
        "{stderr}"
    );
    std::fs::remove_file(dir.path().join("q8/shard-1.json")).unwrap();
    let (code, stdout, stderr, _) = gnu_parallel(dir.path());
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("1 to count"), "{stdout}");
}

#[test]
fn the_slurm_script_asks_for_time_memory_and_requeue_and_its_merge_runs_its_program() {
    let root = env!("CARGO_MANIFEST_DIR");
    let sbatch =
        std::fs::read_to_string(format!("{root}/scripts/slurm/nqueens-array.sbatch")).unwrap();
    for line in [
        "#SBATCH --time=",
        "#SBATCH --mem-per-cpu=",
        "#SBATCH --requeue",
    ] {
        assert!(sbatch.lines().any(|l| l.starts_with(line)), "{line}");
    }
    let readme = std::fs::read_to_string(format!("{root}/scripts/slurm/README.md")).unwrap();
    for text in [&sbatch, &readme] {
        let wraps: Vec<&str> = text.lines().filter(|l| l.contains("--wrap \"")).collect();
        assert!(!wraps.is_empty());
        for wrap in wraps {
            assert!(wrap.contains("--wrap \"$NQUEENS_BIN merge"), "{wrap}");
        }
    }
}

/// The path of `name` on this machine's PATH.
fn which(name: &str) -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A copy of the repository's `scripts/container-image`, `Dockerfile` and
/// `Containerfile.scratch` in a folder of its own, run with a PATH of only `tools` (name, shell
/// script), the text and file tools it uses and a `file` that calls every binary static, and
/// with `STATIC_BIN` set to a file of the copy. `edit` changes the copy's files first. Returns
/// (exit code, stdout and stderr, the folder).
fn container_image_with(
    tools: &[(&str, &str)],
    edit: impl FnOnce(&std::path::Path),
) -> (Option<i32>, String, tempfile::TempDir) {
    let root = env!("CARGO_MANIFEST_DIR");
    let repo = tempfile::tempdir().unwrap();
    let bin = repo.path().join("bin");
    std::fs::create_dir_all(repo.path().join("scripts")).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    for file in [
        "scripts/container-image",
        "Dockerfile",
        "Containerfile.scratch",
    ] {
        std::fs::copy(format!("{root}/{file}"), repo.path().join(file)).unwrap();
    }
    std::fs::write(repo.path().join("nqueens-count-static"), "a static binary").unwrap();
    for name in [
        "sed", "tail", "grep", "awk", "tr", "cat", "mktemp", "rm", "mkdir", "cp", "chmod", "id",
    ] {
        std::os::unix::fs::symlink(which(name), bin.join(name)).unwrap();
    }
    common::write_script(
        &bin.join("file"),
        "echo 'ELF 64-bit LSB pie executable, x86-64, static-pie linked'",
    );
    for (name, script) in tools {
        common::write_script(&bin.join(name), script);
    }
    edit(repo.path());
    let out = std::process::Command::new(which("bash"))
        .arg(repo.path().join("scripts/container-image"))
        .env("PATH", &bin)
        .env("STATIC_BIN", repo.path().join("nqueens-count-static"))
        .env("TAG", "nqueens-count:test")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text, repo)
}

fn container_image(tools: &[(&str, &str)]) -> (Option<i32>, String) {
    let (code, text, _) = container_image_with(tools, |_| {});
    (code, text)
}

/// A podman that answers, builds (logging its arguments to `calls` in its folder), shows the
/// image's settings as `inspect` and runs the image as `run` (a shell snippet).
fn fake_podman(inspect: &str, run: &str) -> String {
    format!(
        r#"echo "$*" >> "${{0%/*}}/calls"
case "$1" in
  info) exit 0 ;;
  build) exit 0 ;;
  image) echo '{inspect}' ;;
  run) {run} ;;
  *) exit 3 ;;
esac"#
    )
}

const SETTINGS: &str = r#"["/usr/local/bin/nqueens-count"]|["--help"]|10001:10001|/work"#;
const COUNTED: &str =
    "echo ' n  solutions  unique'; echo '12      14200    1787     0.001 s        2'";

#[test]
fn the_container_image_step_skips_only_without_podman_or_a_docker_that_answers() {
    let (code, text) = container_image(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.ends_with("container image: skipped (no podman or docker)\n"),
        "{text}"
    );
    let (code, text) = container_image(&[("docker", "exit 1")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("skipped (no podman, and docker is installed but its daemon does not answer"),
        "{text}"
    );
    // A podman that does not answer is an error, not a skip.
    let (code, text) = container_image(&[("podman", "echo 'Error: no storage' >&2; exit 125")]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(
            "podman is installed but does not answer ('podman info' fails: Error: no storage)"
        ),
        "{text}"
    );
}

#[test]
fn the_container_image_step_builds_from_scratch_and_retries_a_refused_limit() {
    // The runtime refuses its default limits once, then counts with the limits given.
    let run = format!(
        r#"case "$*" in *--ulimit*) {COUNTED} ;; *) echo "Error: crun: setrlimit RLIMIT_NOFILE: Operation not permitted" >&2; exit 126 ;; esac"#
    );
    let (code, text, repo) =
        container_image_with(&[("podman", &fake_podman(SETTINGS, &run))], |_| {});
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Dockerfile and Containerfile.scratch agree: entry point [\"/usr/local/bin/nqueens-count\"], user 10001:10001, working folder /work"),
        "{text}"
    );
    assert!(text.contains("is statically linked (file)"), "{text}");
    assert!(
        text.contains("may not set its default resource limits (Error: crun: setrlimit"),
        "{text}"
    );
    assert!(
        text.ends_with("nqueens-count:test counts n = 12 in a container, with --ulimit nofile=1024:1024 --ulimit nproc=1024:1024: 14200 solutions\n"),
        "{text}"
    );
    let calls = std::fs::read_to_string(repo.path().join("bin/calls")).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls[0], "info", "{calls:?}");
    assert_eq!(
        calls[1],
        "build -f Containerfile.scratch -t nqueens-count:test target/container-scratch"
    );
    assert_eq!(
        calls[3],
        "run --rm nqueens-count:test 12 --threads 2 --no-progress"
    );
    assert_eq!(
        calls[4],
        "run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 nqueens-count:test 12 --threads 2 --no-progress"
    );
    // The build context: the binary and an empty working folder.
    let context = repo.path().join("target/container-scratch");
    assert_eq!(
        std::fs::read_to_string(context.join("nqueens-count")).unwrap(),
        "a static binary"
    );
    assert_eq!(std::fs::read_dir(context.join("work")).unwrap().count(), 0);
}

#[test]
fn the_container_image_step_fails_on_a_wrong_image_binary_or_count() {
    let podman = fake_podman(SETTINGS, COUNTED);
    // The Dockerfile's user is not the scratch image's.
    let (code, text, _) = container_image_with(&[("podman", &podman)], |repo| {
        let path = repo.join("Dockerfile");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("USER 10001:10001", "USER 10002:10002")).unwrap();
    });
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(
            "Dockerfile and Containerfile.scratch disagree on ENTRYPOINT|CMD|USER|WORKDIR"
        ),
        "{text}"
    );
    assert!(text.contains("10002:10002"), "{text}");
    // A binary that is not static.
    let (code, text) = container_image(&[
        ("podman", &podman),
        (
            "file",
            "echo 'ELF 64-bit LSB pie executable, dynamically linked'",
        ),
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("is not static: file says ELF"), "{text}");
    // A built image whose user is not the Containerfile's.
    let root_user = SETTINGS.replace("10001:10001", "0:0");
    let (code, text) = container_image(&[("podman", &fake_podman(&root_user, COUNTED))]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("has ENTRYPOINT|CMD|USER|WORKDIR"), "{text}");
    // A wrong count.
    let wrong = "echo '12      14201    1787     0.001 s        2'";
    let (code, text) = container_image(&[("podman", &fake_podman(SETTINGS, wrong))]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("is not 14200 solutions, 1787 unique"),
        "{text}"
    );
    // The program fails in the container: no second try, no chroot.
    let failing = "echo 'error: something' >&2; exit 2";
    let (code, text) = container_image(&[("podman", &fake_podman(SETTINGS, failing))]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("the count in nqueens-count:test failed (exit 2): error: something"),
        "{text}"
    );
    assert!(!text.contains("chroot"), "{text}");
    // A build that fails.
    let (code, text) =
        container_image(&[("podman", "case \"$1\" in info) exit 0 ;; *) exit 1 ;; esac")]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("podman build failed"), "{text}");
}

#[test]
fn the_dockerfile_builds_locked_and_runs_unprivileged() {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap();
    let docker = read("Dockerfile");
    let froms: Vec<&str> = docker.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(froms.len(), 2, "a builder stage and a runtime stage");
    assert!(
        froms[0].ends_with(" AS build") && froms[1].contains("debian:"),
        "{froms:?}"
    );
    assert!(docker.contains("cargo build --release --locked"));
    let user = docker.lines().rfind(|l| l.starts_with("USER ")).unwrap();
    assert!(!user.contains("root") && !user.contains(" 0"), "{user}");
    assert!(docker.contains("ENTRYPOINT [\"/usr/local/bin/nqueens-count\"]"));
    // The image CI builds: no base image to pull.
    let scratch = read("Containerfile.scratch");
    let froms: Vec<&str> = scratch.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(froms, ["FROM scratch"]);
    let ignored = read(".dockerignore");
    assert!(ignored.lines().any(|l| l == "target/") && ignored.lines().any(|l| l == ".git"));
    let ci = read(".ci/run");
    let tests = ci.find("\nscripts/test\n").unwrap();
    assert!(ci[tests..].contains("\nscripts/container-image\n"));
    assert!(read("scripts/cluster/k8s-indexed-job.yaml").contains("repository's Dockerfile"));
}

/// Writes the stand-in for the program that `gnu-parallel.sh` and the Slurm script run in
/// `dir`: it logs each call (`start I/M | ARGS`) to `dir/calls`; a shard whose index is in the
/// environment's `FAKE_FAIL` fails (exit 1), one in `finish` writes its result file at once,
/// the others wait for a signal and log it. Its traps are set before it logs its start, so
/// that a signal sent as soon as the start is seen is always caught and logged.
fn fake_counter(dir: &std::path::Path, finish: &str) -> std::path::PathBuf {
    let path = dir.join("fake-nqueens-count");
    let log = dir.join("calls");
    common::write_script(
        &path,
        &format!(
            r#"log='{log}'
if [ "$1" = merge ]; then echo merge >> "$log"; exit 1; fi
shard="${{3%/*}}"
out=""; prev=""
for a in "$@"; do [ "$prev" = --out ] && out="$a"; prev="$a"; done
s=""
trap 'kill $s 2>/dev/null; echo "INT $3" >> "$log"; exit 130' INT
trap 'kill $s 2>/dev/null; echo "TERM $3" >> "$log"; exit 143' TERM
echo "start $3 | $*" >> "$log"
case " $FAKE_FAIL " in *" $shard "*) echo "shard $3 failed" >&2; exit 1 ;; esac
case " {finish} " in *" $shard "*) echo "shard $3 counted"; echo result > "$out"; exit 0 ;; esac
sleep 60 & s=$!
wait $s"#,
            log = log.display()
        ),
    );
    path
}

#[test]
fn the_one_machine_script_passes_a_signal_on_once_and_says_what_finished() {
    let dir = tempfile::tempdir().unwrap();
    let bin = fake_counter(dir.path(), "0");
    let log = dir.path().join("calls");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/cluster/gnu-parallel.sh"
    );
    for (signal, name, code) in [(libc::SIGINT, "INT", 130), (libc::SIGTERM, "TERM", 143)] {
        let _ = std::fs::remove_file(&log);
        let child = std::process::Command::new("bash")
            .arg(script)
            .args(["9", "3"])
            .arg(dir.path().join("q9"))
            .env("NQUEENS_BIN", &bin)
            .env("USE_XARGS", "1")
            .env("JOBS", "2")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = child;
        let calls = || std::fs::read_to_string(&log).unwrap_or_default();
        common::wait_until(&mut child, "shards 1 and 2 to start", || {
            calls().contains("start 1/3") && calls().contains("start 2/3")
        });
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: the script started above, not yet waited for: its process id is its own.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{err}");
        let calls = calls();
        for shard in ["1/3", "2/3"] {
            let got = calls
                .lines()
                .filter(|l| *l == format!("{name} {shard}"))
                .count();
            assert_eq!(got, 1, "shard {shard} got {got} signals: {calls}");
        }
        assert!(!calls.contains("merge"), "{calls}");
        // Each shard without its progress bar.
        assert!(
            calls.contains("start 1/3 | 9 --shard 1/3 --threads 1 --no-progress --checkpoint"),
            "{calls}"
        );
        let finished = if name == "INT" {
            "1 of the 3"
        } else {
            "0 of the 2"
        };
        assert!(
            err.contains(&format!(
                "stopped by SIG{name}: {finished} shards to count finished"
            )),
            "{err}"
        );
        assert!(err.contains("2 left (1-2)"), "{err}");
        assert!(!dir.path().join("q9/.run").exists());
    }
}

/// Runs `nqueens-array.sbatch` as array task `task` with `env`, the program being the
/// stand-in of [`fake_counter`] in `dir`; returns (exit code, stdout and stderr, the calls).
fn array_task(
    dir: &std::path::Path,
    task: u32,
    env: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let bin = fake_counter(dir, "0 1 2 3 4 5 6 7 8 9 10 560 1119");
    let log = dir.join("calls");
    let _ = std::fs::remove_file(&log);
    let out = std::process::Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/slurm/nqueens-array.sbatch"
        ))
        .env("SLURM_ARRAY_TASK_ID", task.to_string())
        .env("SLURM_ARRAY_TASK_MIN", "0")
        .env("NQUEENS_BIN", &bin)
        .env("DIR", dir.join("results"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    (out.status.code(), text, calls)
}

#[test]
fn the_slurm_script_maps_task_ids_to_shards_with_an_offset_and_several_a_task() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let results = d.join("results");
    let ckpt = |i: u32| format!("{}/ckpt-{i}.json", results.display());
    // 1,120 shards in two arrays of 560 tasks: the second array's first and last tasks.
    let n28 = [("N", "28"), ("M", "1120"), ("SHARD_OFFSET", "560")];
    let (code, text, calls) = array_task(d, 0, &n28);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        calls,
        format!(
            "start 560/1120 | 28 --shard 560/1120 --threads 1 --checkpoint {} --out {}/shard-560.json\n",
            ckpt(560),
            results.display()
        )
    );
    assert!(text.contains("n = 28, shard 560 of 1120"), "{text}");
    let (code, text, calls) = array_task(d, 559, &n28);
    assert_eq!(code, Some(0), "{text}");
    assert!(calls.starts_with("start 1119/1120 "), "{calls}");
    // Task 560 of that array would be shard 1120: refused, nothing run.
    let (code, text, calls) = array_task(d, 560, &n28);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("array task 560 would count shard 1120 (SHARD_OFFSET 560 + task 560 × 1 shards a task), but there are only 1120 shards (0..1119)"),
        "{text}"
    );
    assert_eq!(calls, "");
    // Without an offset, task id = shard index; SLURM_ARRAY_TASK_MIN plays no part.
    let (code, text, calls) = array_task(
        d,
        2,
        &[("N", "9"), ("M", "4"), ("SLURM_ARRAY_TASK_MIN", "2")],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(calls.starts_with("start 2/4 "), "{calls}");
    // Three shards a task, from shard 1: task 2 counts shards 7, 8 and 9, passing over 8,
    // whose result file is there; the last task counts only the shard left, 10.
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("shard-8.json"), "result").unwrap();
    let per3 = [
        ("N", "9"),
        ("M", "11"),
        ("SHARD_OFFSET", "1"),
        ("SHARDS_PER_TASK", "3"),
    ];
    let (code, text, calls) = array_task(d, 2, &per3);
    assert_eq!(code, Some(0), "{text}");
    let shards: Vec<&str> = calls
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(shards, ["7/11", "9/11"], "{calls}");
    assert!(text.contains("shards 7..9 of 11"), "{text}");
    assert!(
        text.contains("shard 8: its result file is there already; passed over"),
        "{text}"
    );
    let (code, text, calls) = array_task(d, 3, &per3);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(calls.lines().count(), 1, "{calls}");
    assert!(calls.starts_with("start 10/11 "), "{calls}");
    // A shard that fails ends the task with its status, the later shards left (shard 2's
    // result file of the count of n = 9 in 4 shards above out of the way).
    std::fs::remove_file(results.join("shard-2.json")).unwrap();
    let (code, text, calls) = array_task(d, 0, &[per3.as_slice(), &[("FAKE_FAIL", "2")]].concat());
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(calls.lines().count(), 2, "{calls}");
    assert!(
        text.contains(
            "task 0: shard 2 stopped (exit 1); shards 2..3 are left for a resubmission of index 0"
        ),
        "{text}"
    );
    for bad in [("SHARD_OFFSET", "x"), ("SHARDS_PER_TASK", "0"), ("M", "0")] {
        let (code, text, _) = array_task(d, 0, &[("N", "9"), ("M", "4"), bad]);
        assert_eq!(code, Some(2), "{bad:?}: {text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}

/// What the program says one shard of n = `n` in 1,120 needs on `threads` threads, in GiB, read
/// from its refusal under an address space of `limit` MiB, too small for the shard but large
/// enough for its plan (the memory check runs before any counting).
fn shard_needs_gib(n: u32, threads: u32, limit: u64) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("prlimit")
        .arg(format!("--as={}", limit << 20))
        .arg(assert_cmd::cargo::cargo_bin("nqueens-count"))
        .args([&n.to_string(), "--shard", "0/1120"])
        .args(["--threads", &threads.to_string(), "--no-progress", "--out"])
        .arg(dir.path().join("s.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "n = {n}: {err}");
    assert!(
        err.contains(&format!("for n = {n} on {threads} thread")) && !err.contains("plan alone"),
        "not the need of the whole run: {err}"
    );
    let re = regex::Regex::new(r"needs about ([0-9.]+) (GiB|MiB)").unwrap();
    let caps = re.captures(&err).unwrap_or_else(|| panic!("{err}"));
    let value: f64 = caps[1].parse().unwrap();
    if &caps[2] == "MiB" {
        value / 1024.0
    } else {
        value
    }
}

#[test]
fn the_schedulers_ask_for_the_memory_a_shard_of_n_28_needs_and_retry_preemption() {
    if common::lacks("prlimit", "prlimit is not installed") {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap();
    let setting = |text: &str, key: &str| -> String {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key}"))
            .trim()
            .trim_matches('"')
            .to_string()
    };
    // Slurm: 4 CPUs (the threads) with 2 GiB each.
    let sbatch = read("scripts/slurm/nqueens-array.sbatch");
    let cpus: u32 = setting(&sbatch, "#SBATCH --cpus-per-task=")
        .parse()
        .unwrap();
    let per_cpu = setting(&sbatch, "#SBATCH --mem-per-cpu=");
    let per_cpu: f64 = per_cpu.strip_suffix('G').unwrap().parse().unwrap();
    // Kubernetes: the pod's memory, its CPUs the threads.
    let k8s = read("scripts/cluster/k8s-indexed-job.yaml");
    let memory: Vec<&str> = k8s
        .lines()
        .filter_map(|l| l.trim().strip_prefix("memory: "))
        .collect();
    assert_eq!(memory.len(), 2, "a request and a limit");
    assert_eq!(memory[0], memory[1]);
    let pod: f64 = memory[0].strip_suffix("Gi").unwrap().parse().unwrap();
    let pod_cpus: u32 = setting(&k8s, "cpu: ").parse().unwrap();
    // (From n = 29 on, the symmetry algorithm's searches need next to nothing beside the plan.)
    for (n, limit) in [(24, 512), (28, 1024)] {
        let slurm = shard_needs_gib(n, cpus, limit);
        assert!(
            slurm < per_cpu * f64::from(cpus),
            "n = {n}: {slurm} GiB on {cpus} threads"
        );
        let k = shard_needs_gib(n, pod_cpus, limit);
        assert!(k < pod, "n = {n}: {k} GiB on {pod_cpus} threads");
    }
    // A preempted or SIGTERMed pod is replaced without counting as a failure.
    for line in [
        "podFailurePolicy:",
        "- action: Ignore",
        "- type: DisruptionTarget",
        "values: [143]",
        "backoffLimitPerIndex:",
        "restartPolicy: Never",
    ] {
        assert!(k8s.lines().any(|l| l.trim().starts_with(line)), "{line}");
    }
    // Both name the command that sizes them.
    for text in [&sbatch, &k8s] {
        assert!(text.contains("--estimate --shard 0/M --threads"));
    }
}
