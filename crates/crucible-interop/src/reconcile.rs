//! Storing imports: what a re-import of a source does to the session an
//! earlier import made of it.
//!
//! A source is found again by its path or, when it moved, by its format
//! and its own id ([`Imports::find`]). An unchanged source leaves its
//! session alone; a changed one updates it in place (same id), unless the
//! session was changed in cru since its import: then it is kept, unless
//! the caller forces the update. A source with subagents is stored parent
//! first (as pending), then each child linked to it, then the parent with
//! its links, so an import killed half way is finished by the next one.
//!
//! A Claude Code request copied into several sources (resumed and forked
//! transcripts repeat history) is recorded in the first session stored
//! that holds it ([`crate::request_owners`]).
//!
//! A session hooks recorded is merged with the import of its transcript,
//! not replaced by it ([`captured`]).
//!
//! Nothing here prints: each stored session is reported to the caller as
//! a [`Stored`] through [`Event`]s, in the order they happen.

mod captured;
pub mod resumed;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crucible_core::store::IdAllocator;
use crucible_core::{SessionCodec, SessionData, SessionId, SessionLog, SessionStore, StoreError};

use crate::provenance::is_fnv;
use crate::request_owners::RequestOwners;
use crate::{Imported, Provenance, bytes_hash, content_hash, link_children};

/// The `source_hash` of a parent whose children are not all imported and
/// linked yet: it matches no source, so the next import finishes the job.
const PENDING: &str = "pending";

/// What became of one session of a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Created,
    Updated,
    Unchanged,
    /// Changed in cru since its import; left alone (force to replace it).
    Kept,
}

/// One session as the store now holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub id: SessionId,
    pub path: PathBuf,
    /// Where it was imported from (the provenance path).
    pub source: String,
    pub fate: Fate,
}

/// What the caller hears while a source is stored.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A subagent's import warning, just before its session is stored.
    Warning(&'a crate::ImportWarning),
    /// A session stored (or left as it was).
    Stored(&'a Stored),
}

/// A source read and made ready to store: its sessions' sidecars
/// serialized and hashed ([`prepare`]), which is most of the work of
/// storing it. The readers do it, on every core, so that the one thread
/// that writes the store only writes.
#[derive(Debug)]
pub struct Prepared {
    /// The source as read, its sidecars' records moved out into `sidecars`.
    pub imported: Imported,
    /// The source's own sidecar, then its children's, in order.
    sidecars: Vec<Sidecar>,
}

/// A session's sidecar records as they are written, and their hash.
#[derive(Debug, Default)]
struct Sidecar {
    records: Vec<u8>,
    hash: Option<String>,
}

impl Sidecar {
    fn of(data: &SessionData) -> Self {
        let records = records_jsonl(data);
        let hash = (!records.is_empty()).then(|| bytes_hash(&records));
        Self { records, hash }
    }
}

/// [`SessionData::records_jsonl`], in a buffer sized for the records at
/// the start: a sidecar is about as large as its source, and growing a
/// buffer of a hundred megabytes by doubling copies it over and over.
fn records_jsonl(data: &SessionData) -> Vec<u8> {
    use crucible_core::DataRecord;
    let text_len = |v: &Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s.len(),
        _ => 0,
    };
    let guess: usize = data
        .records
        .iter()
        .map(|r| match r {
            DataRecord::Call(c) => 256 + text_len(&c.result) + text_len(&c.arguments),
            _ => 512,
        })
        .sum();
    let mut out = Vec::with_capacity(guess + guess / 8);
    for r in &data.records {
        // The same bytes as serde_json's, escaped faster.
        crate::compact_json::append_or_serde(&mut out, r);
        out.push(b'\n');
    }
    out
}

/// Serializes and hashes the sidecars of a source and of its subagents.
pub fn prepare(mut imported: Imported) -> Prepared {
    let mut sidecars = vec![Sidecar::of(&std::mem::take(&mut imported.data))];
    for c in &mut imported.children {
        sidecars.push(Sidecar::of(&std::mem::take(&mut c.imported.data)));
    }
    Prepared { imported, sidecars }
}

