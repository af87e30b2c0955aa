//! An advisory lock on a file a count writes (its checkpoint, a shard's result), so that a
//! second process given the same file refuses at once instead of both writing it in turn.
//!
//! The lock is held on a file beside the target, `NAME.lock` (the target itself is replaced
//! by each save, so a lock on it would not outlive the first save); it holds the process id
//! of its holder, for the refusal to name. The holder removes it when it lets go. Where the
//! file system takes no locks (some network file systems), or the lock file cannot be made,
//! the count goes on without one, and the caller is told why ([`Lock::unlocked`]), so that it
//! can say so before the count begins. Something other than a regular file at `NAME.lock` (a
//! pipe, a device, a folder, a link) is refused: reading it could block or never end.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A lock held on `NAME.lock` beside a file; let go (and the lock file removed) when dropped.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    file: File,
}

/// Why the lock of a file was refused.
#[derive(Debug, thiserror::Error)]
pub enum InUse {
    /// Another process holds the lock of a file.
    #[error(
        "{} is in use by another count{}: wait for it to end, or give another file",
        .path.display(),
        .pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    Held {
        /// The file.
        path: PathBuf,
        /// The holder's process id, when its lock file names it.
        pid: Option<u32>,
    },
    /// Something other than a regular file stands where the lock file goes.
    #[error(
        "{} is not a regular file (a pipe, device, folder or link), so the lock of {} cannot \
         be taken: remove it, or give another file",
        .lock.display(),
        .path.display()
    )]
    NotAFile {
        /// The file.
        path: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
}

/// The lock of a file, or why none could be had (the count then goes on without one).
#[derive(Debug)]
pub struct Lock {
    /// Kept for its `Drop`, which lets the lock go.
    _held: Option<FileLock>,
    why_not: Option<String>,
}

impl Lock {
    fn none(why: impl Into<String>) -> Lock {
        Lock {
            _held: None,
            why_not: Some(why.into()),
        }
    }

    /// Why no lock is held, where none could be had: a second count given the same file
    /// would then not be refused.
    pub fn unlocked(&self) -> Option<&str> {
        self.why_not.as_deref()
    }
}

/// The process id a lock file holds: its first few bytes (a lock file is never large).
fn holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

impl FileLock {
    /// [`Journal::lock`](super::Journal::lock), refused with an [`InUse`].
    pub fn acquire(path: &Path) -> Result<Lock, InUse> {
        let target = match super::atomic::resolve(path) {
            Ok(t) => t,
            Err(e) => return Ok(Lock::none(format!("its path cannot be followed: {e}"))),
        };
        let mut name = target.clone().into_os_string();
        name.push(".lock");
        let lock = PathBuf::from(name);
        let not_a_file = || InUse::NotAFile {
            path: path.to_path_buf(),
            lock: lock.clone(),
        };
        // A holder that lets go removes the file: a lock taken on the file it removed is no
        // lock, so the path must still name the file locked (a few tries).
        for _ in 0..8 {
            // Looked at before it is opened (a pipe opened for reading alone would wait for a
            // writer), and the file opened checked again.
            match fs::symlink_metadata(&lock) {
                Ok(m) if !m.file_type().is_file() => return Err(not_a_file()),
                _ => {}
            }
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock);
            let mut file = match file {
                Ok(f) => f,
                Err(e) => {
                    return Ok(Lock::none(format!(
                        "the lock file {} cannot be made: {e}",
                        lock.display()
                    )));
                }
            };
            if !file.metadata().is_ok_and(|m| m.is_file()) {
                return Err(not_a_file());
            }
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(InUse::Held {
                        path: path.to_path_buf(),
                        pid: holder(&mut file),
                    });
                }
                Err(TryLockError::Error(e)) => {
                    return Ok(Lock::none(format!(
                        "the file system of {} takes no locks: {e}",
                        lock.display()
                    )));
                }
            }
            if !same_file(&file, &lock) {
                continue;
            }
            let mut held = FileLock { path: lock, file };
            let _ = held.file.set_len(0);
            let _ = writeln!(held.file, "{}", std::process::id());
            return Ok(Lock {
                _held: Some(held),
                why_not: None,
            });
        }
        Ok(Lock::none(format!(
            "{} was removed and made again by others each time it was locked",
            lock.display()
        )))
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
    /// `Err` when another process holds it, naming its process id, or when something other
    /// than a regular file stands at `NAME.lock`; where no lock can be had (the file system
    /// takes none, or the lock file cannot be made), the [`Lock`] holds none and says why.
    pub fn lock(path: &Path) -> std::io::Result<Lock> {
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
        let first = FileLock::acquire(&path).unwrap();
        assert!(first.unlocked().is_none(), "a lock here");
        let lock = dir.path().join("c.json.lock");
        assert!(lock.is_file());
        let busy = FileLock::acquire(&path).unwrap_err();
        assert!(
            matches!(busy, InUse::Held { pid: Some(p), .. } if p == std::process::id()),
            "{busy:?}"
        );
        assert!(
            busy.to_string().contains("in use by another count"),
            "{busy}"
        );
        drop(first);
        assert!(!lock.exists(), "the lock file is removed");
        let again = FileLock::acquire(&path).unwrap();
        assert!(again.unlocked().is_none());
    }

    #[test]
    fn where_no_lock_file_can_be_made_the_lock_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let lock = FileLock::acquire(&dir.path().join("no/such/folder/c.json")).unwrap();
        let why = lock.unlocked().expect("no lock");
        assert!(why.contains("cannot be made"), "{why}");
    }
}
