//! The search index on disk: `<sessions>/.search/` (tantivy's segments and
//! `manifest`), derived from the sessions and never the truth.
//!
//! Freshness follows docs/index-format.md: the manifest holds a stamp
//! (size, mtime, inode, change time, a live session's journal) per session
//! file and the change time of each folder. Before every answer each
//! session file is `stat`ed: only the manifest's files when no folder
//! changed (a file added, removed or renamed changes its folder), else
//! every file the one walker lists. Files changed since the index was
//! written are left out of the committed index and read directly into an
//! index in RAM that answers beside it; when they are many, they are
//! written into the index instead (by their `path` term), under the search
//! index's own lock (`.search.lock`: never the sessions' writer lock, so
//! recording is never held up by a search), when it can be had without
//! waiting. Session files are read without the sessions' lock: a file
//! changed while it is read differs from its stamp, taken before, and is
//! read again by the next search.
//!
//! A missing, corrupt or wrong-version index, or one whose directory or a
//! file in it is a link, is rebuilt (the link removed, never written
//! through) with a one-line warning. The directory is made 0700 and its
//! files 0600: they hold the sessions' text.

use std::collections::BTreeSet;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crucible_core::store::atomic::Durability;
use crucible_core::store::{journal, lock::DirLock, names, safe_file};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexWriter, Searcher, TantivyDocument, Term};

use crate::document::{SessionDoc, session_doc};
use crate::manifest::{self, Manifest, Restamped, Stamps};
use crate::tokenizer::{CodeTokenizer, NAME};
use crate::{IndexWarning, SearchError};

/// The version of the schema and manifest; another one is rebuilt.
/// (2: the manifest a line per file instead of JSON; 3: pieces between
/// connectors with parts of their own are tokens; 4: `[!subagent]`
/// callouts are parts of their own, attributed to their subagent; 5: the
/// session id is text of the preamble.)
pub const SCHEMA_VERSION: u32 = 5;
const MANIFEST: &str = "manifest";
/// Large enough for a rebuild to make few segments, well under the peak
/// memory a query may use.
pub const WRITER_BYTES: usize = 64_000_000;

/// The fields of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub session: Field,
    pub path: Field,
    pub phase: Field,
    pub line_from: Field,
    pub line_to: Field,
    pub status: Field,
    pub agent: Field,
    pub channel: Field,
    pub model: Field,
    pub project: Field,
    pub started: Field,
    pub text: Field,
    pub tool: Field,
    pub decision: Field,
    pub error: Field,
    pub user: Field,
    /// The subagent whose `[!subagent]` callout the part is.
    pub subagent: Field,
    /// The session's `parent:`.
    pub parent: Field,
    /// The name the session goes by as a subagent.
    pub agent_name: Field,
    /// The sessions it names as its subagents (one term each).
    pub children: Field,
}

pub(crate) fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let words = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(NAME)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        session: b.add_text_field("session", STRING | STORED),
        path: b.add_text_field("path", STRING | STORED),
        phase: b.add_u64_field("phase", STORED),
        line_from: b.add_u64_field("line_from", STORED),
        line_to: b.add_u64_field("line_to", STORED),
        status: b.add_text_field("status", STRING),
        agent: b.add_text_field("agent", STRING),
        channel: b.add_text_field("channel", STRING),
        model: b.add_text_field("model", STRING),
        project: b.add_text_field("project", STRING),
        started: b.add_i64_field("started", INDEXED | FAST | STORED),
        text: b.add_text_field("text", words.clone()),
        tool: b.add_text_field("tool", words.clone()),
        decision: b.add_text_field("decision", words.clone()),
        error: b.add_text_field("error", words.clone()),
        user: b.add_text_field("user", words),
        subagent: b.add_text_field("subagent", STORED),
        parent: b.add_text_field("parent", STORED),
        agent_name: b.add_text_field("agent_name", STORED),
        children: b.add_text_field("children", STRING),
    };
    (b.build(), fields)
}

