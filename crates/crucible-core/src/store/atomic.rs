//! Writing files so that a crash leaves the old or the new file, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A hidden temporary name beside `target`, unique within this machine's
/// processes, so scanners (which skip dot files) never see half a file.
fn temp_path(target: &Path) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    super::names::temp(target, std::process::id(), n)
}

/// When a write reaches the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Durability {
    /// Each file is fsynced before its rename and its directory after: a
    /// crash of the machine leaves it old or new.
    #[default]
    EachFile,
    /// Neither: for a file new in a bulk write (an import of thousands of
    /// sessions) that ends with one [`sync_file_system`]. A kill still
    /// leaves the file old or new (absent or whole); a crash of the machine
    /// before that sync can lose it or leave it empty, so this is only for
    /// files that were not there before the bulk write began (the caller
    /// tells), which a re-run of it writes again.
    Deferred,
}

fn write_temp(target: &Path, parts: &[&[u8]], sync: bool) -> io::Result<PathBuf> {
    write_temp_mode(target, parts, sync, None)
}

fn write_temp_mode(
    target: &Path,
    parts: &[&[u8]],
    sync: bool,
    mode: Option<u32>,
) -> io::Result<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = temp_path(target);
    let result = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        if let Some(mode) = mode {
            options.mode(mode);
        }
        let mut f = options.open(&tmp)?;
        for part in parts {
            f.write_all(part)?;
        }
        if sync { f.sync_all() } else { Ok(()) }
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
    write_atomic_with(target, &[contents], Durability::EachFile)
}

/// [`write_atomic`] of a file made with permissions `mode` from the start
/// (another program's settings, which may hold secrets: a file the user
/// keeps owner-only never shows more, not even while it is written).
pub fn write_atomic_mode(target: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    let tmp = write_temp_mode(target, &[contents], true, Some(mode))?;
    // The umask may have taken bits away: the mode asked for, exactly.
    let set = fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(mode));
    if let Err(e) = set.and_then(|()| fs::rename(&tmp, target)) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_parent(target);
    Ok(())
}

/// [`write_atomic`] of the concatenation of `parts` (a sidecar's header
/// and its records, without copying them into one buffer), with the given
/// [`Durability`].
pub fn write_atomic_with(target: &Path, parts: &[&[u8]], durability: Durability) -> io::Result<()> {
    let each = durability == Durability::EachFile;
    let tmp = write_temp(target, parts, each)?;
    if let Err(e) = fs::rename(&tmp, target) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if each {
        sync_parent(target);
    }
    Ok(())
}

/// Writes a file a person named as a command's output (`-o FILE`): a
/// regular file, or a new one, atomically ([`write_atomic`]); through a
/// symbolic link, the file it leads to (the link stays); a device, FIFO or
/// socket (`/dev/null`, `/dev/stdout`, a named pipe) written into as a
/// stream, never replaced: a rename over `/dev/null` by root would leave a
/// regular file in its place for every program on the machine.
pub fn write_output(target: &Path, bytes: &[u8]) -> io::Result<()> {
    match fs::metadata(target) {
        Ok(m) if m.is_file() => write_atomic(&fs::canonicalize(target)?, bytes),
        // A directory: the rename below refuses it with the system's words.
        Ok(m) if m.is_dir() => write_atomic(target, bytes),
        Ok(_) => OpenOptions::new()
            .write(true)
            .open(target)?
            .write_all(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => write_atomic(target, bytes),
        Err(e) => Err(e),
    }
}

/// Creates `target` with `contents` only if it does not exist yet, atomically:
/// the complete file appears under its name or nothing does. A hard link
/// fails when the name is taken, which is what makes concurrent creators safe.
pub fn create_atomic(target: &Path, contents: &[u8]) -> io::Result<()> {
    create_atomic_with(target, contents, Durability::EachFile)
}

/// [`create_atomic`] with the durability of a bulk write: see [`Durability`].
pub fn create_atomic_with(
    target: &Path,
    contents: &[u8],
    durability: Durability,
) -> io::Result<()> {
    let each = durability == Durability::EachFile;
    let tmp = write_temp(target, &[contents], each)?;
    let linked = fs::hard_link(&tmp, target);
    let _ = fs::remove_file(&tmp);
    linked?;
    if each {
        sync_parent(target);
    }
    Ok(())
}

/// Makes everything written to the file system that holds `dir` durable:
/// the one sync that ends a bulk write ([`Durability::Deferred`]).
pub fn sync_file_system(dir: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let d = File::open(dir)?;
        rustix::fs::syncfs(&d)?;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = dir;
        rustix::fs::sync();
    }
    Ok(())
}

