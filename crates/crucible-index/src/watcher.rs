//! A running `cru watch`, as readers see it: its heartbeat, its lock, and
//! the fence that lets a read skip the freshness proof while it runs.
//!
//! The watcher keeps the index fresh itself: every change in the sessions
//! directory reaches it as an event, and it runs the freshness proof
//! ([`crate::refresh`]) for it. A read could then skip its own proof, but
//! only if nothing changed that the watcher has not applied yet: a file
//! written a microsecond before the read is a queued event the watcher has
//! not seen. The heartbeat alone cannot say so (it is at best a second
//! old), so a reader closes the race with a fence (docs/capture.md, "Why a
//! read may trust the watcher"):
//!
//! 1. it creates a sync file in [`names::WATCH_DIR`];
//! 2. inotify queues events in the order the changes were made, so the
//!    watcher meets the sync file's creation only after the event of every
//!    change made before it;
//! 3. the watcher applies every change it has received (the index's delta
//!    saved), then removes the sync file;
//! 4. the reader, seeing the file gone, reads an index that holds every
//!    change made before step 1.
//!
//! A watcher that is dead, stale, polling (a poll sees changes in no
//! particular order), overflowed (events were lost) or slow to answer is
//! not trusted, and the read proves freshness itself.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crucible_core::store::names;

/// A beat older than this is stale: the watcher is stuck or dead. The
/// watcher beats about every second.
pub const BEAT_FRESH: Duration = Duration::from_secs(3);

/// How long a reader waits for the watcher to answer its fence before it
/// proves freshness itself (a watcher busy importing a large source).
pub const FENCE_TIMEOUT: Duration = Duration::from_millis(250);

/// What a heartbeat or lock file says, or why it cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum WatcherError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}:{line}: expected `key=value` with a known key and a number, found `{found}`")]
    Malformed {
        path: PathBuf,
        line: usize,
        found: String,
    },
    /// Another watcher holds the lock of this sessions directory.
    #[error("another `cru watch` (pid {pid}) already watches {dir}")]
    Held { dir: PathBuf, pid: String },
}

/// The watcher's heartbeat file (`.cru-watch/heartbeat`), rewritten
/// atomically about every second while it runs and removed when it stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatcherHeartbeat {
    pub pid: u32,
    /// When the watcher started, in ms since the Unix epoch.
    pub started_ms: i64,
    /// When this beat was written, in ms since the Unix epoch.
    pub beat_ms: i64,
    /// Events of the sessions directory received so far.
    pub received: u64,
    /// Events of the sessions directory whose changes are applied: the
    /// index and the search index hold them.
    pub applied: u64,
    /// The event queue overflowed (events were lost) and the catch-up that
    /// follows is not done.
    pub overflowed: bool,
    /// The watcher's events come in the order the changes were made
    /// (inotify), which the fence needs; a polling watcher's do not.
    pub ordered: bool,
}

/// The watcher's folder in the sessions directory `dir`.
pub fn watch_dir(dir: &Path) -> PathBuf {
    dir.join(names::WATCH_DIR)
}

/// The heartbeat file of the sessions directory `dir`.
pub fn heartbeat_path(dir: &Path) -> PathBuf {
    watch_dir(dir).join(names::WATCH_HEARTBEAT)
}

/// Whether `path` is a reader's sync file (see the module's doc).
pub fn is_sync_file(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == names::WATCH_DIR)
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(names::WATCH_SYNC_PREFIX))
}

