//! The append-only journal beside a live session file.
//!
//! `cru session log` and the recorder append events here (one JSON line
//! each) instead of rewriting the markdown, which keeps recording O(1) per
//! event. Every read applies the journal, so nothing in it is invisible to
//! cru; folding writes it into the markdown.
//!
//! A journal is a run of *segments*, each the events one fold wrote into
//! the markdown closed by that fold's marker, then the *open* events no fold
//! has written yet. Folded segments stay for a few folds
//! ([`KEPT_SEGMENTS`]): a person's editor that read the file before a fold
//! and saves over it after (held up between its check and its rename) would
//! otherwise take those events with it. A reader applies the segments after
//! the latest one its file holds, then the open events (see
//! [`JournalContents::pending_for`]); decision 0005 has the reasoning.
//!
//! Crash safety: an append is one `write` of whole lines; a line cut short by
//! a crash has no newline, is ignored by readers and trimmed by the next
//! writer. A fold first appends its marker, naming the hash of the markdown
//! it is about to write; if a crash comes before the rename, the file does
//! not hold that segment and readers apply it, and if after, they find it
//! held and apply nothing twice. Dropping old segments rewrites the journal
//! atomically (temporary file, rename).

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic;
use super::safe_file::{UnsafeFile, open_own, open_own_for_write};
use crate::TimedEvent;

/// How many folded segments a journal keeps: an editor held up across this
/// many folds (three more `cru session log` writers after the one whose
/// fold it missed) still loses nothing.
pub const KEPT_SEGMENTS: usize = 4;

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

/// The line that closes a segment: the events before it (back to the
/// previous marker) were folded into a markdown file with this hash.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FoldMarker {
    folded: String,
    /// Lines the fold added, as `(hash, count in the folded file)`: a file
    /// with none of them does not hold the events (an editor that read the
    /// file before the fold saved over it), one with any of them does (it
    /// was edited after the fold). Absent in markers of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    added: Option<Vec<(String, usize)>>,
}

/// The first line of a journal: how many bytes after it are folded
/// segments, so a writer can tell how much is open without reading the rest
/// (the fold trigger counts only open bytes; counting kept ones would fold
/// on every append). Written with the number right-aligned in a fixed width
/// (JSON allows the spaces), so each fold updates it in place.
///
/// It is a hint for *when* to fold, never for *what* is pending: a header
/// that a crash left stale only makes a fold come sooner or later.
#[derive(Debug, Serialize, Deserialize)]
struct KeptHeader {
    kept: u64,
}

/// The header line for `kept` folded bytes: always [`HEADER_LEN`] bytes.
fn header_line(kept: u64) -> String {
    format!("{{\"kept\":{kept:>20}}}\n")
}

/// The length of [`header_line`], newline included.
const HEADER_LEN: usize = 30;

/// Where the number starts in [`header_line`].
const HEADER_NUMBER_AT: usize = 8;

/// A journal is rewritten to its last [`KEPT_SEGMENTS`] once it holds
/// this many: a rewrite costs two `fsync`s, so it is done once every few
/// folds rather than at each.
const REWRITE_AT_SEGMENTS: usize = 2 * KEPT_SEGMENTS;

/// How many added lines a marker names: a few suffice to tell the two
/// kinds of file apart, and the marker stays one short line.
const WITNESS_LINES: usize = 8;

/// Line counts of a text, by line.
fn line_counts(text: &[u8]) -> HashMap<&[u8], usize> {
    let mut counts = HashMap::new();
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

/// A markdown file, looked at by the markers that ask whether it holds
/// their fold: its hash and its line counts by hash, each made once and
/// only if a marker asks.
struct FileUnderTest<'a> {
    bytes: &'a [u8],
    hash: Option<String>,
    counts: Option<HashMap<String, usize>>,
}

