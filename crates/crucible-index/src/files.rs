//! The index on disk: `.index.toon` (sessions, problems, directories),
//! `.index-phases.toon` (phases) and `.index-delta.toon` (what saves changed
//! since, small and rewritten whole on each save).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crucible_core::store::atomic::write_atomic;

use crate::record::{
    BASE_SESSION_FIELDS, Columns, NOTE_FIELDS, Note, PHASE_FIELDS, PROBLEM_FIELDS, PhaseRecord,
    Problem, SESSION_FIELDS, SESSION_PREFIX, SessionRecord, USAGE_FIELDS,
};
use crate::rollup::Rollup;
use crate::stats_rollup::StatsRollup;
use crate::table_file::{Head, TableFile};
use crate::toon::{self, Cell};
use crate::usage_rows::UsageRows;

pub use crucible_core::store::names::{
    INDEX as BASE, INDEX_DELTA as DELTA, INDEX_PHASES as PHASES, INDEX_ROLLUP as ROLLUP,
    INDEX_USAGE as USAGE,
};
pub const FORMAT: &str = "cru-session-index";
/// 2: stamps carry the inode change time (`ctime_ns`). 3: usage cells.
/// 4: the base's usage cells in a file of their own (`.index-usage.toon`).
/// 5: the rollup file says where each usage row is (`usage_rows`).
/// 6: the rollup file keeps what `stats` needs of the lines
/// (`stats_groups`, `stats_names`, `session_keys_KIND`, at `stats_at`).
/// 7: a phase's `tokens=` beyond its usage lines is counted (the cells and
/// rollup of 6 were made by the rule before).
pub const VERSION: u64 = 7;
/// A delta this large is merged into the base on the next save.
pub const COMPACT_AT: usize = 2_000;

/// Why an index file could not be used. Never fatal: the index is rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum IndexFileError {
    #[error("{0}: no index yet")]
    Missing(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Corrupt {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: index format version {found}, this cru reads {VERSION}")]
    Version { path: PathBuf, found: String },
}

/// A directory of the sessions tree and when it last changed, as last
/// looked at: its inode change time, which moves with every entry added,
/// removed or renamed and which no tool can set back (an mtime can be put
/// back with `touch -d`, hiding a new file). 0: the directory is gone;
/// [`crate::refresh::RELIST`]: list it again.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirStamp {
    pub path: String,
    pub changed_ns: u64,
}

const DIR_FIELDS: &[&str] = &["path", "changed_ns"];
const REMOVED_FIELDS: &[&str] = &["path"];

/// The session side of the index, in memory.
#[derive(Debug, Default, Clone)]
pub struct Index {
    pub sessions: Vec<SessionRecord>,
    pub problems: Vec<Problem>,
    /// Markdown files that are not sessions, so an edit that makes one a
    /// session is seen.
    pub notes: Vec<Note>,
    pub dirs: Vec<DirStamp>,
}

/// What saves changed since the base was written.
#[derive(Debug, Default, Clone)]
pub struct Delta {
    pub sessions: Vec<SessionRecord>,
    pub phases: Vec<PhaseRecord>,
    pub problems: Vec<Problem>,
    pub notes: Vec<Note>,
    pub removed: Vec<String>,
    pub dirs: Vec<DirStamp>,
    /// Every path the rows above speak of. [`Delta::set`] looks for a
    /// path's earlier rows only when it is here: looking in every row at
    /// each of 100,000 new files (a watcher's first catch-up of a large
    /// directory) was quadratic, hours of `memcmp`.
    held: std::collections::HashSet<String>,
}

impl Delta {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
            && self.problems.is_empty()
            && self.notes.is_empty()
            && self.removed.is_empty()
            && self.dirs.is_empty()
    }

    /// Records `path`'s new state, replacing any earlier one in this delta.
    pub fn set(
        &mut self,
        path: &str,
        session: Option<(SessionRecord, Vec<PhaseRecord>)>,
        problem: Option<Problem>,
    ) {
        if self.held.contains(path) {
            self.sessions.retain(|s| s.path != path);
            self.phases.retain(|p| p.path != path);
            self.problems.retain(|p| p.path != path);
            self.notes.retain(|n| n.path != path);
            self.removed.retain(|p| p != path);
        } else {
            self.held.insert(path.to_owned());
        }
        match (session, problem) {
            (Some((s, phases)), _) => {
                self.sessions.push(s);
                self.phases.extend(phases);
            }
            (None, Some(p)) => self.problems.push(p),
            (None, None) => self.removed.push(path.to_owned()),
        }
    }

    /// Records that `path` is markdown but not a session.
    pub fn set_note(&mut self, note: Note) {
        let path = note.path.clone();
        self.set(&path, None, None);
        self.removed.retain(|p| *p != path);
        self.notes.push(note);
    }

    pub fn set_dir(&mut self, dir: DirStamp) {
        self.dirs.retain(|d| d.path != dir.path);
        self.dirs.push(dir);
    }

    /// Every path this delta says something about.
    fn paths(&self) -> crate::path_set::PathSet<&str> {
        self.paths_in_rows().collect()
    }

    /// The path of every row, in table order (a path twice is an edit).
    fn paths_in_rows(&self) -> impl Iterator<Item = &str> {
        self.sessions
            .iter()
            .map(|s| s.path.as_str())
            .chain(self.problems.iter().map(|p| p.path.as_str()))
            .chain(self.notes.iter().map(|n| n.path.as_str()))
            .chain(self.removed.iter().map(String::as_str))
    }
}

