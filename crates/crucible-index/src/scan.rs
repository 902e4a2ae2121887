//! What the index makes of the files of a sessions directory.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crucible_core::SessionSummary;
use crucible_core::store::UnsafeFile;
use crucible_core::store::journal::journal_path;
use crucible_core::store::walk::{Skipped, Tree, WalkOptions, is_markdown, may_read};
use crucible_core::{DirLock, SessionStore, StoreError};
use crucible_parser::read::{declared_id, fast_summary, summary as summarize};
use crucible_parser::{MarkdownCodec, ParseError};

use crate::file_reader::FileReader;
use crate::files::{Index, RebuildTables};
use crate::record::{FileStamp, Note, PhaseRecord, Problem, SessionRecord};
use crate::table_file::TableFile;

/// One file, as the index sees it.
#[derive(Debug)]
pub enum Entry {
    /// The record, and the summary it was made from (for the phases).
    Session(Box<SessionRecord>, Box<SessionSummary>),
    Problem(Problem),
    /// Markdown that does not say `type: session` (a note in a vault), with
    /// its stamp (see [`Note`]).
    NotASession(FileStamp),
}

/// `path` relative to `root`, `/`-separated: the key of every index row.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    // The usual case in one copy: a Unix path is `/`-separated already.
    // (Anything `components` would tidy up takes the long way.)
    #[cfg(unix)]
    if let Some(s) = rel.to_str()
        && !s.starts_with('/')
        && !s.contains("//")
        && !s.starts_with("./")
        && !s.contains("/./")
        && !s.ends_with("/.")
        && s != "."
    {
        return s.trim_end_matches('/').to_owned();
    }
    joined_components(rel)
}

fn joined_components(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_what_their_components_make() {
        let root = Path::new("/s");
        for p in [
            "/s/a.md",
            "/s/x/y/b.md",
            "/s",
            "/s/",
            "/s/x/",
            "/s/x//y.md",
            "/s/./x.md",
            "/s/x/./y.md",
            "/s/x/.",
            "/s/x/../y.md",
            "/t/a.md",
            "/s/é b.md",
            "/s/.hidden/a.md",
        ] {
            let p = Path::new(p);
            let rel = p.strip_prefix(root).unwrap_or(p);
            assert_eq!(relative(root, p), joined_components(rel), "{}", p.display());
        }
    }
}

fn problem(rel: &str, stamp: FileStamp, line: usize, message: String) -> Entry {
    Entry::Problem(Problem {
        path: rel.to_owned(),
        line: line as u64,
        message,
        stamp,
    })
}

fn parse_problem(rel: &str, stamp: FileStamp, e: &ParseError) -> Entry {
    problem(rel, stamp, e.line, e.kind.to_string())
}

/// Reads one file into its index entry. A live session (one with a journal)
/// is read with its journal applied.
///
/// The file is read only if the walker would take it now (it may have been
/// replaced by a FIFO, or a link re-pointed out of the tree, since it was
/// indexed).
pub fn index_file(store: &SessionStore<MarkdownCodec>, path: &Path) -> Entry {
    if let Err(reason) = may_read(path, store.dir()) {
        return Entry::Problem(skipped_problem(
            store.dir(),
            &Skipped {
                path: path.to_owned(),
                reason,
            },
        ));
    }
    let live = journal_path(path).exists();
    index_file_with(
        store,
        path,
        live,
        None,
        &mut FileReader::new(store.max_file_bytes()),
    )
}

/// Why a file could not be read, for its problem row (which names the file).
fn unreadable(e: &UnsafeFile) -> String {
    match e {
        UnsafeFile::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
            "permission denied".to_owned()
        }
        UnsafeFile::Io { source, .. } => format!("cannot be read: {source}"),
        UnsafeFile::Link { .. } => "a symbolic link".to_owned(),
        other => other.reason(),
    }
}

/// [`index_file`] through `reader`, which a rebuild worker reuses for all
/// its files; `held` is the writer lock if the caller holds it.
pub fn index_file_with(
    store: &SessionStore<MarkdownCodec>,
    path: &Path,
    live: bool,
    held: Option<&DirLock>,
    reader: &mut FileReader,
) -> Entry {
    let rel = relative(store.dir(), path);
    let (meta, bytes) = match reader.read(path) {
        Ok(read) => read,
        Err(e) => {
            let stamp = std::fs::symlink_metadata(path)
                .map(|m| FileStamp::of(&m))
                .unwrap_or_default();
            return problem(&rel, stamp, 0, unreadable(&e));
        }
    };
    let stamp = FileStamp::of(&meta);
    let summary = if live {
        if declared_id(bytes).is_none() {
            return Entry::NotASession(stamp);
        }
        let loaded = match held {
            Some(lock) => store.load_path_locked(path, lock),
            None => store.load_path(path),
        };
        match loaded {
            Ok(log) => Ok(log.summary()),
            Err(StoreError::Decode(e)) => match e.downcast::<ParseError>() {
                Ok(pe) => return parse_problem(&rel, stamp, &pe),
                Err(e) => return problem(&rel, stamp, 0, e.to_string()),
            },
            Err(e) => return problem(&rel, stamp, 0, e.to_string()),
        }
    } else {
        // The fast scanner first: a file it reads is a session, and no
        // separate look at its head is needed.
        match fast_summary(bytes) {
            Some(s) => Ok(s),
            None if declared_id(bytes).is_none() => return Entry::NotASession(stamp),
            None => summarize(path, bytes),
        }
    };
    match summary {
        Ok(s) => Entry::Session(
            Box::new(SessionRecord::from_summary(rel, &s, stamp, live)),
            Box::new(s),
        ),
        Err(e) => parse_problem(&rel, stamp, &e),
    }
}

