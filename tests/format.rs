//! Files of the format versions before this one, written by the last release of each
//! (`tests/data/v1/` to `tests/data/v3/`). Version 3's, which named two fields `pieces`, resume
//! and merge as they are, their checksums and keyed tags checked over the text they wrote, and
//! are written back in this version's names. Version 2's resume and merge as they are; those of an
//! even join board from n = 18 on name the plan without the quarter turns, and are counted on
//! with it. Version 1's, where their plan cut no entry, resume and merge as they are, mixed
//! with this version's files, and are written back in this version; where it cut some, they
//! are refused in one line that names version 1 and what to do.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::cmd;
use predicates::prelude::*;

/// A copy of fixture `name` of `tests/data/v1/` or, where it names it, of another version's
/// folder (`v2/join18-s0.json`) in `dir`.
fn fixture(dir: &Path, name: &str) -> PathBuf {
    let (folder, name) = name.split_once('/').unwrap_or(("v1", name));
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(folder)
        .join(name);
    let to = dir.join(name);
    fs::copy(from, &to).unwrap();
    to
}

/// Copies of the three shards `{prefix}0.json` to `{prefix}2.json` (a fixture name, as for
/// [`fixture`]) in `dir`.
fn three_shards(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    (0..3)
        .map(|i| fixture(dir, &format!("{prefix}{i}.json")))
        .collect()
}

#[test]
fn version_one_shards_merge_alone_and_beside_this_versions() {
    let dir = tempfile::tempdir().unwrap();
    let old = three_shards(dir.path(), "join16-s");
    for f in &old {
        assert!(fs::read_to_string(f).unwrap().contains("\"version\":1,"));
    }
    cmd()
        .arg("merge")
        .args(&old)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "n = 16: 14772512 solutions, 1846955 unique (3 shards of plan 5d73a40be09566f6",
        ));
    // Shard 2 counted again by this version: the set still merges.
    let new = dir.path().join("new-s2.json");
    cmd()
        .args(["16", "-t", "2", "--shard", "2/3", "--out"])
        .arg(&new)
        .assert()
        .success();
    assert!(fs::read_to_string(&new).unwrap().contains("\"version\":4,"));
    cmd()
        .arg("merge")
        .args([&old[0], &old[1], &new])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "n = 16: 14772512 solutions, 1846955 unique",
        ));
}

#[test]
fn a_version_one_checkpoint_resumes_and_is_written_back_in_this_version() {
    let dir = tempfile::tempdir().unwrap();
    let cp = fixture(dir.path(), "symmetry17-checkpoint.json");
    let before = fs::read_to_string(&cp).unwrap();
    assert!(before.contains("\"version\":1,") && before.contains("\"subproblems\":"));
    cmd()
        .args([
            "17",
            "-a",
            "symmetry",
            "-t",
            "2",
            "--no-progress",
            "--checkpoint",
        ])
        .arg(&cp)
        .assert()
        .success()
        .stdout(predicate::str::contains("95815104").and(predicate::str::contains("11977939")))
        .stderr(predicate::str::contains("resumed"));
    let after = fs::read_to_string(&cp).unwrap();
    assert!(
        after.contains("\"version\":4,") && after.contains("\"entries\":"),
        "{after}"
    );
    assert!(!after.contains("\"subproblems\":"));
}

#[test]
fn a_version_one_file_of_a_plan_that_cut_entries_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cp = fixture(dir.path(), "join25-shard-checkpoint.json");
    let out = dir.path().join("o.json");
    let run = cmd()
        .args([
            "25",
            "-t",
            "1",
            "--shard",
            "0/16384",
            "--no-progress",
            "--checkpoint",
        ])
        .arg(&cp)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("format version 1"), "{err}");
    assert!(err.contains("release that wrote it"), "{err}");
    assert!(!out.exists());
}

/// Resumes checkpoint `cp` of n = 18 (with `args`), which holds `resumed` of its 12319
/// subproblems, to the published counts.
fn finishes_n18(cp: &Path, args: &[&std::ffi::OsStr], resumed: usize) {
    cmd()
        .args(["18", "-t", "2", "--no-progress", "--checkpoint"])
        .arg(cp)
        .args(args)
        .assert()
        .success()
        .stdout(predicate::str::contains("666090624").and(predicate::str::contains("83263591")))
        .stderr(predicate::str::contains(format!(
            "resumed {resumed} of 12319 subproblems"
        )));
}

/// The plan of n = 18 by `join` as format version 2 made it, without the quarter turns.
const JOIN18_V2: &str = "ebefe7d0cf94fdc2";

