//! An index file that a rebuild's workers fill together, in place.
//!
//! A TOON table starts with its row count, known only once every file has
//! been read. Rows used to go to one part file per worker, copied into the
//! index file behind the header at the end: some 150 MB copied, a tenth of
//! a rebuild at 100,000 sessions. Here every worker appends its rows to the
//! index file itself, after room left at the top; finishing writes the head
//! (scalars, then the table header) into that room, with blank lines
//! between the two taking up what the head does not need.
//!
//! The file is overwritten where it is, not replaced: replacing it freed
//! the old file's pages when the new one was renamed over it (0.1 s at the
//! end of a 100,000-session rebuild), where overwriting reuses them. So the
//! rebuild holds the directory's writer lock throughout, and readers wait
//! for it instead of reading a file half rewritten.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use crucible_core::store::atomic::write_atomic;

use crate::toon;

/// The most blank lines left between the scalars and the table header:
/// a row count a few digits shorter than the room was made for.
const MAX_PADDING: usize = 8;

/// What stands above a file's rows: its scalar lines, then the header of
/// its one table.
#[derive(Debug)]
pub struct Head {
    pub scalars: String,
    pub table: &'static str,
    pub fields: &'static [&'static str],
}

impl Head {
    /// The head over `rows` rows.
    fn text(&self, rows: usize) -> (usize, String) {
        let mut header = String::new();
        toon::write_header(&mut header, self.table, rows, self.fields);
        (self.scalars.len() + header.len(), header)
    }
}

/// A table file being written: `room` bytes reserved, then rows.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    head: Head,
    room: usize,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    file: File,
    rows: usize,
    /// The first failed append: the rows it held are lost, so the rebuild
    /// fails rather than writing an index without them.
    error: Option<std::io::Error>,
    finished: bool,
}

impl TableFile {
    /// Opens `path` (created if missing) for rewriting, with room
    /// (newlines) for `head` over up to `max_rows` rows.
    pub fn overwrite(path: PathBuf, head: Head, max_rows: usize) -> std::io::Result<Self> {
        let (room, _) = head.text(max_rows);
        // Readable too: a head that outgrows its room copies the rows out.
        let mut file = crate::files::own_file_for_write(
            &path,
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )?;
        file.write_all(&vec![b'\n'; room])?;
        Ok(Self {
            path,
            head,
            room,
            state: Mutex::new(State {
                file,
                rows: 0,
                error: None,
                finished: false,
            }),
        })
    }

    /// Appends `rows` rows written as `text` (whole lines).
    pub fn append(&self, text: &str, rows: usize) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if state.error.is_some() {
            return;
        }
        match state.file.write_all(text.as_bytes()) {
            Ok(()) => state.rows += rows,
            Err(e) => state.error = Some(e),
        }
    }

    /// Appends `text` (`rows` rows) here and `beside` (as many rows) to
    /// `other`, with no other append to either in between: the two files'
    /// rows stay in step, row `i` of one beside row `i` of the other. Every
    /// caller takes the two in the same order, so two cannot deadlock.
    pub fn append_beside(&self, text: &str, rows: usize, other: &TableFile, beside: &str) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut other_state = other
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (st, text) in [(&mut *state, text), (&mut *other_state, beside)] {
            if st.error.is_some() {
                continue;
            }
            match st.file.write_all(text.as_bytes()) {
                Ok(()) => st.rows += rows,
                Err(e) => st.error = Some(e),
            }
        }
    }

    pub fn rows(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .rows
    }

    /// Writes the head at the top and `tail` after the rows, and cuts off
    /// what is left of the old file.
    pub fn finish(self, tail: &str) -> std::io::Result<()> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = state.error.take() {
            return Err(e);
        }
        let (need, header) = self.head.text(state.rows);
        let scalars = &self.head.scalars;
        // Where the rows end; the old file may go on past it.
        let end = state.file.stream_position()?;
        if need > self.room || self.room - need > MAX_PADDING {
            // More rows than the room was made for, or so few that the
            // padding would be a screenful of blank lines (a directory of
            // notes, no session): the file is written anew, rows after the
            // head (rare, and cheap for few rows).
            let mut text = format!("{scalars}{header}");
            state.file.seek(SeekFrom::Start(self.room as u64))?;
            (&mut state.file)
                .take(end - self.room as u64)
                .read_to_string(&mut text)?;
            text.push_str(tail);
            write_atomic(&self.path, text.as_bytes())?;
        } else {
            state.file.write_all(tail.as_bytes())?;
            state.file.set_len(end + tail.len() as u64)?;
            let mut head = String::with_capacity(self.room);
            head.push_str(scalars);
            head.extend(std::iter::repeat_n('\n', self.room - need));
            head.push_str(&header);
            state.file.seek(SeekFrom::Start(0))?;
            state.file.write_all(head.as_bytes())?;
        }
        state.finished = true;
        crate::seal::note(&self.path);
        Ok(())
    }
}

