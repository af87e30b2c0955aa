//! `status` as an operator of a large count uses it: the verdict `merge` gives each shard, the
//! share of the work done and the CPU-hours spent and left, the shards to resubmit as an array
//! range, keyed tags checked as `merge --key` checks them, an empty folder, and the JSON.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::cmd;
use nqueens::persist::{Journal, Shard};
use nqueens::{Algorithm, Config, Job};

/// Counts shards `which` of `m` of n = 12 into `dir` as the cluster scripts do
/// (`shard-I.json`, each with its checkpoint `ckpt-I.json`), with `extra` options.
fn shards(dir: &Path, m: u64, which: impl IntoIterator<Item = u64>, extra: &[&str]) {
    for i in which {
        cmd()
            .args(["12", "--threads", "2", "--shard", &format!("{i}/{m}")])
            .arg("--checkpoint")
            .arg(dir.join(format!("ckpt-{i}.json")))
            .arg("--out")
            .arg(dir.join(format!("shard-{i}.json")))
            .args(extra)
            .assert()
            .success();
    }
}

/// `nqueens-count ARGS... DIR` with stdout and stderr as text.
fn run(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let out: Output = cmd().args(args).arg(dir).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `status --json DIR` parsed, with its exit status.
fn status_json(dir: &Path, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["status", "--json"];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args, dir);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
    (code, v)
}

#[test]
fn the_shards_to_resubmit_are_an_array_range() {
    // Forty-six shards of n = 15, eight of them never run: 3, 17 and 40 to 45.
    let dir = tempfile::tempdir().unwrap();
    let lost: Vec<u64> = [3, 17].into_iter().chain(40..46).collect();
    let config = Config::new(15).algorithm(Algorithm::Join).threads(1);
    for i in (0..46).filter(|i| !lost.contains(i)) {
        let job = Job::new(&config).unwrap().shard(Shard::new(i, 46).unwrap());
        let outcome = job.run(Default::default()).unwrap();
        let path = dir.path().join(format!("shard-{i}.json"));
        job.shard_result(&outcome).write(&path).unwrap();
    }
    assert_eq!(Shard::ranges(&lost), "3,17,40-45");
    let (code, stdout, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stdout.contains("\n  missing   8 shards: 3,17,40-45\n"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("\nresubmit: --array=3,17,40-45\n"),
        "{stdout}"
    );
    let (_, v) = status_json(dir.path(), &[]);
    assert_eq!(v["resubmit_array"], "3,17,40-45");
    assert_eq!(v["resubmit"], serde_json::json!(lost));
    // The merge names the same shards.
    let (code, _, stderr) = run(&["merge", "--recount", "0"], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("error: missing: shards 3,17,40-45 of 46 (resubmit them)"),
        "{stderr}"
    );
}

#[test]
fn a_gone_result_with_a_complete_checkpoint_is_partial_to_status_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    shards(dir.path(), 3, 0..3, &[]);
    fs::remove_file(dir.path().join("shard-1.json")).unwrap();
    let checkpoint = dir.path().join("ckpt-1.json");

    let (code, stdout, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stdout.contains(
            "\n  partial   1 shard: 1 (its checkpoint is complete, but no good result file: \
             rerun the shard to write it)\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\n  missing   none\n"), "{stdout}");
    assert!(stdout.ends_with("\nresubmit: --array=1\n"), "{stdout}");
    assert!(!stdout.contains("every shard is done"), "{stdout}");
    let (_, v) = status_json(dir.path(), &[]);
    assert_eq!(v["partial"][0]["shard"], 1);
    assert_eq!(v["partial"][0]["checkpoint_complete"], true);
    assert_eq!(v["complete"], false);

    let (code, _, stderr) = run(&["merge", "--recount", "0"], dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    let partial = format!(
        "error: partial: shard 1: its checkpoint {} is complete, but the shard has no good \
         result file: rerun it to write it",
        checkpoint.display()
    );
    assert!(stderr.contains(&partial), "{stderr}");
    assert!(!stderr.contains("missing"), "{stderr}");

    // Rerun as both say: the shard's result is written from its checkpoint.
    shards(dir.path(), 3, [1], &[]);
    let (code, stdout, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("\n  done      3 shards: 0-2\n"), "{stdout}");
    let (code, _, stderr) = run(&["merge", "--recount", "0"], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn status_of_an_empty_folder_says_no_shard_has_begun() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "{}: no shard has written a file yet (no *.json files there): the count has not \
             begun, or its files are elsewhere\n",
            dir.path().display()
        )
    );
    let (code, v) = status_json(dir.path(), &[]);
    assert_eq!(code, Some(3));
    assert_eq!(v["begun"], false);
    assert_eq!(v["shards"], serde_json::Value::Null);

    // A folder of other JSON alone is no count begun either; the file is named as skipped.
    fs::write(dir.path().join("notes.json"), "{\"a\": 1}").unwrap();
    let (code, stdout, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stdout.contains("(1 file, none a shard's result file or checkpoint"),
        "{stdout}"
    );
    assert!(stderr.contains("notes.json"), "{stderr}");
    // A damaged file is no empty folder: the files cannot be read as a count's.
    fs::write(
        dir.path().join("shard-0.json"),
        "{\"format\":\"nqueens-shard",
    )
    .unwrap();
    let (code, _, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("damaged"), "{stderr}");
}

