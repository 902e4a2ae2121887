//! What the index makes of the files of a sessions directory.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crucible_core::store::journal::journal_path;
use crucible_core::{SessionStore, StoreError};
use crucible_parser::{MarkdownCodec, ParseError, peek_session_id, summarize};

use crate::files::{DirStamp, Index};
use crate::record::{FileStamp, PhaseRecord, Problem, SessionRecord};

/// One file, as the index sees it.
#[derive(Debug)]
pub enum Entry {
    Session(Box<SessionRecord>, Vec<PhaseRecord>),
    Problem(Problem),
    /// Markdown that does not say `type: session` (a note in a vault).
    NotASession,
}

/// `path` relative to `root`, `/`-separated: the key of every index row.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
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
pub fn index_file(store: &SessionStore<MarkdownCodec>, path: &Path) -> Entry {
    index_file_with(store, path, &mut Vec::new())
}

/// [`index_file`] reading into `buf`, which a rebuild reuses for every file
/// of a worker: a fresh buffer per file cost more in page clearing than the
/// parsing itself.
pub fn index_file_with(
    store: &SessionStore<MarkdownCodec>,
    path: &Path,
    buf: &mut Vec<u8>,
) -> Entry {
    use std::io::Read;
    let rel = relative(store.dir(), path);
    let read = std::fs::File::open(path).and_then(|mut f| {
        let meta = f.metadata()?;
        buf.clear();
        f.read_to_end(buf)?;
        Ok(meta)
    });
    let meta = match read {
        Ok(m) => m,
        Err(e) => {
            return problem(
                &rel,
                FileStamp::default(),
                0,
                format!("cannot be read: {e}"),
            );
        }
    };
    let stamp = FileStamp::of(&meta);
    let bytes = buf.as_slice();
    let live = journal_path(path).exists();
    let summary = if live {
        if peek_session_id(bytes).is_none() {
            return Entry::NotASession;
        }
        match store.load_path(path) {
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
        match crucible_parser::fast_summary(bytes) {
            Some(s) => Ok(s),
            None if peek_session_id(bytes).is_none() => return Entry::NotASession,
            None => summarize(path, bytes),
        }
    };
    match summary {
        Ok(s) => Entry::Session(
            Box::new(SessionRecord::from_summary(rel.clone(), &s, stamp, live)),
            PhaseRecord::from_summary(&rel, &s),
        ),
        Err(e) => parse_problem(&rel, stamp, &e),
    }
}

/// A directory's stamp, relative to the root.
pub fn dir_stamp(root: &Path, dir: &Path) -> Option<DirStamp> {
    let meta = std::fs::metadata(dir).ok()?;
    Some(DirStamp {
        path: relative(root, dir),
        mtime_ns: FileStamp::of(&meta).mtime_ns,
    })
}

/// Every visible directory (the root included) and `*.md` file below `root`.
pub fn walk(root: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(d) = pending.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && d == root => {
                return Ok((dirs, files));
            }
            Err(e) => return Err(e),
        };
        dirs.push(d.clone());
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    Ok((dirs, files))
}

/// Everything a rebuild produces.
#[derive(Debug, Default)]
pub struct Built {
    pub index: Index,
    /// The phases table's rows, already written as TOON, one chunk per
    /// worker (written out one after the other, never concatenated).
    pub phase_rows: usize,
    pub phase_chunks: Vec<crate::files::PhaseRows>,
}

/// What one rebuild worker found: sessions, problems, phase rows (count and TOON text).
type WorkerOutput = (
    Vec<SessionRecord>,
    Vec<Problem>,
    usize,
    crate::files::PhaseRows,
);

/// Reads every file on `threads` threads; `progress(done, total)` is called
/// now and then from the workers.
pub fn build(
    store: &SessionStore<MarkdownCodec>,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> std::io::Result<Built> {
    let root = store.dir();
    let (dirs, files) = walk(root)?;
    let total = files.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<WorkerOutput>> = Mutex::new(Vec::new());
    // A phase rows part that could not be written fails the rebuild: rows
    // already spilled could not be brought back otherwise.
    let failed: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for worker in 0..threads.max(1) {
            let next = &next;
            let done = &done;
            let results = &results;
            let files = &files;
            let failed = &failed;
            scope.spawn(move || {
                // Phase rows go to a hidden part file as they come, so a
                // rebuild holds little more than the session records.
                let part = root.join(format!("{}.part{worker}", crate::files::PHASES));
                let mut spill = std::fs::File::create(&part)
                    .ok()
                    .map(|f| std::io::BufWriter::with_capacity(1 << 20, f));
                let mut sessions = Vec::new();
                let mut problems = Vec::new();
                let mut phase_rows = 0;
                let mut phase_body = String::new();
                let mut buf = Vec::with_capacity(64 * 1024);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    match index_file_with(store, path, &mut buf) {
                        Entry::Session(s, phases) => {
                            phase_rows += phases.len();
                            for p in &phases {
                                p.write_row(&mut phase_body);
                            }
                            if let Some(w) = spill.as_mut()
                                && phase_body.len() > 256 * 1024
                            {
                                use std::io::Write;
                                if let Err(e) = w.write_all(phase_body.as_bytes()) {
                                    failed
                                        .lock()
                                        .expect("no worker panics holding it")
                                        .get_or_insert(e);
                                }
                                phase_body.clear();
                            }
                            sessions.push(*s);
                        }
                        Entry::Problem(p) => problems.push(p),
                        Entry::NotASession => {}
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n.is_multiple_of(512) || n == total {
                        progress(n, total);
                    }
                }
                let rows = match spill {
                    Some(mut w) => {
                        use std::io::Write;
                        if let Err(e) = w.write_all(phase_body.as_bytes()).and_then(|()| w.flush())
                        {
                            failed
                                .lock()
                                .expect("no worker panics holding it")
                                .get_or_insert(e);
                        }
                        crate::files::PhaseRows::Part(part)
                    }
                    None => crate::files::PhaseRows::Text(phase_body),
                };
                results
                    .lock()
                    .expect("a worker panicked while holding the results")
                    .push((sessions, problems, phase_rows, rows));
            });
        }
    });
    if let Some(e) = failed.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut built = Built::default();
    for (sessions, problems, rows, body) in results.into_inner().unwrap_or_default() {
        built.index.sessions.extend(sessions);
        built.index.problems.extend(problems);
        built.phase_rows += rows;
        built.phase_chunks.push(body);
    }
    built.index.problems.sort_by(|a, b| a.path.cmp(&b.path));
    built.index.dirs = dirs.iter().filter_map(|d| dir_stamp(root, d)).collect();
    built.index.dirs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(built)
}