impl Drop for TableFile {
    /// A table left unfinished (a failed rebuild) is not an index: the file
    /// goes, and the next command rebuilds.
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if !state.finished {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const FIELDS: &[&str] = &["a", "b"];

    fn head() -> Head {
        Head {
            scalars: "version: 1\n".into(),
            table: "t",
            fields: FIELDS,
        }
    }

    fn rows(n: usize, from: usize) -> String {
        (from..from + n).map(|i| format!("  {i},x{i}\n")).collect()
    }

    /// Fills a table from `threads` threads, `per_thread` rows each, with
    /// room for `room_rows` rows in the header.
    fn fill(dir: &Path, threads: usize, per_thread: usize, room_rows: usize) -> String {
        let dest = dir.join("t.toon");
        // An older, longer file is overwritten and cut to the new length.
        std::fs::write(&dest, "x".repeat(200_000)).unwrap();
        let table = TableFile::overwrite(dest.clone(), head(), room_rows).unwrap();
        std::thread::scope(|s| {
            for t in 0..threads {
                let table = &table;
                s.spawn(move || {
                    for chunk in 0..per_thread / 10 {
                        table.append(&rows(10, t * per_thread + chunk * 10), 10);
                    }
                });
            }
        });
        assert_eq!(table.rows(), threads * per_thread);
        table.finish("tail: 1\n").unwrap();
        std::fs::read_to_string(dest).unwrap()
    }

    fn check(text: &str, n: usize) {
        let doc = toon::parse(text).unwrap();
        let table = doc.table("t").unwrap();
        let mut got: Vec<usize> = table
            .rows
            .iter()
            .map(|r| r.split(',').next().unwrap().parse().unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, (0..n).collect::<Vec<_>>());
        assert_eq!(doc.scalar("tail"), Some("1"));
        let theirs: serde_json::Value = toon_format::decode_default(text).unwrap();
        assert_eq!(theirs["t"].as_array().unwrap().len(), n);
        assert_eq!(theirs["version"], 1);
    }

    #[test]
    fn rows_from_many_threads_end_up_under_an_exact_header() {
        let dir = tempfile::tempdir().unwrap();
        let text = fill(dir.path(), 4, 250, 100_000);
        // 1000 rows in room made for 100000: two blank lines fill the rest.
        assert!(
            text.starts_with("version: 1\n\n\nt[1000]{a,b}:\n  "),
            "{text:.60}"
        );
        check(&text, 1000);
    }

    #[test]
    fn more_rows_than_the_room_was_made_for_are_copied_under_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let text = fill(dir.path(), 2, 500, 9);
        assert!(
            text.starts_with("version: 1\nt[1000]{a,b}:\n  "),
            "{text:.60}"
        );
        check(&text, 1000);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_empty_table_gets_no_screenful_of_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let text = fill(dir.path(), 1, 0, 100_000);
        assert_eq!(text, "version: 1\nt[0]:\ntail: 1\n");
        check(&text, 0);
    }

    #[test]
    fn a_table_dropped_unfinished_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.toon");
        let table = TableFile::overwrite(path.clone(), head(), 10).unwrap();
        table.append(&rows(3, 0), 3);
        drop(table);
        assert!(!path.exists());
    }
}
