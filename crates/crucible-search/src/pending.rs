//! The session files a running watcher has seen change since the search
//! index was last committed: `.search/pending`, a line per path.
//!
//! A reader that a watcher vouches for (crucible-index's `watcher` fence)
//! skips the `stat` of every session file, so the watcher must hold
//! every change made before the fence. Committing a change into the
//! index takes a new segment and its `fsync`s, hundreds of milliseconds
//! at 100,000 sessions; naming the changed files here takes one small
//! write. The watcher answers the fence once the files are named, and
//! commits them after; a vouched search reads the named files directly,
//! beside the committed index with those files left out
//! ([`crate::index::open_vouched`]).
//!
//! Only the watcher writes this file, and only it clears it, after a
//! commit that holds every file it names. A reader reads it before it
//! opens the index: a list found empty was cleared after the commit the
//! index then holds. A list that names a file already committed costs a
//! direct read, nothing else, so a stale one is harmless; searches that
//! prove freshness themselves never read it.

use std::collections::BTreeSet;
use std::path::Path;

use crucible_core::store::atomic::{self, Durability};
use crucible_core::store::safe_file;

use crate::SearchError;

/// The file's name in the search index's directory.
pub(crate) const PENDING: &str = "pending";
/// Its first line.
const HEADER: &str = "crucible-search pending 1";

/// Names `files` (paths relative to the sessions directory `dir`) as
/// changed since the last commit, replacing the list; an empty set
/// removes it. Nothing is written when there is no search index yet:
/// a search then builds one from the files.
pub fn write(dir: &Path, files: &BTreeSet<String>) -> Result<(), SearchError> {
    let home = dir.join(crucible_core::store::names::SEARCH_INDEX);
    let path = home.join(PENDING);
    let io = |source| SearchError::Io {
        path: path.clone(),
        source,
    };
    if files.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(e)),
            _ => Ok(()),
        };
    }
    if !home.is_dir() {
        return Ok(());
    }
    let mut text = String::with_capacity(HEADER.len() + 1 + files.len() * 48);
    text.push_str(HEADER);
    text.push('\n');
    for file in files {
        crate::manifest::push_path(&mut text, file);
    }
    // Not synced: a watcher that crashes is no longer trusted, and the
    // next one commits everything before it vouches again.
    atomic::write_atomic_with(&path, &[text.as_bytes()], Durability::Deferred).map_err(io)?;
    // Owner-only, as every file of the search index (it names sessions).
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).map_err(io)
}

/// The paths the list names; `None` when it cannot be read as one (the
/// caller then proves freshness itself). A missing list names nothing.
pub(crate) fn read(home: &Path) -> Option<Vec<String>> {
    let path = home.join(PENDING);
    let bytes = match safe_file::read_regular(&path, 64 << 20) {
        Ok(bytes) => bytes,
        Err(safe_file::UnsafeFile::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Some(Vec::new());
        }
        Err(_) => return None,
    };
    let text = std::str::from_utf8(&bytes).ok()?;
    let mut lines = text.split_terminator('\n');
    if lines.next()? != HEADER {
        return None;
    }
    lines.map(crate::manifest::unescape).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| (*p).to_owned()).collect()
    }

    #[test]
    fn a_list_is_read_back_and_an_empty_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join(".search");
        write(dir.path(), &set(&["a.md"])).unwrap();
        assert!(!home.exists(), "no index, nothing written");
        std::fs::create_dir(&home).unwrap();
        assert_eq!(read(&home), Some(Vec::new()), "missing: nothing pending");
        let names = set(&["2026/b.md", "a\nodd\\name.md", "a.md"]);
        write(dir.path(), &names).unwrap();
        let back: BTreeSet<String> = read(&home).unwrap().into_iter().collect();
        assert_eq!(back, names);
        write(dir.path(), &BTreeSet::new()).unwrap();
        assert!(!home.join(PENDING).exists());
    }

    #[test]
    fn a_damaged_list_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join(".search");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join(PENDING), "something else\na.md\n").unwrap();
        assert_eq!(read(&home), None);
        std::fs::write(home.join(PENDING), format!("{HEADER}\nbad\\escape\n")).unwrap();
        assert_eq!(read(&home), None);
    }
}