/// Every visible directory (the root included) and `*.md` file below
/// `root`, by the rules of the one walker ([`crucible_core::store::walk`]),
/// with the sessions that have a journal and what was skipped.
/// `dir` is the sessions directory itself, or a folder of `root`'s tree
/// (links found there must still stay inside `root`).
pub fn walk(dir: &Path, root: &Path) -> std::io::Result<Tree> {
    crucible_core::store::walk::walk(
        dir,
        WalkOptions {
            file_filter: &is_markdown,
            // Index rows are keyed by text.
            utf8_names: true,
            recursive: true,
            confine_to: Some(root),
        },
    )
}

/// A problem row for an entry the walk skipped (a FIFO, a device, a link
/// out of the tree, an unreadable folder...), so that `list` and `stats`
/// keep saying so and `index --check` lists it. Its stamp is the entry's
/// own (`lstat`), so the row stays until the entry changes.
pub fn skipped_problem(root: &Path, skipped: &Skipped) -> Problem {
    Problem {
        path: relative(root, &skipped.path),
        line: 0,
        message: skipped.reason.clone(),
        stamp: std::fs::symlink_metadata(&skipped.path)
            .map(|m| FileStamp::of(&m))
            .unwrap_or_default(),
    }
}

/// Everything a rebuild produces.
#[derive(Debug, Default)]
pub struct Built {
    pub index: Index,
    /// The sessions and phases rows, already written as TOON by the
    /// workers: into the index files themselves when the rebuild holds the
    /// writer lock, else in memory, one chunk per worker.
    pub tables: Option<RebuildTables>,
    pub session_rows: usize,
    pub session_chunks: Vec<String>,
    /// The usage file's rows, chunk `i` beside `session_chunks[i]`.
    pub usage_chunks: Vec<String>,
    /// Every session's usage lines, summed (see [`crate::rollup`]).
    pub rollup: crate::rollup::Rollup,
    /// What `stats` keeps of the same lines (see [`crate::stats_rollup`]).
    pub stats_rollup: crate::stats_rollup::StatsRollup,
    pub phase_rows: usize,
    pub phase_chunks: Vec<String>,
}

/// Rows a worker writes as it goes: handed to the index file in large
/// pieces, or kept in memory when there is none. The sessions rows have
/// the usage file's rows beside them (`beside`, as many), handed over with
/// them so that the two files stay in step.
struct RowBuffer<'t> {
    text: String,
    beside: String,
    rows: usize,
    table: Option<&'t TableFile>,
    beside_table: Option<&'t TableFile>,
}

impl<'t> RowBuffer<'t> {
    fn new(table: Option<&'t TableFile>) -> Self {
        Self {
            text: String::with_capacity(if table.is_some() { 300 * 1024 } else { 0 }),
            beside: String::new(),
            rows: 0,
            table,
            beside_table: None,
        }
    }

    /// A buffer whose rows have rows of `beside` next to them.
    fn with_beside(table: Option<&'t TableFile>, beside: Option<&'t TableFile>) -> Self {
        Self {
            beside_table: beside,
            ..Self::new(table)
        }
    }

    /// After `rows` rows were added to `text`.
    fn added(&mut self, rows: usize) {
        self.rows += rows;
        if self.text.len() + self.beside.len() > 256 * 1024 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        match (self.table, self.beside_table) {
            (Some(table), Some(beside)) => {
                table.append_beside(&self.text, self.rows, beside, &self.beside);
            }
            (Some(table), None) => table.append(&self.text, self.rows),
            (None, _) => return,
        }
        self.text.clear();
        self.beside.clear();
        self.rows = 0;
    }

    /// The rows kept in memory (and those beside them), if there is no
    /// index file to write.
    fn finish(mut self) -> (usize, String, String) {
        self.flush();
        (self.rows, self.text, self.beside)
    }
}

/// What one worker found.
struct WorkerOutput {
    sessions: Vec<SessionRecord>,
    problems: Vec<Problem>,
    notes: Vec<Note>,
    session_rows: (usize, String, String),
    phase_rows: (usize, String, String),
    rollup: crate::rollup::Rollup,
    stats_rollup: crate::stats_rollup::StatsRollup,
}

