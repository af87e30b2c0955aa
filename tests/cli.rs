//! Command-line behaviour: output formats, exit codes, and every kind of bad input.

use assert_cmd::Command;
use predicates::prelude::*;

mod common;

use common::{cmd, skip, stdout_of};

#[test]
fn human_output_has_one_aligned_row_per_n() {
    let text = stdout_of(&["8..=10", "--threads", "2"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].contains("solutions") && lines[0].contains("nodes/s"));
    let fields: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(&fields[..3], ["8", "92", "12"]);
    assert!(lines[3].split_whitespace().take(3).eq(["10", "724", "92"]));
    // Aligned: every row as wide as the header.
    assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{text}");
}

#[test]
fn json_output_is_one_object_per_n_with_integer_counts() {
    let text = stdout_of(&["11..=12", "--json", "-t", "1"]);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["n"], 11);
    assert_eq!(rows[0]["solutions"], 2680);
    assert_eq!(rows[0]["unique"], 341);
    assert_eq!(rows[1]["solutions"].as_u64(), Some(14200));
    for r in &rows {
        for field in ["seconds", "threads", "algorithm", "subproblems", "nodes"] {
            assert!(!r[field].is_null(), "{field} in {r}");
        }
        assert_eq!(r["threads"], 1);
    }
    // The default algorithm depends on the size: the fastest one by measurement.
    assert_eq!(rows[0]["algorithm"], "symmetry");
    assert_eq!(rows[1]["algorithm"], "join");
}

