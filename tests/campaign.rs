//! The files of a long campaign: a disk that fills while a count runs.

mod common;

use std::path::Path;
use std::process::Command as Std;
use std::time::{Duration, Instant};

use nqueens::persist::Journal;

use common::cmd;

/// A small file system mounted for one test, unmounted when it ends.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// A tmpfs of `size` (`mount -o size=`), or why there is none here.
    fn mount(size: &str) -> Result<Tmpfs, String> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err("the tests do not run as root, so they cannot mount a tmpfs".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Std::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("no mount command: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Std::new("umount").arg(self.dir.path()).status();
    }
}

/// Says why a test was skipped; under CI (`CI=true`) a skip fails the test instead, so that
/// CI never passes a check it did not run.
fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("skipped under CI, which must run it: {why}");
    }
    eprintln!("skipped: {why}");
}

#[test]
fn a_full_disk_loses_no_finished_count() {
    let fs = match Tmpfs::mount("64k") {
        Ok(fs) => fs,
        Err(why) => return skip(&why),
    };
    // The empty checkpoint written before the work fits; the thousands of pieces of n = 18
    // do not.
    let cp = fs.path().join("q18.json");
    let begun = Instant::now();
    let out = cmd()
        .args(["18", "-a", "symmetry", "-t", "2", "--checkpoint"])
        .arg(&cp)
        .output()
        .unwrap();
    let took = begun.elapsed();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    // The result is printed as usual.
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("18 ") && l.contains("666090624")),
        "{stdout}"
    );
    // One warning when a periodic save first fails (there is one once the count has run
    // past the first save, after 3 s), and one line about the save at the end.
    let lines: Vec<&str> = stderr.lines().collect();
    let warnings = lines.iter().filter(|l| l.starts_with("warning:")).count();
    assert!(warnings <= 1, "{stderr}");
    if took > Duration::from_secs(5) {
        assert_eq!(warnings, 1, "{stderr}");
        let warning = lines.iter().find(|l| l.starts_with("warning:")).unwrap();
        assert!(
            warning.contains("could not be saved") && warning.ends_with("the count goes on"),
            "{stderr}"
        );
    }
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("error:") && last.contains("could not be saved"),
        "{stderr}"
    );
    assert_eq!(lines.len(), warnings + 1, "{stderr}");
    // The file holds the last good save, which reads.
    let j = Journal::read(&cp).unwrap();
    assert_eq!(j.n(), 18);
}