/// An error opening or reading an index file: missing, or another.
pub(crate) fn io_error(path: &Path, source: std::io::Error) -> IndexFileError {
    if source.kind() == std::io::ErrorKind::NotFound {
        IndexFileError::Missing(path.to_owned())
    } else {
        IndexFileError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

pub(crate) fn read(path: &Path) -> Result<String, IndexFileError> {
    use std::io::Read;
    let io = |source: std::io::Error| io_error(path, source);
    let mut text = String::new();
    own_file(path, std::fs::OpenOptions::new().read(true))
        .map_err(io)?
        .read_to_string(&mut text)
        .map_err(io)?;
    Ok(text)
}

/// [`own_file`] for writing: an index file sharing its inode with another
/// name (a hard-linked snapshot of the directory) gets one of its own
/// first, so the write never reaches the snapshot.
pub(crate) fn own_file_for_write(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    crucible_core::store::safe_file::open_own_for_write(path, options)
        .map_err(crucible_core::store::UnsafeFile::into_io)
}

/// Opens an index file, never through a link and never blocking on a FIFO:
/// an index file that is a link is an error naming it (and the index is
/// rebuilt in its place, see [`crate::SessionIndex::open`]).
pub(crate) fn own_file(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    crucible_core::store::safe_file::open_own(path, options)
        .map_err(crucible_core::store::UnsafeFile::into_io)
}

/// An error naming the first path that `paths` gives twice.
fn once_each<'a>(file: &Path, paths: impl Iterator<Item = &'a str>) -> Result<(), IndexFileError> {
    let mut seen = HashSet::new();
    for p in paths {
        if !seen.insert(p) {
            return Err(corrupt(file, 1, format!("path `{p}` has two rows")));
        }
    }
    Ok(())
}

pub(crate) fn corrupt(path: &Path, line: usize, message: impl Into<String>) -> IndexFileError {
    IndexFileError::Corrupt {
        path: path.to_owned(),
        line,
        message: message.into(),
    }
}

pub(crate) fn parse_doc<'a>(
    path: &Path,
    text: &'a str,
) -> Result<toon::Document<'a>, IndexFileError> {
    let doc = toon::parse(text).map_err(|e| corrupt(path, e.line, e.message))?;
    check_version(path, doc.scalar("version"))?;
    Ok(doc)
}

/// The error for a file whose `version` line says `found`, if any.
pub(crate) fn check_version(path: &Path, found: Option<&str>) -> Result<(), IndexFileError> {
    match found {
        Some(v) if v == VERSION.to_string() => Ok(()),
        Some(v) => Err(IndexFileError::Version {
            path: path.to_owned(),
            found: v.to_owned(),
        }),
        None => Err(corrupt(path, 1, "no `version` line")),
    }
}

/// Reads every row of `table` (if present) with `read_row`.
fn rows<T>(
    path: &Path,
    doc: &toon::Document<'_>,
    table: &str,
    known: &[&str],
    read_row: impl Fn(&[&str]) -> Result<T, String>,
) -> Result<Vec<T>, IndexFileError> {
    table_rows(path, doc.table(table), table, known, read_row)
}

/// [`rows`] of a table already found.
fn table_rows<T>(
    path: &Path,
    t: Option<&toon::Table<'_>>,
    table: &str,
    known: &[&str],
    read_row: impl Fn(&[&str]) -> Result<T, String>,
) -> Result<Vec<T>, IndexFileError> {
    let Some(t) = t else {
        return Ok(Vec::new());
    };
    let columns = Columns::new(t, known);
    let mut cells = Vec::with_capacity(known.len());
    let mut ordered = Vec::with_capacity(known.len());
    t.rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            toon::split_row(row, &mut cells)
                .and_then(|()| {
                    columns.order(&cells, &mut ordered);
                    read_row(&ordered)
                })
                .map_err(|m| corrupt(path, i + 1, format!("table `{table}`, row {}: {m}", i + 1)))
        })
        .collect()
}

/// The base's session records, each with its usage from `usage`. Every
/// row is read before any usage row is looked at: a row that is wrong in
/// itself (a path leading out of the directory) is named as such, not as
/// a usage row out of step.
fn base_sessions(
    path: &Path,
    t: Option<&toon::Table<'_>>,
    usage: &UsageRows<'_>,
) -> Result<Vec<SessionRecord>, IndexFileError> {
    let mut records = table_rows(path, t, "sessions", BASE_SESSION_FIELDS, |c| {
        // The usage column, filled in below.
        let mut full = Vec::with_capacity(SESSION_FIELDS.len());
        full.extend_from_slice(c);
        full.push("null");
        SessionRecord::from_cells(&full)
    })?;
    let (mut cells, mut ordered) = (Vec::new(), Vec::new());
    for (i, r) in records.iter_mut().enumerate() {
        let cell = usage.cell(i, &r.path, &mut cells, &mut ordered)?;
        r.usage = crate::record::usage_lines(cell).map_err(|m| usage.corrupt(i, m))?;
    }
    Ok(records)
}

fn dir_stamp(cells: &[&str]) -> Result<DirStamp, String> {
    let path = toon::text(cells[0])?.unwrap_or_default().into_owned();
    Ok(DirStamp {
        // "" is the root itself.
        path: if path.is_empty() {
            path
        } else {
            crate::record::confined(path)?
        },
        changed_ns: toon::number(cells[1])?.unwrap_or(0),
    })
}