#[test]
fn version_two_shards_of_an_even_join_board_merge_with_their_plan() {
    let dir = tempfile::tempdir().unwrap();
    let old = three_shards(dir.path(), "v2/join18-s");
    assert!(
        fs::read_to_string(&old[0])
            .unwrap()
            .contains("\"version\":2,")
    );
    cmd()
        .arg("merge")
        .args(&old)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "n = 18: 666090624 solutions, 83263591 unique (3 shards of plan {JOIN18_V2}"
        )));
    cmd()
        .arg("status")
        .args(&old[..2])
        .assert()
        .stdout(predicate::str::contains(format!(
            "plan {JOIN18_V2}, 3 shards"
        )))
        .stdout(predicate::str::contains("missing   1 shard: 2"));
    // This version's shards count with the quarter turns, a plan of their own: they merge
    // to the same total, and are not mixed with the old ones.
    let new: Vec<PathBuf> = (0..3)
        .map(|i| {
            let out = dir.path().join(format!("new-s{i}.json"));
            cmd()
                .args(["18", "-t", "2", "--shard", &format!("{i}/3"), "--out"])
                .arg(&out)
                .assert()
                .success();
            out
        })
        .collect();
    cmd()
        .arg("merge")
        .args(&new)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "n = 18: 666090624 solutions, 83263591 unique (3 shards of plan c2f2f0499d6c2734",
        ));
    cmd()
        .arg("merge")
        .args([&old[0], &new[1], &new[2]])
        .assert()
        .failure()
        .stderr(predicate::str::contains(JOIN18_V2))
        .stderr(predicate::str::contains(
            "the same board under another plan (shards begun by another release)",
        ));
}

#[test]
fn a_version_two_checkpoint_of_an_even_join_board_finishes_with_its_plan() {
    let dir = tempfile::tempdir().unwrap();
    let cp = fixture(dir.path(), "v2/join18-checkpoint.json");
    let before = fs::read_to_string(&cp).unwrap();
    assert!(before.contains("\"version\":2,") && before.contains(JOIN18_V2));
    finishes_n18(&cp, &[], 5762);
    let after = fs::read_to_string(&cp).unwrap();
    assert!(after.contains("\"version\":4,") && after.contains(JOIN18_V2));
}

/// The plan of n = 16 by `symmetry`, the same in versions 2 to 4.
const SYMMETRY16: &str = "29b392b4108c7741";

#[test]
fn version_three_shards_merge_alone_and_beside_this_versions() {
    let dir = tempfile::tempdir().unwrap();
    let old = three_shards(dir.path(), "v3/sym16-s");
    for f in &old {
        let text = fs::read_to_string(f).unwrap();
        // Entries whole and slices, under the old names.
        assert!(text.contains("\"version\":3,") && text.contains("\"pieces\":[["));
        assert!(text.contains("\"slices\":[[") && !text.contains("\"whole\""));
    }
    let counts = format!(
        "n = 16: 14772512 solutions, 1846955 unique (3 shards of plan {SYMMETRY16}; checked:"
    );
    cmd()
        .arg("merge")
        .args(&old)
        .assert()
        .success()
        .stdout(predicate::str::contains(counts.as_str()));
    // Shard 2 counted again by this version, cut otherwise: the set still merges.
    let new = dir.path().join("new-s2.json");
    cmd()
        .args(["16", "-a", "symmetry", "-t", "2", "--shard", "2/3", "--out"])
        .arg(&new)
        .assert()
        .success();
    let text = fs::read_to_string(&new).unwrap();
    assert!(text.contains("\"version\":4,") && text.contains("\"whole\":[["));
    assert!(text.contains("\"counted\":") && !text.contains("pieces"));
    cmd()
        .arg("merge")
        .args([&old[0], &old[1], &new])
        .assert()
        .success()
        .stdout(predicate::str::contains(counts.as_str()));
    // An edit of an old file is caught by its checksum, as it was.
    let edited = fs::read_to_string(&old[1]).unwrap().replacen(
        "nqueens-count 0.1.0",
        "nqueens-count 0.1.1",
        1,
    );
    fs::write(&old[1], edited).unwrap();
    cmd()
        .arg("merge")
        .args(&old)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("checksum mismatch"));
}

#[test]
fn a_keyed_version_three_checkpoint_resumes_with_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let cp = fixture(dir.path(), "v3/join18-keyed-checkpoint.json");
    let key = fixture(dir.path(), "v3/join18.key");
    let before = fs::read_to_string(&cp).unwrap();
    assert!(before.contains("\"version\":3,") && before.contains("\"tag\":"));
    // The tag is checked over the text version 3 wrote: another key refuses it.
    let other = dir.path().join("other.key");
    fs::write(&other, [7u8; 32]).unwrap();
    cmd()
        .args(["18", "-t", "2", "--no-progress", "--checkpoint"])
        .arg(&cp)
        .arg("--key")
        .arg(&other)
        .assert()
        .failure()
        .stderr(predicate::str::contains("tag"));
    finishes_n18(&cp, &["--key".as_ref(), key.as_os_str()], 6644);
    let after = fs::read_to_string(&cp).unwrap();
    assert!(after.contains("\"version\":4,") && after.contains("\"whole\":[["));
    assert!(after.contains("\"tag\":") && !after.contains("pieces"));
}