/// Reads every file on `threads` threads; `progress(done, total)` is called
/// now and then from the workers. With `keep_sessions` false the session
/// records are written out and dropped, not kept in `index.sessions` (a
/// rebuild that only reports counts then holds no record per session).
///
/// `held` is the directory's writer lock, when the caller could take it: the
/// index files are then written as the files are read.
pub fn build(
    store: &SessionStore<MarkdownCodec>,
    threads: usize,
    keep_sessions: bool,
    held: Option<&DirLock>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> std::io::Result<Built> {
    let root = store.dir();
    let Tree {
        dirs,
        dir_changed,
        files,
        journals: live,
        skipped,
        ..
    } = walk(root, root)?;
    // Without the lock (a directory that cannot be written), rows in memory.
    let tables = held.and_then(|lock| RebuildTables::open(root, files.len(), lock).ok());
    let work = Work {
        store,
        files: &files,
        live: &live,
        held,
        tables: tables.as_ref(),
        keep_sessions,
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        progress,
    };
    let results: Mutex<Vec<WorkerOutput>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let (work, results) = (&work, &results);
            scope.spawn(move || {
                let out = work.run_worker();
                results
                    .lock()
                    .expect("a worker panicked while holding the results")
                    .push(out);
            });
        }
    });
    let mut built = Built::default();
    for w in results.into_inner().unwrap_or_default() {
        built.add(w);
    }
    built
        .index
        .problems
        .extend(skipped.iter().map(|s| skipped_problem(root, s)));
    built.index.problems.sort_by(|a, b| a.path.cmp(&b.path));
    built.index.dirs = dirs
        .iter()
        .zip(&dir_changed)
        .map(|(d, m)| crate::refresh::dir_stamp_at(root, d, *m))
        .collect();
    built.index.dirs.sort_by(|a, b| a.path.cmp(&b.path));
    if let Some(t) = &tables {
        built.session_rows += t.sessions.rows();
        built.phase_rows += t.phases.rows();
    }
    built.tables = tables;
    Ok(built)
}

/// What the workers of [`build`] share: the files to read, the next one to
/// take, and where rows go.
struct Work<'a> {
    store: &'a SessionStore<MarkdownCodec>,
    files: &'a [std::path::PathBuf],
    /// Files with a journal beside them.
    live: &'a std::collections::HashSet<std::path::PathBuf>,
    held: Option<&'a DirLock>,
    tables: Option<&'a RebuildTables>,
    keep_sessions: bool,
    next: AtomicUsize,
    done: AtomicUsize,
    progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl Work<'_> {
    /// One worker: takes files until none are left.
    fn run_worker(&self) -> WorkerOutput {
        let root = self.store.dir();
        let total = self.files.len();
        let mut session_out = RowBuffer::with_beside(
            self.tables.map(|t| &t.sessions),
            self.tables.map(|t| &t.usage),
        );
        let mut phase_out = RowBuffer::new(self.tables.map(|t| &t.phases));
        let mut sessions = Vec::new();
        let mut rollup = crate::rollup::Rollup::default();
        let mut stats_rollup = crate::stats_rollup::StatsRollup::default();
        let mut problems = Vec::new();
        let mut notes = Vec::new();
        let mut reader = FileReader::new(self.store.max_file_bytes());
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = self.files.get(i) else { break };
            let is_live = !self.live.is_empty() && self.live.contains(path);
            match index_file_with(self.store, path, is_live, self.held, &mut reader) {
                Entry::Session(s, summary) => {
                    s.write_split_rows(&mut session_out.text, &mut session_out.beside);
                    rollup.add(&s.usage);
                    stats_rollup.add(&s.path, &crate::record::Facts::of(&s), &s.usage);
                    session_out.added(1);
                    let n = PhaseRecord::write_summary_rows(&s.path, &summary, &mut phase_out.text);
                    phase_out.added(n);
                    if self.keep_sessions {
                        sessions.push(*s);
                    }
                }
                Entry::Problem(p) => problems.push(p),
                Entry::NotASession(stamp) => notes.push(Note {
                    path: relative(root, path),
                    stamp,
                }),
            }
            let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(512) || n == total {
                (self.progress)(n, total);
            }
        }
        WorkerOutput {
            sessions,
            problems,
            notes,
            session_rows: session_out.finish(),
            phase_rows: phase_out.finish(),
            rollup,
            stats_rollup,
        }
    }
}

impl Built {
    /// Takes in what one worker found.
    fn add(&mut self, w: WorkerOutput) {
        let (n, chunk, usage) = w.session_rows;
        self.session_rows += n;
        self.session_chunks.push(chunk);
        self.usage_chunks.push(usage);
        self.rollup.merge(w.rollup);
        self.stats_rollup.merge(w.stats_rollup);
        let (n, chunk, _) = w.phase_rows;
        self.phase_rows += n;
        self.phase_chunks.push(chunk);
        self.index.sessions.extend(w.sessions);
        self.index.problems.extend(w.problems);
        self.index.notes.extend(w.notes);
    }
}
