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
//! The stamp recorded for a file is the one it had right after cru's last
//! write to it ([`note`], called by every writer of an index file), not
//! the one it has when the seal is written: a file changed by another hand
//! in between (while a long rebuild wrote the other files) then differs,
//! and no seal is written, so the next read rebuilds.
//!
//! The seal also names the sessions folder it was written in (device and
//! inode). A folder copied whole (`cp -r`, a backup restored) brings its
//! index files with new stamps: that is no edit, and the index is rebuilt
//! without a word, as one with no seal is.
//!
//! What the seal cannot see is an edit made within the same clock tick as
//! cru's own write that also keeps the file's size.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use crate::files::{self, BASE, DELTA, IndexFileError, PHASES, ROLLUP, USAGE};

pub use crucible_core::store::names::INDEX_SEAL as SEAL;

/// The files the seal covers.
const SEALED: [&str; 5] = [BASE, PHASES, USAGE, ROLLUP, DELTA];

/// The first line of a seal.
const HEADER: &str = "cru index seal 2";
/// The first line of the seals of an older cru (no folder line).
const HEADER_1: &str = "cru index seal 1";

/// The seal's line for the folder it is in: device, inode and birth time
/// (a folder removed and copied back often gets the same inode number; its
/// birth time is new; `-` where the file system keeps none).
fn folder_line(dir: &Path) -> String {
    match std::fs::metadata(dir) {
        Ok(m) => {
            let born = m
                .created()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or_else(|| "-".to_owned(), |d| d.as_nanos().to_string());
            format!("folder {} {} {born}", m.dev(), m.ino())
        }
        Err(_) => "folder -".to_owned(),
    }
}

/// The line of the seal for the index file `name` of `dir` as it is now.
fn line(dir: &Path, name: &str) -> String {
    // Not followed: an index file that is a link is not cru's.
    match std::fs::symlink_metadata(dir.join(name)) {
        Ok(m) if m.is_file() => format!(
            "{name} {} {} {}.{} {}.{}",
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec()
        ),
        Ok(_) => format!("{name} other"),
        Err(_) => format!("{name} -"),
    }
}

/// What the seal says of the index files of `dir` as they are now.
fn now(dir: &Path) -> String {
    let mut out = String::with_capacity(256);
    out.push_str(HEADER);
    out.push('\n');
    out.push_str(&folder_line(dir));
    out.push('\n');
    for name in SEALED {
        let _ = writeln!(out, "{}", line(dir, name));
    }
    out
}

/// Each index file's line as this process left it after writing it, by
/// path, until the next seal of its directory takes it.
static WRITTEN: LazyLock<Mutex<HashMap<PathBuf, String>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Notes the index file at `path` as cru has just written it: the seal
/// records this stamp, and none at all if the file differs from it by
/// then. Every writer of an index file calls it after its last write (and
/// a test that stands in for one).
pub fn note(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    if !SEALED.contains(&name) {
        return;
    }
    let line = line(dir, name);
    WRITTEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(path.to_owned(), line);
}

/// The most a seal can be: five lines of numbers.
const MAX_SEAL: u64 = 4096;

/// The seal of `dir` as it is on disk: opened as the index files are (no
/// link followed, never blocking on a FIFO, a regular file only) and
/// never read past [`MAX_SEAL`].
fn read(dir: &Path) -> Result<String, IndexFileError> {
    let path = dir.join(SEAL);
    let file = files::own_file(&path, std::fs::OpenOptions::new().read(true))
        .map_err(|e| files::io_error(&path, e))?;
    let mut text = String::new();
    file.take(MAX_SEAL + 1)
        .read_to_string(&mut text)
        .map_err(|e| files::io_error(&path, e))?;
    if text.len() as u64 > MAX_SEAL {
        return Err(files::corrupt(&path, 1, "the seal is not one cru wrote"));
    }
    Ok(text)
}

/// Records the index files of `dir` as cru left them. The caller holds the
/// writer lock and has just written them, checking the seal before it
/// read any. Each file is recorded as this process last wrote it
/// ([`note`]), or, when it did not write it, as the old seal has it; a
/// file that is not so now was changed by another hand meanwhile, and the
/// seal is removed instead, so that the next read rebuilds. Not synced: a
/// seal lost in a crash only makes the next read rebuild.
pub fn write(dir: &Path) -> Result<(), IndexFileError> {
    let path = dir.join(SEAL);
    let old = read(dir).unwrap_or_default();
    let noted: HashMap<PathBuf, String> = {
        let mut written = WRITTEN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        SEALED
            .iter()
            .filter_map(|name| {
                let p = dir.join(name);
                written.remove(&p).map(|line| (p, line))
            })
            .collect()
    };
    let text = now(dir);
    let as_left = SEALED.iter().zip(text.lines().skip(2)).all(|(name, now)| {
        match noted.get(&dir.join(name)) {
            Some(written) => written == now,
            // Not written here: as the old seal has it, or not there at
            // all (a file missing is rebuilt whatever the seal says).
            None => old.lines().skip(2).any(|l| l == now) || *now == format!("{name} -"),
        }
    });
    if !as_left {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(files::io_error(&path, e)),
            _ => Ok(()),
        };
    }
    if old == text {
        return Ok(());
    }
    // Something else in its place (a FIFO, a link, a folder) is not
    // written through: it goes, and the seal is made anew.
    if let Ok(m) = std::fs::symlink_metadata(&path)
        && !m.is_file()
    {
        let gone = if m.is_dir() {
            std::fs::remove_dir(&path)
        } else {
            std::fs::remove_file(&path)
        };
        gone.map_err(|e| files::io_error(&path, e))?;
    }
    files::write(&path, &text)
}