/// Searchers that answer together: the committed index (with the files
/// that changed since left out) and, when it could not catch up, an index
/// in RAM of those files.
#[derive(Debug)]
pub struct Opened {
    pub fields: Fields,
    pub parts: Vec<(Searcher, Vec<String>)>,
    pub warnings: Vec<IndexWarning>,
    /// Whether the session directories were listed (a folder changed, or
    /// there was no manifest to go by), rather than only the manifest's
    /// files `stat`ed again.
    pub listed: bool,
    /// The manifest being written meanwhile: [`Opened::finish`] waits.
    pub saving: crate::deferred::ManifestWrite,
}

impl Opened {
    /// Waits for what opening still writes (the manifest after a folder
    /// was listed again); its error, if that failed.
    pub fn finish(&mut self) -> Result<(), SearchError> {
        self.saving.finish()
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SearchError + '_ {
    move |source| SearchError::Io {
        path: path.to_owned(),
        source,
    }
}

fn new_index(index: Index) -> Index {
    index.tokenizers().register(NAME, CodeTokenizer);
    index
}

/// Opens the search index of the sessions directory `dir`, made fresh
/// first (see the module documentation). `max_file_bytes` is the store's
/// limit on a session file.
pub fn open(dir: &Path, max_file_bytes: u64) -> Result<Opened, SearchError> {
    open_catching_up(dir, max_file_bytes, false).map(|(opened, _)| opened)
}

/// Brings the search index of `dir` up to the session files, writing every
/// changed file into it however few (a running `cru watch`, which then
/// vouches for it); true when the committed index holds every file as it
/// is now (false: the lock was held by another process, or the directory
/// cannot be written).
pub fn catch_up_fully(dir: &Path, max_file_bytes: u64) -> Result<bool, SearchError> {
    open_catching_up(dir, max_file_bytes, true).map(|(_, committed)| committed)
}

/// The committed index as it stands, no file `stat`ed: for a search while
/// a trusted watcher vouches that it holds every change made before the
/// search began (crucible-index's `watcher`, whose fence the caller ran).
/// The files the watcher named as changed since its last commit
/// ([`crate::pending`]) and those the manifest names as not written in
/// yet are left out of the committed index and read directly, up to
/// [`PENDING_FILES`] of them; more, or a list that cannot be read, fall
/// back to [`open`].
pub fn open_vouched(dir: &Path, max_file_bytes: u64) -> Result<Opened, SearchError> {
    let home = dir.join(names::SEARCH_INDEX);
    // Read before the index is opened: a list found empty was cleared
    // after the commit the index opened next holds (see `pending`).
    let Some(named) = crate::pending::read(&home) else {
        return open(dir, max_file_bytes);
    };
    // Only the files not written in yet are taken from the manifest: a
    // map of 100,000 stamps would be most of this search's time.
    if let Ok(Loaded {
        searcher: committed,
        manifest: not_indexed,
        ..
    }) = load_with(&home, |bytes| manifest::read_not_indexed(&bytes))
    {
        let mut changed: BTreeSet<String> = named.into_iter().collect();
        changed.extend(not_indexed.files);
        if changed.is_empty() {
            return Ok(Opened {
                fields: schema().1,
                parts: vec![(committed, Vec::new())],
                warnings: Vec::new(),
                listed: false,
                saving: Default::default(),
            });
        }
        if changed.len() <= PENDING_FILES {
            let mut warnings = Vec::new();
            let fresh = manifest::stamps_of(dir, &changed);
            let fresh = readable(dir, fresh.iter().map(|(k, s)| (k, *s)));
            let ram = in_ram(dir, &fresh, max_file_bytes, &mut warnings)?;
            return Ok(Opened {
                fields: schema().1,
                parts: vec![
                    (committed, changed.into_iter().collect()),
                    (ram, Vec::new()),
                ],
                warnings,
                listed: false,
                saving: Default::default(),
            });
        }
    }
    open(dir, max_file_bytes)
}

/// [`open`], writing every changed file in when `write_all` (and the lock
/// is had); also says whether the committed index now holds every file.
fn open_catching_up(
    dir: &Path,
    max_file_bytes: u64,
    write_all: bool,
) -> Result<(Opened, bool), SearchError> {
    let home = dir.join(names::SEARCH_INDEX);
    let listing = manifest::start_listing_if_changed(dir, &home.join(MANIFEST));
    // Tried twice: a rebuild's swap between the reads of one load (the old
    // index's `meta.json`, the new one's segments) fails it once, and the
    // next load finds the new index whole; a damaged index fails both.
    let loaded = load(&home).or_else(|_| load(&home));
    // With no directory changed since the manifest, its files are the
    // session files: each is `stat`ed again without listing anything.
    let restamped = match &loaded {
        Ok(l) => manifest::restamp(dir, &l.manifest, l.written_ns),
        Err(_) => None,
    };
    let current = match (restamped, &loaded) {
        // Nothing changed (the common case): no map of the files is built.
        (Some(Restamped::Unchanged), Ok(l)) => {
            let opened = Opened {
                fields: schema().1,
                parts: vec![(l.searcher.clone(), Vec::new())],
                warnings: Vec::new(),
                listed: false,
                saving: Default::default(),
            };
            return Ok((opened, true));
        }
        (Some(Restamped::Changed(current)), _) => Some(current),
        _ => None,
    };
    let listed = current.is_none();
    let current = match (current, &loaded) {
        (Some(current), _) => current,
        // A folder changed: listed again, the files the manifest names
        // `stat`ed meanwhile.
        (None, Ok(l)) => manifest::relisted(dir, SCHEMA_VERSION, &l.manifest.files, listing)?,
        (None, Err(_)) => manifest::relisted(dir, SCHEMA_VERSION, &Stamps::new(), listing)?,
    };
    let lock = DirLock::try_acquire_file(&dir.join(names::SEARCH_LOCK));
    // What a killed rebuild left (a second index's worth of disk): gone
    // once no rebuild can be writing it. One that cannot be removed is
    // left; a rebuild builds beside it.
    if lock.is_some() {
        let _ = remove(&dir.join(names::SEARCH_INDEX_BUILD));
    }
    let mut warnings = Vec::new();
    let (_, fields) = schema();
    let mut saving = crate::deferred::ManifestWrite::default();
    let (parts, committed) = match loaded {
        Ok(Loaded {
            index,
            searcher: committed,
            manifest,
            written_ns,
        }) => {
            let held = lock.is_some();
            let catch_up = CatchUp {
                home: &home,
                dir,
                index: &index,
                committed: &committed,
                fields: &fields,
                max_file_bytes,
                write_all,
            };
            let (parts, committed, write_pending) =
                catch_up.run(&manifest, written_ns, &current, listed, held, &mut warnings)?;
            if write_pending {
                saving = crate::deferred::ManifestWrite::pending(home, manifest, current, lock);
            }
            (parts, committed)
        }
        Err(reason) if lock.is_some() => {
            warnings.push(IndexWarning::Rebuilt { reason });
            let index = rebuild(&home, dir, &current, max_file_bytes, &mut warnings)?;
            (vec![(searcher(&index)?, Vec::new())], true)
        }
        Err(reason) => {
            warnings.push(IndexWarning::ReadDirectly { reason });
            let ram = in_ram(dir, &current.files, max_file_bytes, &mut warnings)?;
            (vec![(ram, Vec::new())], false)
        }
    };
    let opened = Opened {
        fields,
        parts,
        warnings,
        listed,
        saving,
    };
    Ok((opened, committed))
}

/// Of the changed files about to be read, those the walker would take: a
/// regular file, or a link to one, whose real path is inside `dir`. These
/// were named by the manifest or a watcher, not by a listing just now, so
/// what a link leads to may have changed since it was judged (a link
/// outside the folder re-pointed), and a manifest edited by hand may name
/// `../x.md`. One that is not is left out: not in the index, not read.
fn readable<'a>(dir: &Path, files: impl Iterator<Item = (&'a str, manifest::Stamp)>) -> Stamps {
    files
        .filter(|(rel, _)| crucible_core::store::walk::may_read(&dir.join(rel), dir).is_ok())
        .collect()
}

