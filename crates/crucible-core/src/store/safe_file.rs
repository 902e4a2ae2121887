//! Opening files in a sessions directory without being led astray.
//!
//! A sessions directory may be shared, synced or cloned, so it can hold
//! whatever such tools carry: symbolic links (to any file the user can
//! write, or to `/dev/zero`), FIFOs that block a reader for ever, device
//! files, files of gigabytes. Every open of cru's own files goes through
//! here:
//!
//! - **Writes never follow a link** (`O_NOFOLLOW`): a journal, lock or index
//!   file that is a symbolic link is refused with an error naming it, instead
//!   of truncating or appending to whatever it points at. Files replaced by
//!   rename (session files, via [`super::atomic`]) replace the link itself.
//! - **Reads never block and never run away**: the open is non-blocking (a
//!   FIFO opens at once and is then refused), only regular files are read,
//!   and a file larger than the caller's limit is refused before a byte is
//!   read.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

/// Files above this size are not read as sessions unless configured
/// otherwise (`[session] max_file_size`): a session of a year of work is a
/// few megabytes, and reading a runaway file whole would take the memory of
/// every command that walks the directory.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Why a file was not opened.
#[derive(Debug, thiserror::Error)]
pub enum UnsafeFile {
    #[error(
        "{path}: is a symbolic link where cru keeps its own file; cru does not write through links (remove the link)"
    )]
    Link { path: PathBuf },
    #[error("{path}: {kind}, not a regular file")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "{path}: {size} bytes, over the limit of {limit} bytes for a session file (`[session] max_file_size`)"
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    /// Said plainly: "no session matches" or a raw OS error would hide
    /// that the file is there and only closed to this user.
    #[error("permission denied: {path}")]
    PermissionDenied { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl UnsafeFile {
    fn io(path: &Path, source: io::Error) -> Self {
        if source.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            return Self::Link {
                path: path.to_owned(),
            };
        }
        if source.kind() == io::ErrorKind::PermissionDenied {
            return Self::PermissionDenied {
                path: path.to_owned(),
            };
        }
        Self::Io {
            path: path.to_owned(),
            source,
        }
    }

    /// The file this is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::Link { path }
            | Self::NotRegular { path, .. }
            | Self::TooLarge { path, .. }
            | Self::PermissionDenied { path }
            | Self::Io { path, .. } => path,
        }
    }

    /// What is wrong, without the path (for messages that name it already).
    pub fn reason(&self) -> String {
        match self {
            Self::Link { .. } => "a symbolic link where cru keeps its own file; cru does not write through links (remove the link)".to_owned(),
            Self::NotRegular { kind, .. } => format!("{kind}, not a regular file"),
            Self::TooLarge { size, limit, .. } => format!(
                "{size} bytes, over the limit of {limit} bytes for a session file (`[session] max_file_size`)"
            ),
            Self::PermissionDenied { .. } => "permission denied".to_owned(),
            Self::Io { source, .. } => source.to_string(),
        }
    }

    /// The error as an `io::Error`, for callers whose errors are I/O errors
    /// and name the path themselves: its message is the reason alone.
    pub fn into_io(self) -> io::Error {
        match self {
            Self::Io { source, .. } => source,
            other => {
                let kind = match other {
                    Self::TooLarge { .. } => io::ErrorKind::FileTooLarge,
                    Self::PermissionDenied { .. } => io::ErrorKind::PermissionDenied,
                    _ => io::ErrorKind::InvalidInput,
                };
                io::Error::new(kind, other.reason())
            }
        }
    }
}