fn ms(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl WatcherHeartbeat {
    /// A first beat of the watcher `pid` started at `started`.
    pub fn new(pid: u32, started: SystemTime, ordered: bool) -> Self {
        Self {
            pid,
            started_ms: ms(started),
            beat_ms: ms(started),
            received: 0,
            applied: 0,
            overflowed: false,
            ordered,
        }
    }

    /// The heartbeat of `dir`'s watcher; `None` when there is none.
    pub fn read(dir: &Path) -> Result<Option<Self>, WatcherError> {
        let path = heartbeat_path(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(WatcherError::Io { path, source }),
        };
        Self::parse(&path, &text).map(Some)
    }

    fn parse(path: &Path, text: &str) -> Result<Self, WatcherError> {
        let mut beat = Self::new(0, UNIX_EPOCH, false);
        for (i, line) in text.lines().enumerate() {
            let bad = || WatcherError::Malformed {
                path: path.to_owned(),
                line: i + 1,
                found: line.to_owned(),
            };
            let (key, value) = line.split_once('=').ok_or_else(bad)?;
            let n: i64 = value.parse().map_err(|_| bad())?;
            let count = || u64::try_from(n).map_err(|_| bad());
            match key {
                "pid" => beat.pid = u32::try_from(n).map_err(|_| bad())?,
                "started_ms" => beat.started_ms = n,
                "beat_ms" => beat.beat_ms = n,
                "received" => beat.received = count()?,
                "applied" => beat.applied = count()?,
                "overflowed" => beat.overflowed = n != 0,
                "ordered" => beat.ordered = n != 0,
                _ => return Err(bad()),
            }
        }
        Ok(beat)
    }

    fn render(&self) -> String {
        format!(
            "pid={}\nstarted_ms={}\nbeat_ms={}\nreceived={}\napplied={}\noverflowed={}\nordered={}\n",
            self.pid,
            self.started_ms,
            self.beat_ms,
            self.received,
            self.applied,
            u8::from(self.overflowed),
            u8::from(self.ordered),
        )
    }

    /// Writes this beat, dated `now`, atomically (a temporary file renamed
    /// over), readable by the owner only. No fsync: a beat lost in a crash
    /// is a stale beat, which is what a crashed watcher should leave.
    pub fn write(&mut self, dir: &Path, now: SystemTime) -> io::Result<()> {
        self.beat_ms = ms(now);
        let target = heartbeat_path(dir);
        let tmp = names::temp(&target, self.pid, 0);
        let written = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(self.render().as_bytes())?;
            std::fs::rename(&tmp, &target)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// Removes `dir`'s heartbeat (a watcher stopping).
    pub fn remove(dir: &Path) -> io::Result<()> {
        match std::fs::remove_file(heartbeat_path(dir)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Whether a read at `now` may let this watcher vouch for the index:
    /// the beat is fresh, the process alive, the events come in order, none
    /// were lost, and every event received by the beat is applied. (Events
    /// after the beat are the fence's business: [`trusted`].)
    pub fn is_trusted(&self, now: SystemTime) -> bool {
        let age = ms(now) - self.beat_ms;
        let fresh =
            (-1000..=i64::try_from(BEAT_FRESH.as_millis()).unwrap_or(i64::MAX)).contains(&age);
        fresh
            && self.ordered
            && !self.overflowed
            && self.applied == self.received
            && pid_alive(self.pid)
    }
}

/// Whether process `pid` exists. Only Linux answers (its `/proc`); where
/// it cannot be told, no watcher is trusted.
pub fn pid_alive(pid: u32) -> bool {
    cfg!(target_os = "linux") && pid != 0 && Path::new("/proc").join(pid.to_string()).exists()
}

/// Whether a read of `dir` at `now` may skip the freshness proof: a
/// trusted watcher runs ([`WatcherHeartbeat::is_trusted`]) and has applied
/// every change made before this call (the fence, [`fence`]). Any doubt
/// answers false.
pub fn trusted(dir: &Path, now: SystemTime) -> bool {
    match WatcherHeartbeat::read(dir) {
        Ok(Some(beat)) if beat.is_trusted(now) => fence(dir, FENCE_TIMEOUT),
        _ => false,
    }
}

/// Creates a sync file and waits, up to `timeout`, for the watcher to
/// remove it; true when it did. A file the watcher never answered is
/// removed again.
pub fn fence(dir: &Path, timeout: Duration) -> bool {
    static N: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "{}{}-{}",
        names::WATCH_SYNC_PREFIX,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let path = watch_dir(dir).join(name);
    let created = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path);
    if created.is_err() {
        return false;
    }
    drop(created);
    let start = Instant::now();
    let mut pause = Duration::from_micros(50);
    loop {
        if matches!(std::fs::symlink_metadata(&path), Err(e) if e.kind() == io::ErrorKind::NotFound)
        {
            return true;
        }
        if start.elapsed() >= timeout {
            let _ = std::fs::remove_file(&path);
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(2));
    }
}

/// The lock that makes a watcher the only one of its sessions directory,
/// held as long as this value lives (the kernel drops it with the process,
/// however it ends).
#[derive(Debug)]
pub struct WatchLock {
    _file: File,
}

impl WatchLock {
    /// Takes the lock of `dir`'s watcher for process `pid`, making the
    /// watcher's folder (owner only) if need be; [`WatcherError::Held`]
    /// names the pid of the watcher that holds it.
    pub fn acquire(dir: &Path, pid: u32) -> Result<Self, WatcherError> {
        let folder = watch_dir(dir);
        let io_err = |path: &Path| {
            let path = path.to_owned();
            move |source| WatcherError::Io { path, source }
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&folder)
            .map_err(io_err(&folder))?;
        let path = folder.join(names::WATCH_LOCK);
        let mut file = crucible_core::store::safe_file::open_own(
            &path,
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .mode(0o600),
        )
        .map_err(|e| io_err(&path)(e.into_io()))?;
        if file.try_lock().is_err() {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(WatcherError::Held {
                dir: dir.to_owned(),
                pid: if holder.is_empty() { "unknown" } else { holder }.to_owned(),
            });
        }
        // Who holds it, for the next watcher's message.
        file.set_len(0).map_err(io_err(&path))?;
        file.write_all(format!("{pid}\n").as_bytes())
            .map_err(io_err(&path))?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beat(now: SystemTime) -> WatcherHeartbeat {
        let mut b = WatcherHeartbeat::new(std::process::id(), now, true);
        b.beat_ms = ms(now);
        b
    }

    #[test]
    fn a_heartbeat_reads_back_as_written_and_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(watch_dir(dir.path())).unwrap();
        assert_eq!(WatcherHeartbeat::read(dir.path()).unwrap(), None);
        let now = SystemTime::now();
        let mut b = beat(now);
        b.received = 7;
        b.applied = 5;
        b.write(dir.path(), now).unwrap();
        assert_eq!(WatcherHeartbeat::read(dir.path()).unwrap(), Some(b));
        let mode = std::fs::metadata(heartbeat_path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        WatcherHeartbeat::remove(dir.path()).unwrap();
        assert_eq!(WatcherHeartbeat::read(dir.path()).unwrap(), None);
    }

    #[test]
    fn a_damaged_heartbeat_is_an_error_naming_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(watch_dir(dir.path())).unwrap();
        std::fs::write(heartbeat_path(dir.path()), "pid=1\nbeat_ms=soon\n").unwrap();
        let e = WatcherHeartbeat::read(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with("heartbeat:2: expected `key=value` with a known key and a number, found `beat_ms=soon`"), "{e}");
    }

    #[test]
    fn only_a_fresh_ordered_caught_up_live_watcher_is_trusted() {
        let now = SystemTime::now();
        assert_eq!(beat(now).is_trusted(now), cfg!(target_os = "linux"));
        let later = now + BEAT_FRESH + Duration::from_millis(1);
        assert!(!beat(now).is_trusted(later), "a stale beat");
        let mut b = beat(now);
        b.overflowed = true;
        assert!(!b.is_trusted(now), "events were lost");
        let mut b = beat(now);
        b.ordered = false;
        assert!(!b.is_trusted(now), "a polling watcher");
        let mut b = beat(now);
        b.received = 1;
        assert!(!b.is_trusted(now), "an event not applied");
        let mut b = beat(now);
        b.pid = u32::MAX;
        assert!(!b.is_trusted(now), "a dead watcher");
    }

    #[test]
    fn a_fence_nobody_answers_times_out_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!fence(dir.path(), Duration::from_millis(5)), "no folder");
        std::fs::create_dir(watch_dir(dir.path())).unwrap();
        assert!(!fence(dir.path(), Duration::from_millis(5)));
        assert_eq!(std::fs::read_dir(watch_dir(dir.path())).unwrap().count(), 0);
    }

    #[test]
    fn a_fence_answered_by_removal_holds() {
        let dir = tempfile::tempdir().unwrap();
        let folder = watch_dir(dir.path());
        std::fs::create_dir(&folder).unwrap();
        let watcher = std::thread::spawn(move || {
            for _ in 0..2000 {
                for e in std::fs::read_dir(&folder).unwrap().flatten() {
                    if is_sync_file(&e.path()) {
                        std::fs::remove_file(e.path()).unwrap();
                        return;
                    }
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        assert!(fence(dir.path(), Duration::from_secs(5)));
        watcher.join().unwrap();
    }

    #[test]
    fn a_second_lock_names_the_first_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = WatchLock::acquire(dir.path(), 4242).unwrap();
        let e = WatchLock::acquire(dir.path(), 1).unwrap_err();
        assert!(
            matches!(&e, WatcherError::Held { pid, .. } if pid == "4242"),
            "{e}"
        );
        drop(first);
        WatchLock::acquire(dir.path(), 1).unwrap();
    }
}