/// At most this many changed files (and bytes of them) are read directly
/// at each search instead of being written into the index: a search right
/// after a save does not pay for a commit (a new segment and a dozen
/// `fsync`s), and the next search that finds more writes them all.
const PENDING_FILES: usize = 64;
const PENDING_BYTES: u64 = 8 << 20;

/// Searchers that answer together, each with the paths it must leave out.
type Parts = Vec<(Searcher, Vec<String>)>;

/// Bringing a loaded index up to the session files.
struct CatchUp<'a> {
    home: &'a Path,
    dir: &'a Path,
    index: &'a Index,
    /// The committed index as it was loaded: answering from it, not from a
    /// reader opened again, a search keeps the segments it checked even
    /// when a rebuild swaps the index's folder meanwhile.
    committed: &'a Searcher,
    fields: &'a Fields,
    max_file_bytes: u64,
    /// Write every changed file in, however few (a watcher's catch-up).
    write_all: bool,
}

impl CatchUp<'_> {
    /// The searchers that answer: the committed index, with the files
    /// changed since it was written left out of it and read directly, or
    /// written into it first when there are many and the lock is `held`;
    /// whether the committed index holds every file (none read directly);
    /// and whether the manifest is to be written with the new files named
    /// as not written in ([`manifest::write_pending`]: by the caller, on a
    /// thread of its own, under the lock).
    fn run(
        &self,
        manifest: &Manifest,
        written_ns: i64,
        current: &Manifest,
        listed: bool,
        held: bool,
        warnings: &mut Vec<IndexWarning>,
    ) -> Result<(Parts, bool, bool), SearchError> {
        let changed = manifest::changed_between(&manifest.files, &current.files, written_ns);
        let fresh = readable(
            self.dir,
            changed
                .iter()
                .filter_map(|k| current.files.get(k).map(|s| (k.as_str(), *s))),
        );
        let pending_bytes: u64 = fresh.values().map(|s| s.size).sum();
        if changed.is_empty() {
            // Directories listed again and found to hold the same files
            // (a folder's change time moves with a journal come and gone,
            // or was too recent to trust): the manifest written again lets
            // the next search skip listing them.
            if held && listed {
                save_manifest(self.home, current, Durability::Deferred)?;
            }
            Ok((vec![(self.committed.clone(), Vec::new())], true, false))
        } else if held
            && (self.write_all || changed.len() > PENDING_FILES || pending_bytes > PENDING_BYTES)
        {
            // First a manifest naming every file being written as not (yet)
            // written, synced: should the commit land and the manifest
            // after it be lost, no search takes parts of a file the
            // manifest does not name (one gone since) for its text.
            save_bytes(
                self.home,
                &manifest::write_pending(manifest, current),
                Durability::EachFile,
            )?;
            let mut writer: IndexWriter = self.index.writer_with_num_threads(1, WRITER_BYTES)?;
            for key in &changed {
                writer.delete_term(Term::from_field_text(self.fields.path, key));
            }
            add_files(
                &writer,
                self.fields,
                self.dir,
                &fresh,
                self.max_file_bytes,
                warnings,
            )?;
            writer.commit()?;
            drop(writer);
            save_manifest(self.home, current, Durability::Deferred)?;
            Ok((vec![(searcher(self.index)?, Vec::new())], true, false))
        } else {
            let ram = in_ram(self.dir, &fresh, self.max_file_bytes, warnings)?;
            let parts = vec![
                (self.committed.clone(), changed.into_iter().collect()),
                (ram, Vec::new()),
            ];
            Ok((parts, false, held && listed))
        }
    }
}

