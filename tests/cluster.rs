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
