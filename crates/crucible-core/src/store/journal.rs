//! The append-only journal beside a live session file.
//!
//! `cru session log` and the recorder append events here (one JSON line
//! each) instead of rewriting the markdown, which keeps recording O(1) per
//! event. Every read applies the journal, so nothing in it is invisible to
//! cru; folding writes it into the markdown and removes it.
//!
//! Crash safety: an append is one `write` of whole lines; a line cut short by
//! a crash has no newline, is ignored by readers and trimmed by the next
//! writer. A fold first appends a marker naming the hash of the markdown it
//! is about to write; if a crash comes between that rename and the removal of
//! the journal, readers see the marker match the file and apply nothing twice.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::safe_file::{UnsafeFile, open_own, open_own_for_write};
use crate::TimedEvent;

/// Opens the journal for reading, never through a link (see
/// [`super::safe_file`]).
fn open_journal(path: &Path, options: &mut OpenOptions) -> io::Result<fs::File> {
    open_own(path, options).map_err(UnsafeFile::into_io)
}

/// Opens the journal for writing: never through a link, and never into an
/// inode another name shares.
fn open_journal_for_write(path: &Path, options: &mut OpenOptions) -> io::Result<fs::File> {
    open_own_for_write(path, options).map_err(UnsafeFile::into_io)
}

/// The journal of the session file at `session`: a hidden file beside it, so
/// scans of the sessions directory never take it for a session.
pub fn journal_path(session: &Path) -> PathBuf {
    super::names::journal(session)
}

/// The last line of a journal whose events a fold wrote into the markdown.
#[derive(Debug, Serialize, Deserialize)]
struct FoldMarker {
    folded: String,
    /// Lines the fold added, as `(hash, count in the folded file)`: a file
    /// with none of them does not hold the events (an editor that read the
    /// file before the fold saved over it), one with any of them does (it
    /// was edited after the fold). Absent in markers of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    added: Option<Vec<(String, usize)>>,
}

/// How many added lines a marker names: a few suffice to tell the two
/// kinds of file apart, and the marker stays one short line.
const WITNESS_LINES: usize = 8;

/// Line counts of a text, by line.
fn line_counts(text: &[u8]) -> std::collections::HashMap<&[u8], usize> {
    let mut counts = std::collections::HashMap::new();
    for line in text.split(|&b| b == b'\n') {
        if !line.iter().all(u8::is_ascii_whitespace) {
            *counts.entry(line).or_insert(0) += 1;
        }
    }
    counts
}

/// The lines `after` has more often than `before`, as `(hash, count in after)`,
/// in the order they first appear in `after`, at most [`WITNESS_LINES`].
fn added_lines(before: &[u8], after: &[u8]) -> Vec<(String, usize)> {
    let was = line_counts(before);
    let now = line_counts(after);
    let mut seen = std::collections::HashSet::new();
    after
        .split(|&b| b == b'\n')
        .filter(|l| now.get(l).copied().unwrap_or(0) > was.get(l).copied().unwrap_or(0))
        .filter(|l| seen.insert(*l))
        .take(WITNESS_LINES)
        .map(|l| (content_hash(l), now[l]))
        .collect()
}

/// A stable 64-bit FNV-1a hash (std's hasher may change between releases,
/// and markers outlive the binary that wrote them).
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// What a journal holds.
#[derive(Debug, Default)]
pub struct JournalContents {
    pub events: Vec<TimedEvent>,
    /// The hash in a fold marker, when the journal ends with one.
    pub folded: Option<String>,
    /// The lines that fold added (see [`FoldMarker`]).
    added: Option<Vec<(String, usize)>>,
    /// 1-based lines that are whole but could not be read (written by a newer
    /// cru, or edited by hand). A fold keeps the journal rather than lose them.
    pub bad_lines: Vec<usize>,
    /// The last line was cut short by a crash: its event's call never
    /// returned, so it is ignored.
    pub torn: bool,
}