/// The sessions of a directory that came from an import: by source path,
/// and by format and source id for sources that moved.
#[derive(Debug, Default)]
pub struct Imports {
    by_path: HashMap<String, (PathBuf, SessionLog)>,
    /// (format, source id) → the source paths imported with them.
    by_id: HashMap<(String, String), Vec<String>>,
    /// (format, id) of a resumed session the hooks went on recording in
    /// an earlier one → that session's source path ([`resumed`]).
    resumed_in: HashMap<(String, String), String>,
}

impl Imports {
    /// The imported sessions of `store`'s directory. A file that cannot be
    /// read is no import (the import makes a new session instead).
    pub fn of_store<C: SessionCodec>(store: &SessionStore<C>) -> Self {
        // Only a file that may hold the provenance key can be an import:
        // the parser's key tier rules most files out before anything is
        // parsed (and, unlike a byte search, never rules out `import :`).
        let mut by_path = HashMap::new();
        for f in store.scan().into_iter().flatten() {
            let Ok(bytes) = store.read_bytes(&f.path) else {
                continue;
            };
            if !crucible_parser::read::may_hold_key(&bytes, crate::PROVENANCE_KEY) {
                continue;
            }
            if let Ok(log) = store.load_path(&f.path)
                && let Some(p) = Provenance::of(&log)
            {
                by_path.insert(p.path.clone(), (f.path, log));
            }
        }
        Self::new(by_path)
    }

    /// Imports keyed by the source path their provenance names.
    pub fn new(by_path: HashMap<String, (PathBuf, SessionLog)>) -> Self {
        let mut by_id: HashMap<(String, String), Vec<String>> = HashMap::new();
        let mut resumed_in = HashMap::new();
        for (path, (_, log)) in &by_path {
            let Some(p) = Provenance::of(log) else {
                continue;
            };
            for other in resumed::resumed_ids(log) {
                resumed_in.insert((p.format.clone(), other), path.clone());
            }
            if let Some(id) = p.id {
                by_id.entry((p.format, id)).or_default().push(path.clone());
            }
        }
        Self {
            by_path,
            by_id,
            resumed_in,
        }
    }

    /// Takes the session imported from `old` for the one of `new`, when
    /// `new` has none: a subagent's run first read from the copies in its
    /// parent's transcript (`<transcript>#copies-of-<agent id>`, its file was
    /// not there), whose file the parent's import has found since.
    fn adopt(&mut self, old: &str, new: &str) {
        if self.by_path.contains_key(new) {
            return;
        }
        let Some(found) = self.by_path.remove(old) else {
            return;
        };
        for paths in self.by_id.values_mut() {
            for p in paths.iter_mut().filter(|p| *p == old) {
                new.clone_into(p);
            }
        }
        self.by_path.insert(new.to_owned(), found);
    }

    /// The session imported from the file of the subagent run `key` of
    /// the transcript at `transcript`, wherever Claude Code puts it
    /// ([`crate::claude_code::run_file_paths`]).
    fn file_run_of(&self, transcript: &Path, key: &str) -> Option<&(PathBuf, SessionLog)> {
        crate::claude_code::run_file_paths(transcript, key)
            .iter()
            .find_map(|p| self.by_path.get(p.to_string_lossy().as_ref()))
    }

    /// The session imported before from this source: by its path, or, for
    /// a source that moved (Codex archives its rollouts, a user tidies a
    /// folder), by its format and its own id, if the path it was imported
    /// from is gone. Only an unambiguous match: two gone sources with one
    /// id are not guessed between.
    pub fn find(&self, provenance: &Provenance) -> Option<&(PathBuf, SessionLog)> {
        if let Some(found) = self.by_path.get(&provenance.path) {
            return Some(found);
        }
        let key = (provenance.format.clone(), provenance.id.clone()?);
        // A resumed session the hooks recorded in the earlier one.
        if let Some(found) = self.resumed_in.get(&key).and_then(|p| self.by_path.get(p)) {
            return Some(found);
        }
        // A session recorded live by hooks is this source's whatever path
        // the hooks named it by (one session, not two).
        let captured = self.by_id.get(&key)?.iter().find(|old| {
            self.by_path
                .get(*old)
                .and_then(|(_, log)| Provenance::of(log))
                .is_some_and(|p| p.is_captured())
        });
        if let Some(old) = captured {
            return self.by_path.get(old);
        }
        let mut gone = self
            .by_id
            .get(&key)?
            .iter()
            .filter(|old| !source_exists(old));
        match (gone.next(), gone.next()) {
            (Some(old), None) => self.by_path.get(old),
            _ => None,
        }
    }
}

