//! The index files as cru last wrote them.
//!
//! The freshness rule proves each row against its session file, but not
//! the row against itself: a cell changed by hand to another plausible
//! value (a token count, a title) while its session file stays as it was
//! would be believed. So every writer, when it is done and still holding
//! the writer lock, records the stamp of each index file (inode, size,
//! modification and change times; a file that is not there as such) in
//! `.index-seal`; every reader, under the shared lock, compares the files
//! with it before it believes them. Any write that is not cru's changes a
//! file's change time, which no tool can set back, so an index edited by
//! hand, copied over, or left half written by a killed cru differs from
//! its seal, and is rebuilt from the sessions. A writer that finds the
//! seal broken writes nothing, so it never makes an edited file look like
//! its own.
//!
//! What the seal cannot see is an edit made within the same clock tick as
//! cru's own write that also keeps the file's size.

use std::fmt::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::files::{self, BASE, DELTA, IndexFileError, PHASES, ROLLUP, USAGE};

pub use crucible_core::store::names::INDEX_SEAL as SEAL;

/// The files the seal covers.
const SEALED: [&str; 5] = [BASE, PHASES, USAGE, ROLLUP, DELTA];

/// The first line of a seal.
const HEADER: &str = "cru index seal 1";

/// What the seal says of the index files of `dir` as they are now.
fn now(dir: &Path) -> String {
    let mut out = String::with_capacity(256);
    out.push_str(HEADER);
    out.push('\n');
    for name in SEALED {
        // Not followed: an index file that is a link is not cru's.
        match std::fs::symlink_metadata(dir.join(name)) {
            Ok(m) if m.is_file() => {
                let _ = writeln!(
                    out,
                    "{name} {} {} {}.{} {}.{}",
                    m.ino(),
                    m.size(),
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ctime(),
                    m.ctime_nsec()
                );
            }
            Ok(_) => {
                let _ = writeln!(out, "{name} other");
            }
            Err(_) => {
                let _ = writeln!(out, "{name} -");
            }
        }
    }
    out
}

/// Records the index files of `dir` as they are now. The caller holds the
/// writer lock and has just written them. Not synced: a seal lost in a
/// crash only makes the next read rebuild.
pub fn write(dir: &Path) -> Result<(), IndexFileError> {
    let path = dir.join(SEAL);
    let text = now(dir);
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    files::write(&path, &text)
}

/// Whether the index files of `dir` are those the seal records: `Ok` when
/// they are; [`IndexFileError::Missing`] when there is no seal (an index of
/// an older cru, or none yet), and [`IndexFileError::Corrupt`] naming the
/// first file that differs.
pub fn check(dir: &Path) -> Result<(), IndexFileError> {
    let path = dir.join(SEAL);
    let recorded = files::read(&path)?;
    let now = now(dir);
    if recorded == now {
        return Ok(());
    }
    let differs = recorded
        .lines()
        .zip(now.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    let file = match differs.checked_sub(1).and_then(|i| SEALED.get(i)) {
        Some(name) => format!("{name} was changed by something other than cru"),
        None => "the seal is not one cru wrote".to_owned(),
    };
    Err(files::corrupt(&path, differs + 1, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index_files(dir: &Path) {
        for name in [BASE, PHASES, USAGE, ROLLUP] {
            std::fs::write(dir.join(name), format!("{name}\n")).unwrap();
        }
    }

    #[test]
    fn a_sealed_index_checks_until_a_file_is_written_by_another_hand() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        index_files(dir);
        assert!(matches!(check(dir), Err(IndexFileError::Missing(_))));
        write(dir).unwrap();
        check(dir).unwrap();
        // The same bytes, written again: the change time moved.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.join(USAGE), format!("{USAGE}\n")).unwrap();
        let e = check(dir).unwrap_err().to_string();
        assert!(e.contains(".index-usage.toon was changed"), "{e}");
        write(dir).unwrap();
        check(dir).unwrap();
        // A delta that appears, and one that goes.
        std::fs::write(dir.join(DELTA), "x").unwrap();
        assert!(check(dir).is_err());
        write(dir).unwrap();
        std::fs::remove_file(dir.join(DELTA)).unwrap();
        assert!(check(dir).is_err());
    }

    #[test]
    fn a_seal_edited_by_hand_is_not_believed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        index_files(dir);
        write(dir).unwrap();
        std::fs::write(dir.join(SEAL), "cru index seal 1\n").unwrap();
        assert!(check(dir).is_err());
        std::fs::write(dir.join(SEAL), "nonsense").unwrap();
        assert!(check(dir).is_err());
    }
}