impl<'a> FileUnderTest<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            hash: None,
            counts: None,
        }
    }

    /// Whether this file holds the events of the fold `marker` closed:
    /// it is the file the fold wrote, or it has one of the lines the fold
    /// added as often as that file had it (it was edited after the fold).
    fn holds(&mut self, marker: &FoldMarker) -> bool {
        let bytes = self.bytes;
        if *self.hash.get_or_insert_with(|| content_hash(bytes)) == marker.folded {
            return true;
        }
        let Some(added) = &marker.added else {
            return false;
        };
        let counts = self.counts.get_or_insert_with(|| {
            line_counts(bytes)
                .into_iter()
                .map(|(l, n)| (content_hash(l), n))
                .collect()
        });
        // A fold that added no line witnesses nothing: only its own file
        // (the hash) holds it, and a reader goes on looking further back.
        added
            .iter()
            .any(|(h, n)| counts.get(h).is_some_and(|have| have >= n))
    }
}

/// A whole line of a journal that is neither blank, a marker nor the
/// header: an event, parsed only when it is needed.
#[derive(Debug, Clone)]
struct EventLine {
    /// 1-based, as a person counts lines.
    number: usize,
    at: std::ops::Range<usize>,
}

/// The event lines of one fold, closed by its marker.
#[derive(Debug)]
struct Segment {
    lines: Vec<EventLine>,
    marker: FoldMarker,
    /// Its bytes in the journal, its marker's line included.
    bytes: std::ops::Range<usize>,
}

/// What a journal holds. Only markers are parsed when it is read: the
/// events of folds the file holds are never applied again, so a reader
/// parses only those it applies (a journal may keep several times the open
/// events in folded ones).
#[derive(Debug, Default)]
pub struct JournalContents {
    text: String,
    /// The folded segments kept, oldest first.
    segments: Vec<Segment>,
    /// The open event lines: after the last marker, folded into no file yet.
    open: Vec<EventLine>,
    /// The last line was cut short by a crash: its event's call never
    /// returned, so it is ignored.
    pub torn: bool,
}

/// The events to apply, and the lines among them that could not be read.
#[derive(Debug, Default)]
pub struct Pending {
    pub events: Vec<TimedEvent>,
    /// 1-based lines that are whole but could not be read (written by a newer
    /// cru, or edited by hand). A fold keeps the journal rather than lose them.
    pub bad_lines: Vec<usize>,
}

impl JournalContents {
    /// The events still to apply to a markdown file with these bytes: the
    /// segments after the latest one the file holds, then the open events.
    ///
    /// Segments before the latest held one are never applied again, even
    /// where later folds changed the lines that witnessed them: that is what
    /// makes keeping several safe. A file that holds none (an editor's copy
    /// from before them all, or folds that never got as far as their
    /// rename) gets every kept segment.
    pub fn pending_for(&self, markdown: &[u8]) -> Pending {
        let from = self.latest_held(markdown).map_or(0, |i| i + 1);
        let lines = self.segments[from..]
            .iter()
            .flat_map(|s| &s.lines)
            .chain(&self.open);
        self.parse(lines)
    }

    /// Every event line parsed: the lines of every kept fold too. For what
    /// removes or checks the whole journal.
    pub fn all(&self) -> Pending {
        let lines = self
            .segments
            .iter()
            .flat_map(|s| &s.lines)
            .chain(&self.open);
        self.parse(lines)
    }

    fn parse<'a>(&self, lines: impl Iterator<Item = &'a EventLine>) -> Pending {
        let mut out = Pending::default();
        for line in lines {
            match serde_json::from_str::<TimedEvent>(&self.text[line.at.clone()]) {
                Ok(e) => out.events.push(e),
                Err(_) => out.bad_lines.push(line.number),
            }
        }
        out
    }

    /// The index of the latest segment the markdown holds.
    fn latest_held(&self, markdown: &[u8]) -> Option<usize> {
        let mut file = FileUnderTest::new(markdown);
        self.segments.iter().rposition(|s| file.holds(&s.marker))
    }

    /// How many folded segments the journal keeps.
    pub fn kept_segments(&self) -> usize {
        self.segments.len()
    }
}

