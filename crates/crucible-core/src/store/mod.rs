//! The session store: a directory of session files.
//!
//! Every `*.md` below the directory whose frontmatter says `type: session` is
//! a session (subfolders included, hidden ones skipped); new sessions are
//! written at the top as `<session_id>.md`. Writers hold the directory's
//! [`DirLock`](lock::DirLock) and replace files atomically.

mod allocate;
pub mod atomic;
mod byte_order;
pub mod discovery;
pub mod journal;
pub mod lock;
pub mod names;
pub mod safe_file;
pub mod walk;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub use allocate::{IdAllocator, slugify};
pub use safe_file::{DEFAULT_MAX_FILE_BYTES, UnsafeFile};
pub use walk::{Skipped, Tree, session_files, session_tree};

use crate::{SessionEvent, SessionId, SessionIdError, SessionLog, TimedEvent, Timestamp};

/// Below this size a session's markdown is brought up to date at every phase
/// boundary, so people reading the file see whole phases as they finish;
/// above it, only when the journal has grown as large as the file, which
/// keeps recording linear however long a session gets.
const FOLD_AT_PHASE_BELOW: u64 = 256 * 1024;
/// The journal is folded once it reaches this size, or the file's, whichever
/// is larger.
const FOLD_JOURNAL_AT_LEAST: u64 = 64 * 1024;
/// How often a fold reads a file again that changed under it before it
/// leaves the journal for the next writer.
const FOLD_ATTEMPTS: usize = 8;

/// The error a codec gives for a file it cannot read. Its message names the
/// file and line already.
pub type CodecError = Box<dyn std::error::Error + Send + Sync>;

/// How the store turns bytes into sessions and back. `crucible-parser`
/// implements it for markdown; the store itself knows no syntax.
pub trait SessionCodec {
    /// The id a file declares, from at most the first [`HEAD_BYTES`] of it;
    /// `None` when the file is not a session (no frontmatter, or `type` is
    /// not `session`).
    fn peek_id(&self, head: &[u8]) -> Option<String>;
    /// Parses a whole file; errors name `path` and the line.
    fn decode(&self, path: &Path, bytes: &[u8]) -> Result<SessionLog, CodecError>;
    /// The canonical file text of a session.
    fn encode(&self, log: &SessionLog) -> String;
}

/// Told about every session file the store writes, under the directory lock,
/// after the file is in place. `crucible-index` implements it to keep the
/// index current on every save. It must not fail the save: the file is the
/// truth, and whatever the observer derives can be rebuilt.
pub trait StoreObserver: Send + Sync + std::fmt::Debug {
    fn written(&self, path: &Path, log: &SessionLog);
}

/// A session file found by a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    pub id: SessionId,
    pub path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no session matches `{query}` in {dir}")]
    NotFound { query: String, dir: PathBuf },
    #[error("{path}: no such file")]
    NoSuchFile { path: PathBuf },
    #[error("{path}: a directory, not a session file")]
    IsADirectory { path: PathBuf },
    #[error("`{query}` matches {} sessions: {}", candidates.len(), list(candidates))]
    Ambiguous {
        query: String,
        candidates: Vec<SessionFile>,
    },
    #[error("session id `{id}` is used by {} files: {}", paths.len(), paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    DuplicateId { id: SessionId, paths: Vec<PathBuf> },
    #[error("{path}: not a session file (expected frontmatter with `type: session`)")]
    NotASession { path: PathBuf },
    #[error("{0}")]
    Decode(CodecError),
    #[error(transparent)]
    InvalidId(#[from] SessionIdError),
    #[error("{path}: a session with this id already exists")]
    AlreadyExists { path: PathBuf },
    #[error(transparent)]
    Unsafe(#[from] UnsafeFile),
    #[error("{0}")]
    Skipped(Skipped),
    #[error("{path}:{}: {}", .error.line, .error.message)]
    Data {
        path: PathBuf,
        error: crate::session::DataError,
    },
    #[error(
        "{path}: journal lines {lines:?} cannot be read; they are kept, and the journal is not folded until they are fixed or removed"
    )]
    UnreadableJournal { path: PathBuf, lines: Vec<usize> },
}

