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

/// The path of `scripts/counted-sample`.
fn script() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/counted-sample")
}

/// `scripts/counted-sample 12 4 4 --threads 1 --jobs 2` with program `bin`, its report at
/// `out`, and `extra` arguments.
fn counted_sample(bin: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> Output {
    std::process::Command::new(script())
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

/// The program `examples/entry_strata`, built beside the program by `cargo test`; `None` (the
/// test skipped, a failure under CI) where it was not built.
fn entry_strata() -> Option<std::path::PathBuf> {
    let bin = assert_cmd::cargo::cargo_bin("nqueens-count");
    let path = bin.parent().unwrap().join("examples/entry_strata");
    if path.exists() {
        return Some(path);
    }
    common::skip("examples/entry_strata is not built (`cargo build --example entry_strata`)");
    None
}

/// The post-stratified projection itself, called in the script: each stratum weighed by its
/// size, not by its share of the sample (1,000 entries of 1 s and 10 of 100 s are 2,000 s,
/// where the sample's plain mean would say 1,010 × 50.5); a stratum of one counted entry joins
/// its neighbour, and strata without variance give no margin. A next sample's Neyman shares
/// follow each group's size times its spread.
#[test]
fn counted_sample_weighs_each_stratum_by_its_size() {
    if lacks_python() {
        return;
    }
    let script = script();
    let code = format!(
        "import importlib.machinery, importlib.util\n\
         loader = importlib.machinery.SourceFileLoader('cs', {script:?})\n\
         cs = importlib.util.module_from_spec(importlib.util.spec_from_loader('cs', loader))\n\
         loader.exec_module(cs)\n\
         strata = {{'strata': {{'north 2': 1000, 'north 3': 10, 'north 4': 5, 'other': 2}},\n\
                   'of': {{str(e): ('north 2' if e < 5 else 'north 3' if e < 10 else 'north 4')\n\
                          for e in range(11)}}}}\n\
         counted = [(e, 1.0) for e in range(5)] + [(e, 100.0) for e in range(5, 10)]\n\
         total, margin, _, groups = cs.post_stratified(counted, strata)\n\
         print(total, margin, sorted(g[0] for g in groups))\n\
         total, margin, _, groups = cs.post_stratified(counted + [(10, 100.0)], strata)\n\
         print(total, margin, sorted(g[0] for g in groups))\n\
         shares, _ = cs.neyman([[['a'], 100, [1.0, 3.0]], [['b'], 300, [10.0, 20.0]]])\n\
         print([round(x, 4) for x in shares])\n"
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &code])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    // Unsampled 'north 4' and 'other' (7 entries) are merged: 'north 4' into its neighbour
    // 'north 3' (1,000 + 15 × 100 s), 'other', a family alone with none counted, into the
    // group of the fewest counted ('north 2', whose entries took 1 s: 2 s more).
    assert_eq!(
        lines[0], "2502.0 0.0 [['north 2', 'other'], ['north 3', 'north 4']]",
        "{text}"
    );
    // Counted once more (north 4, 100 s): the same groups, the same total.
    assert_eq!(lines[1], lines[0], "{text}");
    // Neyman's allocation: sizes times spreads, 100 × √2 against 300 × √50, 1 to 15.
    assert_eq!(lines[2], "[0.0625, 0.9375]", "{text}");
}

/// `--strata`, where every shard is one entry of the plan, adds the post-stratified
/// projection and its strata to the report; where M is not the plan's number of entries it
/// is refused as a usage error before anything is counted.
#[test]
fn counted_sample_post_stratifies_entries_counted_one_a_shard() {
    if lacks_python() {
        return;
    }
    let Some(strata) = entry_strata() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("nqueens-count");
    let script = script();
    let run = |m: &str| {
        std::process::Command::new(&script)
            .args([
                "12",
                m,
                "6",
                "--threads",
                "1",
                "--jobs",
                "2",
                "--strata",
                "--bin",
            ])
            .arg(&bin)
            .arg("--strata-bin")
            .arg(&strata)
            .arg("--out")
            .arg(dir.path().join(format!("{m}.md")))
            .output()
            .unwrap()
    };
    // n = 12's join plan: 252 join units and the unique count's 24 searches.
    let out = run("276");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(dir.path().join("276.md")).unwrap();
    assert!(
        report.contains("**Post-stratified by the plan's strata (6 entries): "),
        "{report}"
    );
    // Every stratum of the plan is in one group of the table, and the groups' entries add up
    // to the plan's.
    let rows: Vec<Vec<&str>> = report
        .lines()
        .filter(|l| l.starts_with("| north") || l.starts_with("| other"))
        .map(|l| l.split(" | ").collect())
        .collect();
    let entries: u64 = rows.iter().map(|r| r[1].parse::<u64>().unwrap()).sum();
    assert_eq!(entries, 276, "{report}");
    let out = run("6");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--strata needs one entry a shard: M must be the plan's 276 entries"),
        "{err}"
    );
}