/// One whole line of a journal, told apart without parsing events.
enum Line {
    Event,
    Marker(FoldMarker),
    Header,
    Blank,
}

fn classify(line: &str) -> Line {
    if line.trim().is_empty() {
        Line::Blank
    } else if line.contains("\"folded\"")
        && let Ok(m) = serde_json::from_str::<FoldMarker>(line)
    {
        // An event has no top-level `folded`: the parse is what decides.
        Line::Marker(m)
    } else if line.starts_with("{\"kept\"") && serde_json::from_str::<KeptHeader>(line).is_ok() {
        Line::Header
    } else {
        Line::Event
    }
}

/// The journal's whole lines (a torn last line left out) and whether one
/// was torn; `None` when there is no journal.
fn read_text(path: &Path) -> io::Result<Option<(String, bool)>> {
    let mut bytes = Vec::new();
    match open_journal(path, OpenOptions::new().read(true)) {
        Ok(mut f) => f.read_to_end(&mut bytes)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let torn = complete < text.len();
    text.truncate(complete);
    Ok(Some((text, torn)))
}

/// Reads a journal; `Ok(None)` when there is none.
pub fn read(path: &Path) -> io::Result<Option<JournalContents>> {
    let Some((text, torn)) = read_text(path)? else {
        return Ok(None);
    };
    let mut segments = Vec::new();
    let mut open = Vec::new();
    let mut offset = 0;
    let mut segment_from = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let at = offset..offset + line.len();
        offset = at.end;
        match classify(line) {
            Line::Event => open.push(EventLine { number: i + 1, at }),
            Line::Marker(marker) => {
                segments.push(Segment {
                    lines: std::mem::take(&mut open),
                    marker,
                    bytes: segment_from..at.end,
                });
                segment_from = at.end;
            }
            Line::Header => segment_from = at.end,
            Line::Blank => {}
        }
    }
    Ok(Some(JournalContents {
        text,
        segments,
        open,
        torn,
    }))
}