/// Throws the index away and builds it again (a search whose index turned
/// out corrupt while answering). Takes the lock if it can.
pub fn rebuild_now(dir: &Path, max_file_bytes: u64, reason: String) -> Result<Opened, SearchError> {
    let home = dir.join(names::SEARCH_INDEX);
    let mut warnings = Vec::new();
    if let Some(_lock) = DirLock::try_acquire_file(&dir.join(names::SEARCH_LOCK)) {
        // Built and swapped in under the lock, not removed first: a search
        // meanwhile finds the damaged index (and reads around it), never
        // none at all.
        let current = manifest::stamps(dir, SCHEMA_VERSION)?;
        rebuild(&home, dir, &current, max_file_bytes, &mut warnings)?;
    }
    let mut opened = open(dir, max_file_bytes)?;
    opened.warnings.splice(0..0, warnings);
    opened.warnings.insert(0, IndexWarning::Rebuilt { reason });
    opened
        .warnings
        .retain(|w| !matches!(w, IndexWarning::Rebuilt { reason } if reason == "is missing"));
    Ok(opened)
}

/// How long `rebuild_all` waits for another process's hold on the search
/// index's lock (a search catching up holds it for a moment).
const REBUILD_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// What [`rebuild_all`] did.
#[derive(Debug)]
pub struct Rebuilt {
    /// Session files listed (those skipped included).
    pub files: usize,
    /// Parts (documents) indexed: phases, preambles, plain sections.
    pub parts: u64,
    /// Files that could not be read, left out.
    pub warnings: Vec<IndexWarning>,
}