/// Reads the base and applies the delta.
pub fn load(dir: &Path) -> Result<Index, IndexFileError> {
    load_with_removed(dir).map(|(index, _)| index)
}

/// [`load`], and the paths the delta says were removed (which the
/// freshness check looks for: one there after all is read again).
pub fn load_with_removed(dir: &Path) -> Result<(Index, Vec<String>), IndexFileError> {
    let path = dir.join(BASE);
    let text = read(&path)?;
    let doc = parse_doc(&path, &text)?;
    if doc.scalar("format") != Some(FORMAT) {
        return Err(corrupt(&path, 1, format!("not a {FORMAT} file")));
    }
    let usage_path = dir.join(USAGE);
    let usage_text = read(&usage_path)?;
    let usage_doc = parse_doc(&usage_path, &usage_text)?;
    let sessions = doc.table("sessions");
    let usage = UsageRows::new(
        &usage_path,
        usage_doc.table("usage"),
        sessions.map_or(0, |t| t.rows.len()),
    )?;
    let mut index = Index {
        sessions: base_sessions(&path, sessions, &usage)?,
        problems: rows(&path, &doc, "problems", PROBLEM_FIELDS, Problem::from_cells)?,
        notes: rows(&path, &doc, "notes", NOTE_FIELDS, Note::from_cells)?,
        dirs: rows(&path, &doc, "dirs", DIR_FIELDS, dir_stamp)?,
    };
    // Every path once: a row twice (an index edited by hand) would be
    // listed and counted twice.
    once_each(
        &path,
        index
            .sessions
            .iter()
            .map(|s| s.path.as_str())
            .chain(index.problems.iter().map(|p| p.path.as_str()))
            .chain(index.notes.iter().map(|n| n.path.as_str())),
    )?;
    let delta = load_delta(dir)?;
    apply(&mut index, &delta);
    Ok((index, delta.removed))
}

/// Applies a delta: its paths replace the base's.
pub fn apply(index: &mut Index, delta: &Delta) {
    if delta.is_empty() {
        return;
    }
    let paths = delta.paths();
    index.sessions.retain(|s| !paths.contains(s.path.as_str()));
    index.problems.retain(|p| !paths.contains(p.path.as_str()));
    index.notes.retain(|n| !paths.contains(n.path.as_str()));
    index.sessions.extend(delta.sessions.iter().cloned());
    index.problems.extend(delta.problems.iter().cloned());
    index.notes.extend(delta.notes.iter().cloned());
    // One pass over the base's directories, not one per directory of the
    // delta (quadratic when a rebuild touched many).
    // A path twice in the delta counts once, at its last place.
    let last_of: HashMap<&str, usize> = delta
        .dirs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.path.as_str(), i))
        .collect();
    index
        .dirs
        .retain(|x| !last_of.contains_key(x.path.as_str()));
    index.dirs.extend(
        (delta.dirs.iter().enumerate())
            // A stamp of 0: the directory is gone.
            .filter(|(i, d)| last_of[d.path.as_str()] == *i && d.changed_ns != 0)
            .map(|(_, d)| d.clone()),
    );
}

/// The delta, empty when there is none.
pub fn load_delta(dir: &Path) -> Result<Delta, IndexFileError> {
    let path = dir.join(DELTA);
    let text = match read(&path) {
        Ok(t) => t,
        Err(IndexFileError::Missing(_)) => return Ok(Delta::default()),
        Err(e) => return Err(e),
    };
    let doc = parse_doc(&path, &text)?;
    let mut delta = Delta {
        sessions: rows(
            &path,
            &doc,
            "sessions",
            SESSION_FIELDS,
            SessionRecord::from_cells,
        )?,
        phases: rows(&path, &doc, "phases", PHASE_FIELDS, PhaseRecord::from_cells)?,
        problems: rows(&path, &doc, "problems", PROBLEM_FIELDS, Problem::from_cells)?,
        notes: rows(&path, &doc, "notes", NOTE_FIELDS, Note::from_cells)?,
        removed: rows(&path, &doc, "removed", REMOVED_FIELDS, |c| {
            crate::record::confined(toon::text(c[0])?.unwrap_or_default().into_owned())
        })?,
        dirs: rows(&path, &doc, "dirs", DIR_FIELDS, dir_stamp)?,
        held: std::collections::HashSet::new(),
    };
    // `Delta::set` keeps one state per path: a path twice was edited in.
    once_each(&path, delta.paths_in_rows())?;
    delta.held = delta.paths_in_rows().map(str::to_owned).collect();
    Ok(delta)
}

/// Every phase: the base file's, with the delta applied.
pub fn load_phases(dir: &Path) -> Result<Vec<PhaseRecord>, IndexFileError> {
    let path = dir.join(PHASES);
    let text = read(&path)?;
    let doc = parse_doc(&path, &text)?;
    let mut phases = rows(&path, &doc, "phases", PHASE_FIELDS, PhaseRecord::from_cells)?;
    let delta = load_delta(dir)?;
    if !delta.is_empty() {
        let paths = delta.paths();
        phases.retain(|p| !paths.contains(p.path.as_str()));
        phases.extend(delta.phases);
    }
    Ok(phases)
}