/// What a writer finds at the end of a journal before appending.
#[derive(Debug, PartialEq, Eq)]
pub enum Tail {
    /// No journal, or one ending in whole event lines.
    Clean,
    /// A fold came last: its marker is the last line.
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

/// The number of folded bytes in the journal's header; `None` when it has
/// none (a journal of an older version).
fn read_header(f: &mut fs::File) -> io::Result<Option<u64>> {
    f.seek(SeekFrom::Start(0))?;
    let mut head = [0u8; HEADER_LEN];
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    if got < HEADER_LEN || head[HEADER_LEN - 1] != b'\n' {
        return Ok(None);
    }
    Ok(
        serde_json::from_slice::<KeptHeader>(&head[..HEADER_LEN - 1])
            .ok()
            .map(|h| h.kept),
    )
}

/// How much of a journal of length `len` is open: all of it less the header
/// and the folded bytes it counts.
fn open_bytes(f: &mut fs::File, len: u64) -> io::Result<u64> {
    Ok(match read_header(f)? {
        Some(kept) => len.saturating_sub(kept.saturating_add(HEADER_LEN as u64)),
        None => len,
    })
}

/// Appends whole lines (a new journal starts with its header); returns how
/// many bytes are open.
fn append_lines(path: &Path, lines: &str, durable: bool) -> io::Result<u64> {
    let mut f = open_journal_for_write(
        path,
        OpenOptions::new().create(true).read(true).append(true),
    )?;
    // Under the directory lock no one else appends: empty means new.
    let fresh = f.metadata()?.len() == 0;
    let mut bytes = if fresh { header_line(0) } else { String::new() };
    bytes.push_str(lines);
    // One write of whole lines: a crash can cut it short, never interleave it.
    f.write_all(bytes.as_bytes())?;
    if durable {
        f.sync_data()?;
    }
    let len = f.metadata()?.len();
    // Writes in append mode always go to the end: reading the header moves
    // nothing that matters.
    open_bytes(&mut f, len)
}

/// Appends events; returns how many bytes of the journal are open (not
/// folded), which is what the fold trigger weighs against the file.
pub fn append(path: &Path, events: &[TimedEvent], durable: bool) -> io::Result<u64> {
    let mut lines = String::new();
    for e in events {
        lines.push_str(&serde_json::to_string(e).map_err(io::Error::other)?);
        lines.push('\n');
    }
    append_lines(path, &lines, durable)
}

/// How many bytes of the journal at `path` are open; 0 when there is none.
pub fn open_size(path: &Path) -> io::Result<u64> {
    match open_journal(path, OpenOptions::new().read(true)) {
        Ok(mut f) => {
            let len = f.metadata()?.len();
            open_bytes(&mut f, len)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
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

/// Appends the marker that closes a segment, counts everything up to it as
/// folded in the header (in place, when the journal has one), and syncs.
fn write_marker(path: &Path, marker: &FoldMarker) -> io::Result<()> {
    let mut line = serde_json::to_string(marker).map_err(io::Error::other)?;
    line.push('\n');
    append_lines(path, &line, false)?;
    let mut f = open_journal_for_write(path, OpenOptions::new().read(true).write(true))?;
    let len = f.metadata()?.len();
    if read_header(&mut f)?.is_some() {
        let kept = header_line(len.saturating_sub(HEADER_LEN as u64));
        f.seek(SeekFrom::Start(HEADER_NUMBER_AT as u64))?;
        f.write_all(&kept.as_bytes()[HEADER_NUMBER_AT..HEADER_LEN - 2])?;
    }
    f.sync_data()
}

/// Once the journal holds [`REWRITE_AT_SEGMENTS`] folded segments, drops
/// those older than the last [`KEPT_SEGMENTS`] up to the latest one
/// `markdown` holds (segments after it, which the file does not hold, all
/// stay). Rewrites the journal atomically, with its header; leaves it as it
/// is when it has lines that cannot be read (nothing is dropped that was not
/// understood). Call with the directory lock held.
pub fn keep_recent(path: &Path, markdown: &[u8]) -> io::Result<()> {
    let Some(contents) = read(path)? else {
        return Ok(());
    };
    let segments = &contents.segments;
    if segments.len() < REWRITE_AT_SEGMENTS || !contents.all().bad_lines.is_empty() {
        return Ok(());
    }
    let first_kept = contents.latest_held(markdown).map_or(0, |held| {
        // Back from the held one until KEPT_SEGMENTS of them carry events
        // (a fold again of an editor's copy carries none of its own).
        let mut with_events = 0;
        (0..=held)
            .rev()
            .find(|&i| {
                with_events += usize::from(!segments[i].lines.is_empty());
                with_events == KEPT_SEGMENTS
            })
            .unwrap_or(0)
    });
    let kept =
        &contents.text[segments[first_kept].bytes.start..segments[segments.len() - 1].bytes.end];
    let rest = &contents.text[segments[segments.len() - 1].bytes.end..];
    let header = header_line(kept.len() as u64);
    atomic::write_atomic(path, format!("{header}{kept}{rest}").as_bytes())
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

    /// How many events the journal at `j` has pending for a file `md`.
    fn pending(j: &Path, md: &[u8]) -> usize {
        read(j).unwrap().unwrap().pending_for(md).events.len()
    }

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
        let all = read1.all();
        assert_eq!(all.events.len(), 2);
        assert!(read1.torn && all.bad_lines.is_empty());
        assert_eq!(repair_tail(&j).unwrap(), Tail::Clean);
        append(&j, &[event(3)], false).unwrap();
        let read2 = read(&j).unwrap().unwrap();
        let all = read2.all();
        assert_eq!(all.events.len(), 3);
        assert!(!read2.torn && all.bad_lines.is_empty());
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
        assert!(pending(&j, b"new file") == 0);
        assert_eq!(pending(&j, b"old file"), 1);
    }

    #[test]
    fn a_kept_fold_applies_only_to_a_file_saved_from_before_it() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        append(&j, &[event(1)], true).unwrap();
        let before = b"# S\n\n## Work\n- `a`\n";
        let folded = b"# S\n\n## Work\n- `a`\n- `a`\n## Next\n";
        mark_folded_from(&j, before, folded).unwrap();
        assert_eq!(pending(&j, folded), 0, "the folded file itself");
        assert_eq!(
            pending(&j, b"# S\n\n## Work\n- `a`\n- `a`\n## Next\nnote\n"),
            0,
            "edited after the fold"
        );
        assert_eq!(
            pending(&j, b"# S\n\n## Work\n- `a`\nnote\n"),
            1,
            "saved from before the fold"
        );
        assert_eq!(pending(&j, before), 1, "the fold never renamed");
    }

    /// A journal whose segments fold one line each into a file that grows
    /// by that line: returns the files after each fold.
    fn folded_lines(j: &Path, lines: &[&str]) -> Vec<Vec<u8>> {
        let mut file = b"# S\n".to_vec();
        let mut files = vec![file.clone()];
        for (n, line) in (1..).zip(lines) {
            append(j, &[event(n)], true).unwrap();
            let before = file.clone();
            file.extend_from_slice(format!("{line}\n").as_bytes());
            mark_folded_from(j, &before, &file).unwrap();
            files.push(file.clone());
        }
        files
    }

    #[test]
    fn a_copy_from_before_several_folds_gets_each_fold_it_missed() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        let files = folded_lines(&j, &["## One", "## Two", "## Three"]);
        append(&j, &[event(9)], true).unwrap();
        let pending = |md: &[u8]| {
            read(&j)
                .unwrap()
                .unwrap()
                .pending_for(md)
                .events
                .iter()
                .map(|e| match e.event {
                    crate::SessionEvent::Tokens { tokens } => tokens,
                    _ => 0,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pending(&files[3]),
            [9],
            "the latest file: only the open event"
        );
        assert_eq!(
            pending(&files[2]),
            [3, 9],
            "a copy from before the last fold"
        );
        assert_eq!(pending(&files[1]), [2, 3, 9]);
        assert_eq!(
            pending(&files[0]),
            [1, 2, 3, 9],
            "a copy from before them all"
        );
        let mut edited = files[2].clone();
        edited.extend_from_slice(b"note\n");
        assert_eq!(pending(&edited), [3, 9], "edited after the second fold");
    }

    #[test]
    fn a_fold_that_added_no_line_is_held_only_by_its_own_file() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        let files = folded_lines(&j, &["## One"]);
        append(&j, &[event(2)], true).unwrap();
        // The second fold removed a line and added none.
        mark_folded_from(&j, &files[1], b"## One\n").unwrap();
        assert_eq!(pending(&j, b"## One\n"), 0);
        assert_eq!(
            pending(&j, &files[1]),
            1,
            "holds the first fold, not the second"
        );
        assert_eq!(
            pending(&j, &files[0]),
            2,
            "a copy from before both loses neither"
        );
    }

    const EIGHT: [&str; 8] = [
        "## 1", "## 2", "## 3", "## 4", "## 5", "## 6", "## 7", "## 8",
    ];

    #[test]
    fn keeping_recent_folds_drops_the_oldest_and_counts_only_open_bytes() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        let files = folded_lines(&j, &EIGHT[..REWRITE_AT_SEGMENTS - 1]);
        let latest = files.last().unwrap();
        let before = std::fs::read(&j).unwrap();
        keep_recent(&j, latest).unwrap();
        assert_eq!(std::fs::read(&j).unwrap(), before, "not due yet");
        assert_eq!(open_size(&j).unwrap(), 0, "the header counts every fold");

        let files = folded_lines(&t.path().join(".t.md.journal"), &EIGHT);
        let j = t.path().join(".t.md.journal");
        let latest = files.last().unwrap();
        keep_recent(&j, latest).unwrap();
        let contents = read(&j).unwrap().unwrap();
        assert!(contents.all().bad_lines.is_empty());
        assert_eq!(contents.kept_segments(), KEPT_SEGMENTS);
        assert_eq!(open_size(&j).unwrap(), 0, "everything left is folded");
        let open = append(&j, &[event(9)], true).unwrap();
        assert_eq!(open, open_size(&j).unwrap());
        assert_eq!(
            open as usize,
            serde_json::to_string(&event(9)).unwrap().len() + 1
        );
        assert_eq!(pending(&j, latest), 1);
        assert_eq!(
            pending(&j, &files[4]),
            4 + 1,
            "a copy from before the last four"
        );
    }

    #[test]
    fn keeping_recent_folds_never_drops_what_the_file_does_not_hold() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        let files = folded_lines(&j, &EIGHT);
        // The file is a copy from before the sixth fold: the three after it
        // stay, and the four up to the one it holds.
        keep_recent(&j, &files[5]).unwrap();
        assert_eq!(read(&j).unwrap().unwrap().kept_segments(), 4 + 3);
        assert_eq!(pending(&j, &files[5]), 3);

        // A file holding none of them: nothing goes.
        let j = t.path().join(".t.md.journal");
        folded_lines(&j, &EIGHT);
        keep_recent(&j, b"# S\n").unwrap();
        assert_eq!(read(&j).unwrap().unwrap().kept_segments(), 8);

        // A line that cannot be read: nothing is rewritten.
        let j = t.path().join(".u.md.journal");
        let files = folded_lines(&j, &EIGHT);
        let mut f = OpenOptions::new().append(true).open(&j).unwrap();
        f.write_all(b"{not json}\n").unwrap();
        let before = std::fs::read(&j).unwrap();
        keep_recent(&j, &files[8]).unwrap();
        assert_eq!(std::fs::read(&j).unwrap(), before);
    }