impl JournalContents {
    /// The events still to apply to a markdown file with these bytes: none
    /// when a fold already wrote exactly this file.
    ///
    /// A file other than the one the fold wrote holds the events when it has
    /// any line the fold added: it was edited after the fold. With none, it
    /// was saved by someone who read the file before the fold (or the fold
    /// never got as far as its rename), and the events still apply.
    pub fn pending_for(self, markdown: &[u8]) -> Vec<TimedEvent> {
        let Some(folded) = &self.folded else {
            return self.events;
        };
        if *folded == content_hash(markdown) {
            return Vec::new();
        }
        match &self.added {
            Some(added) => {
                let counts: std::collections::HashMap<String, usize> = line_counts(markdown)
                    .into_iter()
                    .map(|(l, n)| (content_hash(l), n))
                    .collect();
                let holds_the_fold = added.is_empty()
                    || added
                        .iter()
                        .any(|(h, n)| counts.get(h).is_some_and(|have| have >= n));
                if holds_the_fold {
                    Vec::new()
                } else {
                    self.events
                }
            }
            None => self.events,
        }
    }
}

/// Reads a journal; `Ok(None)` when there is none.
pub fn read(path: &Path) -> io::Result<Option<JournalContents>> {
    let mut bytes = Vec::new();
    match open_journal(path, OpenOptions::new().read(true)) {
        Ok(mut f) => f.read_to_end(&mut bytes)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut out = JournalContents::default();
    let text = String::from_utf8_lossy(&bytes);
    let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
    out.torn = complete.len() < text.len();
    for (i, line) in complete.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Ok(e) = serde_json::from_str::<TimedEvent>(line) {
            out.events.push(e);
        } else if let Ok(m) = serde_json::from_str::<FoldMarker>(line) {
            out.folded = Some(m.folded);
            out.added = m.added;
        } else {
            out.bad_lines.push(i + 1);
        }
    }
    Ok(Some(out))
}

/// What a writer finds at the end of a journal before appending.
#[derive(Debug, PartialEq, Eq)]
pub enum Tail {
    /// No journal, or one ending in whole event lines.
    Clean,
    /// A fold was interrupted: its marker is the last line.
    Folded(String),
}

/// Trims a line cut short by a crash and reports whether the journal ends in
/// a fold marker. Call with the directory lock held.
pub fn repair_tail(path: &Path) -> io::Result<Tail> {
    let mut f = match open_journal_for_write(path, OpenOptions::new().read(true).write(true)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Tail::Clean),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(Tail::Clean);
    }
    // The last line is short; 64 KiB of tail holds it and the one before.
    let start = len.saturating_sub(64 * 1024);
    f.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail)?;
    let mut end = tail.len();
    if tail.last() != Some(&b'\n') {
        end = tail.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        f.set_len(start + end as u64)?;
        f.sync_data()?;
    }
    let whole = &tail[..end];
    let last = whole[..whole.len().saturating_sub(1)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(whole, |p| &whole[p + 1..]);
    Ok(match serde_json::from_slice::<FoldMarker>(last) {
        Ok(m) => Tail::Folded(m.folded),
        Err(_) => Tail::Clean,
    })
}

fn append_lines(path: &Path, lines: &str, durable: bool) -> io::Result<u64> {
    let mut f = open_journal_for_write(path, OpenOptions::new().create(true).append(true))?;
    // One write of whole lines: a crash can cut it short, never interleave it.
    f.write_all(lines.as_bytes())?;
    if durable {
        f.sync_data()?;
    }
    Ok(f.metadata()?.len())
}

/// Appends events; returns the journal's new size.
pub fn append(path: &Path, events: &[TimedEvent], durable: bool) -> io::Result<u64> {
    let mut lines = String::new();
    for e in events {
        lines.push_str(&serde_json::to_string(e).map_err(io::Error::other)?);
        lines.push('\n');
    }
    append_lines(path, &lines, durable)
}