/// Whether the source an import recorded is still there (`db#session`
/// names a session in a database file).
fn source_exists(path: &str) -> bool {
    let file = path.split_once('#').map_or(path, |(f, _)| f);
    Path::new(file).exists()
}

/// One import run into a store: what the directory held, the ids given so
/// far, and whether sessions changed in cru are replaced.
pub struct Reconciler<'s, C: SessionCodec> {
    store: &'s SessionStore<C>,
    existing: Imports,
    ids: IdAllocator,
    force: bool,
    /// Which session holds each Claude Code request, the store's and
    /// those stored so far.
    requests: RequestOwners,
    /// The sessions stored in this run, by their source's path: where
    /// each is and its id.
    stored: HashMap<String, (PathBuf, SessionId)>,
    /// The earlier sources being stored first for a resumed one (a chain
    /// A → B → C stores A for B for C): one met again is a cycle, which
    /// damaged transcripts can make look like a resume both ways.
    storing_earlier: HashSet<String>,
}

impl<C: SessionCodec> std::fmt::Debug for Reconciler<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reconciler")
            .field("dir", &self.store.dir())
            .field("existing", &self.existing)
            .field("force", &self.force)
            .finish_non_exhaustive()
    }
}

impl<'s, C: SessionCodec> Reconciler<'s, C> {
    /// Reads what `store` holds; `force` replaces sessions changed in cru.
    pub fn new(store: &'s SessionStore<C>, force: bool) -> Result<Self, StoreError> {
        Self::with_imports(store, Imports::of_store(store), force)
    }

    /// As [`Reconciler::new`], with the imports already known.
    pub fn with_imports(
        store: &'s SessionStore<C>,
        existing: Imports,
        force: bool,
    ) -> Result<Self, StoreError> {
        let requests = RequestOwners::of(existing.by_path.values().map(|(_, log)| log));
        Ok(Self {
            store,
            existing,
            ids: IdAllocator::new(store)?,
            force,
            requests,
            stored: HashMap::new(),
            storing_earlier: HashSet::new(),
        })
    }

    /// Stores a source's session and its subagents' sessions, linked.
    /// `on` hears each stored session (and each subagent's warnings) as it
    /// happens; a store error stops the source there.
    pub fn store(
        &mut self,
        imp: Imported,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), StoreError> {
        self.store_prepared(prepare(imp), on)
    }

