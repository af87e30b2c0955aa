//! Helpers the command-line tests share: the built program, and its standard output when it
//! succeeds.

use assert_cmd::Command;

/// The program under test.
pub fn cmd() -> Command {
    Command::cargo_bin("nqueens-count").unwrap()
}

/// The standard output of a run that must succeed (its stderr in the failure message).
pub fn stdout_of(args: &[&str]) -> String {
    let out = cmd().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