#[test]
fn status_checks_keyed_tags_as_merge_does() {
    let dir = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let (key, other) = (keys.path().join("key"), keys.path().join("other"));
    fs::write(&key, [7u8; 32]).unwrap();
    fs::write(&other, [9u8; 32]).unwrap();
    let key_arg = key.to_str().unwrap();
    shards(dir.path(), 2, 0..2, &["--key", key_arg]);

    // The right key: every tag checked, complete.
    let (code, stdout, stderr) = run(&["status", "--key", key_arg], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("\n  tags      every file's keyed tag checked\n"),
        "{stdout}"
    );
    // No key: the tags are there, unchecked, as merge says.
    let (code, stdout, _) = run(&["status"], dir.path());
    assert_eq!(code, Some(0));
    assert!(stdout.contains("not checked: files carry keyed tags (give --key)"));

    // The wrong key: every file is damaged, to both; status names each and resubmits both.
    let (code, stdout, stderr) = run(&["status", "--key", other.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(3), "{stderr}");
    let damaged: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("  damaged   "))
        .collect();
    assert_eq!(damaged.len(), 4, "{stdout}");
    assert!(stdout.contains("\n  missing   2 shards: 0-1\n"), "{stdout}");
    assert!(stdout.ends_with("\nresubmit: --array=0-1\n"), "{stdout}");
    let (code, _, merge_err) = run(
        &["merge", "--recount", "0", "--key", other.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(code, Some(1));
    for line in &damaged {
        let (file, why) = line["  damaged   ".len()..].split_once(": ").unwrap();
        assert!(
            merge_err.contains(&format!("{file}: {why}")),
            "{line} / {merge_err}"
        );
    }
    // A key file that cannot be read is a usage error.
    let (code, _, stderr) = run(&["status", "--key", "/nonexistent/key"], dir.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn status_json_parses_with_the_facts_of_the_table() {
    let dir = tempfile::tempdir().unwrap();
    shards(dir.path(), 4, [0, 2], &[]);
    let (code, v) = status_json(dir.path(), &[]);
    assert_eq!(code, Some(3));
    assert_eq!(v["begun"], true);
    assert_eq!(v["complete"], false);
    assert_eq!((v["n"].as_u64(), v["shards"].as_u64()), (Some(12), Some(4)));
    assert_eq!(v["algorithm"], "join");
    assert_eq!(v["done"], serde_json::json!([0, 2]));
    assert_eq!(v["missing"], serde_json::json!([1, 3]));
    assert_eq!(v["resubmit_array"], "1,3");
    assert_eq!(v["tags"], "none");
    // The subproblems done are those of the two result files; the share is of the whole.
    let files: Vec<PathBuf> = [0, 2]
        .iter()
        .map(|i| dir.path().join(format!("shard-{i}.json")))
        .collect();
    let done: usize = files
        .iter()
        .map(|f| Journal::read(f).unwrap().counted_len())
        .sum();
    assert_eq!(v["subproblems_done"].as_u64(), Some(done as u64));
    let all = v["subproblems"].as_u64().unwrap();
    assert!(all > done as u64, "{v}");
    let share = v["share_done"].as_f64().unwrap();
    assert!((share - done as f64 / all as f64).abs() < 1e-6, "{v}");
    // CPU time: each file's seconds times its threads (2), as recorded.
    let cpu: f64 = files
        .iter()
        .map(|f| {
            let j = Journal::read(f).unwrap();
            assert_eq!(j.meta()["threads"], "2");
            j.meta()["seconds"].parse::<f64>().unwrap() * 2.0
        })
        .sum();
    let spent = v["cpu_hours_spent"].as_f64().unwrap();
    assert!((spent - cpu / 3600.0).abs() < 1e-6, "{spent} {cpu}");
    assert_eq!(v["timed_shards"], 2);
    assert_eq!(v["threads_unknown"], 0);
    // Two shards left at the mean of two: as much again.
    let left = v["cpu_hours_left"].as_f64().unwrap();
    assert!((left - spent).abs() < 2e-6, "{left} {spent}");
}

#[test]
fn status_after_every_shard_is_done_says_none_is_left() {
    let dir = tempfile::tempdir().unwrap();
    shards(dir.path(), 3, 0..3, &[]);
    let (code, stdout, stderr) = run(&["status"], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.ends_with("\n  left      none: every shard is done\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("about"), "{stdout}");
    assert!(!stdout.contains("resubmit"), "{stdout}");
    assert!(
        stdout.contains("\n  work      276 of 276 subproblems done (100.0%), 0 left\n"),
        "{stdout}"
    );
    let (_, v) = status_json(dir.path(), &[]);
    assert_eq!(v["complete"], true);
    assert_eq!(v["cpu_hours_left"], 0.0);
    assert_eq!(v["resubmit"], serde_json::json!([]));
    assert_eq!(v["resubmit_array"], serde_json::Value::Null);
}
