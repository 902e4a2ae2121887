//! The rollup file read a line at a time, each with its offset: a query
//! merges its rows as they come (no copy of the whole file in memory), and
//! reads again later only the few rows a change touches, by offset.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// An index file's lines, from the start.
pub(crate) struct FileLines {
    reader: BufReader<File>,
    /// Offset of the next line.
    offset: u64,
    buf: Vec<u8>,
    /// The last line's number, from 1.
    pub(crate) number: usize,
}

impl FileLines {
    pub(crate) fn open(path: &Path) -> std::io::Result<Self> {
        let file = crate::files::own_file(path, std::fs::OpenOptions::new().read(true))?;
        Ok(Self {
            reader: BufReader::with_capacity(1 << 20, file),
            offset: 0,
            buf: Vec::new(),
            number: 0,
        })
    }

    /// The lines of `file` from byte `offset` (the start of a line).
    pub(crate) fn at(mut file: File, offset: u64) -> std::io::Result<Self> {
        file.seek(SeekFrom::Start(offset))?;
        Ok(Self {
            reader: BufReader::with_capacity(1 << 20, file),
            offset,
            buf: Vec::new(),
            number: 0,
        })
    }

    /// Goes on from byte `offset` (the start of a line) of the same file.
    pub(crate) fn jump(&mut self, offset: u64) -> std::io::Result<()> {
        self.reader.seek(SeekFrom::Start(offset))?;
        self.offset = offset;
        Ok(())
    }

    /// Offset of the next line.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// The next line, without its line break, and its offset; `None` at
    /// the end of the file.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>, String> {
        match self.next_raw_line()? {
            None => Ok(None),
            Some((at, line)) => {
                let line = std::str::from_utf8(line).map_err(|_| "a line that is not UTF-8")?;
                Ok(Some((at, line)))
            }
        }
    }

    /// Passes over the next `n` lines without reading them as text (a
    /// table a query does not need); an error when the file ends first.
    pub(crate) fn skip_lines(&mut self, n: usize) -> Result<(), String> {
        for i in 0..n {
            let skipped = self.reader.skip_until(b'\n').map_err(|e| e.to_string())?;
            if skipped == 0 {
                return Err(format!("declares {n} rows but has {i}"));
            }
            self.offset += skipped as u64;
            self.number += 1;
        }
        Ok(())
    }

    /// The next line as bytes, without its line break (a row of numbers,
    /// read without a UTF-8 check); `None` at the end of the file.
    pub(crate) fn next_raw_line(&mut self) -> Result<Option<(u64, &[u8])>, String> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(None);
        }
        let at = self.offset;
        self.offset += n as u64;
        self.number += 1;
        let line = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        Ok(Some((at, line.strip_suffix(b"\r").unwrap_or(line))))
    }

    /// The file at `path` if its head says `generation`: the file, to read
    /// rows from by offset.
    pub(crate) fn of_generation(path: &Path, generation: u64) -> Option<File> {
        let mut lines = Self::open(path).ok()?;
        lines.reader = BufReader::with_capacity(4096, lines.reader.into_inner());
        while let Some((_, line)) = lines.next_line().ok()? {
            if let Some(g) = line.strip_prefix("generation:") {
                return (g.trim().parse::<u64>().ok()? == generation)
                    .then(|| lines.reader.into_inner());
            }
            if line.contains('[') {
                return None;
            }
        }
        None
    }
}

/// Reads `len` bytes at `offset` of `file` into `buf`, as text.
pub(crate) fn read_at<'b>(
    file: &mut File,
    offset: u64,
    len: usize,
    buf: &'b mut Vec<u8>,
) -> Option<&'b str> {
    buf.resize(len, 0);
    file.seek(SeekFrom::Start(offset)).ok()?;
    file.read_exact(buf).ok()?;
    std::str::from_utf8(buf).ok()
}
