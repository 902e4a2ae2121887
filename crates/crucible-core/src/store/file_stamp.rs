//! A file's version, told cheaply by `stat`: what the store compares to see
//! that a session file changed since it was read (an editor's save during a
//! fold), and what the index records to prove itself fresh.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// Identifies a file's version: a save by rename gives a new inode; a write
/// in place changes size, mtime or, always, the inode change time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub ino: u64,
    pub mtime_ns: u64,
    pub size: u64,
    /// The inode's change time: unlike the mtime, no tool can set it back
    /// (`cp -p`, `touch -d`, `rsync -t` can), so an edit that keeps size and
    /// mtime still shows. 0 in a recorded stamp means "look again": see
    /// [`FileStamp::recorded`].
    pub ctime_ns: u64,
}

/// Timestamps are kept by the kernel at a coarse tick (a few milliseconds):
/// a file written again within the tick in which it was stamped keeps its
/// stamp. A stamp taken this close to the file's last change is not trusted.
pub const RACY_NS: u64 = 100_000_000;

/// A time as nanoseconds since 1970 (0 before it).
pub fn unix_ns(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl FileStamp {
    /// The stamp of a file as `meta` shows it, exactly.
    pub fn exact(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| {
            u64::try_from(s).unwrap_or(0) * 1_000_000_000 + u64::try_from(n).unwrap_or(0)
        };
        Self {
            ino: meta.ino(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            size: meta.len(),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The exact stamp of the file at `path` (links followed); `None` when
    /// it does not exist or cannot be looked at.
    pub fn of_path(path: &Path) -> Option<Self> {
        std::fs::metadata(path).ok().map(|m| Self::exact(&m))
    }

    /// The stamp to keep for a later comparison (the index's): if the file
    /// changed less than [`RACY_NS`] ago, its `ctime_ns` is kept as 0, so
    /// the next check looks at the file again instead of trusting a stamp
    /// that a write within the same tick would not change (git's "racily
    /// clean").
    pub fn recorded(meta: &std::fs::Metadata) -> Self {
        Self::exact(meta).kept_now()
    }

    /// This stamp, with the racy rule of [`FileStamp::recorded`] applied now.
    #[must_use]
    pub fn kept_now(self) -> Self {
        let now = unix_ns(std::time::SystemTime::now());
        let racy = now.saturating_sub(self.mtime_ns.max(self.ctime_ns)) < RACY_NS;
        Self {
            ctime_ns: if racy { 0 } else { self.ctime_ns },
            ..self
        }
    }

    /// Whether a file stamped `now` is the file this recorded stamp was
    /// taken of, unchanged.
    pub fn matches(&self, now: &FileStamp) -> bool {
        self.ctime_ns != 0
            && self.ino == now.ino
            && self.mtime_ns == now.mtime_ns
            && self.size == now.size
            && self.ctime_ns == now.ctime_ns
    }
}