/// Writes an index file. An existing one is overwritten in place rather
/// than replaced by a rename: a rename would change the directory's mtime,
/// which is exactly what the freshness check watches. A crash mid-write
/// leaves a corrupt index, which is detected and rebuilt; readers never see
/// a partial one, because writers hold the directory lock.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), IndexFileError> {
    let io = |source| IndexFileError::Io {
        path: path.to_owned(),
        source,
    };
    if path.symlink_metadata().is_ok() {
        use std::io::Write;
        let mut f =
            own_file_for_write(path, std::fs::OpenOptions::new().write(true).truncate(true))
                .map_err(io)?;
        f.write_all(text.as_bytes()).map_err(io)?;
    } else {
        write_atomic(path, text.as_bytes()).map_err(io)?;
    }
    crate::seal::note(path);
    Ok(())
}

/// A new write's generation: the base, the usage file and the rollup file
/// written together carry the same one, so that a reader can tell files of
/// one write from files of two (a stamp of the base cannot serve: it is
/// racy right after the write). Nanoseconds since 1970: writes hold the
/// writer lock and take far longer than a nanosecond.
pub fn new_generation() -> u64 {
    crate::record::unix_ns(std::time::SystemTime::now()).max(1)
}

/// The base file's lines before its tables.
fn base_scalars(generation: u64) -> String {
    let mut out = String::new();
    toon::write_scalar(&mut out, "format", Cell::Str(FORMAT));
    toon::write_scalar(&mut out, "version", Cell::Num(VERSION));
    toon::write_scalar(&mut out, "generation", Cell::Num(generation));
    out
}

/// The usage file's lines before its table.
fn usage_scalars(generation: u64) -> String {
    let mut out = phases_scalars();
    toon::write_scalar(&mut out, "generation", Cell::Num(generation));
    out
}

/// The phases file's lines before its table.
fn phases_scalars() -> String {
    let mut out = String::new();
    toon::write_scalar(&mut out, "version", Cell::Num(VERSION));
    out
}

fn sessions_table(out: &mut String, sessions: &[SessionRecord]) {
    toon::write_header(out, "sessions", sessions.len(), SESSION_FIELDS);
    for s in sessions {
        s.write_row(out);
    }
}

/// The `problems` table, then the `notes` table.
fn problems_table(out: &mut String, problems: &[Problem], notes: &[Note]) {
    toon::write_header(out, "problems", problems.len(), PROBLEM_FIELDS);
    for p in problems {
        p.write_row(out);
    }
    toon::write_header(out, "notes", notes.len(), NOTE_FIELDS);
    for n in notes {
        n.write_row(out);
    }
}

fn dirs_table(out: &mut String, dirs: &[DirStamp]) {
    toon::write_header(out, "dirs", dirs.len(), DIR_FIELDS);
    for d in dirs {
        toon::write_row(out, &[Cell::Str(&d.path), Cell::Num(d.changed_ns)]);
    }
}

/// The text of the base file and of the usage file, rows in path order
/// (what [`write_all`] writes, with `index.dirs` as they are).
pub fn base_text(index: &Index) -> (String, String) {
    let (mut out, mut usage) = (Vec::new(), Vec::new());
    base_rows_to(
        &mut out,
        &mut usage,
        0,
        SessionRows::Records(&index.sessions),
        &index.problems,
        &index.notes,
    )
    .expect("writing to memory cannot fail");
    let mut text = String::from_utf8(out).expect("the index is written as UTF-8");
    dirs_table(&mut text, &index.dirs);
    let usage = String::from_utf8(usage).expect("the index is written as UTF-8");
    (text, usage)
}

/// Writes the phases file from rows already written as TOON (see `build`),
/// chunk after chunk.
fn write_phases(path: &Path, rows: usize, chunks: &[String]) -> Result<(), IndexFileError> {
    use std::io::Write;
    let io = |source| IndexFileError::Io {
        path: path.to_owned(),
        source,
    };
    let mut head = phases_scalars();
    toon::write_header(&mut head, "phases", rows, PHASE_FIELDS);
    let mut out = rewrite(path).map_err(io)?;
    out.write_all(head.as_bytes()).map_err(io)?;
    for c in chunks {
        out.write_all(c.as_bytes()).map_err(io)?;
    }
    out.flush().map_err(io)?;
    crate::seal::note(path);
    Ok(())
}

/// An index file emptied for writing whole, in place, through a large
/// buffer.
fn rewrite(path: &Path) -> std::io::Result<std::io::BufWriter<std::fs::File>> {
    let file = own_file_for_write(
        path,
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
    )?;
    Ok(std::io::BufWriter::with_capacity(1 << 20, file))
}

/// Sessions rows for the base: records to write, or rows a rebuild wrote
/// (the base's rows and the usage file's, chunk `i` of one beside chunk `i`
/// of the other).
#[derive(Debug, Clone, Copy)]
pub enum SessionRows<'a> {
    Records(&'a [SessionRecord]),
    Written {
        rows: usize,
        chunks: &'a [String],
        usage_chunks: &'a [String],
    },
}

/// Writes the base without its `dirs` table, which [`append_dirs`] adds
/// once nothing more will change the directory, and the usage file.
fn write_base_rows(
    dir: &Path,
    generation: u64,
    sessions: SessionRows<'_>,
    problems: &[Problem],
    notes: &[Note],
) -> Result<(), IndexFileError> {
    use std::io::Write;
    let (path, usage_path) = (dir.join(BASE), dir.join(USAGE));
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| IndexFileError::Io { path, source }
    };
    let mut out = rewrite(&path).map_err(io(&path))?;
    let mut usage = rewrite(&usage_path).map_err(io(&usage_path))?;
    // An error names the base; either file half written is a corrupt index.
    base_rows_to(&mut out, &mut usage, generation, sessions, problems, notes).map_err(io(&path))?;
    usage.flush().map_err(io(&usage_path))?;
    out.flush().map_err(io(&path))?;
    crate::seal::note(&usage_path);
    crate::seal::note(&path);
    Ok(())
}