/// Builds the search index of `dir` from nothing, under its lock (waited
/// for, up to a bound: a person asked for this).
pub fn rebuild_all(dir: &Path, max_file_bytes: u64) -> Result<Rebuilt, SearchError> {
    let lock_path = dir.join(names::SEARCH_LOCK);
    let started = std::time::Instant::now();
    let _lock = loop {
        if let Some(lock) = DirLock::try_acquire_file(&lock_path) {
            break lock;
        }
        if started.elapsed() > REBUILD_LOCK_WAIT {
            return Err(SearchError::Io {
                path: lock_path,
                source: std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    "another cru has held the search index's lock for 30 s",
                ),
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let current = manifest::stamps(dir, SCHEMA_VERSION)?;
    let home = dir.join(names::SEARCH_INDEX);
    let mut warnings = Vec::new();
    let index = rebuild(&home, dir, &current, max_file_bytes, &mut warnings)?;
    Ok(Rebuilt {
        files: current.files.len(),
        parts: searcher(&index)?.num_docs(),
        warnings,
    })
}

pub(crate) fn searcher(index: &Index) -> Result<Searcher, SearchError> {
    let reader = index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()?;
    Ok(reader.searcher())
}

/// A link or anything but a regular file in the index directory, or the
/// directory itself a link: a reason to rebuild.
fn check_no_links(home: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(home).map_err(|_| "is missing".to_owned())?;
    if meta.file_type().is_symlink() {
        return Err("is a symbolic link (not followed)".into());
    }
    if !meta.is_dir() {
        return Err("is not a directory".into());
    }
    let entries = std::fs::read_dir(home).map_err(|e| format!("cannot be read ({e})"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot be read ({e})"))?;
        let ft = entry
            .file_type()
            .map_err(|e| format!("cannot be read ({e})"))?;
        if !ft.is_file() {
            return Err(format!(
                "holds {} `{}` (not followed)",
                safe_file::kind_name(ft),
                entry.file_name().to_string_lossy()
            ));
        }
    }
    Ok(())
}

/// An index opened with its manifest.
pub(crate) struct Loaded<M> {
    pub index: Index,
    /// A reader of its committed segments, opened (every segment) when it
    /// was loaded.
    pub searcher: Searcher,
    pub manifest: M,
    /// When the manifest was written (ns).
    pub written_ns: i64,
}

/// The index, its manifest, and when the manifest was written.
pub(crate) fn load(home: &Path) -> Result<Loaded<Manifest>, String> {
    load_with(home, manifest::read_keeping)
}

/// [`load`] with the manifest read by `read` (the whole of it, or only the
/// files not written in yet: [`manifest::read_not_indexed`]).
fn load_with<M: ManifestLike>(
    home: &Path,
    read: impl FnOnce(Vec<u8>) -> Result<M, manifest::ManifestError>,
) -> Result<Loaded<M>, String> {
    check_no_links(home)?;
    let path = home.join(MANIFEST);
    if !path.exists() && home.join("manifest.json").exists() {
        // The JSON manifest of version 1.
        return Err(format!("is version 1 (this cru writes {SCHEMA_VERSION})"));
    }
    let (mut file, meta) = safe_file::open_regular(&path, 1 << 30)
        .map_err(|e| format!("has no readable manifest ({})", e.reason()))?;
    let written_ns = meta.mtime() * 1_000_000_000 + meta.mtime_nsec();
    // Sized up front: grown by doubling, the 8 MB manifest of 100,000
    // files was copied a dozen times (a tenth of a search after a save).
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    std::io::Read::read_to_end(&mut file, &mut bytes)
        .map_err(|e| format!("has no readable manifest ({e})"))?;
    let manifest = match read(bytes) {
        Ok(m) if m.version() == SCHEMA_VERSION => m,
        Err(manifest::ManifestError::Version(version)) => {
            return Err(format!(
                "is version {version} (this cru writes {SCHEMA_VERSION})"
            ));
        }
        Ok(m) => {
            return Err(format!(
                "is version {} (this cru writes {SCHEMA_VERSION})",
                m.version()
            ));
        }
        Err(e) => return Err(format!("has a corrupt manifest ({e})")),
    };
    let index = Index::open_in_dir(home).map_err(|e| format!("cannot be opened ({e})"))?;
    if index.schema() != schema().0 {
        return Err("has another schema".into());
    }
    // Opening a reader opens every segment: a damaged file shows here.
    let index = new_index(index);
    let searcher = searcher(&index).map_err(|e| format!("cannot be read ({e})"))?;
    Ok(Loaded {
        index,
        searcher,
        manifest,
        written_ns,
    })
}

/// What [`load_with`] asks of a manifest read.
trait ManifestLike {
    fn version(&self) -> u32;
}

impl ManifestLike for Manifest {
    fn version(&self) -> u32 {
        self.version
    }
}

impl ManifestLike for manifest::NotIndexed {
    fn version(&self) -> u32 {
        self.version
    }
}

fn remove(home: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(home) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        // `remove_dir_all` unlinks the links inside, never what they name.
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(home),
        Ok(_) => std::fs::remove_file(home),
    }
}

/// Builds the index of `current`'s files from nothing, under the lock
/// (the caller's), and puts it in place of the one at `home`.
///
/// It is built in a folder of its own beside the sessions
/// ([`names::SEARCH_INDEX_BUILD`]) and swapped in whole: a search opening
/// the index meanwhile takes no lock, and finds the old index or the new
/// one, each with its own manifest. Built in place, a search could open
/// the empty index a rebuild starts from with the old manifest, which
/// vouches for every file, and answer nothing.
fn rebuild(
    home: &Path,
    dir: &Path,
    current: &Manifest,
    max_file_bytes: u64,
    warnings: &mut Vec<IndexWarning>,
) -> Result<Index, SearchError> {
    let build = build_folder(dir)?;
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&build)
        .map_err(io(&build))?;
    let index = new_index(Index::create_in_dir(&build, schema().0)?);
    let (_, fields) = schema();
    let mut writer: IndexWriter = index.writer(WRITER_BYTES)?;
    add_files(
        &writer,
        &fields,
        dir,
        &current.files,
        max_file_bytes,
        warnings,
    )?;
    writer.commit()?;
    writer.wait_merging_threads()?;
    drop(index);
    save_manifest(&build, current, Durability::EachFile)?;
    if let Err(e) = swap_in(&build, home) {
        match e {
            // The new index is in place; only the old one stayed.
            Swap::OldKept(path, source) => warnings.push(IndexWarning::OldIndexKept {
                path,
                reason: source.to_string(),
            }),
            Swap::Failed(e) => return Err(e),
        }
    }
    // Opened where it now is: the folder it was built in holds the old one.
    Ok(new_index(Index::open_in_dir(home)?))
}

/// An empty place to build a new index in: [`names::SEARCH_INDEX_BUILD`],
/// once what a killed rebuild left there is removed; when it cannot be (an
/// old index another user left read-only), a folder of this process's own
/// beside it, so that no leftover stops every rebuild after it.
fn build_folder(dir: &Path) -> Result<PathBuf, SearchError> {
    let shared = dir.join(names::SEARCH_INDEX_BUILD);
    if remove(&shared).is_ok() {
        return Ok(shared);
    }
    let own = dir.join(format!(
        "{}.{}",
        names::SEARCH_INDEX_BUILD,
        std::process::id()
    ));
    remove(&own).map_err(io(&own))?;
    Ok(own)
}

/// How putting a new index in place failed.
enum Swap {
    /// It is in place; the old one, now at this path, could not be removed.
    OldKept(PathBuf, std::io::Error),
    /// It is not in place.
    Failed(SearchError),
}

/// Puts the folder `build` at `home` in one step, and removes what was
/// there. Exchanged where the file system can (Linux's `renameat2`), so
/// that `home` never goes missing; else (no index there yet, or no
/// exchange) moved over it.
fn swap_in(build: &Path, home: &Path) -> Result<(), Swap> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    if renameat_with(CWD, build, CWD, home, RenameFlags::EXCHANGE).is_ok() {
        // `build` is now the old index (or whatever was in its place: a
        // link is removed, never followed).
        return remove(build).map_err(|e| Swap::OldKept(build.to_owned(), e));
    }
    remove(home).map_err(|e| Swap::Failed(io(home)(e)))?;
    std::fs::rename(build, home).map_err(|e| Swap::Failed(io(home)(e)))
}

fn in_ram(
    dir: &Path,
    files: &Stamps,
    max_file_bytes: u64,
    warnings: &mut Vec<IndexWarning>,
) -> Result<Searcher, SearchError> {
    let index = new_index(Index::create_in_ram(schema().0));
    let (_, fields) = schema();
    let mut writer: IndexWriter = index.writer_with_num_threads(1, WRITER_BYTES)?;
    add_files(&writer, &fields, dir, files, max_file_bytes, warnings)?;
    writer.commit()?;
    searcher(&index)
}

/// Writes the manifest: synced or not (`durability`; see the callers for
/// when a lost manifest would matter).
fn save_manifest(
    home: &Path,
    manifest: &Manifest,
    durability: Durability,
) -> Result<(), SearchError> {
    save_bytes(home, &manifest::write(manifest), durability)
}

/// [`save_manifest`] of a manifest's bytes.
pub(crate) fn save_bytes(
    home: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<(), SearchError> {
    let path = home.join(MANIFEST);
    crucible_core::store::atomic::write_atomic_with(&path, &[bytes], durability)
        .map_err(io(&path))?;
    // tantivy makes its files with the default mode; the directory is
    // 0700 already, and the files are made owner-only too.
    for entry in std::fs::read_dir(home).map_err(io(home))? {
        let entry = entry.map_err(io(home))?;
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let p = entry.path();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).map_err(io(&p))?;
        }
    }
    Ok(())
}

