//! Writing files so that a crash leaves the old or the new file, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A hidden temporary name beside `target`, unique within this machine's
/// processes, so scanners (which skip dot files) never see half a file.
fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "session".into(), |n| n.to_string_lossy().into_owned());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    target.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

fn write_temp(target: &Path, contents: &[u8]) -> io::Result<PathBuf> {
    let tmp = temp_path(target);
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn sync_parent(target: &Path) {
    // Makes the rename itself durable; failure only weakens durability, not
    // atomicity, so it is not an error.
    if let Some(dir) = target.parent()
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// Replaces `target` with `contents`: temporary file, fsync, rename.
pub fn write_atomic(target: &Path, contents: &[u8]) -> io::Result<()> {
    let tmp = write_temp(target, contents)?;
    if let Err(e) = fs::rename(&tmp, target) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_parent(target);
    Ok(())
}

/// Creates `target` with `contents` only if it does not exist yet, atomically:
/// the complete file appears under its name or nothing does. A hard link
/// fails when the name is taken, which is what makes concurrent creators safe.
pub fn create_atomic(target: &Path, contents: &[u8]) -> io::Result<()> {
    let tmp = write_temp(target, contents)?;
    let linked = fs::hard_link(&tmp, target);
    let _ = fs::remove_file(&tmp);
    linked?;
    sync_parent(target);
    Ok(())
}

/// [`write_atomic`], unless `still_current()` says no just before the rename:
/// then `target` is left alone and `Ok(false)` returned. The slow part (the
/// temporary file and its fsync) comes before the question, so the window in
/// which another program's save can slip in is one `stat` and one `rename`.
pub fn write_atomic_if(
    target: &Path,
    contents: &[u8],
    still_current: impl FnOnce() -> bool,
) -> io::Result<bool> {
    let tmp = write_temp(target, contents)?;
    if !still_current() {
        let _ = fs::remove_file(&tmp);
        return Ok(false);
    }
    if let Err(e) = fs::rename(&tmp, target) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_parent(target);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_refuses_an_existing_name_and_leaves_no_temp_files() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a.md");
        create_atomic(&p, b"one").unwrap();
        let e = create_atomic(&p, b"two").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        write_atomic(&p, b"three").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"three");
        assert_eq!(fs::read_dir(t.path()).unwrap().count(), 1);
    }
}