/// The base's scalars, `sessions` (records sorted by path, or a rebuild's
/// chunks) and `problems`, and the usage file beside it: the one writer of
/// the base file's body.
fn base_rows_to(
    out: &mut impl std::io::Write,
    usage_out: &mut impl std::io::Write,
    generation: u64,
    sessions: SessionRows<'_>,
    problems: &[Problem],
    notes: &[Note],
) -> std::io::Result<()> {
    let mut chunk = base_scalars(generation);
    chunk.reserve(64 * 1024);
    let mut usage = usage_scalars(generation);
    match sessions {
        SessionRows::Records(records) => {
            let mut sorted: Vec<&SessionRecord> = records.iter().collect();
            sorted.sort_by(|a, b| a.path.cmp(&b.path));
            toon::write_header(&mut chunk, "sessions", sorted.len(), BASE_SESSION_FIELDS);
            toon::write_header(&mut usage, "usage", sorted.len(), USAGE_FIELDS);
            for s in sorted {
                s.write_split_rows(&mut chunk, &mut usage);
                if chunk.len() > 60 * 1024 {
                    out.write_all(chunk.as_bytes())?;
                    chunk.clear();
                }
                if usage.len() > 60 * 1024 {
                    usage_out.write_all(usage.as_bytes())?;
                    usage.clear();
                }
            }
            usage_out.write_all(usage.as_bytes())?;
        }
        SessionRows::Written {
            rows,
            chunks,
            usage_chunks,
        } => {
            toon::write_header(&mut chunk, "sessions", rows, BASE_SESSION_FIELDS);
            out.write_all(chunk.as_bytes())?;
            chunk.clear();
            for c in chunks {
                out.write_all(c.as_bytes())?;
            }
            toon::write_header(&mut usage, "usage", rows, USAGE_FIELDS);
            usage_out.write_all(usage.as_bytes())?;
            for c in usage_chunks {
                usage_out.write_all(c.as_bytes())?;
            }
        }
    }
    problems_table(&mut chunk, problems, notes);
    out.write_all(chunk.as_bytes())
}

/// Appends the `dirs` table, stamped as the walk saw each directory before
/// listing it (a directory changed since, by anyone, is listed again by the
/// next read). Appending to an existing file leaves the directory's mtime
/// alone.
fn append_dirs(dir: &Path, dirs: &[DirStamp]) -> Result<(), IndexFileError> {
    use std::io::Write;
    let path = dir.join(BASE);
    let io = |source| IndexFileError::Io {
        path: path.clone(),
        source,
    };
    let mut dirs = dirs.to_vec();
    dirs.sort_by(|a, b| a.path.cmp(&b.path));
    let mut text = String::new();
    dirs_table(&mut text, &dirs);
    let mut f = own_file_for_write(&path, std::fs::OpenOptions::new().append(true)).map_err(io)?;
    f.write_all(text.as_bytes()).map_err(io)?;
    crate::seal::note(&path);
    Ok(())
}

pub fn write_all(
    dir: &Path,
    index: &Index,
    phase_rows: usize,
    phase_chunks: &[String],
) -> Result<(), IndexFileError> {
    let rollup = Rollup::of(index.sessions.iter().map(|s| s.usage.as_slice()));
    let mut stats = StatsRollup::default();
    for s in &index.sessions {
        stats.add(&s.path, &crate::record::Facts::of(s), &s.usage);
    }
    write_index(
        dir,
        SessionRows::Records(&index.sessions),
        (&rollup, &stats),
        &index.problems,
        &index.notes,
        &index.dirs,
        phase_rows,
        phase_chunks,
    )
}

/// Writes the phases file and the base, then the base's `dirs` table last;
/// the delta is gone after.
#[allow(clippy::too_many_arguments)]
pub fn write_index(
    dir: &Path,
    sessions: SessionRows<'_>,
    (rollup, stats): (&Rollup, &StatsRollup),
    problems: &[Problem],
    notes: &[Note],
    dirs: &[DirStamp],
    phase_rows: usize,
    phase_chunks: &[String],
) -> Result<(), IndexFileError> {
    clear_delta(dir)?;
    let generation = new_generation();
    let base_rows = match sessions {
        SessionRows::Records(r) => r.len(),
        SessionRows::Written { rows, .. } => rows,
    };
    // The two files on two threads: a compaction (a save whose delta grew
    // large) writes every row of both, and a save waits for it.
    let (phases, base) = std::thread::scope(|scope| {
        let phases = scope.spawn(|| write_phases(&dir.join(PHASES), phase_rows, phase_chunks));
        let base = write_base_rows(dir, generation, sessions, problems, notes);
        let phases = phases
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (phases, base)
    });
    phases?;
    base?;
    append_dirs(dir, dirs)?;
    crate::rollup_file::write(dir, generation, base_rows, rollup, stats)
}