    /// [`Reconciler::store`] of a source [`prepare`]d already.
    pub fn store_prepared(
        &mut self,
        prepared: Prepared,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), StoreError> {
        let Prepared { imported, sidecars } = prepared;
        let Imported {
            mut log,
            mut provenance,
            children,
            resumed_from,
            ..
        } = imported;
        if let Some(earlier) = resumed_from {
            // The hooks recorded it in the earlier session (one session):
            // its whole transcript goes there, as any hook session's does.
            let hooked_as_one = self.existing.find(&provenance).is_some_and(|(_, old)| {
                let ids = resumed::resumed_ids(old);
                ids.contains(&earlier.id) || provenance.id.as_ref().is_some_and(|i| ids.contains(i))
            });
            if hooked_as_one
                && let Ok(whole) = crate::claude_code::import_whole(Path::new(&provenance.path))
            {
                return self.store(whole, on);
            }
            let earlier = self.earlier_session(&earlier, on)?;
            resumed::link(&mut log, earlier.as_ref());
            provenance.session_hash = content_hash(&log);
        }
        let mut sidecars = sidecars.into_iter();
        let data = sidecars.next().unwrap_or_default();
        if children.is_empty() {
            self.store_one(log, &data, &provenance, false, on)?;
            return Ok(());
        }
        // A parent is first written as pending, and complete (its source's
        // hash, its links) only once every child is in place. A run killed
        // in between leaves a parent that the next run does not take for
        // imported already: it goes on where the killed run stopped.
        // What hooks recorded of the parent, for the links only they made.
        let hooked = self
            .existing
            .find(&provenance)
            .filter(|(_, old)| captured::holds_hook_work(old))
            .map(|(_, old)| old.clone());
        let (path, mut log, fate) = self.store_one(log, &data, &provenance, true, on)?;
        let mut linked = Vec::new();
        for child in children {
            for w in &child.imported.warnings {
                on(Event::Warning(w));
            }
            if let Some(key) = &child.imported.provenance.id {
                let transcript = Path::new(&provenance.path);
                let copies = crate::claude_code::copies_source(transcript, key);
                if child.imported.provenance.path != copies {
                    // A run this parent's earlier import read from its
                    // copies is the same run as the file found for it now:
                    // one child, updated.
                    self.existing
                        .adopt(&copies, &child.imported.provenance.path);
                } else if let Some((_, old)) = self.existing.file_run_of(transcript, key) {
                    // Read from its copies now, from its own file before:
                    // the file is gone, and its session is the fuller
                    // record (the copies hold some of its requests). It is
                    // kept as it is, and still linked.
                    linked.push((old.clone(), child.link));
                    continue;
                }
            }
            let mut child_log = child.imported.log;
            child_log.frontmatter.parent = Some(log.id().clone());
            let (_, child_log, _) = self.store_one(
                child_log,
                &sidecars.next().unwrap_or_default(),
                &child.imported.provenance,
                false,
                on,
            )?;
            linked.push((child_log, child.link));
        }
        // The parent is written again with its links only when it was written
        // now: one that is unchanged or kept already has them (or its own).
        if matches!(fate, Fate::Created | Fate::Updated) {
            link_children(&mut log, &mut linked);
            if let Some(old) = &hooked {
                captured::merge_links(old, &mut log);
            }
            let mut provenance = provenance;
            provenance.data_hash = Provenance::of(&log).and_then(|p| p.data_hash);
            provenance.session_hash = content_hash(&log);
            provenance.store(&mut log);
            if let Some(old) = &hooked {
                captured::mark(&mut log);
                resumed::carry(old, &mut log);
            }
            self.store.save_to(&path, &log)?;
        }
        Ok(())
    }

