//! `scripts/counted-sample`, which projects a count's cost from shards of it counted and checks
//! `--estimate` against them, tried on a small board and with a stand-in program that fails.
//! Apart from `tests/estimate.rs`, whose margins its counts would disturb if run beside them.

mod common;

use std::process::Output;

/// The raw lines of a `scripts/counted-sample` report: `(shard, CPU seconds, partial sum)` of
/// each counted shard, and the number of estimate lines.
fn counted_sample_lines(raw: &str) -> (Vec<(String, f64, u64)>, usize) {
    let (mut counts, mut estimates) = (Vec::new(), 0);
    for line in raw.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if r["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--estimate")
        {
            estimates += 1;
            continue;
        }
        let shard = r["command"][2].as_str().unwrap().to_string();
        let found = r["json"]["partial_solutions"].as_u64().unwrap();
        counts.push((shard, r["cpu"].as_f64().unwrap(), found));
    }
    counts.sort_by(|a, b| a.0.cmp(&b.0));
    (counts, estimates)
}

/// Whether python3, which runs the script, is missing (the test is then skipped).
fn lacks_python() -> bool {
    common::lacks(
        "python3",
        "python3 is not installed; it runs scripts/counted-sample",
    )
}

/// `scripts/counted-sample 12 4 4 --threads 1 --jobs 2` with program `bin`, its report at
/// `out`, and `extra` arguments.
fn counted_sample(bin: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> Output {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/counted-sample");
    std::process::Command::new(script)
        .args(["12", "4", "4", "--threads", "1", "--jobs", "2", "--bin"])
        .arg(bin)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// `scripts/counted-sample` with as many blocks as shards counts each shard once, two at a
/// time: their partial sums add up to the board's total. Run again on its own raw file with
/// `--estimate-each`, it counts nothing anew and sets an estimate beside each shard; with
/// `--pool`, it projects from its shards and another sample's together.
#[test]
fn counted_sample_counts_a_shard_a_block_and_reuses_its_counts() {
    if lacks_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("nqueens-count");
    let run = |name: &str, extra: &[&str]| {
        let out = counted_sample(&bin, &dir.path().join(format!("{name}.md")), extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let raw = std::fs::read_to_string(dir.path().join(format!("{name}.jsonl"))).unwrap();
        let report = std::fs::read_to_string(dir.path().join(format!("{name}.md"))).unwrap();
        (counted_sample_lines(&raw), report)
    };
    let ((counts, estimates), report) = run("first", &[]);
    let shards: Vec<&str> = counts.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(shards, ["0/4", "1/4", "2/4", "3/4"]);
    assert_eq!(counts.iter().map(|c| c.2).sum::<u64>(), 14_200);
    assert_eq!(estimates, 0);
    assert!(
        report.contains("**Projected from the counted shards: "),
        "{report}"
    );
    let reused = dir.path().join("first.jsonl");
    let ((again, estimates), report) = run(
        "second",
        &["--estimate-each", "1", "--reuse", reused.to_str().unwrap()],
    );
    assert_eq!(again, counts, "the counts are taken, not made anew");
    assert_eq!(estimates, 4);
    assert!(
        report.contains("The shards' own estimates held their counted CPU time "),
        "{report}"
    );
    assert!(report.contains("The shards' skewness G1 = "), "{report}");
    // Pooled with another sample of the same shards, planted at 1,000 to 4,000 CPU-s: the
    // eight shards' mean, some 1,250 s, times the 4 shards is 1.389 CPU-hours.
    let planted = dir.path().join("planted.jsonl");
    let lines: String = (1..=4)
        .map(|i| {
            format!(
                "{{\"command\": [\"12\", \"--shard\", \"{}/4\"], \"cpu\": {}}}\n",
                i - 1,
                1000 * i
            )
        })
        .collect();
    std::fs::write(&planted, lines).unwrap();
    let (_, report) = run(
        "third",
        &[
            "--reuse",
            reused.to_str().unwrap(),
            "--pool",
            planted.to_str().unwrap(),
        ],
    );
    assert!(
        report.contains("(8 shards in 2 independent samples): 1.389 CPU-hours ± "),
        "{report}"
    );
}

/// A count that fails stops `scripts/counted-sample` with exit 1 and the program's error, and
/// the shard counting beside it is stopped rather than waited for (here a stand-in program
/// that fails on shard 0 and would mark the others done after 10 s).
#[test]
fn counted_sample_stops_the_other_counts_when_one_fails() {
    if lacks_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("stand-in");
    let body = format!(
        "case \"$3\" in\n  0/*) echo 'error: planted failure' >&2; exit 3;;\nesac\n\
         sleep 10\ntouch '{}/done'",
        dir.path().display()
    );
    common::write_script(&bin, &body);
    let out = counted_sample(&bin, &dir.path().join("r.md"), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("planted failure"), "{err}");
    assert!(
        !dir.path().join("done").exists(),
        "another shard was counted to its end"
    );
    assert!(
        !dir.path().join("r.md").exists(),
        "no report of a failed sample"
    );
}