/// Marks the journal as folded into a markdown file with this hash.
pub fn mark_folded(path: &Path, hash: &str) -> io::Result<()> {
    write_marker(
        path,
        &FoldMarker {
            folded: hash.to_owned(),
            added: None,
        },
    )
}

/// Marks the journal as folded into `after`, made from `before`: the marker
/// also names lines `after` added, so that a reader finding another file can
/// tell whether it holds the journal's events (see
/// [`JournalContents::pending_for`]).
pub fn mark_folded_from(path: &Path, before: &[u8], after: &[u8]) -> io::Result<()> {
    write_marker(
        path,
        &FoldMarker {
            folded: content_hash(after),
            added: Some(added_lines(before, after)),
        },
    )
}

fn write_marker(path: &Path, marker: &FoldMarker) -> io::Result<()> {
    let marker = serde_json::to_string(marker).map_err(io::Error::other)?;
    append_lines(path, &format!("{marker}\n"), true).map(|_| ())
}

pub fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The size of a file, 0 when it does not exist.
pub fn size(path: &Path) -> u64 {
    // Metadata without an open: opening a FIFO would block.
    fs::metadata(path).map_or(0, |m| m.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionEvent;

    fn event(n: u64) -> TimedEvent {
        TimedEvent {
            at: "2025-12-21T10:00:00Z".parse().unwrap(),
            event: SessionEvent::Tokens { tokens: n },
        }
    }

    #[test]
    fn a_torn_last_line_is_ignored_then_trimmed() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        append(&j, &[event(1), event(2)], true).unwrap();
        let mut f = OpenOptions::new().append(true).open(&j).unwrap();
        f.write_all(b"{\"at\":\"2025-12-21T10:00:00Z\",\"event\":\"tok")
            .unwrap();
        let read1 = read(&j).unwrap().unwrap();
        assert_eq!(read1.events.len(), 2);
        assert!(read1.torn && read1.bad_lines.is_empty());
        assert_eq!(repair_tail(&j).unwrap(), Tail::Clean);
        append(&j, &[event(3)], false).unwrap();
        let read2 = read(&j).unwrap().unwrap();
        assert_eq!(read2.events.len(), 3);
        assert!(!read2.torn && read2.bad_lines.is_empty());
    }

    #[test]
    fn a_fold_marker_hides_events_only_from_the_file_it_names() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        append(&j, &[event(1)], true).unwrap();
        mark_folded(&j, &content_hash(b"new file")).unwrap();
        assert_eq!(
            repair_tail(&j).unwrap(),
            Tail::Folded(content_hash(b"new file"))
        );
        assert!(
            read(&j)
                .unwrap()
                .unwrap()
                .pending_for(b"new file")
                .is_empty()
        );
        assert_eq!(read(&j).unwrap().unwrap().pending_for(b"old file").len(), 1);
    }

    #[test]
    fn a_kept_fold_applies_only_to_a_file_saved_from_before_it() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        append(&j, &[event(1)], true).unwrap();
        let before = b"# S\n\n## Work\n- `a`\n";
        let folded = b"# S\n\n## Work\n- `a`\n- `a`\n## Next\n";
        mark_folded_from(&j, before, folded).unwrap();
        let pending = |md: &[u8]| read(&j).unwrap().unwrap().pending_for(md).len();
        assert_eq!(pending(folded), 0, "the folded file itself");
        assert_eq!(
            pending(b"# S\n\n## Work\n- `a`\n- `a`\n## Next\nnote\n"),
            0,
            "edited after the fold"
        );
        assert_eq!(
            pending(b"# S\n\n## Work\n- `a`\nnote\n"),
            1,
            "saved from before the fold"
        );
        assert_eq!(pending(before), 1, "the fold never renamed");
    }

    #[test]
    fn hashes_are_stable() {
        assert_eq!(content_hash(b""), "cbf29ce484222325");
        assert_eq!(content_hash(b"a"), "af63dc4c8601ec8c");
    }
}
