//! A count split as a large cluster would split it: thousands of shard files, merged in one
//! call, with the missing ones named as ranges.

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
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            bin.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
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

/// Runs `scripts/container-image` with a PATH of only `tools` (name, shell script) and the
/// text tools it uses; returns (exit code, stdout and stderr).
fn container_image(tools: &[(&str, &str)]) -> (Option<i32>, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    for name in ["sed", "tail", "grep"] {
        let real = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .unwrap();
        let real = String::from_utf8(real.stdout).unwrap();
        std::os::unix::fs::symlink(real.trim(), dir.path().join(name)).unwrap();
    }
    for (name, script) in tools {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let bash = std::process::Command::new("sh")
        .args(["-c", "command -v bash"])
        .output()
        .unwrap();
    let bash = String::from_utf8(bash.stdout).unwrap();
    let out = std::process::Command::new(bash.trim())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/container-image"
        ))
        .env("PATH", dir.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn the_container_image_step_says_why_it_is_skipped() {
    let (code, text) = container_image(&[]);
    assert_eq!(
        (code, text.as_str()),
        (Some(0), "container image: skipped (no docker or podman)\n")
    );
    let (code, text) = container_image(&[("docker", "exit 1")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("skipped (docker installed but not answering"),
        "{text}"
    );
    // A tool that answers, but no registry of images within reach.
    let podman = r#"case "$1" in info) exit 0 ;; image) exit 1 ;; pull) echo "Error: no such host" >&2; exit 125 ;; *) exit 3 ;; esac"#;
    let (code, text) = container_image(&[("podman", podman)]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("skipped (podman cannot pull the base image rust:"),
        "{text}"
    );
    assert!(text.contains("Error: no such host"), "{text}");
    // A build that fails once the images are there is an error.
    let failing = r#"case "$1" in info|image) exit 0 ;; *) exit 1 ;; esac"#;
    let (code, text) = container_image(&[("podman", failing)]);
    assert_eq!(code, Some(1), "{text}");
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
    let ignored = read(".dockerignore");
    assert!(ignored.lines().any(|l| l == "target/") && ignored.lines().any(|l| l == ".git"));
    let ci = read(".ci/run");
    let tests = ci.find("\nscripts/test\n").unwrap();
    assert!(ci[tests..].contains("\nscripts/container-image\n"));
    assert!(read("scripts/cluster/k8s-indexed-job.yaml").contains("repository's Dockerfile"));
}
