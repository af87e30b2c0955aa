//! Replacing a file so that a crash at any instant leaves either the old or the new contents:
//! a temporary file in the same folder, flushed to disk, then renamed over the target.
//!
//! A symbolic link is followed (the file it names is replaced; the link stays a link), and
//! anything that is not a regular file (a device, a folder, a pipe) is refused rather than
//! replaced. Temporary files carry a recognisable name (`.NAME.nqueens-tmp-PID`); the next
//! write to the same path removes those a killed process left behind.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What marks this program's temporary files, between the target's name and the process id.
const TMP_MARK: &str = ".nqueens-tmp-";

/// Writes `bytes` to `path` atomically: a temporary file beside the target, flushed to disk,
/// then renamed over it; the folder is synced after the rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve(path)?;
    let (dir, tmp) = temporary(&target)?;
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &target)?;
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The folder of `target` (a resolved path) and the temporary file a write to it uses there,
/// with the temporary files of `target` that dead processes left removed.
fn temporary(target: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    remove_stale(&dir, &name);
    let tmp = dir.join(format!(".{name}{TMP_MARK}{}", std::process::id()));
    Ok((dir, tmp))
}

/// The file a write to `path` replaces: `path` itself, or what its chain of symbolic links
/// names; an error when that exists and is not a regular file.
pub(super) fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&at) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(e),
            Ok(m) if m.file_type().is_symlink() => {
                let next = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
            }
            Ok(m) if m.is_file() => return Ok(at),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} is not a regular file (a folder, device or pipe), so it is not replaced",
                        at.display()
                    ),
                ));
            }
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// Whether process `pid` may still be writing a temporary file of ours: it is this process,
/// or a live process of this program's name (a process id reused by another program leaves
/// the file stale). Without `/proc` to ask, any live id counts.
fn writer_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let comm = |who: &str| fs::read_to_string(format!("/proc/{who}/comm"));
    match (comm(&pid.to_string()), comm("self")) {
        (Ok(theirs), Ok(ours)) => theirs == ours,
        (Err(_), _) => false,
        (Ok(_), Err(_)) => true,
    }
}

/// Removes the temporary files of `name` in `dir` whose process is gone.
fn remove_stale(dir: &Path, name: &str) {
    let prefix = format!(".{name}{TMP_MARK}");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        if !pid.parse::<u32>().is_ok_and(writer_alive) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Checks that a file can be written at `path`, as [`Journal::check_target`] says: the
/// temporary file a write makes is made there and removed.
///
/// [`Journal::check_target`]: super::Journal::check_target
pub(crate) fn check_target(path: &Path) -> io::Result<()> {
    let target = resolve(path)?;
    let (dir, tmp) = temporary(&target)?;
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the folder {} does not exist", dir.display()),
        ));
    }
    fs::File::create(&tmp)?;
    fs::remove_file(&tmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_target_is_checked_by_making_a_file_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("r.json");
        check_target(&ok).unwrap();
        assert!(names(dir.path()).is_empty(), "the probe is removed");
        assert!(check_target(&dir.path().join("no/r.json")).is_err());
        // A folder that exists but takes no new file, even for the superuser.
        assert!(Path::new("/proc").is_dir());
        assert!(check_target(Path::new("/proc/nqueens-r.json")).is_err());
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(names(dir.path()), ["f.json"]);
        assert!(write_atomic(&dir.path().join("no/such/folder/f.json"), b"x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_followed_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let target = other.path().join("real.json");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"through the link").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"through the link");
        // A relative link, two levels.
        let hop = dir.path().join("hop.json");
        std::os::unix::fs::symlink("link.json", &hop).unwrap();
        write_atomic(&hop, b"again").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"again");
        assert_eq!(names(dir.path()), ["hop.json", "link.json"]);
    }

    #[test]
    fn temporary_files_of_dead_processes_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.json");
        // No process has this id (above the kernel's largest, 2^22).
        let stale = dir.path().join(format!(".k.json{TMP_MARK}4294967295"));
        let unrelated = dir.path().join(".other.json.tmp-1");
        fs::write(&stale, b"half").unwrap();
        fs::write(&unrelated, b"keep").unwrap();
        write_atomic(&path, b"whole").unwrap();
        assert_eq!(names(dir.path()), [".other.json.tmp-1", "k.json"]);
        // An id that a live process of another program now holds: stale too.
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let reused = dir.path().join(format!(".k.json{TMP_MARK}{}", other.id()));
        fs::write(&reused, b"half").unwrap();
        write_atomic(&path, b"again").unwrap();
        let _ = other.kill();
        let _ = other.wait();
        assert_eq!(names(dir.path()), [".other.json.tmp-1", "k.json"]);
    }
}
