//! The writers' lock of a sessions directory.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use super::safe_file::{UnsafeFile, open_own};

/// The name of the lock file at the top of a sessions directory. Hidden, so
/// no scan takes it for a session.
pub const LOCK_FILE: &str = super::names::LOCK;

/// An exclusive kernel advisory lock (flock) on the sessions directory, held
/// until dropped.
///
/// The lock file itself stays; only the kernel lock matters, and the kernel
/// releases it when the holder exits, however it exits, so a killed process
/// can never leave the directory locked.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    /// A shared lock for readers: they never see a fold half done. `None`
    /// when the directory cannot hold a lock file (read-only): nobody can
    /// write there either, so there is nothing to wait for.
    pub fn acquire_shared(dir: &Path) -> Option<Self> {
        let path = dir.join(LOCK_FILE);
        let file = open_own(
            &path,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .or_else(|_| open_own(&path, OpenOptions::new().read(true)))
        .ok()?;
        file.lock_shared().ok()?;
        Some(Self { _file: file })
    }

    /// The lock held on the file `lock_file` if no other process holds it,
    /// without waiting: `None` when another holds it (a reader that would
    /// catch up answers without writing instead), or when the file cannot
    /// be made. For derived files with writers of their own (the search
    /// index), which must not hold up the sessions' writers.
    pub fn try_acquire_file(lock_file: &Path) -> Option<Self> {
        let file = open_own(
            lock_file,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .ok()?;
        file.try_lock().ok()?;
        Some(Self { _file: file })
    }

    /// [`DirLock::acquire`], giving up after `limit` (`None`: no limit)
    /// with an error of kind `WouldBlock` naming the lock file: for a
    /// caller that must not stall (an agent's hook), better a write lost
    /// and said than an agent waiting on a stuck process.
    pub fn acquire_within(dir: &Path, limit: Option<std::time::Duration>) -> io::Result<Self> {
        let Some(limit) = limit else {
            return Self::acquire(dir);
        };
        let path = dir.join(LOCK_FILE);
        let file = open_own(
            &path,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .map_err(|e: UnsafeFile| io::Error::other(e.to_string()))?;
        wait_for(&file, &path, limit)?;
        Ok(Self { _file: file })
    }

    /// The lock of the file `lock_file` (made if missing), waiting for it
    /// at most `limit` (`None`: as long as it takes): for work that must
    /// run one at a time but must not hold up the sessions' writers
    /// (imports, which look for a session before they create it).
    pub fn acquire_file(lock_file: &Path, limit: Option<std::time::Duration>) -> io::Result<Self> {
        let file = open_own(
            lock_file,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .map_err(|e: UnsafeFile| io::Error::other(e.to_string()))?;
        match limit {
            Some(limit) => wait_for(&file, lock_file, limit)?,
            None => file.lock()?,
        }
        Ok(Self { _file: file })
    }

    /// Blocks until this process holds the directory's lock.
    pub fn acquire(dir: &Path) -> io::Result<Self> {
        let file = open_own(
            &dir.join(LOCK_FILE),
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        // The whole message: it names the lock file, where the caller's
        // names only the directory.
        .map_err(|e: UnsafeFile| io::Error::other(e.to_string()))?;
        file.lock()?;
        Ok(Self { _file: file })
    }
}

/// Takes `file`'s exclusive lock, trying again every few milliseconds for
/// at most `limit`; then an error of kind `WouldBlock` naming `path`.
pub fn wait_for(file: &File, path: &Path, limit: std::time::Duration) -> io::Result<()> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "{} is held by another process (waited {} ms)",
                        path.display(),
                        limit.as_millis()
                    ),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}