    #[test]
    fn a_journal_of_an_older_version_reads_as_one_fold() {
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        let line = |n| serde_json::to_string(&event(n)).unwrap();
        let marker = format!("{{\"folded\":\"{}\"}}", content_hash(b"folded"));
        std::fs::write(&j, format!("{}\n{}\n{marker}\n", line(1), line(2))).unwrap();
        let contents = read(&j).unwrap().unwrap();
        assert_eq!(contents.kept_segments(), 1);
        assert_eq!(contents.all().events.len(), 2);
        assert!(contents.all().bad_lines.is_empty());
        assert!(pending(&j, b"folded") == 0);
        assert_eq!(pending(&j, b"other"), 2);
        assert_eq!(
            open_size(&j).unwrap(),
            size(&j),
            "no header: all of it counts"
        );
        append(&j, &[event(3)], true).unwrap();
        assert_eq!(pending(&j, b"folded"), 1);
    }

    #[test]
    fn the_header_is_one_fixed_width_line() {
        assert_eq!(header_line(0).len(), HEADER_LEN);
        assert_eq!(header_line(u64::MAX).len(), HEADER_LEN);
        let t = tempfile::tempdir().unwrap();
        let j = t.path().join(".s.md.journal");
        append(&j, &[event(1)], true).unwrap();
        mark_folded(&j, "h").unwrap();
        let text = std::fs::read_to_string(&j).unwrap();
        let first = text.lines().next().unwrap();
        assert_eq!(first.len() + 1, HEADER_LEN, "{first}");
        let kept: KeptHeader = serde_json::from_str(first).unwrap();
        assert_eq!(kept.kept as usize, text.len() - HEADER_LEN);
        assert_eq!(open_size(&j).unwrap(), 0);
    }

    #[test]
    fn hashes_are_stable() {
        assert_eq!(content_hash(b""), "cbf29ce484222325");
        assert_eq!(content_hash(b"a"), "af63dc4c8601ec8c");
    }
}
