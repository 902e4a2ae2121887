//! The derived TOON index of a sessions directory.
//!
//! One record per session and per phase (and one per file that fails to
//! parse), kept in `.index.toon` files at the top of the sessions directory,
//! so that `cru session list` and `cru session stats` answer without reading
//! the sessions. The markdown files stay the only truth: the index is updated
//! on every save through the store ([`IndexObserver`]), proven fresh before
//! each query by a `stat` of every file it names ([`refresh`]), and rebuilt,
//! with a warning,
//! whenever it is missing, unreadable, corrupt or of another version. It never
//! hides a session and never fails a command.

pub mod duplicates;
mod file_reader;
pub mod files;
mod observer;
pub mod path_set;
pub mod query;
pub mod record;
pub mod refresh;
pub mod rollup;
pub mod rollup_file;
pub mod scan;
pub mod seal;
pub mod stats;
pub mod stats_rollup;
mod table_file;
pub mod toon;
pub mod usage_cell;
pub mod usage_locator;
mod usage_rows;
mod view;
pub mod watcher;

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crucible_core::{SessionStatus, SessionStore};
use crucible_parser::MarkdownCodec;
use path_set::{PathSet, path_hash};
use refresh::RowState;

pub use duplicates::{Duplicate, DuplicateIds};
pub use files::{Index, IndexFileError};
pub use observer::{IndexObserver, compact};
pub use query::{Filter, list};
pub use record::{Facts, FileStamp, PhaseRecord, Problem, SessionRecord};
pub use stats::{Aggregator, GroupBy, StatsRow, stats};
pub use view::SessionView;

/// Errors that do stop an index command: the sessions directory itself
/// cannot be read. Problems with the index files are repaired instead.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// A row of the index that does not decode into a record.
    #[error("an index row cannot be read: {0}")]
    Row(String),
}

/// Decodes a visited row into its whole record (only for rows a query keeps).
pub type Decode<'a> = dyn Fn() -> Result<SessionRecord, String> + 'a;

/// An index ready to query, and what the command should tell the user.
#[derive(Debug)]
pub struct Opened {
    pub index: Index,
    /// One line each: an index rebuilt, a directory that could not be written.
    pub warnings: Vec<String>,
    /// Sessions paused for being idle while the index was refreshed.
    pub paused: Vec<String>,
    /// The write of the base a visit answered from its rows
    /// ([`files::new_generation`]); `None` when it answered otherwise.
    pub generation: Option<u64>,
}

/// The index of one store's directory.
#[derive(Debug)]
pub struct SessionIndex<'s> {
    store: &'s SessionStore<MarkdownCodec>,
    threads: usize,
    /// Whether visits read the usage file (see [`SessionIndex::without_usage`]).
    usage: bool,
    /// Whether a running watcher may vouch for freshness (see
    /// [`SessionIndex::proving_freshness`]).
    trust_watcher: bool,
    /// Whether visits read only rows' ids (see [`SessionIndex::ids_only`]).
    ids_only: bool,
    /// Set when a freshness check's findings could not be saved.
    unsaved: std::sync::atomic::AtomicBool,
}

