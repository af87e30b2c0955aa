//! The job's limits: a count that would not fit in the memory a control group, a resource
//! limit or `--memory` allows is refused before it starts, with one line and exit 1, instead of
//! being killed or aborting midway; the join's memory-bounded layout counts exactly under any
//! budget that fits; thread counts past the bound are usage errors.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

use assert_cmd::cargo::cargo_bin;
use common::{cmd, lacks, skip};

/// Checks that a refused count printed exactly one line naming the algorithm's need, and
/// returns it.
fn refused(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(" algorithm needs about"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout before the refusal"
    );
    err
}

#[test]
fn a_memory_budget_is_honoured_and_a_bad_one_is_a_usage_error() {
    refused(
        &cmd()
            .args(["24", "-t", "2", "--memory", "100M"])
            .output()
            .unwrap(),
    );
    refused(
        &cmd()
            .args(["28", "-t", "1", "--memory", "4G"])
            .output()
            .unwrap(),
    );
    for bad in ["lots", "-1G", "4Q", ""] {
        let out = cmd().args(["16", "--memory", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
    // Enough memory: the count runs.
    cmd().args(["14", "--memory", "1G"]).assert().success();
}

#[test]
fn a_small_budget_counts_exactly_in_bounded_memory() {
    // From n = 18 each unit makes its own partitions, and a thread keeps no more of them
    // than half of what the budget leaves: the count is exact under any budget that fits.
    for budget in ["30M", "60M"] {
        let out = cmd()
            .args(["18", "-t", "2", "--memory", budget, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\"solutions\":666090624"), "{text}");
    }
    // Up to n = 17 the whole lists are built, for speed; a budget below them is refused in
    // one line that names the algorithm that fits.
    let out = cmd()
        .args(["17", "-t", "2", "--memory", "20M"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("symmetry algorithm"), "{err}");
}

#[test]
fn an_address_space_limit_is_honoured() {
    if lacks("prlimit", "prlimit (util-linux) is not installed") {
        return;
    }
    let out = Std::new("prlimit")
        .arg("--as=400000000")
        .arg(cargo_bin("nqueens-count"))
        .args(["24", "-t", "2"])
        .output()
        .unwrap();
    refused(&out);
}

/// A fresh memory control group limited to `bytes`, where this process may make one.
fn limited_group(bytes: u64) -> Result<(PathBuf, &'static str), String> {
    let v2 = Path::new("/sys/fs/cgroup");
    let (parent, limit, procs) = if v2.join("cgroup.controllers").exists() {
        let enabled = fs::read_to_string(v2.join("cgroup.subtree_control")).unwrap_or_default();
        if !enabled.split_whitespace().any(|c| c == "memory") {
            return Err("the cgroup v2 root does not delegate the memory controller".into());
        }
        (v2.to_path_buf(), "memory.max", "cgroup.procs")
    } else if Path::new("/sys/fs/cgroup/memory").is_dir() {
        (
            PathBuf::from("/sys/fs/cgroup/memory"),
            "memory.limit_in_bytes",
            "cgroup.procs",
        )
    } else {
        return Err("no memory control group file system is mounted".into());
    };
    let dir = parent.join(format!("nqueens-test-{}", std::process::id()));
    fs::create_dir(&dir).map_err(|e| format!("cannot make a control group: {e}"))?;
    if let Err(e) = fs::write(dir.join(limit), bytes.to_string()) {
        let _ = fs::remove_dir(&dir);
        return Err(format!("cannot set the group's limit: {e}"));
    }
    Ok((dir, procs))
}

#[test]
fn a_control_group_limit_is_honoured() {
    let (group, procs) = match limited_group(400_000_000) {
        Ok(g) => g,
        Err(why) => return skip(&why),
    };
    // The shell moves itself into the group, then becomes the program: a count whose
    // engines do not fit, and plans whose building would not (checked before they are
    // built, else the group's limit kills the process with nothing said).
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("s.json");
    let runs = [
        "24 -t 2".to_string(),
        format!("28 --shard 0/1000000 --out {}", shard.display()),
        "20 -a plain --split-depth 6 -t 1".to_string(),
    ];
    let outs: Vec<_> = runs
        .iter()
        .map(|args| {
            let script = format!(
                "echo $$ > {} && exec {} {args}",
                group.join(procs).display(),
                cargo_bin("nqueens-count").display()
            );
            Std::new("sh").args(["-c", &script]).output().unwrap()
        })
        .collect();
    let _ = fs::remove_dir(&group);
    for out in &outs {
        refused(out);
    }
    assert!(!shard.exists());
}

#[test]
fn thread_counts_past_the_bound_are_usage_errors() {
    for t in ["100000", "18446744073709551615", "4097"] {
        let out = cmd().args(["8", "--threads", t]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{t}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("4096"), "{err}");
    }
}

/// The shard count a refusal advises.
fn advised_shards(out: &std::process::Output) -> u64 {
    refused(out);
    let err = String::from_utf8_lossy(&out.stderr);
    let shards: u64 = err
        .trim_end()
        .strip_suffix(" shards")
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no shard count in {err}"));
    assert!(shards >= 2 && shards.is_power_of_two(), "{err}");
    shards
}

#[test]
fn a_count_whose_bookkeeping_does_not_fit_is_cut_into_shards() {
    // n = 26 has some 12.6 million slices: 1.5 GiB of bookkeeping for a whole count, beside
    // 1.2 GiB for the engine.
    let out = cmd()
        .args(["26", "-t", "1", "--memory", "2G"])
        .output()
        .unwrap();
    advised_shards(&out);
}

#[test]
fn a_plan_too_large_for_an_address_space_limit_is_refused_before_it_is_built() {
    // Building these plans passes through lists of 150 to 400 MiB: under a 400 MB limit the
    // build aborted with "memory allocation failed" and a backtrace (exit 134). Now each is
    // refused in one line before it is built.
    if lacks("prlimit", "prlimit (util-linux) is not installed") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.json");
    for args in [
        &["28", "--shard", "0/1000000", "--out"][..],
        &[
            "22",
            "--algorithm",
            "symmetry",
            "--shard",
            "0/1000",
            "--out",
        ],
        &["30", "--shard", "0/1000000", "--out"],
        &["28", "--algorithm", "plain", "--shard", "0/1000", "--out"],
        // Plans of a chosen split depth are counted before they are built.
        &[
            "32",
            "-a",
            "symmetry",
            "--split-depth",
            "2",
            "-t",
            "1",
            "--shard",
            "0/9",
            "--out",
        ],
        &[
            "20",
            "-a",
            "plain",
            "--split-depth",
            "6",
            "-t",
            "1",
            "--shard",
            "0/9",
            "--out",
        ],
    ] {
        let done = Std::new("prlimit")
            .arg("--as=400000000")
            .arg(cargo_bin("nqueens-count"))
            .args(args)
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("needs about"), "{args:?}: {err}");
        assert!(done.stdout.is_empty());
    }
    assert!(!out.exists());
}

#[test]
fn memory_advice_is_consistent_and_in_units_that_read_apart() {
    // One thread's buffers fit in 300 MiB, but not with the bookkeeping of every subproblem of
    // n = 24: fewer threads and more shards, together.
    let out = cmd()
        .args(["24", "-t", "2", "--memory", "300M"])
        .output()
        .unwrap();
    let err = refused(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 thread would fit, with the count cut into 2 shards"),
        "{err}"
    );
    // A kibibyte is not shown as a mebibyte.
    let out = cmd().args(["13", "--memory", "1K"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("only 1 KiB is available"), "{err}");
    assert!(!err.contains("1 MiB"), "{err}");
}

#[test]
fn a_split_depth_whose_plan_does_not_fit_is_refused_with_what_to_choose() {
    let out = cmd()
        .args([
            "20",
            "-a",
            "plain",
            "--split-depth",
            "6",
            "-t",
            "1",
            "--memory",
            "100M",
        ])
        .output()
        .unwrap();
    let err = refused(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("plan of split depth 6 alone needs about"),
        "{err}"
    );
    assert!(err.contains("choose a smaller --split-depth"), "{err}");
}

#[test]
fn a_kernel_count_whose_bookkeeping_does_not_fit_runs_in_the_shards_advised() {
    // The symmetry plan of n = 24 cuts its longest searches into 6.8 million slices: some
    // 900 MB of bookkeeping, refused under 300 MB with a shard count.
    let args = [
        "24",
        "--algorithm",
        "symmetry",
        "-t",
        "1",
        "--memory",
        "300M",
    ];
    let shards = advised_shards(&cmd().args(args).output().unwrap());
    // A shard of that count passes the check and counts slices of seconds: a signal stops
    // it at once.
    interrupted_shard(&args, (0, shards), true);
}

/// Runs shard `index` of `count` of the count `args` with a checkpoint, waits until the
/// checkpoint is written (the plan made and its memory checked), and with `saved` until it
/// holds a finished subproblem, then sends SIGINT and requires exit 130 within seconds.
fn interrupted_shard(args: &[&str], (index, count): (u64, u64), saved: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (out, cp) = (dir.path().join("s.json"), dir.path().join("cp.json"));
    let shard = format!("{index}/{count}");
    let mut child = common::spawn(args.iter().copied().chain([
        "--shard",
        &shard,
        "--out",
        out.to_str().unwrap(),
        "--checkpoint",
        cp.to_str().unwrap(),
    ]));
    if saved {
        common::wait_until(&mut child, "a subproblem was saved", || {
            common::saved_counted(&cp).is_some_and(|p| !p.is_empty())
        });
    } else {
        common::wait_until(&mut child, "the checkpoint was written", || cp.exists());
    }
    common::signal_and_wait(child, libc::SIGINT);
}

#[test]
fn a_count_past_n_29_runs_in_shards_that_fit() {
    // From n = 30 on the largest searches are cut into the most slices a run makes of one
    // entry (2^20), which a shard owns whole: the advised shards fit, and a signal stops one
    // at once.
    let args = ["30", "-t", "1", "--memory", "2G"];
    let shards = advised_shards(&cmd().args(args).output().unwrap());
    interrupted_shard(&args, (shards / 2, shards), false);
}

/// The fields of an `--estimate --json` line.
fn estimate_json(out: &std::process::Output) -> serde_json::Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

#[test]
fn an_estimate_under_a_memory_limit_says_what_fits_instead_of_refusing() {
    // Not even one thread's engines fit: nothing is timed, and the report says what the count
    // needs, a thread's share, and what would fit.
    let out = cmd()
        .args(["24", "-t", "2", "--memory", "100M", "--estimate"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "estimate for n = 24, join, 2 threads", "{text}");
    assert!(lines[1].contains("sampled     nothing: "), "{text}");
    assert!(
        lines[2].starts_with("  memory      561 MiB for the count by the model: ")
            && lines[2].contains(" a thread, "),
        "{text}"
    );
    assert_eq!(
        lines[3],
        "              100 MiB available: it does not fit; not even one thread fits: one thread needs about 254 MiB",
        "{text}"
    );
    assert!(err.starts_with("warning: nothing was timed: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // The engines of 3 of 8 threads fit: the sample runs on them, and the projection is
    // still for 8.
    let out = cmd()
        .args(["22", "-t", "8", "--memory", "200M", "--estimate", "--json"])
        .args(["--estimate-seconds", "1"])
        .output()
        .unwrap();
    let row = estimate_json(&out);
    assert_eq!(
        (row["threads"].as_u64(), row["sample_threads"].as_u64()),
        (Some(8), Some(3))
    );
    assert_eq!(row["memory_fits"], false, "{row}");
    assert_eq!(row["memory_advice"], "3 threads would fit", "{row}");
    assert_eq!(row["memory_available_bytes"], 200 << 20, "{row}");
    let per_thread = row["memory_per_thread_bytes"].as_u64().unwrap();
    let shared = row["memory_shared_bytes"].as_u64().unwrap();
    let rest = row["memory_plan_and_bookkeeping_bytes"].as_u64().unwrap();
    assert_eq!(
        row["memory_bytes"].as_u64(),
        Some(8 * per_thread + shared + rest),
        "{row}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("note: the sample ran on 3 of the 8 threads"),
        "{out:?}"
    );
}

#[test]
fn an_estimate_under_an_address_space_limit_reports_what_fits() {
    // The count itself is refused under this limit (`an_address_space_limit_is_honoured`);
    // the estimate says what it needs and what would fit instead.
    if lacks("prlimit", "prlimit (util-linux) is not installed") {
        return;
    }
    let out = Std::new("prlimit")
        .arg("--as=400000000")
        .arg(cargo_bin("nqueens-count"))
        .args([
            "24",
            "-t",
            "2",
            "--estimate",
            "--estimate-seconds",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    let row = estimate_json(&out);
    assert_eq!(row["memory_fits"], false, "{row}");
    let available = row["memory_available_bytes"].as_u64().unwrap();
    assert!(available <= 400_000_000, "{row}");
    assert!(
        row["memory_advice"]
            .as_str()
            .is_some_and(|a| a.contains("fit")),
        "{row}"
    );
    assert!(
        row["memory_whole_count_bytes"].as_u64().unwrap() > available,
        "{row}"
    );
}

#[test]
fn a_shards_estimate_names_a_shards_memory_and_the_whole_counts() {
    let out = cmd()
        .args([
            "20",
            "-t",
            "2",
            "--shard",
            "1/8",
            "--estimate",
            "--estimate-seconds",
            "1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" for this shard by the model "), "{text}");
    assert!(text.contains(" the whole count in one process"), "{text}");
}