/// The index files a rebuild writes as it reads (see [`TableFile`]):
/// `sessions` and `usage` are written together, row `i` of one beside row
/// `i` of the other ([`TableFile::append_beside`]).
#[derive(Debug)]
pub struct RebuildTables {
    pub sessions: TableFile,
    pub usage: TableFile,
    pub phases: TableFile,
    /// The generation the base and the usage file are written with.
    pub generation: u64,
}

impl RebuildTables {
    /// The index files of `dir`, opened for rewriting, for a tree of
    /// `files` markdown files: only under the writer lock.
    pub fn open(dir: &Path, files: usize, _held: &crucible_core::DirLock) -> std::io::Result<Self> {
        // Room for as many session rows as files (at most one each), and
        // a hundred phases a session on average.
        let generation = new_generation();
        let sessions = TableFile::overwrite(
            dir.join(BASE),
            Head {
                scalars: base_scalars(generation),
                table: "sessions",
                fields: BASE_SESSION_FIELDS,
            },
            files,
        )?;
        let usage = TableFile::overwrite(
            dir.join(USAGE),
            Head {
                scalars: usage_scalars(generation),
                table: "usage",
                fields: USAGE_FIELDS,
            },
            files,
        )?;
        let phases = TableFile::overwrite(
            dir.join(PHASES),
            Head {
                scalars: phases_scalars(),
                table: "phases",
                fields: PHASE_FIELDS,
            },
            files.saturating_mul(100),
        )?;
        Ok(Self {
            sessions,
            usage,
            phases,
            generation,
        })
    }
}

/// Finishes the index files a rebuild wrote as it read (the phases file,
/// and the base with `problems`), then adds the base's `dirs` table; the
/// delta is gone after. The caller holds the writer lock.
pub fn finish_rebuild(
    dir: &Path,
    tables: RebuildTables,
    (rollup, stats): (&Rollup, &StatsRollup),
    problems: &[Problem],
    notes: &[Note],
    dirs: &[DirStamp],
) -> Result<(), IndexFileError> {
    let (generation, base_rows) = (tables.generation, tables.sessions.rows());
    clear_delta(dir)?;
    let io = |name: &str| {
        let path = dir.join(name);
        move |source| IndexFileError::Io { path, source }
    };
    tables.phases.finish("").map_err(io(PHASES))?;
    tables.usage.finish("").map_err(io(USAGE))?;
    let mut tail = String::new();
    problems_table(&mut tail, problems, notes);
    tables.sessions.finish(&tail).map_err(io(BASE))?;
    append_dirs(dir, dirs)?;
    crate::rollup_file::write(dir, generation, base_rows, rollup, stats)
}

/// Creates the index files that do not exist yet, empty. A rebuild does this
/// before it walks the directory: creating a file changes the directory's
/// mtime, and a change made after the walk stamped the directory would make
/// the next read list it again. Once they exist, every index write is in
/// place and leaves the directory alone.
pub fn create_missing(dir: &Path) -> Result<(), IndexFileError> {
    // The seal too, though it is written after the walk: empty until then
    // (no reader believes an empty seal).
    for name in [BASE, PHASES, USAGE, ROLLUP, DELTA, crate::seal::SEAL] {
        let path = dir.join(name);
        own_file_for_write(
            &path,
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false),
        )
        .map_err(|source| IndexFileError::Io {
            path: path.clone(),
            source,
        })?;
        crate::seal::note(&path);
    }
    Ok(())
}

/// Empties the delta in place (its rows are in the base now).
pub fn clear_delta(dir: &Path) -> Result<(), IndexFileError> {
    write(&dir.join(DELTA), &delta_text(&Delta::default()))
}

pub fn remove_delta(dir: &Path) -> Result<(), IndexFileError> {
    let path = dir.join(DELTA);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(IndexFileError::Io { path, source: e })
        }
        _ => Ok(()),
    }
}

pub fn write_delta(dir: &Path, delta: &Delta) -> Result<(), IndexFileError> {
    // Creating the delta moves the root's mtime; that is not recorded here
    // (someone else may have changed the directory too): the next read lists
    // the root again and records what it then sees.
    write(&dir.join(DELTA), &delta_text(delta))
}

fn delta_text(delta: &Delta) -> String {
    let mut out = String::new();
    toon::write_scalar(&mut out, "version", Cell::Num(VERSION));
    sessions_table(&mut out, &delta.sessions);
    toon::write_header(&mut out, "phases", delta.phases.len(), PHASE_FIELDS);
    for p in &delta.phases {
        p.write_row(&mut out);
    }
    problems_table(&mut out, &delta.problems, &delta.notes);
    toon::write_header(&mut out, "removed", delta.removed.len(), REMOVED_FIELDS);
    for r in &delta.removed {
        toon::write_row(&mut out, &[Cell::Str(r)]);
    }
    dirs_table(&mut out, &delta.dirs);
    out
}

/// What [`Light::scan`] runs on each kept row: the thread's state and the
/// row's cells.
pub type RowFn<'a, S> = dyn Fn(&mut S, &[&str]) -> Result<(), String> + Sync + 'a;

/// The base file's text, with the delta beside it, for queries that read
/// rows one at a time instead of building every record.
#[derive(Debug)]
pub struct Light {
    path: PathBuf,
    text: String,
    /// The document's tables, parsed once at load, as ranges of `text`
    /// (a 100,000-row file is split into lines once per query, not per table).
    tables: Vec<TableSpan>,
    /// The usage file, when the query reads usage: its text and table.
    usage: Option<(PathBuf, String, TableSpan)>,
    /// The write the base is of ([`new_generation`]); 0 when it says none.
    pub generation: u64,
    pub delta: Delta,
}

