//! An advisory lock on a file a count writes (its checkpoint, a shard's result), so that a
//! second process given the same file refuses at once instead of both writing it in turn.
//!
//! The lock is held on a file beside the target, `NAME.lock` (the target itself is replaced
//! by each save, so a lock on it would not outlive the first save); it holds the process id
//! of its holder, for the refusal to name. The holder removes it when it lets go. Where the
//! file system takes no locks (some network file systems), or the lock file cannot be made
//! (the write itself will then be refused), the count goes on without one.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A lock held on `NAME.lock` beside a file; let go (and the lock file removed) when dropped.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    file: File,
}

/// Another process holds the lock of a file.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is in use by another count{}: wait for it to end, or give another file",
    .path.display(),
    .pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
)]
pub struct InUse {
    /// The file.
    pub path: PathBuf,
    /// The holder's process id, when its lock file names it.
    pub pid: Option<u32>,
}

impl FileLock {
    /// Takes the lock of `path` (through its symbolic links), without waiting: `Err` when
    /// another process holds it, `Ok(None)` where no lock can be had (no lock file can be
    /// made there, the file system takes no locks, or `path` is not a regular file, which
    /// the write refuses anyway).
    pub fn acquire(path: &Path) -> Result<Option<FileLock>, InUse> {
        let Ok(target) = super::atomic::resolve(path) else {
            return Ok(None);
        };
        let mut name = target.clone().into_os_string();
        name.push(".lock");
        let lock = PathBuf::from(name);
        // A holder that lets go removes the file: a lock taken on the file it removed is no
        // lock, so the path must still name the file locked (a few tries).
        for _ in 0..8 {
            let Ok(file) = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock)
            else {
                return Ok(None);
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let pid = fs::read_to_string(&lock)
                        .ok()
                        .and_then(|s| s.trim().parse().ok());
                    return Err(InUse {
                        path: path.to_path_buf(),
                        pid,
                    });
                }
                Err(TryLockError::Error(_)) => return Ok(None),
            }
            if !same_file(&file, &lock) {
                continue;
            }
            let mut held = FileLock { path: lock, file };
            let _ = held.file.set_len(0);
            let _ = writeln!(held.file, "{}", std::process::id());
            return Ok(Some(held));
        }
        Ok(None)
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still names the open `file` (a file open here cannot be removed).
#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Removed while still held, so that no one locks the file on its way out.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

impl super::Journal {
    /// Takes the advisory lock of the file at `path` (`NAME.lock` beside it, through its
    /// symbolic links), without waiting, for as long as the value returned is kept: a second
    /// count given the same file then refuses at once instead of both writing it in turn.
    /// `Err` when another process holds it, naming its process id; where the file system
    /// takes no locks, the value holds none and the count goes on.
    pub fn lock(path: &Path) -> std::io::Result<impl Sized + use<>> {
        FileLock::acquire(path).map_err(std::io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let first = FileLock::acquire(&path).unwrap().expect("a lock here");
        let lock = dir.path().join("c.json.lock");
        assert!(lock.is_file());
        let busy = FileLock::acquire(&path).unwrap_err();
        assert_eq!(busy.pid, Some(std::process::id()));
        assert!(
            busy.to_string().contains("in use by another count"),
            "{busy}"
        );
        drop(first);
        assert!(!lock.exists(), "the lock file is removed");
        let again = FileLock::acquire(&path).unwrap();
        assert!(again.is_some());
    }

    #[test]
    fn no_lock_is_taken_on_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(FileLock::acquire(dir.path()).unwrap().is_none());
        assert!(
            FileLock::acquire(&dir.path().join("no/such/folder/c.json"))
                .unwrap()
                .is_none()
        );
    }
}
