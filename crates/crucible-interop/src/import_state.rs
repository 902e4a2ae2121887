//! What the imports of the agents' stores last saw of each file, so that
//! `cru session import` with no path reads only new or grown sources.
//!
//! The provenance in each session (its `source_hash`) is the truth about
//! what was imported; telling a source unchanged by it means reading the
//! source whole. This file keeps, per file of a store, its size, mtime and
//! inode as they were when it was last read: a file that still has them is
//! skipped on a stat alone. A file that grew, shrank or was replaced (a new
//! inode) is read whole again, and the provenance decides what changes.
//! The file is derived: missing, damaged or of another version, it is just
//! rebuilt (everything is read once more, and found unchanged).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The version of the file's layout; another one is rebuilt.
pub const VERSION: u32 = 1;

/// What a stat tells of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub len: u64,
    /// Modification time: seconds since the epoch, and nanoseconds.
    pub mtime: i64,
    pub mtime_nsec: i64,
    pub ino: u64,
    pub dev: u64,
}

impl Fingerprint {
    pub fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }
}

/// What a file of a store is to the import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A source, imported (or refused by its importer) as it was.
    Source,
    /// Read with a source (a subagent's transcript).
    Part,
    /// A file that holds many sources, read for all of them (an OpenCode
    /// database, a file of its storage folder): how many it held.
    Holds(usize),
    /// Of no format cru imports.
    Other,
}

/// One file as it was last read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(flatten)]
    pub fingerprint: Fingerprint,
    pub role: Role,
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    files: HashMap<String, Entry>,
}

/// The state of the imports of one sessions directory.
#[derive(Debug, Default, Clone)]
pub struct ImportState {
    files: HashMap<PathBuf, Entry>,
    /// Changed since it was loaded: an import that read nothing new
    /// writes nothing.
    changed: bool,
}

/// Why a state file was not used (and is rebuilt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rebuilt {
    Missing,
    Unreadable(String),
    Damaged(String),
    OtherVersion(u32),
}

impl ImportState {
    /// The state kept in `dir`, or an empty one and why.
    pub fn load(dir: &Path) -> (Self, Option<Rebuilt>) {
        let path = dir.join(crucible_core::store::names::IMPORT_STATE);
        let bytes = match crucible_core::store::safe_file::read_regular(&path, 1 << 30) {
            Ok(b) => b,
            Err(crucible_core::store::safe_file::UnsafeFile::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return (Self::default(), Some(Rebuilt::Missing));
            }
            Err(e) => return (Self::default(), Some(Rebuilt::Unreadable(e.to_string()))),
        };
        match serde_json::from_slice::<OnDisk>(&bytes) {
            Ok(d) if d.version == VERSION => {
                let files = d
                    .files
                    .into_iter()
                    .map(|(k, v)| (PathBuf::from(k), v))
                    .collect();
                (
                    Self {
                        files,
                        changed: false,
                    },
                    None,
                )
            }
            Ok(d) => (Self::default(), Some(Rebuilt::OtherVersion(d.version))),
            Err(e) => (Self::default(), Some(Rebuilt::Damaged(e.to_string()))),
        }
    }

    /// Writes the state into `dir`, whole and atomically, readable by its
    /// owner only (it lists the paths of the user's projects). Paths that
    /// are not UTF-8 are not kept: those files are read each time.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        let files: HashMap<String, Entry> = self
            .files
            .iter()
            .filter_map(|(k, v)| Some((k.to_str()?.to_owned(), *v)))
            .collect();
        let bytes = serde_json::to_vec(&OnDisk {
            version: VERSION,
            files,
        })
        .map_err(std::io::Error::other)?;
        let target = dir.join(crucible_core::store::names::IMPORT_STATE);
        let tmp = crucible_core::store::names::temp(&target, std::process::id(), 0);
        // Only a killed process with this pid left one: ours to clear.
        let _ = std::fs::remove_file(&tmp);
        let written = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(&bytes)?;
            std::fs::rename(&tmp, &target)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// Where the state of the sessions directory `dir` is kept (its
    /// modification time is when an import last recorded something).
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join(crucible_core::store::names::IMPORT_STATE)
    }

    /// Every file it knows, as it was last read.
    pub fn entries(&self) -> impl Iterator<Item = (&Path, &Entry)> {
        self.files.iter().map(|(p, e)| (p.as_path(), e))
    }

    pub fn get(&self, path: &Path) -> Option<&Entry> {
        self.files.get(path)
    }

    /// True when `path` was last read with this fingerprint.
    pub fn is_unchanged(&self, path: &Path, fingerprint: &Fingerprint) -> bool {
        self.files
            .get(path)
            .is_some_and(|e| e.fingerprint == *fingerprint)
    }

    pub fn record(&mut self, path: PathBuf, fingerprint: Fingerprint, role: Role) {
        let entry = Entry { fingerprint, role };
        if self.files.insert(path, entry) != Some(entry) {
            self.changed = true;
        }
    }

    /// True when something was recorded or forgotten since it was loaded.
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    /// Forgets the files under `root` that are not in `seen` (gone since).
    pub fn forget_gone(&mut self, root: &Path, seen: &std::collections::HashSet<PathBuf>) {
        let before = self.files.len();
        self.files
            .retain(|p, _| !p.starts_with(root) || seen.contains(p));
        self.changed |= self.files.len() != before;
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_owner_only_and_rebuilds_what_it_cannot_read() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let (empty, why) = ImportState::load(t.path());
        assert!(empty.is_empty());
        assert_eq!(why, Some(Rebuilt::Missing));
        let f = t.path().join("a.jsonl");
        std::fs::write(&f, "{}\n").unwrap();
        let fp = Fingerprint::of(&std::fs::metadata(&f).unwrap());
        let mut s = ImportState::default();
        s.record(f.clone(), fp, Role::Source);
        s.save(t.path()).unwrap();
        let path = t.path().join(crucible_core::store::names::IMPORT_STATE);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let (mut back, why) = ImportState::load(t.path());
        assert_eq!(why, None);
        assert!(back.is_unchanged(&f, &fp));
        // Recording what it holds already changes nothing to write.
        back.record(f.clone(), fp, Role::Source);
        assert!(!back.is_changed());
        back.forget_gone(t.path(), &std::collections::HashSet::new());
        assert!(back.is_changed() && back.is_empty());
        let (back, _) = ImportState::load(t.path());
        // Grown: no longer the file last read.
        std::fs::write(&f, "{}\n{}\n").unwrap();
        let grown = Fingerprint::of(&std::fs::metadata(&f).unwrap());
        assert!(!back.is_unchanged(&f, &grown));
        std::fs::write(&path, "{\"version\":1,\"files\":").unwrap();
        assert!(matches!(
            ImportState::load(t.path()).1,
            Some(Rebuilt::Damaged(_))
        ));
        std::fs::write(&path, "{\"version\":99,\"files\":{}}").unwrap();
        assert_eq!(
            ImportState::load(t.path()).1,
            Some(Rebuilt::OtherVersion(99))
        );
    }
}