#[derive(Debug)]
struct TableSpan {
    name: String,
    fields: Vec<String>,
    rows: Vec<std::ops::Range<usize>>,
}

impl TableSpan {
    /// The tables of a document parsed from `text`, as ranges of it.
    fn all_of(text: &str, doc: &toon::Document<'_>) -> Vec<Self> {
        let offset = |part: &str| {
            let start = part.as_ptr() as usize - text.as_ptr() as usize;
            start..start + part.len()
        };
        doc.tables
            .iter()
            .map(|t| TableSpan {
                name: t.name.to_owned(),
                fields: t.fields.iter().map(|f| (*f).to_owned()).collect(),
                rows: t.rows.iter().map(|r| offset(r)).collect(),
            })
            .collect()
    }

    fn table<'a>(&'a self, text: &'a str) -> toon::Table<'a> {
        toon::Table {
            name: &self.name,
            fields: self.fields.iter().map(String::as_str).collect(),
            rows: self.rows.iter().map(|r| &text[r.clone()]).collect(),
        }
    }
}

/// How much of each base row [`Light::scan`] splits into cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Every cell, at once.
    Whole,
    /// The first [`SESSION_PREFIX`] cells, and the rest of the rows kept.
    PrefixFirst,
    /// The first [`SESSION_PREFIX`] cells only (a query that reads no more).
    PrefixOnly,
}

/// `run` for chunks `0..chunks` on up to `threads` threads, each taking the
/// next chunk when it is done with one; the results in chunk order, or the
/// first error in that order.
fn chunk_by_chunk<S: Send>(
    chunks: usize,
    threads: usize,
    run: &(dyn Fn(usize) -> Result<S, IndexFileError> + Sync),
) -> Result<Vec<S>, IndexFileError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if c >= chunks {
                return done;
            }
            let state = run(c);
            let failed = state.is_err();
            done.push((c, state));
            if failed {
                return done;
            }
        }
    };
    let mut results: Vec<(usize, Result<S, IndexFileError>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, chunks.max(1)))
            .map(|_| scope.spawn(worker))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a scan thread panicked"))
            .collect()
    });
    results.sort_unstable_by_key(|(c, _)| *c);
    results.into_iter().map(|(_, state)| state).collect()
}

/// Rows a scan thread takes at a time ([`Light::scan`]): about eight chunks
/// a thread, so that threads end together, and between 256 and 4,096 rows,
/// so that a chunk's own state costs nothing beside its rows. (A few in
/// the unit tests, so that their small indexes span chunks.)
fn chunk_rows(rows: usize, threads: usize) -> usize {
    if cfg!(test) {
        return 3;
    }
    (rows / (threads.max(1) * 8)).clamp(256, 4_096)
}

impl Light {
    /// The base and the delta, and the usage file when `with_usage` (a
    /// query that reads [`crate::Facts::usage`]).
    pub fn load(dir: &Path, with_usage: bool) -> Result<Self, IndexFileError> {
        let path = dir.join(BASE);
        let text = read(&path)?;
        let (tables, generation) = {
            let doc = parse_doc(&path, &text)?;
            if doc.scalar("format") != Some(FORMAT) {
                return Err(corrupt(&path, 1, format!("not a {FORMAT} file")));
            }
            let generation = doc.scalar("generation").and_then(|g| g.parse().ok());
            (TableSpan::all_of(&text, &doc), generation.unwrap_or(0))
        };
        let usage = if with_usage {
            let usage_path = dir.join(USAGE);
            let usage_text = read(&usage_path)?;
            let span = {
                let doc = parse_doc(&usage_path, &usage_text)?;
                TableSpan::all_of(&usage_text, &doc)
                    .into_iter()
                    .find(|t| t.name == "usage")
                    .unwrap_or(TableSpan {
                        name: "usage".into(),
                        fields: Vec::new(),
                        rows: Vec::new(),
                    })
            };
            Some((usage_path, usage_text, span))
        } else {
            None
        };
        let light = Self {
            path,
            text,
            tables,
            usage,
            generation,
            delta: load_delta(dir)?,
        };
        // Tables of different lengths: corrupt at once, not half way through.
        light.usage_rows()?;
        Ok(light)
    }

