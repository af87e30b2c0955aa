//! The workspace's shape, as `ARCHITECTURE.md` draws it: three crates, the engines
//! (`nqueens-engine`) depending on neither of the others, the library (`nqueens`) not on the
//! program. Cargo then refuses an import that goes the wrong way: the engine crate cannot name
//! the library, which is not among its dependencies.

use std::collections::BTreeMap;
use std::process::Command;

/// Each package of the workspace with the names of its dependencies (every kind).
fn packages() -> BTreeMap<String, Vec<String>> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let deps = p["dependencies"].as_array().unwrap();
            let names = deps.iter().map(|d| d["name"].as_str().unwrap().to_string());
            (p["name"].as_str().unwrap().to_string(), names.collect())
        })
        .collect()
}

#[test]
fn three_crates_and_the_engines_depend_on_neither_other() {
    let packages = packages();
    assert_eq!(
        packages.keys().collect::<Vec<_>>(),
        ["nqueens", "nqueens-count", "nqueens-engine"]
    );
    let depends = |from: &str, on: &str| packages[from].iter().any(|d| d == on);
    assert!(!depends("nqueens-engine", "nqueens"));
    assert!(!depends("nqueens-engine", "nqueens-count"));
    assert!(!depends("nqueens", "nqueens-count"));
    assert!(depends("nqueens", "nqueens-engine"));
    assert!(depends("nqueens-count", "nqueens"));
}