#[test]
fn a_shards_json_line_has_its_partial_sum_and_one_thing_is_singular() {
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    for i in 0..2 {
        let out = dir.path().join(format!("s{i}.json"));
        let line = stdout_of(&[
            "10",
            "--shard",
            &format!("{i}/2"),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        let row: serde_json::Value = serde_json::from_str(&line).unwrap();
        let part = row["partial_solutions"].as_u64().unwrap();
        assert_eq!(row["partial_solutions_str"], part.to_string());
        assert_eq!(row["algorithm"], "symmetry");
        total += part;
    }
    assert_eq!(total, 724);
    let one = dir.path().join("one.json");
    let text = stdout_of(&["1", "--shard", "0/1", "--out", one.to_str().unwrap()]);
    assert!(
        text.contains(": 1 subproblem, partial sum 1 solution,"),
        "{text}"
    );
    let merged = stdout_of(&["merge", one.to_str().unwrap()]);
    assert!(
        merged.contains("n = 1: 1 solution, 1 unique (1 shard of plan"),
        "{merged}"
    );
    assert!(
        merged.contains("; recounted all 1 subproblem in"),
        "{merged}"
    );
}

/// The arguments that ask each command with options for its help (`-h` or `--help`).
fn help_of(flag: &'static str) -> Vec<Vec<&'static str>> {
    [
        &[][..],
        &["list"],
        &["merge"],
        &["status"],
        &["bench"],
        &["trace"],
    ]
    .iter()
    .map(|c| c.iter().copied().chain([flag]).collect())
    .collect()
}

#[test]
fn help_is_wrapped_to_the_terminal() {
    for args in &help_of("--help") {
        for columns in [100, 72] {
            let out = cmd()
                .args(args)
                .env("COLUMNS", columns.to_string())
                .output()
                .unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(widest <= columns, "{args:?} at {columns} columns: {widest}");
        }
    }
}

#[test]
fn short_help_says_each_option_in_one_line() {
    for args in &help_of("-h") {
        let text = String::from_utf8(
            cmd()
                .args(args)
                .env("COLUMNS", "100")
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let options = text.split("Options:").nth(1).unwrap();
        let options = options.split("\n\n").next().unwrap();
        for line in options.lines().filter(|l| !l.trim().is_empty()) {
            let starts = line.starts_with("  -") || line.starts_with("      --");
            // A line of its own only for the tail of "[default: ...]" or "[possible values]".
            assert!(starts || line.contains(']'), "{args:?}: {line}");
        }
        // The long help still says more.
        let long = args.iter().map(|a| if *a == "-h" { "--help" } else { *a });
        let long = String::from_utf8(cmd().args(long).output().unwrap().stdout).unwrap();
        assert!(long.len() > text.len(), "{args:?}");
    }
}

#[test]
fn long_help_never_says_a_summary_twice() {
    // The long help of an option is its one-line summary, then what it adds: a second
    // paragraph that starts like the first restates it.
    for args in &help_of("--help") {
        let text = String::from_utf8(cmd().args(args).output().unwrap().stdout).unwrap();
        // Paragraphs end at lines that are blank (clap indents them).
        let mut paragraphs = vec![String::new()];
        for line in text.lines().map(str::trim) {
            if line.is_empty() {
                paragraphs.push(String::new());
            } else {
                let p = paragraphs.last_mut().unwrap();
                p.push(' ');
                p.push_str(line);
            }
        }
        for pair in paragraphs.windows(2) {
            let opening = |p: &str| p.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
            // The first paragraph may begin with the option's name, on a line of its own.
            let b = opening(&pair[1]);
            assert!(
                b.is_empty() || !pair[0].contains(&b),
                "{args:?} says twice: {b}"
            );
        }
    }
}

#[test]
fn typos_name_what_was_probably_meant_in_one_line() {
    for (args, says) in [
        (
            &["lsit", "4"][..],
            "unknown command 'lsit': did you mean 'list'? try --help",
        ),
        (
            &["--thread", "2", "8"],
            "a similar argument exists: '--threads'; try --help",
        ),
        (
            &["list", "--fromat", "json", "4"],
            "a similar argument exists: '--format'",
        ),
        (
            &["14", "--split-depth", "2"],
            "join, the default algorithm for n = 14",
        ),
        (
            &["10", "--estimate", "--estimate-seconds", "-1"],
            "expected whole seconds from 1",
        ),
        (
            &["8", "--verify", "--estimate"],
            "give it to merge, not to --shard or --estimate",
        ),
    ] {
        let out = cmd().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn join_refuses_a_split_depth_and_boards_past_its_range() {
    for args in [
        &["14", "--algorithm", "join", "--split-depth", "2"][..],
        &["29", "--algorithm", "join"][..],
    ] {
        let out = Command::cargo_bin("nqueens-count")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("join"), "{err}");
    }
}

#[test]
fn plain_reports_no_unique_count() {
    let text = stdout_of(&["9", "--json", "--algorithm", "plain"]);
    let row: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(row["solutions"], 352);
    assert!(row["unique"].is_null());
    assert_eq!(row["algorithm"], "plain");
}

#[test]
fn bad_input_is_one_line_and_exit_code_two() {
    let cases: &[&[&str]] = &[
        &["0"],
        &["33"],
        &["abc"],
        &["-3"],
        &["12..=8"],
        &["8..12"],
        &[],
        &["8", "--threads", "x"],
        &["8", "--threads", "-1"],
        &["8", "--algorithm", "magic"],
        &["8", "--split-depth", "99"],
        &["8", "--algorithm", "plain", "--split-depth", "0"],
        &["8", "--shard", "3/3", "--out", "x.json"],
        &["8", "--shard", "1/0", "--out", "x.json"],
        &["8", "--shard", "0/2"],
        &["8", "--out", "x.json"],
        &["8..=9", "--checkpoint", "c.json"],
        &["list", "0"],
        &["list", "33"],
        &["trace", "9"],
        &["merge"],
    ];
    for args in cases {
        let out = cmd()
            .args(*args)
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn shard_auto_without_a_scheduler_is_a_usage_error() {
    cmd()
        .args(["8", "--shard", "auto/4", "--out", "x.json"])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("PBS_ARRAY_INDEX")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("SLURM_ARRAY_TASK_ID"));
}

#[test]
fn verify_agrees_for_known_counts() {
    cmd()
        .args(["10", "--verify"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "n = 10 agrees with OEIS A000170/A002562",
        ));
    // The plain algorithm makes no unique count: only the total is said to agree.
    cmd()
        .args(["10", "--verify", "--algorithm", "plain"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "agrees with OEIS A000170 (the total; no unique count was made)",
        ));
}

#[test]
fn help_and_version_exit_zero() {
    cmd()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--threads"));
    cmd().arg("--version").assert().success();
}

#[test]
fn bench_quick_checks_its_counts_and_posts_a_score() {
    let text = stdout_of(&["bench", "--quick", "--threads", "1,2", "--json"]);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert_eq!(rows[0]["threads"], 1);
    assert_eq!(rows[1]["threads"], 2);
    assert_eq!(rows[0]["speedup"], 1.0);
    assert!(rows[1]["nodes_per_second"].as_f64().unwrap() > 0.0);
    assert_eq!(rows[2]["summary"], true);
    assert!(rows[2]["score"].as_f64().unwrap() > 0.0);
    assert!(rows[2]["physical_cores"].as_u64().unwrap() >= 1);
    let human = stdout_of(&["bench", "--quick", "--threads", "1"]);
    assert!(
        human.contains("workload v1-quick") && human.contains("score:"),
        "{human}"
    );
}

#[test]
fn bench_times_the_public_profiles_board_as_they_report_it() {
    // pts/n-queens counts n = 18 and reports elapsed seconds, the mean of 3 runs.
    let human = stdout_of(&["bench", "--workload", "pts-n-queens", "--threads", "2"]);
    assert!(
        human.contains("workload pts-n-queens: join algorithm, n = 18, mean of 3 runs"),
        "{human}"
    );
    assert!(human.contains("pts/n-queens figure: "), "{human}");
    // The profile's published results time a brute-force counter: the join's time is labelled
    // so, and the like-for-like way named.
    assert!(
        human.contains(
            "the published results of this profile time a brute-force OpenMP counter, not the \
             join algorithm"
        ) && human.contains("--algorithm plain compares machines like for like"),
        "{human}"
    );
    assert!(
        human.contains("s elapsed (mean of 3 runs on 2 threads)"),
        "{human}"
    );
    cmd()
        .args(["bench", "--quick", "--workload", "standard"])
        .assert()
        .code(2);
}

#[test]
fn bench_help_states_the_workload() {
    cmd()
        .args(["bench", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("n = 17").and(predicate::str::contains("n = 15")));
}

#[test]
fn completions_for_every_shell_and_a_manual_page() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let text = stdout_of(&["completions", shell]);
        assert!(text.contains("nqueens-count"), "{shell}");
        assert!(text.contains("checkpoint"), "{shell}");
    }
    // The bash script is valid bash.
    let script = stdout_of(&["completions", "bash"]);
    if let Ok(out) = std::process::Command::new("bash")
        .args(["-n", "-c", &script])
        .output()
    {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let page = stdout_of(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH nqueens-count 1"),
        "{page}"
    );
    assert!(page.contains("checkpoint") && page.contains(".SH"));
    cmd().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn the_manual_is_one_whole_page_that_groff_sets_without_a_warning() {
    let page = stdout_of(&["man"]);
    assert!(page.is_ascii(), "characters past ASCII are groff escapes");
    for part in [
        ".SH EXIT STATUS",
        "\n143\n",
        ".SH EXAMPLES",
        ".SS \"nqueens-count list\"",
        ".SS \"nqueens-count merge\"",
        ".SS \"nqueens-count bench\"",
    ] {
        assert!(page.contains(part), "{part}");
    }
    // Each command's own options are on the page, after its heading.
    let merge = page.find(".SS \"nqueens-count merge\"").unwrap();
    assert!(page[merge..].contains("recount\\-seed"));
    let list = page.find(".SS \"nqueens-count list\"").unwrap();
    assert!(page[list..merge].contains("\\-\\-limit"));
    // No page of its own is promised for a command.
    assert!(!page.contains("nqueens\\-count\\-list(1)"));
    let Ok(mut groff) = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        skip("groff is not installed, so the manual was not rendered");
        return;
    };
    use std::io::Write;
    groff
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = groff.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// What fish completes for the command line `line` with the script loaded (`None`: fish is
/// not installed).
fn fish_completes(script: &std::path::Path, line: &str) -> Option<String> {
    let program = format!(
        "source '{}'; complete -C '{line}' | cut -f1",
        script.display()
    );
    let out = std::process::Command::new("fish")
        .args(["--no-config", "-c", &program])
        .current_dir(script.parent().unwrap())
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    Some(words.join(" "))
}

#[test]
fn the_fish_completion_offers_options_and_values_after_the_board_size() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("nqueens-count.fish");
    std::fs::write(&script, stdout_of(&["completions", "fish"])).unwrap();
    let Some(algorithms) = fish_completes(&script, "nqueens-count 14 --algorithm ") else {
        skip("fish is not installed");
        return;
    };
    // The generator's own test took 14 for a command and offered file names here.
    assert_eq!(algorithms, "join plain symmetry");
    let cases = [
        ("nqueens-count --algorithm ", "join plain symmetry"),
        ("nqueens-count 14 --chec", "--checkpoint"),
        ("nqueens-count list --f", "--format"),
        ("nqueens-count merge --rec", "--recount --recount-seed"),
        ("nqueens-count li", "list"),
    ];
    for (line, want) in cases {
        assert_eq!(fish_completes(&script, line).unwrap(), want, "{line}");
    }
}

#[test]
fn zsh_loads_its_completion_script() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("_nqueens-count"),
        stdout_of(&["completions", "zsh"]),
    )
    .unwrap();
    // Found on the function path by compinit, as a user installs it.
    let program = "fpath=($PWD $fpath); autoload -U compinit; compinit -u -D; \
                   print -r -- ${_comps[nqueens-count]}; zsh -n _nqueens-count";
    let Ok(out) = std::process::Command::new("zsh")
        .args(["-f", "-c", program])
        .current_dir(dir.path())
        .output()
    else {
        skip("zsh is not installed");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "_nqueens-count\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// What zsh completes for each of `lines`, typed into an interactive zsh on a
/// pseudo-terminal (zpty) with the script on its function path; `compadd` is wrapped to
/// record the matches offered. `None`: zsh or its zpty module is not there.
fn zsh_completes(script: &str, lines: &[&str]) -> Option<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("_nqueens-count"), script).unwrap();
    let mut driver = String::from("zmodload zsh/zpty || exit 3\n");
    for (i, line) in lines.iter().enumerate() {
        driver.push_str(&format!(
            "zpty z 'zsh -f -i' || exit 3
zpty -w z 'PS1=\"> \"; fpath=($PWD $fpath); autoload -U compinit; compinit -u -D'
zpty -w z 'compadd () {{ local -a got; builtin compadd -O got \"$@\"; print -rl -- $got >> out{i}; builtin compadd \"$@\"; }}'
zpty -w -n z '{line}'$'\\t'
for t in {{1..100}}; do [[ -s out{i} ]] && break; sleep 0.1; done
sleep 0.3
zpty -d z
"
        ));
    }
    let status = std::process::Command::new("zsh")
        .args(["-f", "-c", &driver])
        .current_dir(dir.path())
        .status()
        .ok()?;
    if status.code() == Some(3) {
        return None;
    }
    assert!(status.success());
    let offered = (0..lines.len())
        .map(|i| {
            let text = std::fs::read_to_string(dir.path().join(format!("out{i}")));
            let mut words: Vec<String> = text
                .unwrap_or_default()
                .lines()
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            words.sort();
            words.dedup();
            words.join(" ")
        })
        .collect();
    Some(offered)
}

#[test]
fn the_zsh_completion_tells_the_board_size_from_a_command() {
    let script = stdout_of(&["completions", "zsh"]);
    let cases = [
        // The generator's script took `list` for the board size N here, and offered the
        // count's options.
        ("nqueens-count list --f", "--format"),
        ("nqueens-count list --format ", "board json svg tuple"),
        ("nqueens-count 14 --algorithm ", "join plain symmetry"),
        ("nqueens-count 14 --chec", "--checkpoint"),
        ("nqueens-count bench --work", "--workload"),
        ("nqueens-count li", "list"),
    ];
    let lines: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let Some(offered) = zsh_completes(&script, &lines) else {
        skip("zsh or its zpty module is not installed");
        return;
    };
    for ((line, want), got) in cases.iter().zip(&offered) {
        assert_eq!(got, want, "{line}");
    }
}

/// What the bash completion offers for `words` with the cursor on the last one.
fn bash_completes(script: &str, words: &[&str]) -> Option<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "{script}\nCOMP_WORDS=({}); COMP_CWORD={}; _nqueens__count nqueens-count '{}' '{}' \
         2>/dev/null; printf '%s ' \"${{COMPREPLY[@]}}\"",
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &program])
        .output()
        .ok()?;
    Some(String::from_utf8(out.stdout).unwrap().trim().to_string())
}

#[test]
fn the_bash_completion_completes_after_a_subcommand_and_offers_values() {
    let script = stdout_of(&["completions", "bash"]);
    let Some(after_list) = bash_completes(&script, &["nqueens-count", "list", "--f"]) else {
        skip("bash is not installed");
        return;
    };
    assert_eq!(after_list, "--format");
    let merge = bash_completes(&script, &["nqueens-count", "merge", "--rec"]).unwrap();
    assert_eq!(merge, "--recount --recount-seed");
    let algorithms = bash_completes(&script, &["nqueens-count", "--algorithm", ""]).unwrap();
    assert_eq!(algorithms, "plain symmetry join");
    // A number is not a file name: nothing is offered for --threads.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tfile"), "").unwrap();
    let threads = std::process::Command::new("bash")
        .current_dir(dir.path())
        .args([
            "-c",
            &format!(
                "{script}\nCOMP_WORDS=(nqueens-count --threads t); COMP_CWORD=2; \
                 _nqueens__count nqueens-count t --threads 2>/dev/null; \
                 printf '%s ' \"${{COMPREPLY[@]}}\""
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(threads.stdout).unwrap().trim(), "t");
}

#[test]
fn the_generated_scripts_end_well_on_a_closed_pipe_and_fail_in_a_line_on_a_full_disk() {
    for what in [&["completions", "bash"][..], &["man"]] {
        // A reader that stops at the first line closes the pipe: success, nothing said.
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens-count"))
            .args(what)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{what:?}");
        assert!(out.stderr.is_empty(), "{what:?}");
        if std::path::Path::new("/dev/full").exists() {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens-count"))
                .args(what)
                .stdout(full)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{what:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
}

/// The example commands of `--help` (the manual's EXAMPLES are the same lines).
fn help_examples() -> Vec<String> {
    let help = stdout_of(&["--help"]);
    let examples = help
        .split("Examples:\n")
        .nth(1)
        .expect("an Examples section");
    examples
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn every_example_of_the_help_runs() {
    let examples = help_examples();
    assert!(examples.len() >= 8, "{examples:?}");
    let page = stdout_of(&["man"]);
    let dir = tempfile::tempdir().unwrap();
    let boards = dir.path().join("examples/boards");
    std::fs::create_dir_all(&boards).unwrap();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/boards")).unwrap()
    {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), boards.join(entry.file_name())).unwrap();
    }
    let bin = assert_cmd::cargo::cargo_bin("nqueens-count");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |line: &str| {
        std::process::Command::new("sh")
            .args(["-c", line])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("SLURM_ARRAY_TASK_ID", "0")
            .env_remove("SLURM_ARRAY_TASK_MIN")
            .output()
            .unwrap()
    };
    // The merge example's shards, from a small board.
    for i in 0..2 {
        let made = sh(&format!(
            "nqueens-count 10 --shard {i}/2 --out shard-{i}.json"
        ));
        assert!(made.status.success());
    }
    let has_dot = sh("command -v dot").status.success();
    for example in &examples {
        assert!(example.starts_with("nqueens-count "), "{example}");
        // The manual shows the same example, in roff's escapes.
        assert!(page.contains(&example.replace('-', "\\-")), "{example}");
        // Long counts run on a small board instead, with the same options.
        let mut line = example
            .replace("nqueens-count 20 ", "nqueens-count 10 ")
            .replace("nqueens-count 21 ", "nqueens-count 10 ")
            .replace("nqueens-count 16 ", "nqueens-count 10 ");
        if !has_dot {
            line = line.split(" | ").next().unwrap().to_string();
        }
        let out = sh(&line);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{line}: {err}");
        assert!(!err.contains("error"), "{line}: {err}");
    }
}

#[test]
fn words_in_the_wrong_place_get_one_clear_line() {
    for (args, says) in [
        (
            &["8", "9"][..],
            "error: one board size at a time: give a range (8..=9) or a list (8,9); try --help",
        ),
        (
            &["8", "--threads", "2", "10"],
            "error: one board size at a time: give a list (8,10); try --help",
        ),
        (
            &["8", "list"],
            "error: the command 'list' comes first: nqueens-count list ...; try --help",
        ),
        (
            &["8", "foo"],
            "error: 'foo' after the board size 8 is neither a size nor an option",
        ),
        (
            &["list", "8", "--threads", "2"],
            "error: list does not take --threads: it walks the solutions in order, on one thread; \
             try nqueens-count list --help",
        ),
        (
            &["trace", "4", "--checkpoint", "c.json"],
            "error: trace does not take --checkpoint, only the count does",
        ),
        (
            &["count", "list", "8"],
            "error: 'count' and 'list' are two commands: give one of them",
        ),
        (&["8..12"], "write 8..=12 or 8-12 for 8 to 12 inclusive"),
        (&["8,,9"], "'' is not a board size"),
        (&["12-8"], "the range 12-8 is reversed: write 8-12"),
    ] {
        let out = cmd().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("'-- "), "{args:?}: {err}");
    }
}

/// The sizes of a `--json` count's rows.
fn sizes_counted(args: &[&str]) -> Vec<u64> {
    let mut all = args.to_vec();
    all.extend(["--json", "--threads", "2"]);
    stdout_of(&all)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["n"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn sizes_come_as_ranges_and_lists_and_count_may_be_named() {
    assert_eq!(sizes_counted(&["8-10"]), [8, 9, 10]);
    assert_eq!(sizes_counted(&["8..=10"]), [8, 9, 10]);
    assert_eq!(sizes_counted(&["11,4,6..=7,4"]), [4, 6, 7, 11]);
    assert_eq!(sizes_counted(&["count", "5,7"]), [5, 7]);
    assert_eq!(
        stdout_of(&[
            "count",
            "--allowed",
            "examples/boards/books.txt",
            "--piece",
            "rook"
        ])
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>(),
        ["5", "1"]
    );
    // A checkpoint, a shard or a board takes one size.
    let out = cmd()
        .args(["8,9", "--checkpoint", "c.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn times_on_the_command_line_take_their_units() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("c.json");
    let args = [
        "10",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "-t",
        "2",
    ];
    stdout_of(&args);
    for time in ["5m", "1h", "2500ms", "1.5s"] {
        let out = cmd().args(args).args(["--recount", time]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{time}: {err}");
        assert!(err.contains("recounted"), "{time}: {err}");
    }
    stdout_of(&[
        "10",
        "--estimate",
        "--estimate-seconds",
        "1000ms",
        "--shard-hours",
        "30m",
        "-t",
        "2",
    ]);
    let out = cmd()
        .args(args)
        .args(["--recount", "5min"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a time such as 10s or 5m (ms, s, m or h)"),
        "{err}"
    );
}

#[test]
fn the_table_fits_in_80_columns() {
    let mut lines: Vec<String> = stdout_of(&["1-12", "--threads", "2"])
        .lines()
        .map(String::from)
        .collect();
    // 22! = 1124000727777607680000, 22 digits: the widest count the column holds.
    let rooks = stdout_of(&["22", "--piece", "rook", "--threads", "2"]);
    assert!(rooks.contains(" 1124000727777607680000 "), "{rooks}");
    lines.extend(rooks.lines().map(String::from));
    for line in &lines {
        assert!(line.chars().count() <= 80, "{} columns: {line}", line.len());
        assert_eq!(line.len(), lines[0].len(), "aligned: {line}");
    }
}