    fn table(&self, name: &str) -> Option<toon::Table<'_>> {
        let t = self.tables.iter().find(|t| t.name == name)?;
        Some(t.table(&self.text))
    }

    /// The usage file's rows beside the sessions table's, if loaded.
    fn usage_rows(&self) -> Result<Option<UsageRows<'_>>, IndexFileError> {
        let Some((path, text, span)) = &self.usage else {
            return Ok(None);
        };
        let sessions = self.table("sessions").map_or(0, |t| t.rows.len());
        let t = span.table(text);
        let t = (!t.fields.is_empty()).then_some(t);
        UsageRows::new(path, t.as_ref(), sessions).map(Some)
    }

    /// The rows of the base's table `name`, less those whose path `replaced`
    /// holds, then `newer` (the delta's rows of that table).
    fn merged<T: Clone>(
        &self,
        name: &str,
        fields: &[&str],
        read_row: impl Fn(&[&str]) -> Result<T, String>,
        path_of: impl Fn(&T) -> &str,
        replaced: &crate::path_set::PathSet<&str>,
        newer: &[T],
    ) -> Result<Vec<T>, IndexFileError> {
        let mut rows = table_rows(
            &self.path,
            self.table(name).as_ref(),
            name,
            fields,
            read_row,
        )?;
        rows.retain(|r| !replaced.contains(path_of(r)));
        rows.extend(newer.iter().cloned());
        Ok(rows)
    }

    /// Directories of the base, with the delta's applied.
    pub fn dirs(&self) -> Result<Vec<DirStamp>, IndexFileError> {
        let replaced = self.delta.dirs.iter().map(|d| d.path.as_str()).collect();
        self.merged(
            "dirs",
            DIR_FIELDS,
            dir_stamp,
            |d| &d.path,
            &replaced,
            &self.delta.dirs,
        )
    }

    /// Notes (markdown that is not a session) of the base, with the delta's
    /// applied.
    pub fn notes(&self) -> Result<Vec<Note>, IndexFileError> {
        let replaced = self.delta.paths();
        self.merged(
            "notes",
            NOTE_FIELDS,
            Note::from_cells,
            |n| &n.path,
            &replaced,
            &self.delta.notes,
        )
    }

    /// Problems of the base, with the delta's applied.
    pub fn problems(&self) -> Result<Vec<Problem>, IndexFileError> {
        let replaced = self.delta.paths();
        self.merged(
            "problems",
            PROBLEM_FIELDS,
            Problem::from_cells,
            |p| &p.path,
            &replaced,
            &self.delta.problems,
        )
    }

    /// Calls `each` with the cells (in `SESSION_FIELDS` order) of every base
    /// session row the delta does not replace and `keep` accepts (`keep`
    /// sees every such row, with the thread's state and the row's path
    /// decoded), on
    /// `threads` threads, each with its own state from `init`; returns the
    /// states. `keep` sees only the first [`SESSION_PREFIX`] cells unless
    /// `split` is [`Split::Whole`], so rejected rows cost little; with
    /// [`Split::PrefixOnly`] `each` sees them too, and the usage cell.
    pub fn scan<S: Send>(
        &self,
        threads: usize,
        split: Split,
        keep: &(dyn Fn(&mut S, &str, &[&str]) -> bool + Sync),
        init: &(dyn Fn() -> S + Sync),
        each: &RowFn<'_, S>,
    ) -> Result<Vec<S>, IndexFileError> {
        let Some(t) = self.table("sessions") else {
            return Ok(vec![init()]);
        };
        // The cells in `SESSION_FIELDS` order: the base's, then `usage`
        // (from the usage file, or null when the query reads none).
        let columns = Columns::new(&t, BASE_SESSION_FIELDS);
        // Splitting a prefix first only pays when most rows are then rejected
        // (or when the rest is not wanted).
        let prefix = if split != Split::Whole && columns.is_identity() {
            SESSION_PREFIX
        } else {
            usize::MAX
        };
        let whole_after = prefix != usize::MAX && split == Split::PrefixFirst;
        let wanted = BASE_SESSION_FIELDS.len().min(prefix);
        let replaced = self.delta.paths();
        let usage = self.usage_rows()?;
        // Rows are handed out in chunks, a state per chunk, so that a thread
        // sharing its core (with the rollup reader, say) does not leave the
        // other idle at the end: with one half each, one thread finished a
        // quarter of the query's time before the other. The states come back
        // in row order, as the halves did.
        let per = chunk_rows(t.rows.len(), threads);
        let chunks = t.rows.len().div_ceil(per).max(1);
        let run_chunk = |c: usize| -> Result<S, IndexFileError> {
            let rows = t.rows.get(c * per..).unwrap_or_default();
            let rows = &rows[..rows.len().min(per)];
            let mut state = init();
            let mut cells = Vec::with_capacity(SESSION_FIELDS.len());
            let mut ordered = Vec::with_capacity(SESSION_FIELDS.len());
            let (mut usage_cells, mut usage_ordered) = (Vec::new(), Vec::new());
            for (k, row) in rows.iter().enumerate() {
                let i = c * per + k;
                let line = |m: String| {
                    corrupt(
                        &self.path,
                        i + 1,
                        format!("table `sessions`, row {}: {m}", i + 1),
                    )
                };
                toon::split_row_prefix(row, prefix, &mut cells).map_err(line)?;
                columns.order(&cells, &mut ordered);
                // A short row (an index edited by hand) is corrupt here, not
                // a panic in `keep`, which reads the stamp's cells.
                if ordered.len() < wanted {
                    let found = ordered.len();
                    return Err(line(format!("expected {wanted} cells, found {found}")));
                }
                let path = toon::text(ordered[0]).map_err(line)?.unwrap_or_default();
                if !replaced.is_empty() && replaced.contains(path.as_ref()) {
                    continue;
                }
                if !keep(&mut state, &path, &ordered) {
                    continue;
                }
                if whole_after {
                    toon::split_row(row, &mut cells).map_err(line)?;
                    columns.order(&cells, &mut ordered);
                }
                ordered.push(match &usage {
                    Some(usage) => usage.cell(i, &path, &mut usage_cells, &mut usage_ordered)?,
                    None => "null",
                });
                each(&mut state, &ordered).map_err(line)?;
            }
            Ok(state)
        };
        let mut states = chunk_by_chunk(chunks, threads, &run_chunk)?;
        if states.is_empty() {
            states.push(init());
        }
        Ok(states)
    }
}