impl<'s> SessionIndex<'s> {
    pub fn new(store: &'s SessionStore<MarkdownCodec>) -> Self {
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self {
            store,
            threads,
            usage: true,
            trust_watcher: true,
            ids_only: false,
            unsaved: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Visits that always prove freshness themselves, never trusting a
    /// running watcher: the watcher's own (it must not wait on itself).
    #[must_use]
    pub fn proving_freshness(mut self) -> Self {
        self.trust_watcher = false;
        self
    }

    /// Whether everything the visits so far found changed was saved to the
    /// index files (a read-only directory keeps it in memory): a watcher
    /// vouches for the index only then.
    pub fn saved_everything(&self) -> bool {
        !self.unsaved.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Visits that never ask for usage ([`Facts::usage`] is then an error):
    /// the usage file, most of the index's bytes, is not read (`list`).
    #[must_use]
    pub fn without_usage(mut self) -> Self {
        self.usage = false;
        self
    }

    /// Visits whose `each` reads a session's path, id and status, and
    /// nothing else of the index's rows (`cru usage daily|weekly|monthly`
    /// from the rollup): the rest of a fresh row is not split into cells,
    /// and its [`Facts`] have no other field (empty, `None` or zero).
    /// Sessions read afresh still come with all their facts.
    #[must_use]
    pub fn ids_only(mut self) -> Self {
        self.ids_only = true;
        self
    }

    /// Reads every session again and writes a new index (when the directory
    /// is writable; else the index is only in memory).
    pub fn rebuild(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Opened, IndexError> {
        self.rebuild_keeping(true, progress)
            .map(|(opened, _)| opened)
    }

    /// Rebuilds the index files without keeping the session records in
    /// memory (`Opened::index.sessions` is empty): for `cru session index`,
    /// which reports only counts. Returns the number of sessions too.
    pub fn rebuild_files(
        &self,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<(Opened, usize), IndexError> {
        self.rebuild_keeping(false, progress)
    }

    fn rebuild_keeping(
        &self,
        keep_sessions: bool,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<(Opened, usize), IndexError> {
        let root = self.store.dir();
        // The writer lock for the whole rebuild: the index files are
        // rewritten in place as the sessions are read, and a save made
        // meanwhile waits instead of landing in a delta this rebuild would
        // then drop. Without it (a read-only directory), all in memory.
        let held = root.exists().then(|| {
            self.store
                .lock()
                .map_err(|e| e.to_string())
                .and_then(|lock| {
                    files::create_missing(root).map_err(|e| e.to_string())?;
                    Ok(lock)
                })
        });
        let mut built = scan_all(
            self.store,
            self.threads,
            keep_sessions,
            held.as_ref().and_then(|h| h.as_ref().ok()),
            progress,
        )?;
        let mut warnings = Vec::new();
        if let Some(held) = held {
            let written = held.and_then(|_lock| {
                match built.tables.take() {
                    Some(tables) => files::finish_rebuild(
                        root,
                        tables,
                        (&built.rollup, &built.stats_rollup),
                        &built.index.problems,
                        &built.index.notes,
                        &built.index.dirs,
                    ),
                    None => files::write_index(
                        root,
                        files::SessionRows::Written {
                            rows: built.session_rows,
                            chunks: &built.session_chunks,
                            usage_chunks: &built.usage_chunks,
                        },
                        (&built.rollup, &built.stats_rollup),
                        &built.index.problems,
                        &built.index.notes,
                        &built.index.dirs,
                        built.phase_rows,
                        &built.phase_chunks,
                    ),
                }
                .and_then(|()| seal::write(root))
                .map_err(|e| e.to_string())
            });
            if let Err(e) = written {
                self.unsaved
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                warnings.push(format!("index not saved ({e}); working from memory"));
            }
        }
        Ok((
            Opened {
                index: built.index,
                warnings,
                paused: Vec::new(),
                generation: None,
            },
            built.session_rows,
        ))
    }

    /// The index, fresh by the cheap rule, repaired if it must be; active
    /// sessions idle longer than `idle` are paused on the way.
    pub fn open(
        &self,
        idle: Option<Duration>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Opened, IndexError> {
        let root = self.store.dir();
        let loaded = {
            let _shared = crucible_core::DirLock::acquire_shared(root);
            // The files' own damage is named first (it says more); then
            // whether they are the ones cru wrote.
            files::load_with_removed(root).and_then(|loaded| seal::check(root).map(|()| loaded))
        };
        let mut opened = match loaded {
            Ok((mut index, removed)) => match refresh::refresh(self.store, &mut index, &removed) {
                Some(delta) => {
                    self.save_delta(&delta);
                    Opened {
                        index,
                        warnings: Vec::new(),
                        paused: Vec::new(),
                        generation: None,
                    }
                }
                None => self.rebuild(progress)?,
            },
            Err(IndexFileError::Missing(_)) => self.rebuild(progress)?,
            Err(e) => {
                let mut o = self.rebuild(progress)?;
                o.warnings.insert(0, format!("warning: index rebuilt: {e}"));
                o
            }
        };
        if let Some(idle) = idle {
            opened.paused = self.pause_idle(&mut opened.index, idle);
        }
        Ok(opened)
    }

    /// Visits every session that may pass `filter` (rows are only
    /// pre-screened: `each` still applies it), on all cores: each thread
    /// folds the sessions it reads into its own state from `init`, and the
    /// states come back for the caller to merge. `each` gets a session's facts
    /// and a way to decode its whole record (for the rows a query keeps).
    /// When no directory changed since the index was written, rows are read
    /// straight from the file; otherwise the index is refreshed (or rebuilt)
    /// first.
    pub fn visit<S: Send>(
        &self,
        idle: Option<Duration>,
        filter: &Filter,
        progress: &(dyn Fn(usize, usize) + Sync),
        init: &(dyn Fn() -> S + Sync),
        each: &(dyn Fn(&mut S, &Facts<'_>, &Decode<'_>) + Sync),
    ) -> Result<(Opened, Vec<S>), IndexError> {
        let opened = match self.visit_fast(idle, filter, init, each) {
            Some(Fast::Answered(visited)) => return Ok(visited),
            Some(Fast::Rebuild) => {
                let mut opened = self.rebuild(progress)?;
                if let Some(idle) = idle {
                    opened.paused = self.pause_idle(&mut opened.index, idle);
                }
                opened
            }
            None => self.open(idle, progress)?,
        };
        let mut state = init();
        for r in &opened.index.sessions {
            each(&mut state, &Facts::of(r), &|| Ok(r.clone()));
        }
        Ok((opened, vec![state]))
    }

    /// The sessions `filter` takes, newest first, read by a [`visit`]
    /// (every file proven fresh on the way); `list` over an opened index
    /// gives the same.
    ///
    /// [`visit`]: SessionIndex::visit
    pub fn matching(&self, filter: &Filter) -> Result<Vec<SessionRecord>, IndexError> {
        let (_, states) = self.visit(
            None,
            filter,
            &|_, _| {},
            &Vec::new,
            &|seen: &mut Vec<Result<SessionRecord, String>>, facts, decode| {
                if filter.matches(facts) {
                    seen.push(decode());
                }
            },
        )?;
        let seen = states
            .into_iter()
            .flatten()
            .collect::<Result<Vec<_>, _>>()
            .map_err(IndexError::Row)?;
        Ok(query::sort_newest_first(seen, None))
    }

    /// The fast path of [`SessionIndex::visit`]; `None` to take the slow one.
    ///
    /// Freshness is proven on the way (see [`refresh`]): every row's file is
    /// `stat`ed as the rows are scanned, changed directories are listed
    /// again, and whatever changed is read afresh, answered from, and saved
    /// as a delta for the next query.
    fn visit_fast<S: Send>(
        &self,
        idle: Option<Duration>,
        filter: &Filter,
        init: &(dyn Fn() -> S + Sync),
        each: &(dyn Fn(&mut S, &Facts<'_>, &Decode<'_>) + Sync),
    ) -> Option<Fast<S>> {
        let root = self.store.dir();
        // Before the index is read: the fence makes the watcher save every
        // change made before this point (see [`watcher`]).
        let trusted = self.trust_watcher && watcher::trusted(root, SystemTime::now());
        let shared = seal::read_lock(root)?;
        let light = files::Light::load(root, self.usage).ok()?;
        let dirs = light.dirs().ok()?;
        if dirs.is_empty() {
            return None;
        }
        let check = refresh::Check::unless_vouched(root, &dirs, trusted);
        let now = SystemTime::now();
        let rows = RowPass {
            check: &check,
            filter,
            idle,
            now,
            usage: self.usage,
            ids_only: self.ids_only,
        };
        let scans = rows.scan(&light, self.threads, init, each)?;
        let base_problems = light.problems().ok()?;
        let base_notes = light.notes().ok()?;
        let (mut pending, mut states) = Pending::merge(scans)?;
        let mut rest = init();
        for r in &light.delta.sessions {
            if check.in_changed(&r.path) {
                pending.indexed.insert(r.path.clone());
            }
            match check.session(&r.path, r.live, &r.stamp) {
                RowState::Fresh => each(&mut rest, &Facts::of(r), &|| Ok(r.clone())),
                RowState::Live => pending.later.push(r.path.clone()),
                RowState::Stale => pending.stale.reread.push(r.path.clone()),
            }
        }
        let mut notes = pending.fresh_notes(&check, base_notes);
        let mut problems = pending.fresh_problems(&check, base_problems);
        refresh::relist(
            root,
            &check.changed,
            &pending.indexed,
            &check.known,
            &mut pending.stale,
        );
        check.reread_removed_but_there(&light.delta.removed, &mut pending.stale.reread);
        drop(shared);
        // Live sessions are read below; a listing that found their journal
        // must not read (and count) them a second time.
        let live: HashSet<&String> = pending.later.iter().collect();
        pending.stale.reread.retain(|p| !live.contains(p));
        let rows = pending.rows + light.delta.sessions.len();
        if refresh::worth_rebuilding(pending.stale.reread.len(), rows) {
            return Some(Fast::Rebuild);
        }

        // What changed: read again, answered from, and saved for next time.
        let (delta, entries) = refresh::read_stale(self.store, pending.stale);
        answer_read_again(entries, &delta, &mut rest, each, &mut problems);
        self.save_delta(&delta);

        let mut later = pending.later;
        let paused_paths =
            self.pause_idle_candidates(idle, pending.idle_candidates, now, &mut later);
        notes.extend(delta.notes.iter().cloned());
        let mut index = Index {
            sessions: Vec::new(),
            problems,
            notes,
            dirs,
        };
        let paused = self.read_afresh(later, &paused_paths, &mut index.problems, &mut |r| {
            each(&mut rest, &Facts::of(r), &|| Ok(r.clone()));
        });
        states.push(rest);
        Some(Fast::Answered((
            Opened {
                index,
                warnings: Vec::new(),
                paused,
                generation: Some(light.generation).filter(|&g| g != 0),
            },
            states,
        )))
    }

    /// Pauses the idle candidates that are idle for `limit` (when given),
    /// adding every candidate to `later` to be read afresh; returns the
    /// paths paused.
    fn pause_idle_candidates(
        &self,
        idle: Option<Duration>,
        candidates: Vec<String>,
        now: SystemTime,
        later: &mut Vec<String>,
    ) -> HashSet<String> {
        let mut paused_paths = HashSet::new();
        let Some(limit) = idle else {
            return paused_paths;
        };
        let root = self.store.dir();
        for path in candidates {
            if let Ok(true) =
                crucible_core::pause_if_idle(self.store, &root.join(&path), limit, now)
            {
                paused_paths.insert(path.clone());
            }
            later.push(path);
        }
        paused_paths
    }

    /// Reads live sessions (and idle candidates) afresh, journal applied,
    /// and hands each to `each`; files that fail go to `problems`. Returns
    /// the ids of those in `paused_paths`. A session whose journal was
    /// folded away is saved as settled, so that later queries answer from
    /// its row again.
    fn read_afresh(
        &self,
        paths: Vec<String>,
        paused_paths: &HashSet<String>,
        problems: &mut Vec<Problem>,
        each: &mut dyn FnMut(&SessionRecord),
    ) -> Vec<String> {
        let root = self.store.dir();
        let mut paused = Vec::new();
        let mut settled = files::Delta::default();
        for path in paths {
            match scan::index_file(self.store, &root.join(&path)) {
                scan::Entry::Session(r, summary) => {
                    if paused_paths.contains(&path) {
                        paused.push(r.id.clone());
                    }
                    each(&r);
                    if !r.live {
                        let phases = PhaseRecord::from_summary(&path, &summary);
                        settled.set(&path, Some((*r, phases)), None);
                    }
                }
                scan::Entry::Problem(p) => problems.push(p),
                scan::Entry::NotASession(_) => {}
            }
        }
        self.save_delta(&settled);
        paused
    }

    /// Reads the session files `paths` (relative to the sessions
    /// directory) again and saves what they hold now; a file that is gone
    /// loses its row. For a watcher the file system told which files
    /// changed: the index is brought up to them without a `stat` of every
    /// file, so that it can vouch for the index at once (readers that
    /// prove freshness themselves find the same rows). True when the index
    /// exists and what was read was saved; with no index, nothing is done
    /// (the next read builds it).
    pub fn reread(&self, paths: Vec<String>) -> bool {
        if !self.store.dir().join(files::BASE).exists() {
            return false;
        }
        let stale = refresh::Stale {
            reread: paths,
            ..refresh::Stale::default()
        };
        let (delta, _) = refresh::read_stale(self.store, stale);
        self.save_delta(&delta);
        self.saved_everything()
    }

    /// Saves what a freshness check found, so the next query need not read
    /// it again; a directory that cannot be written keeps it in memory.
    fn save_delta(&self, delta: &files::Delta) {
        if delta.is_empty() {
            return;
        }
        let saved = self
            .store
            .lock()
            .map_err(|e| e.to_string())
            .and_then(|_lock| {
                observer::upsert(self.store.dir(), |d| merge(d, delta)).map_err(|e| e.to_string())
            });
        if let Err(e) = saved {
            self.unsaved
                .store(true, std::sync::atomic::Ordering::Relaxed);
            tracing::debug!(error = %e, "index refresh kept in memory");
        }
    }

    /// The rollup file and the generation of the base it sums
    /// ([`rollup_file`]), read under the shared lock; `None` when it is
    /// missing or cannot be read.
    /// Its rows come merged by the local day `day` gives an hour (see
    /// [`rollup_file::read_days`]).
    pub fn base_rollup(&self, day: &dyn Fn(i64) -> Option<i64>) -> Option<rollup_file::RollupFile> {
        let root = self.store.dir();
        let _shared = seal::read_lock(root)?;
        rollup_file::read_days(root, day).ok()
    }

    /// What `stats` keeps of the lines, of one kind, and where the usage
    /// rows are ([`rollup_file::read_stats`]), read under the shared lock;
    /// `None` when the rollup file is missing or cannot be read.
    pub fn base_stats(&self, kind: stats_rollup::GroupKind) -> Option<rollup_file::StatsFile> {
        let root = self.store.dir();
        let _shared = seal::read_lock(root)?;
        rollup_file::read_stats(root, kind).ok()
    }

    /// The usage lines of the base rows a visit did not find fresh (see
    /// [`rollup_file::RollupFile::usage_outside`]), read under the shared
    /// lock.
    pub fn usage_outside(
        &self,
        rollup: &rollup_file::RollupFile,
        fresh: &path_set::PathHashes,
        fresh_rows: usize,
    ) -> Option<Vec<Vec<crucible_core::UsageLine>>> {
        let root = self.store.dir();
        let _shared = seal::read_lock(root)?;
        rollup.usage_outside(root, fresh, fresh_rows)
    }

    /// The calendar views' lines of the rollup's days with the query's
    /// changes (see [`rollup::RollupDays::lines`]), the rows they touch read
    /// again under the shared lock.
    pub fn rollup_lines(
        &self,
        days: rollup::RollupDays,
        now: rollup::Rollup,
        taken: &[Vec<crucible_core::UsageLine>],
        day: &dyn Fn(i64) -> Option<i64>,
    ) -> Option<Vec<crucible_core::UsageLine>> {
        let _shared = seal::read_lock(self.store.dir())?;
        days.lines(now, taken, day)
    }

    /// Every phase record, for `stats --group-by phase`, and the warnings
    /// to show (an index rebuilt, or not saved).
    ///
    /// Freshness first, as every query proves it ([`SessionIndex::open`]):
    /// what changed is read again and saved, phases included, so the
    /// phases file and its delta then hold every settled session as it is.
    /// A live session's journal is in no index file, and a change that
    /// could not be saved (a read-only directory) is in none either: those
    /// sessions' phases are read from the sessions themselves.
    pub fn phases(
        &self,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<(Vec<PhaseRecord>, Vec<String>), IndexError> {
        let root = self.store.dir();
        let opened = self.open(None, progress)?;
        // Under the shared lock, as the base is read: a rebuild rewrites the
        // phases file in place.
        let loaded = {
            let _shared = crucible_core::DirLock::acquire_shared(root);
            files::load_phases(root).and_then(|phases| seal::check(root).map(|()| phases))
        };
        let phases = match loaded {
            Ok(mut phases) if self.saved_everything() => {
                let live: Vec<&SessionRecord> =
                    opened.index.sessions.iter().filter(|r| r.live).collect();
                if !live.is_empty() {
                    let paths: HashSet<&str> = live.iter().map(|r| r.path.as_str()).collect();
                    phases.retain(|p| !paths.contains(p.path.as_str()));
                    phases.extend(self.phases_read_directly(live));
                }
                phases
            }
            _ => self.phases_read_directly(opened.index.sessions.iter()),
        };
        Ok((phases, opened.warnings))
    }

    /// The phase records of `sessions`, each file parsed again (its
    /// journal applied).
    fn phases_read_directly<'a>(
        &self,
        sessions: impl IntoIterator<Item = &'a SessionRecord>,
    ) -> Vec<PhaseRecord> {
        let root = self.store.dir();
        let mut phases = Vec::new();
        for r in sessions {
            if let scan::Entry::Session(_, summary) =
                scan::index_file(self.store, &root.join(&r.path))
            {
                phases.extend(PhaseRecord::from_summary(&r.path, &summary));
            }
        }
        phases
    }

    fn pause_idle(&self, index: &mut Index, idle: Duration) -> Vec<String> {
        let now = SystemTime::now();
        let mut paused = Vec::new();
        for r in index
            .sessions
            .iter_mut()
            .filter(|r| r.status == SessionStatus::Active)
        {
            let path = self.store.dir().join(&r.path);
            if let Ok(true) = crucible_core::pause_if_idle(self.store, &path, idle, now) {
                r.status = SessionStatus::Paused;
                paused.push(r.id.clone());
            }
        }
        paused
    }
}

/// Copies every path state and directory of `from` into `to`.
fn merge(to: &mut files::Delta, from: &files::Delta) {
    // Phases grouped by their session's path first: looking through all
    // of them for each session was quadratic (a watcher's first catch-up
    // of 100,000 sessions, 600,000 phases, did not finish).
    let mut phases_of: std::collections::HashMap<&str, Vec<record::PhaseRecord>> =
        std::collections::HashMap::new();
    for p in &from.phases {
        phases_of
            .entry(p.path.as_str())
            .or_default()
            .push(p.clone());
    }
    for s in &from.sessions {
        let phases = phases_of.remove(s.path.as_str()).unwrap_or_default();
        to.set(&s.path.clone(), Some((s.clone(), phases)), None);
    }
    for p in &from.problems {
        to.set(&p.path.clone(), None, Some(p.clone()));
    }
    for r in &from.removed {
        to.set(r, None, None);
    }
    for d in &from.dirs {
        to.set_dir(d.clone());
    }
}

fn scan_all(
    store: &SessionStore<MarkdownCodec>,
    threads: usize,
    keep_sessions: bool,
    held: Option<&crucible_core::DirLock>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<scan::Built, IndexError> {
    scan::build(store, threads, keep_sessions, held, progress).map_err(|source| IndexError::Io {
        path: store.dir().to_owned(),
        source,
    })
}

/// The fast path's pass over the index's session rows: what it checks each
/// row against.
struct RowPass<'a> {
    check: &'a refresh::Check,
    filter: &'a Filter,
    /// Active sessions quiet for this long are idle candidates.
    idle: Option<Duration>,
    now: SystemTime,
    /// Whether the usage file was read (else rows' usage is not known).
    usage: bool,
    /// Whether `each` reads only a row's path, id and status.
    ids_only: bool,
}

/// One thread's share of a [`RowPass`]: the caller's state, and the rows the
/// fast path must look at again.
struct RowScan<S> {
    user: S,
    /// Live sessions, and active ones that may be idle: read afresh after.
    later: Vec<String>,
    /// Rows whose file changed or is gone.
    stale: Vec<String>,
    /// Rows in directories that changed (to find the new files there).
    in_changed: Vec<String>,
    /// A hash of every row's path: a path twice (an index edited by
    /// hand) makes the index corrupt.
    path_hashes: Vec<u64>,
    idle: Vec<String>,
    /// A row whose stamp or live cell does not read (an index edited by
    /// hand): the fast path declines, and the slow one finds the index
    /// corrupt and rebuilds it.
    unreadable: bool,
}

impl RowPass<'_> {
    /// Scans every base row on `threads` threads, handing the fresh ones
    /// that may match to `each`; `None` when the index cannot be read.
    fn scan<S: Send>(
        &self,
        light: &files::Light,
        threads: usize,
        init: &(dyn Fn() -> S + Sync),
        each: &(dyn Fn(&mut S, &Facts<'_>, &Decode<'_>) + Sync),
    ) -> Option<Vec<RowScan<S>>> {
        let new_scan = || RowScan {
            user: init(),
            later: Vec::new(),
            stale: Vec::new(),
            in_changed: Vec::new(),
            path_hashes: Vec::new(),
            idle: Vec::new(),
            unreadable: false,
        };
        light
            .scan(
                threads,
                if self.ids_only {
                    files::Split::PrefixOnly
                } else if self.filter.status.is_some() {
                    files::Split::PrefixFirst
                } else {
                    files::Split::Whole
                },
                &|st, path, cells| self.keep(st, path, cells),
                &new_scan,
                &|st: &mut RowScan<S>, cells: &[&str]| self.visit(st, cells, each),
            )
            .ok()
    }

    /// Whether a row (its first cells `c`) goes on to [`RowPass::visit`]:
    /// fresh, and an idle candidate or a possible match. Rows to read again
    /// are noted in `st`.
    fn keep<S>(&self, st: &mut RowScan<S>, path: &str, c: &[&str]) -> bool {
        // A row whose path leads out of the directory goes on to `each`,
        // which rejects it: the index is then corrupt and rebuilt.
        if record::confined(path).is_err() {
            return true;
        }
        st.path_hashes.push(path_hash(path));
        if self.check.in_changed(path) {
            st.in_changed.push(path.to_owned());
        }
        let (Ok(stamp), Some(live @ ("0" | "1"))) = (
            FileStamp::from_cells(c[5], c[4], c[6], c[7]),
            c.get(3).copied(),
        ) else {
            st.unreadable = true;
            return false;
        };
        match self.check.session(path, live == "1", &stamp) {
            RowState::Fresh => {}
            RowState::Live => {
                st.later.push(path.to_owned());
                return false;
            }
            RowState::Stale => {
                st.stale.push(path.to_owned());
                return false;
            }
        }
        // Active rows that may be idle are looked at whatever they say;
        // the rest only if they may match.
        (self.idle.is_some() && c.get(2) == Some(&SessionStatus::Active.as_str()))
            || self.filter.may_match(c)
    }

    /// A kept row: an idle candidate set aside, or handed to `each`.
    fn visit<S>(
        &self,
        st: &mut RowScan<S>,
        cells: &[&str],
        each: &(dyn Fn(&mut S, &Facts<'_>, &Decode<'_>) + Sync),
    ) -> Result<(), String> {
        // Prefix cells and the usage cell: a scan that split no more.
        let mut facts = if self.ids_only && cells.len() == record::SESSION_PREFIX + 1 {
            Facts::from_prefix(cells)?
        } else {
            Facts::from_cells(cells)?
        };
        if !self.usage {
            facts.usage = record::UsageCell::NotRead;
        }
        if let (Some(limit), SessionStatus::Active) = (self.idle, facts.status) {
            // The recorded mtime picks the candidates without a stat per
            // active session; `pause_if_idle` checks the file itself.
            let written = toon::number(cells[4])?.unwrap_or(0);
            let quiet = UNIX_EPOCH
                .checked_add(Duration::from_nanos(written))
                .and_then(|m| self.now.duration_since(m).ok())
                .is_some_and(|q| q > limit);
            if quiet {
                st.idle.push(facts.path.into_owned());
                return Ok(());
            }
        }
        // A row `each` cannot decode (a count cell edited by hand) makes
        // the fast path decline; the slow one finds the index corrupt and
        // rebuilds it (a listing dropped the row).
        let undecodable = std::cell::Cell::new(false);
        each(&mut st.user, &facts, &|| {
            let record = SessionRecord::from_cells(cells);
            undecodable.set(undecodable.get() | record.is_err());
            record
        });
        st.unreadable |= undecodable.get();
        Ok(())
    }
}

/// What the fast path must still do after the rows, from every thread.
/// What the fast path of [`SessionIndex::visit`] came to.
enum Fast<S> {
    Answered((Opened, Vec<S>)),
    /// So many files changed that a rebuild is cheaper than reading them
    /// again ([`refresh::worth_rebuilding`]).
    Rebuild,
}

/// Gives `each` the sessions read again, and adds the files that could
/// not be read to `problems` (sorted by path, one row each).
fn answer_read_again<S>(
    entries: Vec<scan::Entry>,
    delta: &files::Delta,
    state: &mut S,
    each: &(dyn Fn(&mut S, &Facts<'_>, &Decode<'_>) + Sync),
    problems: &mut Vec<Problem>,
) {
    for entry in entries {
        match entry {
            scan::Entry::Session(r, _) => each(state, &Facts::of(&r), &|| Ok((*r).clone())),
            scan::Entry::Problem(p) => problems.push(p),
            scan::Entry::NotASession(_) => {}
        }
    }
    problems.extend(delta.problems.iter().cloned());
    problems.sort_by(|a, b| a.path.cmp(&b.path));
    problems.dedup_by(|a, b| a.path == b.path);
}

struct Pending {
    /// Rows of the base scanned.
    rows: usize,
    later: Vec<String>,
    stale: refresh::Stale,
    /// Indexed paths in changed directories.
    indexed: PathSet<String>,
    idle_candidates: Vec<String>,
}

impl Pending {
    /// Gathers the threads' scans; `None` when a path is there twice.
    fn merge<S>(scans: Vec<RowScan<S>>) -> Option<(Self, Vec<S>)> {
        let mut hashes: Vec<u64> = scans
            .iter()
            .flat_map(|s| s.path_hashes.iter().copied())
            .collect();
        hashes.sort_unstable();
        if scans.iter().any(|s| s.unreadable) || hashes.windows(2).any(|w| w[0] == w[1]) {
            // The same path twice, or (astronomically rarely) two paths with
            // one hash: the slow path checks the rows themselves.
            return None;
        }
        let mut pending = Self {
            rows: hashes.len(),
            later: Vec::new(),
            stale: refresh::Stale::default(),
            indexed: PathSet::with_capacity_and_hasher(
                scans.iter().map(|s| s.in_changed.len()).sum(),
                Default::default(),
            ),
            idle_candidates: Vec::new(),
        };
        let mut states = Vec::with_capacity(scans.len() + 1);
        for sc in scans {
            pending.later.extend(sc.later);
            pending.stale.reread.extend(sc.stale);
            pending.indexed.extend(sc.in_changed);
            pending.idle_candidates.extend(sc.idle);
            states.push(sc.user);
        }
        Some((pending, states))
    }

    /// The base notes still fresh; the others are to be read again.
    fn fresh_notes(
        &mut self,
        check: &refresh::Check,
        base: Vec<record::Note>,
    ) -> Vec<record::Note> {
        self.fresh_rows(base, |n| (&n.path, check.note(&n.path, &n.stamp)), check)
    }

    /// The base problems still fresh; the others are to be read again.
    fn fresh_problems(&mut self, check: &refresh::Check, base: Vec<Problem>) -> Vec<Problem> {
        self.fresh_rows(base, |p| (&p.path, check.problem(&p.path, &p.stamp)), check)
    }

    /// The rows of `base` that `state` says are fresh; each stale one's file
    /// is to be read again. A row in a changed folder counts as indexed.
    fn fresh_rows<T>(
        &mut self,
        base: Vec<T>,
        state: impl Fn(&T) -> (&String, RowState),
        check: &refresh::Check,
    ) -> Vec<T> {
        let mut fresh = Vec::new();
        for row in base {
            let (path, now) = state(&row);
            if check.in_changed(path) {
                self.indexed.insert(path.clone());
            }
            if matches!(now, RowState::Fresh) {
                fresh.push(row);
            } else {
                self.stale.reread.push(path.clone());
            }
        }
        fresh
    }
}