fn list(c: &[SessionFile]) -> String {
    c.iter()
        .map(|f| f.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl StoreError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| Self::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// A sessions directory and the codec for its files.
#[derive(Debug, Clone)]
pub struct SessionStore<C> {
    dir: PathBuf,
    codec: C,
    observer: Option<std::sync::Arc<dyn StoreObserver>>,
    max_file_bytes: u64,
    check_duplicates: bool,
    /// In a bulk write ([`SessionStore::for_bulk_write`]): the files it
    /// created, not synced yet.
    bulk: Option<std::sync::Arc<std::sync::Mutex<std::collections::HashSet<PathBuf>>>>,
    /// How long a write waits for the writer lock (`None`: as long as it
    /// takes); see [`SessionStore::with_lock_wait`].
    lock_wait: Option<std::time::Duration>,
}

impl<C: SessionCodec> SessionStore<C> {
    /// A store over `dir`. The directory need not exist: reads then find no
    /// sessions, and the first write creates it.
    pub fn new(dir: impl Into<PathBuf>, codec: C) -> Self {
        Self {
            dir: dir.into(),
            codec,
            observer: None,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            check_duplicates: true,
            bulk: None,
            lock_wait: None,
        }
    }

    /// The same store for a bulk write (an import of thousands of
    /// sessions): a file it creates, and its later rewrites in the same
    /// bulk write, are renamed into place without an fsync each, and made
    /// durable all at once by [`SessionStore::sync_bulk`], which the caller
    /// runs at the end. A file that was there before is still synced before
    /// it is replaced. Each write stays atomic: a kill leaves every file
    /// old or new; a crash of the machine before the final sync can lose
    /// (or leave empty) only files the bulk write created, which running it
    /// again writes again.
    #[must_use]
    pub fn for_bulk_write(mut self) -> Self {
        self.bulk = Some(std::sync::Arc::default());
        self
    }

    /// Makes what a bulk write wrote durable: one sync of the file system
    /// that holds the directory (a no-op cost for a store not in bulk).
    pub fn sync_bulk(&self) -> Result<(), StoreError> {
        let Some(fresh) = &self.bulk else {
            return Ok(());
        };
        atomic::sync_file_system(&self.dir).map_err(StoreError::io(&self.dir))?;
        fresh
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        Ok(())
    }

    /// How a write of `path` reaches the disk: deferred to the end of a
    /// bulk write for a file the bulk write created, else now.
    fn durability_for(&self, path: &Path) -> atomic::Durability {
        let Some(fresh) = &self.bulk else {
            return atomic::Durability::EachFile;
        };
        let absent = || {
            matches!(std::fs::symlink_metadata(path),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound)
        };
        let fresh = fresh
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if fresh.contains(path) || absent() {
            atomic::Durability::Deferred
        } else {
            atomic::Durability::EachFile
        }
    }

    /// Notes a file written with `durability`: one created in a bulk write
    /// is rewritten without a sync of its own until [`SessionStore::sync_bulk`].
    fn written_with(&self, path: &Path, durability: atomic::Durability) {
        if let Some(fresh) = &self.bulk
            && durability == atomic::Durability::Deferred
        {
            fresh
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(path.to_owned());
        }
    }

    /// The same store, trusting that the file named `<id>.md` is the only
    /// one declaring that id, so finding a session by its id reads one file
    /// instead of every file's head. For hooks only (`cru session log`,
    /// once per agent event, within a few milliseconds): they write to the
    /// session they started, whose file is named after its id.
    #[must_use]
    pub fn trusting_file_names(mut self) -> Self {
        self.check_duplicates = false;
        self
    }

    /// The same store, refusing to read session files larger than `bytes`
    /// (they are skipped with a warning by every walk).
    #[must_use]
    pub fn with_max_file_bytes(mut self, bytes: u64) -> Self {
        self.max_file_bytes = bytes;
        self
    }

    /// The largest session file this store reads.
    pub fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes
    }

    /// The bytes of a session file: a regular file within the size limit,
    /// opened without blocking (see [`safe_file`]).
    pub fn read_bytes(&self, path: &Path) -> Result<Vec<u8>, StoreError> {
        Ok(safe_file::read_regular(path, self.max_file_bytes)?)
    }

    /// The same store, telling `observer` about every file it writes.
    #[must_use]
    pub fn with_observer(mut self, observer: std::sync::Arc<dyn StoreObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    fn notify(&self, path: &Path, log: &SessionLog) {
        if let Some(o) = &self.observer {
            o.written(path, log);
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn codec(&self) -> &C {
        &self.codec
    }

    /// Every session file below the directory, with the id its frontmatter
    /// declares, in path order. Files that are not sessions are left out;
    /// files that cannot be read are returned as errors beside the rest.
    pub fn scan(&self) -> Vec<Result<SessionFile, StoreError>> {
        let tree = match session_tree(&self.dir) {
            Ok(t) => t,
            Err(source) => {
                return vec![Err(StoreError::Io {
                    path: self.dir.clone(),
                    source,
                })];
            }
        };
        let skipped = tree
            .skipped
            .into_iter()
            .map(|s| Err(StoreError::Skipped(s)));
        tree.files
            .into_iter()
            .filter_map(|path| match read_head(&path, self.max_file_bytes) {
                Err(e) => Some(Err(StoreError::Unsafe(e))),
                Ok(bytes) => {
                    let Some(id) = self.codec.peek_id(&bytes) else {
                        tracing::trace!(path = %path.display(), "not a session");
                        return None;
                    };
                    // An id no file could carry still names a session: keep the
                    // file visible under its file name so it can be shown and fixed.
                    let id = SessionId::new(&id)
                        .or_else(|_| SessionId::new(&stem(&path)))
                        .ok()?;
                    Some(Ok(SessionFile { id, path }))
                }
            })
            .chain(skipped)
            .collect()
    }

    /// Finds the file a user meant: a path to a file, a session id, or a
    /// unique prefix of one, compared without regard to case.
    pub fn resolve(&self, query: &str) -> Result<PathBuf, StoreError> {
        let as_path = Path::new(query);
        let looks_like_path = query.contains(std::path::MAIN_SEPARATOR)
            || query.contains('/')
            || as_path.extension() == Some(OsStr::new("md"));
        if as_path.is_file() {
            return Ok(as_path.to_owned());
        }
        if let Ok(meta) = std::fs::metadata(as_path)
            && !meta.is_file()
            && !meta.is_dir()
        {
            return Err(StoreError::Unsafe(UnsafeFile::NotRegular {
                path: as_path.to_owned(),
                kind: safe_file::kind_name(meta.file_type()),
            }));
        }
        if looks_like_path && as_path.is_dir() {
            return Err(StoreError::IsADirectory {
                path: as_path.to_owned(),
            });
        }
        if looks_like_path {
            return Err(StoreError::NoSuchFile {
                path: as_path.to_owned(),
            });
        }
        self.resolve_id(&SessionId::new(query)?)
    }

    /// Finds the file of a session id, or of a unique prefix of one, inside
    /// the directory only. Ids written in files (subagent links, `parent`)
    /// go through here and never through [`SessionStore::resolve`]: an id
    /// such as `notes.md` must not be read as a path beside the working
    /// directory.
    ///
    /// Two files declaring the same id are refused ([`StoreError::DuplicateId`],
    /// naming both): picking one silently would show, resume or end the wrong
    /// session. A file that matches but cannot be read is reported as what it
    /// is (permission denied on it), not as "no session matches".
    pub fn resolve_id(&self, id: &SessionId) -> Result<PathBuf, StoreError> {
        let query = id.as_str();
        let want = query.to_lowercase();
        let direct = self.dir.join(format!("{query}.md"));
        // Fast path, for hooks: the file named after the id, declaring it.
        match read_head(&direct, self.max_file_bytes) {
            Ok(bytes)
                if !self.check_duplicates
                    && self
                        .codec
                        .peek_id(&bytes)
                        .is_some_and(|id| id.to_lowercase() == want) =>
            {
                return Ok(direct);
            }
            Err(e @ UnsafeFile::PermissionDenied { .. }) => return Err(e.into()),
            _ => {}
        }
        tracing::debug!(query, "scanning the directory for the id");
        let mut files = Vec::new();
        let mut unreadable = Vec::new();
        for found in self.scan() {
            match found {
                Ok(f) => files.push(f),
                Err(StoreError::Unsafe(u)) => unreadable.push(u),
                Err(_) => {}
            }
        }
        let exact: Vec<&SessionFile> = files
            .iter()
            .filter(|f| f.id.as_str().to_lowercase() == want)
            .collect();
        match exact.as_slice() {
            [one] => return Ok(one.path.clone()),
            [first, ..] => {
                return Err(StoreError::DuplicateId {
                    id: first.id.clone(),
                    paths: exact.iter().map(|f| f.path.clone()).collect(),
                });
            }
            [] => {}
        }
        let mut prefixed: Vec<SessionFile> = files
            .iter()
            .filter(|f| f.id.as_str().to_lowercase().starts_with(&want))
            .cloned()
            .collect();
        if prefixed.is_empty() {
            // A file whose name differs from its id is still found by its name.
            prefixed = files
                .into_iter()
                .filter(|f| stem(&f.path).to_lowercase().starts_with(&want))
                .collect();
        }
        match prefixed.len() {
            0 => Err(unreadable
                .into_iter()
                .find(|u| stem(u.path()).to_lowercase().starts_with(&want))
                .map_or_else(
                    || StoreError::NotFound {
                        query: query.to_owned(),
                        dir: self.dir.clone(),
                    },
                    StoreError::from,
                )),
            1 => Ok(prefixed.remove(0).path),
            // Several files, one id: not a prefix to type more of.
            _ if prefixed
                .iter()
                .all(|f| f.id.as_str().eq_ignore_ascii_case(prefixed[0].id.as_str())) =>
            {
                Err(StoreError::DuplicateId {
                    id: prefixed[0].id.clone(),
                    paths: prefixed.into_iter().map(|f| f.path).collect(),
                })
            }
            _ => Err(StoreError::Ambiguous {
                query: query.to_owned(),
                candidates: prefixed,
            }),
        }
    }

    /// Reads and parses the session at `path`, with the events of its journal
    /// applied.
    pub fn load_path(&self, path: &Path) -> Result<SessionLog, StoreError> {
        let _shared = path.parent().and_then(lock::DirLock::acquire_shared);
        self.load_locked(path)
    }

    /// [`SessionStore::load_path`] for a caller holding the directory's
    /// writer lock (taking the shared lock too would wait for ever: the
    /// kernel lock is per open file, not per process).
    pub fn load_path_locked(
        &self,
        path: &Path,
        _held: &lock::DirLock,
    ) -> Result<SessionLog, StoreError> {
        self.load_locked(path)
    }

    /// [`SessionStore::load_path`] for a caller that holds a lock.
    fn load_locked(&self, path: &Path) -> Result<SessionLog, StoreError> {
        self.load_with_journal(path, JournalCheck::Applied)
            .map(|(log, _)| log)
    }

    /// The session with its journal applied, and the journal's unreadable
    /// lines: among those applied, or among all of them for a caller that is
    /// about to remove the journal.
    fn load_with_journal(
        &self,
        path: &Path,
        check: JournalCheck,
    ) -> Result<(SessionLog, Vec<usize>), StoreError> {
        let bytes = safe_file::read_regular(path, self.max_file_bytes)?;
        let mut log = self
            .codec
            .decode(path, &bytes)
            .map_err(StoreError::Decode)?;
        let jpath = journal::journal_path(path);
        let mut bad = Vec::new();
        if let Some(contents) = journal::read(&jpath).map_err(StoreError::io(&jpath))? {
            let pending = contents.pending_for(&bytes);
            if !pending.bad_lines.is_empty() {
                tracing::warn!(journal = %jpath.display(), lines = ?pending.bad_lines, "skipped unreadable journal lines");
            }
            bad = match check {
                JournalCheck::Applied => pending.bad_lines,
                JournalCheck::All => contents.all().bad_lines,
            };
            for event in &pending.events {
                log.apply(event);
            }
        }
        Ok((log, bad))
    }

    /// Resolves `query` (see [`SessionStore::resolve`]) and parses the file.
    pub fn load(&self, query: &str) -> Result<(PathBuf, SessionLog), StoreError> {
        let path = self.resolve(query)?;
        let log = self.load_path(&path)?;
        Ok((path, log))
    }

    /// Takes the directory's writer lock, creating the directory if needed.
    pub fn lock(&self) -> Result<lock::DirLock, StoreError> {
        std::fs::create_dir_all(&self.dir).map_err(StoreError::io(&self.dir))?;
        lock::DirLock::acquire_within(&self.dir, self.lock_wait).map_err(StoreError::io(&self.dir))
    }

    /// The same store, whose writes give up (an error) when the writer
    /// lock is not theirs within `limit`: for an agent's hook, which must
    /// never stall its agent behind a stuck cru.
    #[must_use]
    pub fn with_lock_wait(mut self, limit: std::time::Duration) -> Self {
        self.lock_wait = Some(limit);
        self
    }

    /// The lock of the directory holding `path` (a session may live in a subfolder,
    /// but all writers of one sessions directory share one lock).
    fn lock_for(&self, path: &Path) -> Result<lock::DirLock, StoreError> {
        if path.starts_with(&self.dir) {
            return self.lock();
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        lock::DirLock::acquire(dir).map_err(StoreError::io(dir))
    }

    /// Replaces the markdown at `path` with `log`, folding away its journal.
    /// The caller holds the lock.
    fn replace_locked(&self, path: &Path, log: &SessionLog) -> Result<(), StoreError> {
        let text = self.codec.encode(log);
        let jpath = journal::journal_path(path);
        let has_journal = jpath.exists();
        if has_journal {
            journal::mark_folded(&jpath, &journal::content_hash(text.as_bytes()))
                .map_err(StoreError::io(&jpath))?;
        }
        let durability = self.durability_for(path);
        atomic::write_atomic_with(path, &[text.as_bytes()], durability)
            .map_err(StoreError::io(path))?;
        self.written_with(path, durability);
        if has_journal {
            journal::remove(&jpath).map_err(StoreError::io(&jpath))?;
        }
        self.notify(path, log);
        Ok(())
    }

    /// Writes `log` over the file at `path` atomically, under the lock. Any
    /// journal of that file is dropped: `log` is taken to contain it (use
    /// [`SessionStore::update`] for a read-modify-write).
    pub fn save_to(&self, path: &Path, log: &SessionLog) -> Result<(), StoreError> {
        let _lock = self.lock_for(path)?;
        self.replace_locked(path, log)
    }

    /// Writes `log` to the file that holds its id, or to `<dir>/<id>.md` for a
    /// new session. Returns the path written.
    pub fn save(&self, log: &SessionLog) -> Result<PathBuf, StoreError> {
        let path = match self.resolve_id(log.id()) {
            Ok(p) => p,
            Err(StoreError::NotFound { .. }) => self.dir.join(log.id().file_name()),
            Err(e) => return Err(e),
        };
        self.save_to(&path, log)?;
        Ok(path)
    }

    /// Writes the sidecar of the session at `path` ([`crate::data_path`])
    /// atomically, under the lock; empty data removes it. The session's
    /// file is not touched: write the sidecar first, so that a session is
    /// never without the data it was saved with.
    pub fn save_data(
        &self,
        path: &Path,
        id: &SessionId,
        data: &crate::SessionData,
    ) -> Result<(), StoreError> {
        self.save_data_records(path, id, &data.records_jsonl())
    }

    /// [`SessionStore::save_data`] from the records already serialized
    /// ([`crate::SessionData::records_jsonl`]): an import hashes them for
    /// the session's `import` key and writes the same bytes.
    pub fn save_data_records(
        &self,
        path: &Path,
        id: &SessionId,
        records: &[u8],
    ) -> Result<(), StoreError> {
        let _lock = self.lock_for(path)?;
        let dpath = crate::data_path(path);
        if records.is_empty() {
            return match std::fs::remove_file(&dpath) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(StoreError::io(&dpath)(e))
                }
                _ => Ok(()),
            };
        }
        let header = crate::SessionData::default().to_jsonl(id);
        let durability = self.durability_for(&dpath);
        atomic::write_atomic_with(&dpath, &[&header, records], durability)
            .map_err(StoreError::io(&dpath))?;
        self.written_with(&dpath, durability);
        Ok(())
    }

    /// The bytes of the sidecar of the session at `path`: `None` when it
    /// has none. The sidecar is cru's own file: a link there is refused
    /// (never followed out of the directory), as is anything but a regular
    /// file (a FIFO would block) or one over the size limit.
    pub fn read_data_bytes(&self, path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        use std::io::Read;
        let dpath = crate::data_path(path);
        let file = match safe_file::open_own(&dpath, std::fs::OpenOptions::new().read(true)) {
            Ok(f) => f,
            Err(UnsafeFile::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        let (file, meta) = safe_file::checked(&dpath, file, self.max_file_bytes)?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.take(self.max_file_bytes)
            .read_to_end(&mut bytes)
            .map_err(StoreError::io(&dpath))?;
        Ok(Some(bytes))
    }

    /// Reads the sidecar of the session at `path`: the session id its
    /// header names and its records; `None` when it has none.
    pub fn load_data(
        &self,
        path: &Path,
    ) -> Result<Option<(String, crate::SessionData)>, StoreError> {
        let Some(bytes) = self.read_data_bytes(path)? else {
            return Ok(None);
        };
        crate::SessionData::from_jsonl(&bytes)
            .map(Some)
            .map_err(|error| StoreError::Data {
                path: crate::data_path(path),
                error,
            })
    }

    /// The sidecar of `log` (read from `path`), only if it is that
    /// session's and matches it: one that names another session, or whose
    /// call records point at calls the session does not have, is an error
    /// (what it holds would be put on the wrong calls).
    pub fn load_data_for(
        &self,
        path: &Path,
        log: &SessionLog,
    ) -> Result<Option<crate::SessionData>, StoreError> {
        let Some((id, data)) = self.load_data(path)? else {
            return Ok(None);
        };
        let mismatch = |line, message| StoreError::Data {
            path: crate::data_path(path),
            error: crate::DataError { line, message },
        };
        if id != log.id().as_str() {
            return Err(mismatch(
                1,
                format!("the sidecar of session `{id}`, not of `{}`", log.id()),
            ));
        }
        if let Some(m) = data.check(log).into_iter().next() {
            return Err(mismatch(m.line, m.message));
        }
        Ok(Some(data))
    }

    /// Reads the session at `path` (journal applied), lets `change` modify it,
    /// and writes it back, all under the lock, so no concurrent event is lost.
    pub fn update<T>(
        &self,
        path: &Path,
        change: impl FnOnce(&mut SessionLog) -> T,
    ) -> Result<T, StoreError> {
        let _lock = self.lock_for(path)?;
        // The journal goes when the file is replaced: every line counts.
        let (mut log, bad) = self.load_with_journal(path, JournalCheck::All)?;
        if !bad.is_empty() {
            return Err(StoreError::UnreadableJournal {
                path: journal::journal_path(path),
                lines: bad,
            });
        }
        let out = change(&mut log);
        self.replace_locked(path, &log)?;
        Ok(out)
    }

    /// Applies the journal of `path` to its markdown. The folded events stay
    /// in the journal, behind a marker, for the next few folds (see
    /// `fold_locked`).
    pub fn fold(&self, path: &Path) -> Result<(), StoreError> {
        let _lock = self.lock_for(path)?;
        self.fold_locked(path, true).map(drop)
    }

    /// Folds the journal into the markdown.
    ///
    /// People edit session files too, without cru's lock. A file that
    /// changed between the read and the rename (an editor saved it) is never
    /// replaced: the fold reads it again and applies the journal to the new
    /// text. With `keep_folded` (folds while recording goes on), the folded
    /// events stay in the journal as a segment closed by a marker naming the
    /// lines they added, for the next few folds: an editor that read the
    /// file before the fold and saves after it (even held up across several
    /// more writers) loses none of them. Without it (a pause or an end, the
    /// last write for a while), the journal goes once the file holds it.
    ///
    /// Returns the file's bytes as the fold left it (what it wrote, or what
    /// it found already holding the journal), so the caller need not read
    /// it again; `None` when the file kept changing and nothing was folded.
    fn fold_locked(&self, path: &Path, keep_folded: bool) -> Result<Option<Vec<u8>>, StoreError> {
        let jpath = journal::journal_path(path);
        for _ in 0..FOLD_ATTEMPTS {
            let read = FileStamp::of(path);
            let bytes = safe_file::read_regular(path, self.max_file_bytes)?;
            let Some(contents) = journal::read(&jpath).map_err(StoreError::io(&jpath))? else {
                return Ok(Some(bytes));
            };
            let pending = contents.pending_for(&bytes);
            // A fold never drops a line it could not read: not among those
            // it applies, and not anywhere when it removes the journal.
            let bad = if keep_folded {
                pending.bad_lines
            } else {
                contents.all().bad_lines
            };
            if !bad.is_empty() {
                return Err(StoreError::UnreadableJournal {
                    path: jpath,
                    lines: bad,
                });
            }
            let pending = pending.events;
            if pending.is_empty() {
                // The file holds every event of the journal already. Kept
                // folds stay while recording goes on (see `append_locked`).
                if !keep_folded {
                    journal::remove(&jpath).map_err(StoreError::io(&jpath))?;
                }
                return Ok(Some(bytes));
            }
            let mut log = self
                .codec
                .decode(path, &bytes)
                .map_err(StoreError::Decode)?;
            for event in &pending {
                log.apply(event);
            }
            let text = self.codec.encode(&log);
            if FileStamp::of(path) != read {
                continue;
            }
            // The marker goes first: a crash after the rename must tell
            // readers that this file holds the journal's events already.
            journal::mark_folded_from(&jpath, &bytes, text.as_bytes())
                .map_err(StoreError::io(&jpath))?;
            let replaced = atomic::replace_if_unchanged(path, text.as_bytes(), |p| {
                read.is_some() && FileStamp::of(p) == read
            })
            .map_err(StoreError::io(path))?;
            if replaced {
                if !keep_folded {
                    journal::remove(&jpath).map_err(StoreError::io(&jpath))?;
                }
                self.notify(path, &log);
                return Ok(Some(text.into_bytes()));
            }
            tracing::debug!(path = %path.display(), "changed while folding; reading it again");
        }
        // Nothing is lost: the events stay in the journal, which every
        // reader applies, and the next writer folds again.
        tracing::warn!(path = %path.display(), "the file kept changing; its journal is not folded yet");
        Ok(None)
    }

    /// Appends events to the journal of the session at `path` (fsynced when
    /// `durable`), folding it into the markdown when the fold rules say so:
    /// on pause, end and reopen; at a phase boundary while the file is small;
    /// whenever the journal has grown as large as the file.
    pub fn append_events(
        &self,
        path: &Path,
        events: &[TimedEvent],
        durable: bool,
    ) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let _lock = self.lock_for(path)?;
        self.append_locked(path, events, durable)
    }

    /// [`SessionStore::append_events`] for a writer whose events depend on
    /// the session as it is now (none for an ended session; a reopen first
    /// for a paused one): `check` is given the session read under the same
    /// exclusive lock as the append, so no other writer can come between the
    /// check and the write, and may refuse or complete the events.
    ///
    /// Re-reading the whole session for every append would make recording
    /// quadratic, so `seen` carries what this writer saw last time: when
    /// neither the markdown nor the journal changed since, nobody else wrote,
    /// and the earlier check still holds.
    pub fn append_events_checked<E: From<StoreError>>(
        &self,
        path: &Path,
        events: &mut Vec<TimedEvent>,
        durable: bool,
        seen: &mut Option<Seen>,
        check: impl FnOnce(&SessionLog, &mut Vec<TimedEvent>) -> Result<(), E>,
    ) -> Result<(), E> {
        if events.is_empty() {
            return Ok(());
        }
        let _lock = self.lock_for(path)?;
        if seen.as_ref() != Some(&Seen::now(path)) {
            *seen = None;
            // A pause or end removes the journal: then every line counts.
            let lines = if ends_recording(events) {
                JournalCheck::All
            } else {
                JournalCheck::Applied
            };
            let (current, bad) = self.load_with_journal(path, lines)?;
            check(&current, events)?;
            if !bad.is_empty() && folds_after(events, path) {
                // The append would be followed by a fold that must refuse:
                // refuse first, so the failed command changes nothing.
                return Err(StoreError::UnreadableJournal {
                    path: journal::journal_path(path),
                    lines: bad,
                }
                .into());
            }
        }
        self.append_locked(path, events, durable)?;
        *seen = Some(Seen::now(path));
        Ok(())
    }

    /// Reads and parses the session at `path` like [`SessionStore::load_path`],
    /// with what the reader saw, for a later [`SessionStore::append_events_checked`].
    pub fn load_seen(&self, path: &Path) -> Result<(SessionLog, Option<Seen>), StoreError> {
        let _shared = path.parent().and_then(lock::DirLock::acquire_shared);
        let (log, bad) = self.load_with_journal(path, JournalCheck::Applied)?;
        // With unreadable lines the next append must look again (it may fold).
        let seen = bad.is_empty().then(|| Seen::now(path));
        Ok((log, seen))
    }

    fn append_locked(
        &self,
        path: &Path,
        events: &[TimedEvent],
        durable: bool,
    ) -> Result<(), StoreError> {
        let jpath = journal::journal_path(path);
        if let journal::Tail::Folded(_) =
            journal::repair_tail(&jpath).map_err(StoreError::io(&jpath))?
        {
            // A fold came last (or was cut short). The file must hold its
            // events (an editor may have saved over it since: fold again),
            // then segments older than the last few go, so the journal stays
            // as small as what it must keep.
            // The file as the fold left it (none when it kept changing:
            // then nothing is dropped until a later writer folds).
            if let Some(bytes) = self.fold_locked(path, true)? {
                journal::keep_recent(&jpath, &bytes).map_err(StoreError::io(&jpath))?;
            }
        }
        // Only the open events weigh against the file: kept segments are
        // in it already, and counting them would fold on every append.
        let open_len = journal::append(&jpath, events, durable).map_err(StoreError::io(&jpath))?;
        let md_len = journal::size(path);
        if ends_recording(events)
            || (starts_phase(events) && md_len < FOLD_AT_PHASE_BELOW)
            || open_len >= md_len.max(FOLD_JOURNAL_AT_LEAST)
        {
            // A pause or end is the last write for a while: nothing would
            // come to remove a journal kept now.
            self.fold_locked(path, !ends_recording(events))?;
        }
        Ok(())
    }

    /// Removes the temporary files of session files that writers killed
    /// before their rename left at the top of the directory (hidden, so no
    /// reader takes them for sessions, but they are litter). Returns how many.
    pub fn remove_stale_temp_files(&self) -> Result<usize, StoreError> {
        let _lock = self.lock()?;
        let mut removed = 0;
        // Not the walker: these names are hidden (the walker's rules leave
        // them out), only the top folder holds them, and nothing is opened:
        // a name is matched and unlinked (a link itself, never its target).
        for entry in std::fs::read_dir(&self.dir).map_err(StoreError::io(&self.dir))? {
            let entry = entry.map_err(StoreError::io(&self.dir))?;
            let name = entry.file_name();
            // Under the lock no writer is between its temporary file and its
            // rename: every temporary file here is stale.
            if name.to_str().is_some_and(|n| {
                atomic::is_temp_for(n, ".md")
                    || atomic::is_temp_for(n, names::SIDECAR_SUFFIX)
                    || atomic::is_temp_for(n, names::JOURNAL_SUFFIX)
            }) {
                let path = entry.path();
                std::fs::remove_file(&path).map_err(StoreError::io(&path))?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Creates a new session file for `log`, failing if its id is taken.
    pub fn create(&self, log: &SessionLog) -> Result<PathBuf, StoreError> {
        let path = self.dir.join(log.id().file_name());
        let _lock = self.lock()?;
        // A new file is always one a bulk write may sync at its end.
        let durability = if self.bulk.is_some() {
            atomic::Durability::Deferred
        } else {
            atomic::Durability::EachFile
        };
        let text = self.codec.encode(log);
        atomic::create_atomic_with(&path, text.as_bytes(), durability).map_err(|source| {
            if source.kind() == std::io::ErrorKind::AlreadyExists {
                StoreError::AlreadyExists { path: path.clone() }
            } else {
                StoreError::Io {
                    path: path.clone(),
                    source,
                }
            }
        })?;
        self.written_with(&path, durability);
        self.notify(&path, log);
        Ok(path)
    }

    /// Creates a new session with a fresh `YYYY-MM-DD-<slug>` id. `build` is
    /// given the id and returns the log to write; it may be called again with
    /// another id if a concurrent creator took the first.
    pub fn create_new(
        &self,
        started: &Timestamp,
        title: Option<&str>,
        mut build: impl FnMut(SessionId) -> SessionLog,
    ) -> Result<(PathBuf, SessionLog), StoreError> {
        allocate::IdAllocator::new(self)?.create_new(self, started, title, &mut build)
    }
}

/// Which of a journal's lines must be readable.
#[derive(Debug, Clone, Copy)]
enum JournalCheck {
    /// Those applied to the file: enough for a reader, or a fold that keeps
    /// the journal.
    Applied,
    /// Every line: for a writer about to remove the journal.
    All,
}

/// Events after which the journal is folded whatever its size.
fn ends_recording(events: &[TimedEvent]) -> bool {
    events.iter().any(|e| {
        matches!(
            e.event,
            SessionEvent::Pause { .. } | SessionEvent::End { .. } | SessionEvent::Reopen
        )
    })
}

fn starts_phase(events: &[TimedEvent]) -> bool {
    events
        .iter()
        .any(|e| matches!(e.event, SessionEvent::Phase { .. }))
}

/// Whether appending `events` to the session at `path` may fold its journal.
fn folds_after(events: &[TimedEvent], path: &Path) -> bool {
    let added: u64 = events
        .iter()
        .map(|e| serde_json::to_string(e).map_or(0, |l| l.len() as u64 + 1))
        .sum();
    let journal_len = journal::open_size(&journal::journal_path(path)).unwrap_or(0) + added;
    ends_recording(events)
        || starts_phase(events)
        || journal_len >= journal::size(path).max(FOLD_JOURNAL_AT_LEAST)
}

/// What a writer saw of a session file under the lock: the markdown file's
/// identity (a fold or an editor's save replaces it) and the journal's length
/// (every append grows it). Equal twice means nobody wrote in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    markdown: Option<FileStamp>,
    journal: Option<FileStamp>,
}

impl Seen {
    fn now(path: &Path) -> Self {
        Self {
            markdown: FileStamp::of(path),
            journal: FileStamp::of(&journal::journal_path(path)),
        }
    }
}

/// Size, modification time and (on Unix) inode of a file: a replaced or
/// rewritten file differs in at least one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

impl FileStamp {
    /// `None` when the file does not exist (or cannot be looked at).
    fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Self {
            len: m.len(),
            modified: m.modified().ok(),
            inode,
        })
    }
}

/// How much of a file identifying it needs: frontmatter is at the top, and
/// even a long one fits. Reading only this keeps scans cheap on big sessions.
pub const HEAD_BYTES: u64 = 64 * 1024;

/// The first [`HEAD_BYTES`] of a regular file of at most `limit` bytes
/// (never blocking on a FIFO, never reading a device).
fn read_head(path: &Path, limit: u64) -> Result<Vec<u8>, UnsafeFile> {
    use std::io::Read;
    let (file, _) = safe_file::open_regular(path, limit)?;
    let mut head = Vec::with_capacity(8 * 1024);
    file.take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(|source| UnsafeFile::Io {
            path: path.to_owned(),
            source,
        })?;
    Ok(head)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod bulk_write_tests {
    use super::*;

    /// A codec that writes the id alone: enough to create and save files.
    #[derive(Debug, Clone)]
    struct IdOnly;

    impl SessionCodec for IdOnly {
        fn peek_id(&self, head: &[u8]) -> Option<String> {
            std::str::from_utf8(head).ok().map(str::to_owned)
        }
        fn decode(&self, _: &Path, _: &[u8]) -> Result<SessionLog, CodecError> {
            Err("not read in these tests".into())
        }
        fn encode(&self, log: &SessionLog) -> String {
            log.id().as_str().to_owned()
        }
    }

    fn log(id: &str) -> SessionLog {
        let started: Timestamp = "2026-01-02T03:04:05Z".parse().unwrap();
        SessionLog::new(crate::Frontmatter::new(id.parse().unwrap(), started))
    }

    #[test]
    fn a_bulk_write_defers_only_the_files_it_created() {
        let t = tempfile::tempdir().unwrap();
        let before = SessionStore::new(t.path(), IdOnly);
        let old = before.create(&log("old")).unwrap();
        let bulk = before.clone().for_bulk_write();
        // A file there before the bulk write is synced before it is replaced.
        assert_eq!(bulk.durability_for(&old), atomic::Durability::EachFile);
        let new = bulk.create(&log("new")).unwrap();
        // Created by it: rewritten without a sync of its own until the end,
        // and so is its sidecar, new too.
        assert_eq!(bulk.durability_for(&new), atomic::Durability::Deferred);
        bulk.save_data_records(&new, log("new").id(), b"{}\n")
            .unwrap();
        assert_eq!(
            bulk.durability_for(&crate::data_path(&new)),
            atomic::Durability::Deferred
        );
        bulk.save_to(&new, &log("new")).unwrap();
        assert_eq!(std::fs::read_to_string(&new).unwrap(), "new");
        // After the one sync they are files like any other.
        bulk.sync_bulk().unwrap();
        assert_eq!(bulk.durability_for(&new), atomic::Durability::EachFile);
        // A store not in a bulk write syncs every file.
        assert_eq!(before.durability_for(&new), atomic::Durability::EachFile);
        before.sync_bulk().unwrap();
    }

    #[test]
    fn stale_temporary_files_go_and_nothing_else_does() {
        let t = tempfile::tempdir().unwrap();
        let store = SessionStore::new(t.path(), IdOnly);
        let session = store.create(&log("kept")).unwrap();
        let stale = [
            names::temp(&session, 41, 0),
            names::temp(&crate::data_path(&session), 41, 1),
            names::temp(&journal::journal_path(&session), 41, 2),
        ];
        let others = [
            t.path().join(".notes.tmp"),
            t.path().join(".kept.md.journal"),
        ];
        for p in stale.iter().chain(&others) {
            std::fs::write(p, "x").unwrap();
        }
        assert_eq!(store.remove_stale_temp_files().unwrap(), stale.len());
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(others.iter().all(|p| p.exists()) && session.exists());
    }
}