/// [`write_atomic`] for a file that other programs (editors) may replace at
/// any moment without cru's lock: `target` is replaced only if it is still
/// the file that was read, as `is_the_file_read` tells from a path to it.
/// Returns `Ok(false)`, with `target` as the other program left it, if not.
///
/// Where the kernel can swap two names atomically (Linux's
/// `renameat2(RENAME_EXCHANGE)`), the new file is swapped in and the one it
/// displaced is looked at: another program's save is never overwritten, it
/// is swapped back. Elsewhere the file is compared just before the rename,
/// which leaves a window of one `stat` and one `rename`.
pub fn replace_if_unchanged(
    target: &Path,
    contents: &[u8],
    is_the_file_read: impl Fn(&Path) -> bool,
) -> io::Result<bool> {
    let tmp = write_temp(target, &[contents], true)?;
    let result = swap_in_if_unchanged(&tmp, target, &is_the_file_read);
    let _ = fs::remove_file(&tmp);
    if matches!(result, Ok(true)) {
        sync_parent(target);
    }
    result
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn swap_in_if_unchanged(
    tmp: &Path,
    target: &Path,
    is_the_file_read: &impl Fn(&Path) -> bool,
) -> io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use std::os::unix::fs::MetadataExt;
    // Swapping in exposes the new file for an instant even when it is then
    // swapped back; a change already visible is not worth that.
    if !is_the_file_read(target) {
        return Ok(false);
    }
    let ours = fs::metadata(tmp)?.ino();
    let exchange = || renameat_with(CWD, tmp, CWD, target, RenameFlags::EXCHANGE);
    match exchange() {
        Ok(()) => {}
        // A file system without the exchange (some network ones).
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            return rename_if_unchanged(tmp, target, is_the_file_read);
        }
        Err(e) => return Err(e.into()),
    }
    // `tmp` now names the file that was at `target` an instant ago.
    if is_the_file_read(tmp) {
        return Ok(true);
    }
    // Someone saved in between: give their file its name back.
    exchange()?;
    if fs::metadata(tmp)?.ino() != ours {
        // They saved again, over ours, before the swap back, which has just
        // put their older save in place of the newer: swap once more. (A
        // third save within these microseconds would be undone; it is beyond
        // what this guards against.)
        exchange()?;
    }
    Ok(false)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn swap_in_if_unchanged(
    tmp: &Path,
    target: &Path,
    is_the_file_read: &impl Fn(&Path) -> bool,
) -> io::Result<bool> {
    rename_if_unchanged(tmp, target, is_the_file_read)
}

fn rename_if_unchanged(
    tmp: &Path,
    target: &Path,
    is_the_file_read: &impl Fn(&Path) -> bool,
) -> io::Result<bool> {
    if !is_the_file_read(target) {
        return Ok(false);
    }
    fs::rename(tmp, target)?;
    Ok(true)
}

/// Whether `name` is a temporary file that [`write_atomic`] or
/// [`create_atomic`] made for a file whose name ends with `suffix`
/// (`.<target>.<pid>.<n>.tmp`). One that exists while the directory's
/// writer lock is held was left by a writer that died before its rename.
pub use super::names::is_temp_for;

#[cfg(test)]
mod tests {
    use super::*;

    /// An output named by a person: a FIFO stays a FIFO and gets the bytes
    /// as a stream, a symbolic link stays a link and its file gets them, a
    /// regular file is replaced whole.
    #[test]
    fn an_output_is_written_through_links_and_into_pipes_never_over_them() {
        use std::os::unix::fs::FileTypeExt;
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_output(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

        let file = t.path().join("real.html");
        fs::write(&file, b"old").unwrap();
        let link = t.path().join("link.html");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_output(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&file).unwrap(), b"new");

        let fresh = t.path().join("fresh.html");
        write_output(&fresh, b"one").unwrap();
        write_output(&fresh, b"two").unwrap();
        assert_eq!(fs::read(&fresh).unwrap(), b"two");
        assert!(
            write_output(t.path(), b"x").is_err(),
            "a directory is refused"
        );
        let names: Vec<_> = fs::read_dir(t.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 4, "no temporary file left");
    }

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

    #[test]
    fn a_save_that_lands_just_before_the_swap_is_given_back_its_name() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a.md");
        fs::write(&p, "as read").unwrap();
        let calls = std::cell::Cell::new(0);
        // The first look passes; then an editor saves, as if between that
        // look and the swap, so the file displaced is not the one read.
        let replaced = replace_if_unchanged(&p, b"folded", |at| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                let editor = t.path().join(".a.md.swp");
                fs::write(&editor, "edited").unwrap();
                fs::rename(&editor, at).unwrap();
                return true;
            }
            fs::read(at).unwrap() == b"as read"
        })
        .unwrap();
        assert!(!replaced);
        assert_eq!(fs::read(&p).unwrap(), b"edited");
        assert_eq!(
            fs::read_dir(t.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
        let replaced = replace_if_unchanged(&p, b"folded", |at| fs::read(at).unwrap() == b"edited");
        assert!(replaced.unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"folded");
        assert_eq!(
            fs::read_dir(t.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn temporary_names_are_told_from_other_hidden_files() {
        let t = tempfile::tempdir().unwrap();
        let name = temp_path(&t.path().join("a.md"));
        let name = name.file_name().unwrap().to_str().unwrap();
        assert!(is_temp_for(name, ".md"), "{name}");
        assert!(!is_temp_for(name, ".toon"));
        assert!(!is_temp_for(".a.md.journal", ".md"));
        assert!(!is_temp_for(".notes.tmp", ".md"));
        assert!(!is_temp_for(".a.md.x.1.tmp", ".md"));
    }
}