    /// The session of the source a resumed one continues: stored before
    /// (in the store, or earlier in this run), else imported now, first,
    /// so that the lines the resumed source repeats are that session's.
    fn earlier_session(
        &mut self,
        earlier: &crate::EarlierSource,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<Option<SessionId>, StoreError> {
        if let Some((_, id)) = self.stored.get(&earlier.path) {
            return Ok(Some(id.clone()));
        }
        let wanted = Provenance {
            format: earlier.format.as_str().into(),
            path: earlier.path.clone(),
            id: Some(earlier.id.clone()),
            source_hash: String::new(),
            session_hash: String::new(),
            data_hash: None,
        };
        if let Some((_, log)) = self.existing.find(&wanted) {
            return Ok(Some(log.id().clone()));
        }
        // Asked again while it is being stored for a later one: a cycle,
        // left without a link rather than followed for ever.
        if !self.storing_earlier.insert(earlier.path.clone()) {
            return Ok(None);
        }
        // Not stored yet: a read error is that source's own to report
        // when its turn comes; the resumed session goes without its link.
        let stored = match crate::import(Path::new(&earlier.path), earlier.format) {
            Ok(imported) => self.store(imported, on),
            Err(_) => Ok(()),
        };
        self.storing_earlier.remove(&earlier.path);
        stored?;
        Ok(self.stored.get(&earlier.path).map(|(_, id)| id.clone()))
    }

    /// Whether the session found for `source` is the one the hooks
    /// recorded it and its resumed continuation in, fed now by the
    /// continuation's transcript, which repeats this one: then this source
    /// leaves it alone. (As stored in this run, when it was.)
    fn fed_by_its_continuation(&self, source: &Provenance) -> bool {
        let (Some(id), Some((path, old))) = (&source.id, self.existing.find(source)) else {
            return false;
        };
        let now = if self.stored.values().any(|(_, s)| s == old.id()) {
            self.store.load_path(path).ok()
        } else {
            None
        };
        let current = now.as_ref().unwrap_or(old);
        // Both transcripts are named in the session; the continuation is
        // the one that repeats the other's lines.
        Provenance::of(current).is_some_and(|p| {
            p.path != source.path
                && resumed::resumed_ids(current).contains(id)
                && crate::claude_code::resumed::continues_file(Path::new(&p.path))
                    .is_some_and(|earlier| earlier == Path::new(&source.path))
        })
    }

    /// A source stored already in this run (first, as the source a
    /// resumed one continues): its session as it is.
    fn stored_this_run(
        &self,
        provenance: &Provenance,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<Option<(PathBuf, SessionLog, Fate)>, StoreError> {
        let Some((path, _)) = self.stored.get(&provenance.path) else {
            return Ok(None);
        };
        let log = self.store.load_path(path)?;
        on(Event::Stored(&Stored {
            id: log.id().clone(),
            path: path.clone(),
            source: provenance.path.clone(),
            fate: Fate::Unchanged,
        }));
        Ok(Some((path.clone(), log, Fate::Unchanged)))
    }

    /// Replaces `old` (at its path) by `log`, which takes its id, keeping
    /// what only hooks recorded in it and which sources feed it.
    fn update(
        &self,
        (path, old): (&Path, &SessionLog),
        log: &mut SessionLog,
        records: &[u8],
        written: &mut Provenance,
        pending: bool,
    ) -> Result<(), StoreError> {
        log.frontmatter.session_id = old.id().clone();
        let mut records = std::borrow::Cow::Borrowed(records);
        captured::keep_hook_work(
            self.store,
            (path, old),
            log,
            &mut records,
            written,
            !pending,
        );
        resumed::carry(old, log);
        // The sidecar first: a session is never newer than its data.
        self.store.save_data_records(path, log.id(), &records)?;
        self.store.save_to(path, log)
    }

    /// Stores one session: created, updated, or left as it is. Returns where
    /// it is and the session as stored (with its id). A session written
    /// `pending` gets [`PENDING`] for its source's hash, for the caller to
    /// complete.
    fn store_one(
        &mut self,
        mut log: SessionLog,
        data: &Sidecar,
        provenance: &Provenance,
        pending: bool,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(PathBuf, SessionLog, Fate), StoreError> {
        if let Some(done) = self.stored_this_run(provenance, on)? {
            return Ok(done);
        }
        // The source this one was imported from before, when it moved.
        let moved_from = self
            .existing
            .find(provenance)
            .and_then(|(_, old)| Provenance::of(old))
            .map(|p| p.path)
            .filter(|p| *p != provenance.path);
        let mut provenance = std::borrow::Cow::Borrowed(provenance);
        if self
            .requests
            .drop_repeats(&mut log, &provenance, moved_from.as_deref())
        {
            provenance.to_mut().session_hash = content_hash(&log);
        }
        let provenance = provenance.as_ref();
        // The sidecar's records, serialized once: hashed into the session's
        // `import` key (so `validate` can tell them changed) and written.
        let records = &data.records;
        let mut written = Provenance {
            source_hash: if pending {
                PENDING.to_owned()
            } else {
                provenance.source_hash.clone()
            },
            data_hash: data.hash.clone(),
            ..provenance.clone()
        };
        let fed = self.fed_by_its_continuation(provenance);
        let (path, log, fate) = if let Some((path, old)) = self.existing.find(provenance) {
            let fate = if fed {
                Fate::Unchanged
            } else {
                decide(old, provenance, self.force)
            };
            match fate {
                Fate::Unchanged => {
                    // A run killed between a session and its sidecar
                    // left the sidecar out: it is written now.
                    if !records.is_empty() && !crucible_core::data_path(path).exists() {
                        self.store.save_data_records(path, old.id(), records)?;
                    }
                    (path.clone(), old.clone(), fate)
                }
                Fate::Kept => (path.clone(), old.clone(), fate),
                _ => {
                    self.update((path, old), &mut log, records, &mut written, pending)?;
                    (path.clone(), log, Fate::Updated)
                }
            }
        } else {
            let started = log.frontmatter.started.clone();
            let title = log.frontmatter.title.clone();
            written.store(&mut log);
            let (path, created) =
                self.ids
                    .create_new(self.store, &started, title.as_deref(), &mut |id| {
                        let mut l = log.clone();
                        l.frontmatter.session_id = id;
                        l
                    })?;
            self.store.save_data_records(&path, created.id(), records)?;
            (path, created, Fate::Created)
        };
        let replaced: Vec<&str> = std::iter::once(provenance.path.as_str())
            .chain(moved_from.as_deref())
            .collect();
        // A source whose session its continuation feeds holds none of it.
        if !fed {
            self.requests.stored(&log, provenance, &replaced);
        }
        self.stored
            .insert(provenance.path.clone(), (path.clone(), log.id().clone()));
        on(Event::Stored(&Stored {
            id: log.id().clone(),
            path: path.clone(),
            source: provenance.path.clone(),
            fate,
        }));
        Ok((path, log, fate))
    }
}

/// What a re-import does to `old`, the session an earlier import of this
/// source made: nothing when the source is unchanged and where it was; an
/// update when it changed or moved, unless the session was changed in cru
/// since (its content no longer has the hash recorded at import) and the
/// caller does not force it.
pub fn decide(old: &SessionLog, provenance: &Provenance, force: bool) -> Fate {
    let Some(before) = Provenance::of(old) else {
        // Not an import at all: nothing to keep, the source replaces it.
        return Fate::Updated;
    };
    if before.is_captured() {
        // Recorded live by hooks: the transcript holds all they saw and
        // more, so its import fills the session in.
        return Fate::Updated;
    }
    // A source that moved is recorded at its new path (an update).
    let same_source = if is_fnv(&before.source_hash) {
        // Imported before issue 19, when the hash was FNV-1a: the source
        // is the same when it reads as the same session it did then. (So
        // an upgrade neither rewrites every import nor takes a session
        // resumed since for one to keep.)
        before.session_hash == provenance.session_hash
    } else {
        before.source_hash == provenance.source_hash
    };
    if same_source && before.path == provenance.path {
        return Fate::Unchanged;
    }
    let changed_in_cru = content_hash(old) != before.session_hash;
    if changed_in_cru && !force {
        Fate::Kept
    } else {
        Fate::Updated
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{Frontmatter, Timestamp};

    fn provenance(path: &str, source_hash: &str, id: Option<&str>) -> Provenance {
        Provenance {
            format: "codex".into(),
            path: path.into(),
            id: id.map(str::to_owned),
            source_hash: source_hash.into(),
            session_hash: String::new(),
            data_hash: None,
        }
    }

    /// A session as an import of `p` stores it.
    fn imported(p: &Provenance) -> SessionLog {
        let started: Timestamp = "2026-01-02T03:04:05Z".parse().unwrap();
        let mut log = SessionLog::new(Frontmatter::new("2026-01-02-a".parse().unwrap(), started));
        let mut p = p.clone();
        p.session_hash = content_hash(&log);
        p.store(&mut log);
        log
    }

    #[test]
    fn an_unchanged_source_is_left_and_a_grown_one_updates() {
        let p = provenance("/src/a.jsonl", "h1", None);
        let old = imported(&p);
        assert_eq!(decide(&old, &p, false), Fate::Unchanged);
        assert_eq!(
            decide(&old, &provenance("/src/a.jsonl", "h2", None), false),
            Fate::Updated
        );
        // Same content, new place: recorded at the new path.
        assert_eq!(
            decide(&old, &provenance("/src/b.jsonl", "h1", None), false),
            Fate::Updated
        );
    }

    #[test]
    fn a_session_changed_in_cru_is_kept_unless_forced() {
        let p = provenance("/src/a.jsonl", "h1", None);
        let mut old = imported(&p);
        // Ended in cru after the import.
        old.frontmatter.status = crucible_core::SessionStatus::Completed;
        let grown = provenance("/src/a.jsonl", "h2", None);
        assert_eq!(decide(&old, &grown, false), Fate::Kept);
        assert_eq!(decide(&old, &grown, true), Fate::Updated);
        // An unchanged source does not touch it either way.
        assert_eq!(decide(&old, &p, false), Fate::Unchanged);
    }

    #[test]
    fn sidecar_records_are_the_sessions_data_as_jsonl() {
        let mut data = SessionData::default();
        data.records
            .push(crucible_core::DataRecord::Call(crucible_core::CallData {
                tool: "Read".into(),
                result: Some("line \"one\"\n\tline two é".into()),
                ..Default::default()
            }));
        data.records.push(crucible_core::DataRecord::Source(
            crucible_core::SourceData {
                phase: Some(0),
                line: Some(3),
                record: serde_json::json!({"type": "progress", "n": [1, 2.5, null]}),
            },
        ));
        let sidecar = Sidecar::of(&data);
        assert_eq!(sidecar.records, data.records_jsonl());
        assert_eq!(sidecar.hash, Some(bytes_hash(&data.records_jsonl())));
        assert_eq!(Sidecar::of(&SessionData::default()).hash, None);
    }

    #[test]
    fn a_source_hashed_with_fnv_before_is_unchanged_when_it_reads_the_same() {
        // Imported before issue 19: its source hash is FNV-1a.
        let before = provenance("/src/a.jsonl", "5f615187e6fc304b", None);
        let old = imported(&before);
        let same_session = Provenance::of(&old).unwrap().session_hash;
        let mut again = provenance("/src/a.jsonl", &bytes_hash(b"the same bytes"), None);
        again.session_hash.clone_from(&same_session);
        assert_eq!(decide(&old, &again, false), Fate::Unchanged);
        // It grew: the session it reads as is another.
        again.session_hash = "another".into();
        assert_eq!(decide(&old, &again, false), Fate::Updated);
        // Resumed in cru since, and grown: kept, as ever.
        let mut resumed = old.clone();
        resumed.frontmatter.status = crucible_core::SessionStatus::Completed;
        assert_eq!(decide(&resumed, &again, false), Fate::Kept);
        // Resumed, and the source not grown: nothing to do.
        again.session_hash = same_session;
        assert_eq!(decide(&resumed, &again, false), Fate::Unchanged);
    }

    #[test]
    fn a_moved_source_is_found_by_its_id_only_when_its_old_path_is_gone() {
        let gone = provenance("/nowhere/cru-test/rollout.jsonl", "h1", Some("abc"));
        let here = std::env::temp_dir().to_string_lossy().into_owned();
        let present = provenance(&here, "h1", Some("def"));
        let imports = Imports::new(HashMap::from([
            (gone.path.clone(), (PathBuf::from("a.md"), imported(&gone))),
            (
                present.path.clone(),
                (PathBuf::from("b.md"), imported(&present)),
            ),
        ]));
        let moved = provenance("/archive/rollout.jsonl", "h1", Some("abc"));
        assert_eq!(imports.find(&moved).unwrap().0, PathBuf::from("a.md"));
        // Its old path still exists: a second source with the same id, not a move.
        let copy = provenance("/archive/copy.jsonl", "h1", Some("def"));
        assert!(imports.find(&copy).is_none());
        assert!(
            imports
                .find(&provenance("/other.jsonl", "h1", None))
                .is_none()
        );
    }

    #[test]
    fn two_gone_sources_with_one_id_are_not_guessed_between() {
        let a = provenance("/nowhere/cru-test/a.jsonl", "h1", Some("same"));
        let b = provenance("/nowhere/cru-test/b.jsonl", "h2", Some("same"));
        let imports = Imports::new(HashMap::from([
            (a.path.clone(), (PathBuf::from("a.md"), imported(&a))),
            (b.path.clone(), (PathBuf::from("b.md"), imported(&b))),
        ]));
        assert!(
            imports
                .find(&provenance("/new/c.jsonl", "h1", Some("same")))
                .is_none()
        );
    }
}