/// Reads each file through the parser and adds its parts; a file that
/// cannot be read is kept in the manifest (so it is not read again until
/// it changes) and named in a warning.
///
/// Files are read and parsed on half the cores (at least one thread), which
/// hand their documents straight to the writer: tantivy's own indexing
/// threads take the other half.
fn add_files(
    writer: &IndexWriter,
    fields: &Fields,
    dir: &Path,
    files: &Stamps,
    max_file_bytes: u64,
    warnings: &mut Vec<IndexWarning>,
) -> Result<(), SearchError> {
    let keys: Vec<&str> = files.keys().collect();
    let half = (crate::parallel::cores() / 2).max(1);
    let results = crate::parallel::chunked(&keys, half, |part| {
        let mut skipped = Vec::new();
        for key in part {
            let path = dir.join(key);
            match read_session(&path, max_file_bytes) {
                Ok(doc) => add_session(writer, fields, key, &doc)?,
                Err(message) => skipped.push(IndexWarning::Skipped { path, message }),
            }
        }
        Ok::<_, SearchError>(skipped)
    });
    for r in results {
        warnings.extend(r?);
    }
    Ok(())
}

fn read_session(path: &Path, max_file_bytes: u64) -> Result<SessionDoc, String> {
    let bytes = safe_file::read_regular(path, max_file_bytes).map_err(|e| e.reason())?;
    let mut log = crucible_parser::read::full(path, &bytes).map_err(|e| e.to_string())?;
    // A live session's events not yet folded into its markdown, as every
    // reader of the store applies them.
    if let Ok(Some(contents)) = journal::read(&journal::journal_path(path)) {
        for event in &contents.pending_for(&bytes).events {
            log.apply(event);
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut doc = session_doc(&log, &text);
    // The sidecar an import keeps: each call's full arguments and result,
    // searched as the call's tool text. One that does not match the
    // session is left out, as `show --full` leaves it.
    let store = crucible_core::SessionStore::new(
        path.parent().unwrap_or(Path::new(".")),
        crucible_parser::MarkdownCodec,
    )
    .with_max_file_bytes(max_file_bytes);
    if let Ok(Some(data)) = store.load_data_for(path, &log) {
        add_sidecar(&mut doc, &data);
    }
    Ok(doc)
}

fn add_sidecar(doc: &mut SessionDoc, data: &crucible_core::SessionData) {
    for record in &data.records {
        if let crucible_core::DataRecord::Call(call) = record {
            let phase = call.phase as u64 + 1;
            if let Some(part) = doc.parts.iter_mut().find(|p| p.phase == phase) {
                for value in [&call.arguments, &call.result].into_iter().flatten() {
                    strings(value, &mut part.tool);
                }
            }
        }
    }
}

/// The strings of a JSON value (a result's content blocks hold them at
/// any depth), each on its own line.
fn strings(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::String(s) => {
            out.push('\n');
            out.push_str(s);
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The directory `project` and each one above it: `--project DIR` is one
/// term, matching sessions in DIR or below it.
fn project_terms(project: &str) -> impl Iterator<Item = &str> {
    Path::new(project)
        .ancestors()
        .filter_map(Path::to_str)
        .filter(|p| !p.is_empty())
}

fn add_session(
    writer: &IndexWriter,
    f: &Fields,
    key: &str,
    doc: &SessionDoc,
) -> Result<(), SearchError> {
    for part in &doc.parts {
        let mut d = TantivyDocument::new();
        d.add_text(f.session, &doc.id);
        d.add_text(f.path, key);
        d.add_u64(f.phase, part.phase);
        d.add_u64(f.line_from, part.lines.0);
        d.add_u64(f.line_to, part.lines.1);
        d.add_text(f.status, &doc.status);
        for a in &part.agents {
            d.add_text(f.agent, a);
        }
        if let Some(c) = &part.channel {
            d.add_text(f.channel, c.to_lowercase());
        }
        if let Some(m) = &part.model {
            d.add_text(f.model, m.to_lowercase());
        }
        for p in doc.project.as_deref().into_iter().flat_map(project_terms) {
            d.add_text(f.project, p);
        }
        d.add_i64(f.started, doc.started_ms);
        d.add_text(f.text, &part.text);
        d.add_text(f.tool, &part.tool);
        d.add_text(f.decision, &part.decision);
        d.add_text(f.error, &part.error);
        d.add_text(f.user, &part.user);
        if let Some(name) = &part.subagent {
            d.add_text(f.subagent, name);
        }
        if let Some(parent) = &doc.parent {
            d.add_text(f.parent, parent);
        }
        d.add_text(f.agent_name, &doc.agent_name);
        for child in &doc.children {
            d.add_text(f.children, child);
        }
        writer.add_document(d)?;
    }
    Ok(())
}

/// Where the index of the sessions directory `dir` lives.
pub fn home(dir: &Path) -> PathBuf {
    dir.join(names::SEARCH_INDEX)
}