/// The shared lock of `dir`, held while it is, taken when the index files
/// are those the seal records: what a reader of an index file holds.
#[derive(Debug)]
pub struct ReadLock {
    _shared: Option<crucible_core::DirLock>,
}

/// Takes the shared lock of `dir` (none on a directory that cannot hold
/// one, see `DirLock::acquire_shared`) and checks the seal under it:
/// `None` when the files are not the ones cru wrote (the caller then
/// answers from the sessions instead).
pub fn read_lock(dir: &Path) -> Option<ReadLock> {
    let shared = crucible_core::DirLock::acquire_shared(dir);
    check(dir).ok()?;
    Some(ReadLock { _shared: shared })
}

/// Whether the index files of `dir` are those the seal records: `Ok` when
/// they are; [`IndexFileError::Missing`] when there is no seal (an index of
/// an older cru, or none yet) or it is the seal of another folder (this one
/// copied from it), and [`IndexFileError::Corrupt`] naming the first file
/// that differs.
pub fn check(dir: &Path) -> Result<(), IndexFileError> {
    let path = dir.join(SEAL);
    let recorded = read(dir)?;
    let now = now(dir);
    if recorded == now {
        return Ok(());
    }
    let mut lines = recorded.lines();
    let header = lines.next();
    let copied = header == Some(HEADER) && lines.next() != Some(folder_line(dir).as_str());
    if header == Some(HEADER_1) || copied {
        return Err(IndexFileError::Missing(path));
    }
    let differs = recorded
        .lines()
        .zip(now.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    let file = match differs.checked_sub(2).and_then(|i| SEALED.get(i)) {
        Some(name) => format!("{name} was changed by something other than cru"),
        None => "the seal is not one cru wrote".to_owned(),
    };
    Err(files::corrupt(&path, differs + 1, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index files, written as cru writes them (each noted).
    fn index_files(dir: &Path) {
        for name in [BASE, PHASES, USAGE, ROLLUP] {
            std::fs::write(dir.join(name), format!("{name}\n")).unwrap();
            note(&dir.join(name));
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
        // A writer does not make it its own: no seal at all.
        write(dir).unwrap();
        assert!(matches!(check(dir), Err(IndexFileError::Missing(_))));
        // Written by cru again, sealed again.
        index_files(dir);
        write(dir).unwrap();
        check(dir).unwrap();
        // A delta that appears by another hand, and one cru writes.
        std::fs::write(dir.join(DELTA), "x").unwrap();
        assert!(check(dir).is_err());
        note(&dir.join(DELTA));
        write(dir).unwrap();
        check(dir).unwrap();
        std::fs::remove_file(dir.join(DELTA)).unwrap();
        assert!(check(dir).is_err());
    }

    /// A file cru wrote and another hand changed before the seal was
    /// written (a long rebuild writing the other files meanwhile) is not
    /// sealed as cru's.
    #[test]
    fn an_edit_between_crus_write_and_the_seal_is_not_sealed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        index_files(dir);
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.join(PHASES), "edited\n").unwrap();
        write(dir).unwrap();
        assert!(matches!(check(dir), Err(IndexFileError::Missing(_))));
    }

    /// The seal is never read through a link, from a FIFO, or past a few
    /// kilobytes.
    #[test]
    fn a_seal_that_is_a_fifo_a_link_or_huge_is_refused_without_waiting() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        index_files(dir);
        crucible_testkit::mkfifo(&dir.join(SEAL));
        assert!(check(dir).is_err());
        index_files(dir);
        write(dir).unwrap();
        check(dir).unwrap();
        std::fs::remove_file(dir.join(SEAL)).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join(SEAL)).unwrap();
        assert!(check(dir).is_err());
        std::fs::remove_file(dir.join(SEAL)).unwrap();
        std::fs::write(dir.join(SEAL), vec![b'x'; 1 << 20]).unwrap();
        assert!(check(dir).is_err());
    }

    #[test]
    fn a_seal_edited_by_hand_is_not_believed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        index_files(dir);
        write(dir).unwrap();
        std::fs::write(dir.join(SEAL), "cru index seal 2\n").unwrap();
        assert!(check(dir).is_err());
        std::fs::write(dir.join(SEAL), "nonsense").unwrap();
        assert!(matches!(check(dir), Err(IndexFileError::Corrupt { .. })));
        // An older cru's seal is no seal: rebuilt without a word.
        std::fs::write(dir.join(SEAL), "cru index seal 1\n").unwrap();
        assert!(matches!(check(dir), Err(IndexFileError::Missing(_))));
    }

    /// A folder copied whole brings its index with new stamps: no edit, so
    /// no warning, only a rebuild (as with no seal).
    #[test]
    fn a_folder_copied_whole_is_no_edit() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a");
        std::fs::create_dir(&dir).unwrap();
        index_files(&dir);
        write(&dir).unwrap();
        check(&dir).unwrap();
        let copy = tmp.path().join("b");
        std::fs::create_dir(&copy).unwrap();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
        }
        assert!(matches!(check(&copy), Err(IndexFileError::Missing(_))));
        // Removed and copied back under the same name (ext4 gives the new
        // folder the freed inode number): still no edit.
        let back = tmp.path().join("back");
        std::fs::rename(&dir, &back).unwrap();
        std::fs::create_dir(&dir).unwrap();
        for e in std::fs::read_dir(&back).unwrap().flatten() {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        std::fs::remove_dir_all(&back).unwrap();
        assert!(matches!(check(&dir), Err(IndexFileError::Missing(_))));
        index_files(&dir);
        write(&dir).unwrap();
        check(&dir).unwrap();
        // The same files edited in place in the folder itself still are.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.join(BASE), "edited\n").unwrap();
        assert!(matches!(check(&dir), Err(IndexFileError::Corrupt { .. })));
    }
}