/// What a file is, in words, for messages about files cru will not read.
pub fn kind_name(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

fn nofollow() -> i32 {
    // The flag's bits fit an i32 on every Unix rustix supports.
    i32::try_from(OFlags::NOFOLLOW.bits()).expect("O_NOFOLLOW fits an i32")
}

fn nonblocking() -> i32 {
    i32::try_from(OFlags::NONBLOCK.bits()).expect("O_NONBLOCK fits an i32")
}

/// Opens one of cru's own files for writing (`options` says how: append,
/// create, truncate), refusing a symbolic link and anything but a regular
/// file. The open does not block on a FIFO.
pub fn open_own(path: &Path, options: &mut OpenOptions) -> Result<File, UnsafeFile> {
    let file = options
        .custom_flags(nofollow() | nonblocking())
        .open(path)
        .map_err(|e| {
            // A missing file is the common case (a session without a
            // journal or a sidecar): nothing to look at again.
            if e.kind() == std::io::ErrorKind::NotFound {
                return UnsafeFile::io(path, e);
            }
            // A FIFO without a reader refuses a non-blocking writer (ENXIO):
            // say what it is rather than "no such device".
            match std::fs::symlink_metadata(path) {
                Ok(m) if !m.file_type().is_file() && !m.file_type().is_symlink() => {
                    UnsafeFile::NotRegular {
                        path: path.to_owned(),
                        kind: kind_name(m.file_type()),
                    }
                }
                _ => UnsafeFile::io(path, e),
            }
        })?;
    let meta = file.metadata().map_err(|e| UnsafeFile::io(path, e))?;
    if !meta.file_type().is_file() {
        return Err(UnsafeFile::NotRegular {
            path: path.to_owned(),
            kind: kind_name(meta.file_type()),
        });
    }
    Ok(file)
}

/// [`open_own`] for writing: a file cru keeps that has other hard links
/// (a `cp -al` or rsnapshot copy of the sessions directory shares every
/// file's inode) is first given an inode of its own (copied, then renamed
/// over), so the write never reaches the other names. Call with the
/// directory's writer lock held.
pub fn open_own_for_write(path: &Path, options: &mut OpenOptions) -> Result<File, UnsafeFile> {
    use std::os::unix::fs::MetadataExt;
    // Before the open: an open that truncates would empty the shared inode.
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && meta.is_file()
        && meta.nlink() > 1
    {
        let bytes = std::fs::read(path).map_err(|e| UnsafeFile::io(path, e))?;
        super::atomic::write_atomic(path, &bytes).map_err(|e| UnsafeFile::io(path, e))?;
    }
    open_own(path, options)
}

/// Opens a file for reading if it is a regular file of at most `limit`
/// bytes. Links are followed (the walker decides which links may be read);
/// the open itself never blocks.
pub fn open_regular(path: &Path, limit: u64) -> Result<(File, std::fs::Metadata), UnsafeFile> {
    let file = open_nonblocking(path).map_err(|e| UnsafeFile::io(path, e))?;
    checked(path, file, limit)
}

/// Opens `path` for reading without blocking (a FIFO opens at once), with
/// no check of what it is: follow with [`checked`].
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(nonblocking())
        .open(path)
}

/// [`open_regular`]'s checks on a file already open.
pub fn checked(
    path: &Path,
    file: File,
    limit: u64,
) -> Result<(File, std::fs::Metadata), UnsafeFile> {
    let meta = file.metadata().map_err(|e| UnsafeFile::io(path, e))?;
    if !meta.file_type().is_file() {
        return Err(UnsafeFile::NotRegular {
            path: path.to_owned(),
            kind: kind_name(meta.file_type()),
        });
    }
    if meta.len() > limit {
        return Err(UnsafeFile::TooLarge {
            path: path.to_owned(),
            size: meta.len(),
            limit,
        });
    }
    Ok((file, meta))
}

/// The whole of a regular file of at most `limit` bytes. Reads no more
/// than `limit` bytes even if the file grows meanwhile.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, UnsafeFile> {
    use std::io::Read;
    let (file, meta) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| UnsafeFile::io(path, e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn writes_refuse_links_and_leave_their_targets_alone() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("precious.txt");
        std::fs::write(&target, "keep me").unwrap();
        let link = t.path().join(".s.md.journal");
        symlink(&target, &link).unwrap();
        let e = open_own(&link, OpenOptions::new().append(true).create(true)).unwrap_err();
        assert!(matches!(e, UnsafeFile::Link { .. }), "{e}");
        assert!(e.to_string().contains(".s.md.journal"), "{e}");
        let e = open_own(&link, OpenOptions::new().write(true).truncate(true)).unwrap_err();
        assert!(matches!(e, UnsafeFile::Link { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    }

    #[test]
    fn writes_never_reach_another_hard_link() {
        use std::io::Write;
        let t = tempfile::tempdir().unwrap();
        let own = t.path().join(".s.md.journal");
        std::fs::write(&own, "a\n").unwrap();
        let snapshot = t.path().join("snapshot-of-journal");
        std::fs::hard_link(&own, &snapshot).unwrap();
        open_own_for_write(&own, OpenOptions::new().append(true))
            .unwrap()
            .write_all(b"b\n")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&own).unwrap(), "a\nb\n");
        assert_eq!(std::fs::read_to_string(&snapshot).unwrap(), "a\n");
    }

    #[test]
    fn reads_refuse_fifos_devices_and_large_files_without_blocking() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("x.md");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let e = read_regular(&fifo, DEFAULT_MAX_FILE_BYTES).unwrap_err();
        assert!(matches!(e, UnsafeFile::NotRegular { .. }), "{e}");
        let e = open_own(&fifo, OpenOptions::new().append(true)).unwrap_err();
        assert!(matches!(e, UnsafeFile::NotRegular { .. }), "{e}");
        let e = read_regular(Path::new("/dev/zero"), DEFAULT_MAX_FILE_BYTES).unwrap_err();
        assert!(matches!(e, UnsafeFile::NotRegular { .. }), "{e}");
        let big = t.path().join("big.md");
        std::fs::write(&big, vec![b'a'; 100]).unwrap();
        let e = read_regular(&big, 99).unwrap_err();
        assert!(matches!(e, UnsafeFile::TooLarge { size: 100, .. }), "{e}");
        assert_eq!(read_regular(&big, 100).unwrap().len(), 100);
    }
}
