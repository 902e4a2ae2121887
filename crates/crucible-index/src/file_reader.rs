//! Reading many session files in a row, cheaply.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use crucible_core::store::{UnsafeFile, safe_file};

/// Reads files whole into one reused buffer. On Unix a file is opened
/// relative to its directory, kept open while files of that directory
/// follow: the kernel then looks up one name per file instead of walking
/// every component of the path (a tenth of a rebuild's time went to
/// `open`, mostly to that walk).
#[derive(Debug, Default)]
pub struct FileReader {
    buf: Vec<u8>,
    /// Larger files are refused (see `SessionStore::max_file_bytes`).
    limit: u64,
    #[cfg(unix)]
    dir: Option<(PathBuf, std::os::fd::OwnedFd)>,
}

impl FileReader {
    /// A reader of regular files of at most `limit` bytes.
    pub fn new(limit: u64) -> Self {
        Self {
            // A fresh buffer per file cost more in page clearing than the
            // parsing itself; one that grows to the largest file is kept.
            buf: Vec::with_capacity(64 * 1024),
            limit,
            ..Self::default()
        }
    }

    /// The bytes of `path`, and its metadata as it was when opened. The
    /// open never blocks (a FIFO opens at once and is refused), and only a
    /// regular file within the limit is read.
    pub fn read(&mut self, path: &Path) -> Result<(Metadata, &[u8]), UnsafeFile> {
        let file = self.open(path).map_err(|source| UnsafeFile::Io {
            path: path.to_owned(),
            source,
        })?;
        let (mut file, meta) = safe_file::checked(path, file, self.limit)?;
        // Never more than the limit, even from a file that grows meanwhile.
        let len =
            read_whole(&mut file, meta.len(), &mut self.buf).map_err(|source| UnsafeFile::Io {
                path: path.to_owned(),
                source,
            })?;
        if len as u64 > self.limit {
            return Err(UnsafeFile::TooLarge {
                path: path.to_owned(),
                size: len as u64,
                limit: self.limit,
            });
        }
        Ok((meta, &self.buf[..len]))
    }

    #[cfg(unix)]
    fn open(&mut self, path: &Path) -> std::io::Result<File> {
        use rustix::fs::{Mode, OFlags, openat};
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return safe_file::open_nonblocking(path);
        };
        if self.dir.as_ref().is_none_or(|(d, _)| d != parent) {
            let dir = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            let fd = rustix::fs::open(
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            self.dir = Some((parent.to_owned(), fd));
        }
        let (_, dir) = self.dir.as_ref().expect("set just above");
        let fd = openat(
            dir,
            name,
            OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )?;
        Ok(File::from(fd))
    }

    #[cfg(not(unix))]
    fn open(&mut self, path: &Path) -> std::io::Result<File> {
        File::open(path)
    }
}

/// Reads all of `file`, whose size was `size` a moment ago, into the start
/// of `buf`, and returns its length.
///
/// One `read` call when the file still has that size: the first read asks
/// for one byte more than `size`, so getting exactly `size` bytes means the
/// end was reached. `read_to_end` spent two more system calls per file (a
/// second `statx` for its size hint and a `lseek`) and a read that returns
/// nothing, which at 100,000 files was a visible share of a rebuild.
///
/// `buf` only grows: what lies past the file's length is left from earlier
/// files, where clearing it for each file zeroed as many bytes as were read.
fn read_whole(file: &mut File, size: u64, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let want = usize::try_from(size).unwrap_or(usize::MAX - 1) + 1;
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let buf_len = buf.len();
    let mut got = 0;
    loop {
        match file.read(&mut buf[got..buf_len]) {
            Ok(0) => break,
            Ok(n) => {
                got += n;
                // `size` bytes from a single read: the end, by the size
                // just taken. Anything else reads on to the real end.
                if got == want - 1 && n == got {
                    break;
                }
                if got == buf_len {
                    // Grown since: the rest as it comes.
                    buf.truncate(got);
                    file.read_to_end(buf)?;
                    return Ok(buf.len());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_files_of_several_directories_whole() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let files = [
            (dir.path().join("a.md"), "a".repeat(70_000)),
            (dir.path().join("b.md"), String::new()),
            (dir.path().join("sub/c.md"), "c".into()),
            (dir.path().join("d.md"), "d".into()),
        ];
        for (p, text) in &files {
            std::fs::write(p, text).unwrap();
        }
        let mut reader = FileReader::new(u64::MAX);
        for (p, text) in &files {
            let (meta, bytes) = reader.read(p).unwrap();
            assert_eq!(bytes, text.as_bytes(), "{}", p.display());
            assert_eq!(meta.len(), text.len() as u64);
        }
        let missing = reader.read(&dir.path().join("sub/none.md")).unwrap_err();
        assert!(
            matches!(&missing, UnsafeFile::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        );
    }
}
