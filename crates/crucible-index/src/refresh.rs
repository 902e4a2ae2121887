//! Proving the index fresh before a query answers from it.
//!
//! The rule (docs/index-format.md, "How it stays fresh"): before answering,
//! every indexed file is `stat`ed and its stamp (inode, size, mtime and the
//! inode change time, which no tool can set back) compared with the one
//! recorded; a file whose stamp differs, that is gone, or that has a journal
//! is read again. Every indexed directory is `stat`ed too, and one whose
//! mtime changed is listed again, which finds files that are new. Stamps
//! taken within a clock tick of the file's last change are not trusted (they
//! are recorded as "look again"). Nothing else is trusted: not a save through
//! cru (which records only its own file), not the index's own idea of when it
//! was written. At 100,000 files the `stat`s take tens of milliseconds on two
//! cores, which is what proving freshness costs.

use std::collections::HashSet;
use std::path::Path;

use crucible_core::SessionStore;
use crucible_core::store::walk::{WalkOptions, change_time, is_markdown, walk};
use crucible_parser::MarkdownCodec;

use crate::files::{Delta, DirStamp, Index};
use crate::path_set::{PathMap, PathSet};
use crate::record::{FileStamp, RACY_NS, unix_ns};
use crate::scan::{Entry, index_file, relative, skipped_problem};

/// A directory stamp that means "list this directory again": recorded for
/// a directory that changed within a clock tick of being looked at. No real
/// directory has an mtime of one nanosecond after the epoch.
pub const RELIST: u64 = 1;

pub use crate::path_set::parent_of;

/// `stat`s of paths relative to the sessions directory, through one open
/// descriptor of it (the kernel then resolves one or two names per file,
/// not the whole path).
#[derive(Debug)]
pub struct Stamper {
    fd: Option<std::os::fd::OwnedFd>,
}

impl Stamper {
    pub fn open(root: &Path) -> Self {
        use rustix::fs::{Mode, OFlags};
        let fd = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok();
        Self { fd }
    }

    fn stat(&self, rel: &str, follow: bool) -> Option<FileStamp> {
        use rustix::fs::AtFlags;
        let fd = self.fd.as_ref()?;
        let flags = if follow {
            AtFlags::empty()
        } else {
            AtFlags::SYMLINK_NOFOLLOW
        };
        let st = rustix::fs::statat(fd, rel, flags).ok()?;
        Some(stamp_of(&st))
    }

    /// Whether the session file at `rel` (links followed) is still the one
    /// stamped `recorded`.
    pub fn session_unchanged(&self, rel: &str, recorded: &FileStamp) -> bool {
        self.stat(rel, true)
            .is_some_and(|now| recorded.matches(&now))
    }

    /// Whether the entry at `rel` of a problem row (not followed: it may be
    /// a broken link or a FIFO) is still the one stamped `recorded`. A row
    /// for a name that is not UTF-8 (kept with U+FFFD in its place) cannot be
    /// `stat`ed by its text: it stands until its directory changes, when
    /// [`relist`] looks for it again.
    pub fn problem_unchanged(&self, rel: &str, recorded: &FileStamp) -> bool {
        rel.contains(char::REPLACEMENT_CHARACTER)
            || self
                .stat(rel, false)
                .is_some_and(|now| recorded.matches(&now))
    }
}

/// A file's stamp from its `stat`, as it is (no racy rule: this is the
/// stamp compared, not the one recorded).
#[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
fn stamp_of(st: &rustix::fs::Stat) -> FileStamp {
    let ns = |s: i64, n: u64| u64::try_from(s).unwrap_or(0) * 1_000_000_000 + n;
    FileStamp {
        ino: st.st_ino as u64,
        size: u64::try_from(st.st_size).unwrap_or(0),
        mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as u64),
        ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as u64),
    }
}

/// What the freshness rule says of one indexed row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowState {
    /// Unchanged: answer from the row.
    Fresh,
    /// Live (with a journal the row knows of): read afresh for every query.
    Live,
    /// Changed, gone, newly live, or in a folder the index does not have:
    /// read again, and save what is read.
    Stale,
}

/// The freshness rule for the rows of one index, set up once per query:
/// the folders that changed (with their new stamps), the folders the index
/// has, the journals found in changed folders, and the descriptor `stat`s
/// go through. Both the query's row scan and [`refresh`] ask it.
#[derive(Debug)]
pub struct Check {
    pub changed: PathMap<String, Option<DirStamp>>,
    pub known: PathSet<String>,
    journals: PathSet<String>,
    stamper: Stamper,
    /// A trusted watcher has applied every change (crate::watcher): rows
    /// are fresh without a `stat`.
    vouched: bool,
}

impl Check {
    pub fn new(root: &Path, dirs: &[DirStamp]) -> Self {
        let changed = changed_dirs(root, dirs);
        Self {
            known: dirs.iter().map(|d| d.path.clone()).collect(),
            journals: journals_in(root, &changed),
            stamper: Stamper::open(root),
            changed,
            vouched: false,
        }
    }

    /// [`Check::new`], unless a trusted watcher vouches for the index (its
    /// fence answered, see [`crate::watcher`]): then no folder is listed
    /// and no file `stat`ed, since the watcher ran this same proof for
    /// every change made before the fence. Live rows are still read afresh.
    pub fn unless_vouched(root: &Path, dirs: &[DirStamp], vouched: bool) -> Self {
        if !vouched {
            return Self::new(root, dirs);
        }
        tracing::debug!("freshness vouched for by the running watcher");
        Self {
            changed: PathMap::default(),
            known: dirs.iter().map(|d| d.path.clone()).collect(),
            journals: PathSet::default(),
            stamper: Stamper::open(root),
            vouched: true,
        }
    }

    /// Whether `path` lies in a folder that changed (its listing then looks
    /// for new files beside it).
    pub fn in_changed(&self, path: &str) -> bool {
        !self.changed.is_empty() && self.changed.contains_key(parent_of(path))
    }

    /// A session row: `live` as the row says, `stamp` as recorded.
    pub fn session(&self, path: &str, live: bool, stamp: &FileStamp) -> RowState {
        if live {
            return RowState::Live;
        }
        // A journal the row does not know of: saved as live once read, so
        // that every later query reads it afresh too (appends change neither
        // the file nor the folder).
        if !self.journals.is_empty() && self.journals.contains(path) {
            return RowState::Stale;
        }
        self.file(path, stamp)
    }

    /// Adds to `reread` the files of `removed` (the delta's) that are there
    /// after all (a delta edited by hand, or a file put back), unless a
    /// listing already did: the one rule of both the fast path and
    /// [`refresh`], after [`relist`].
    pub fn reread_removed_but_there(&self, removed: &[String], reread: &mut Vec<String>) {
        if self.vouched {
            return;
        }
        for path in removed {
            if self.stamper.stat(path, true).is_some() && !reread.contains(path) {
                reread.push(path.clone());
            }
        }
    }

    /// A notes row (markdown that was not a session).
    pub fn note(&self, path: &str, stamp: &FileStamp) -> RowState {
        self.file(path, stamp)
    }

    /// A problems row: its entry is looked at without following links.
    pub fn problem(&self, path: &str, stamp: &FileStamp) -> RowState {
        if self.vouched || self.stamper.problem_unchanged(path, stamp) {
            RowState::Fresh
        } else {
            RowState::Stale
        }
    }

    fn file(&self, path: &str, stamp: &FileStamp) -> RowState {
        // A row in a folder the index does not have (an edited index, or a
        // folder swapped for a link) is read again, by the walker's rules:
        // it must lead to a file inside the directory.
        if self.known.contains(parent_of(path))
            && (self.vouched || self.stamper.session_unchanged(path, stamp))
        {
            RowState::Fresh
        } else {
            RowState::Stale
        }
    }
}

/// The stamp of a directory looked at now: [`RELIST`] if it changed within
/// a clock tick (a change in the same tick would not move its mtime).
pub fn dir_stamp_at(root: &Path, dir: &Path, changed: Option<std::time::SystemTime>) -> DirStamp {
    let now = unix_ns(std::time::SystemTime::now());
    let changed_ns = match changed.map(unix_ns) {
        Some(m) if now.saturating_sub(m) >= RACY_NS => m,
        _ => RELIST,
    };
    DirStamp {
        path: relative(root, dir),
        changed_ns,
    }
}

/// The directories of `dirs` that must be listed again: changed, gone, or
/// recorded as racy. Each comes with its stamp taken now, before it is
/// listed (`None`: gone).
pub fn changed_dirs(root: &Path, dirs: &[DirStamp]) -> PathMap<String, Option<DirStamp>> {
    let mut changed = PathMap::default();
    for d in dirs {
        let full = if d.path.is_empty() {
            root.to_owned()
        } else {
            root.join(&d.path)
        };
        let meta = std::fs::symlink_metadata(&full)
            .ok()
            .filter(std::fs::Metadata::is_dir);
        let now = meta.map(|m| dir_stamp_at(root, &full, Some(change_time(&m))));
        match now {
            Some(n) if n.changed_ns == d.changed_ns && d.changed_ns != RELIST => {}
            other => {
                changed.insert(d.path.clone(), other);
            }
        }
    }
    changed
}

/// The sessions of the `changed` directories that have a journal now
/// (hidden `.<name>.journal` files): they are live, read afresh whatever
/// their row says. Found before the rows are looked at, so that no session
/// is both answered from its row and read again. The listing builds no path
/// for the other entries.
pub fn journals_in(root: &Path, changed: &PathMap<String, Option<DirStamp>>) -> PathSet<String> {
    let mut live = PathSet::default();
    for (dir_rel, now) in changed {
        if now.is_none() {
            continue;
        }
        let dir = if dir_rel.is_empty() {
            root.to_owned()
        } else {
            root.join(dir_rel)
        };
        if let Ok(tree) = walk(
            &dir,
            WalkOptions {
                file_filter: &|_| false,
                utf8_names: true,
                recursive: false,
                confine_to: Some(root),
            },
        ) {
            live.extend(tree.journals.iter().map(|j| relative(root, j)));
        }
    }
    live
}

/// What a freshness check found: the paths to read again (changed, new,
/// live), the rows to drop, the directory stamps to record, and entries a
/// listing skipped.
#[derive(Debug, Default)]
pub struct Stale {
    pub reread: Vec<String>,
    pub dirs: Vec<DirStamp>,
    pub gone_dirs: Vec<String>,
    /// Folders that exist but cannot be listed: one problem row each, and
    /// the rows below them go (as a fresh index would have them).
    pub unreadable_dirs: Vec<String>,
    pub skipped: Vec<crate::record::Problem>,
}

/// Lists again each directory of `changed`: files not among `indexed`
/// (every indexed path in those directories) are new and go to `reread`,
/// as do sessions that now have a journal; new subdirectories are walked
/// whole. `known_dirs` are the directories the index has.
pub fn relist(
    root: &Path,
    changed: &PathMap<String, Option<DirStamp>>,
    indexed: &PathSet<String>,
    known_dirs: &PathSet<String>,
    stale: &mut Stale,
) {
    let known = names_by_dir(indexed);
    let none = PathSet::default();
    for (dir_rel, now) in changed {
        let Some(now) = now else {
            stale.gone_dirs.push(dir_rel.clone());
            continue;
        };
        let dir = if dir_rel.is_empty() {
            root.to_owned()
        } else {
            root.join(dir_rel)
        };
        let names = known.get(dir_rel.as_str()).unwrap_or(&none);
        let new_file = |name: &std::ffi::OsStr| {
            is_markdown(name) && !name.to_str().is_some_and(|n| names.contains(n))
        };
        let Ok(tree) = walk(
            &dir,
            WalkOptions {
                file_filter: &new_file,
                utf8_names: true,
                recursive: false,
                confine_to: Some(root),
            },
        ) else {
            // It is there (stamped just now) but cannot be listed.
            stale.skipped.push(skipped_problem(
                root,
                &crucible_core::store::Skipped {
                    path: dir.clone(),
                    reason: "folder cannot be read".into(),
                },
            ));
            stale.unreadable_dirs.push(dir_rel.clone());
            stale.dirs.push(now.clone());
            continue;
        };
        stale.reread.extend(
            tree.files
                .iter()
                .chain(&tree.journals)
                .map(|f| relative(root, f)),
        );
        stale
            .reread
            .extend(unlisted_odd_names(root, dir_rel, names, &tree.skipped));
        stale
            .skipped
            .extend(tree.skipped.iter().map(|s| skipped_problem(root, s)));
        walk_new_subdirs(root, &tree.subdirs, known_dirs, stale);
        stale.dirs.push(now.clone());
    }
}

/// The indexed names of each changed directory: a listing then builds
/// paths only for names it does not know (a folder of 100,000 sessions is
/// listed again after every save that adds or removes a file in it).
fn names_by_dir(indexed: &PathSet<String>) -> PathMap<&str, PathSet<&str>> {
    let mut known: PathMap<&str, PathSet<&str>> = PathMap::default();
    for p in indexed {
        let (dir, name) = p.rsplit_once('/').unwrap_or(("", p));
        known
            .entry(dir)
            .or_insert_with(|| PathSet::with_capacity_and_hasher(indexed.len(), Default::default()))
            .insert(name);
    }
    known
}

/// Rows of names that are not UTF-8 are not `stat`ed (see
/// `problem_unchanged`): gone unless the listing still has them, so the
/// indexed ones of `dir_rel` the listing skipped no more are read again.
fn unlisted_odd_names(
    root: &Path,
    dir_rel: &str,
    names: &PathSet<&str>,
    listing_skipped: &[crucible_core::store::Skipped],
) -> Vec<String> {
    let listed: HashSet<String> = listing_skipped
        .iter()
        .map(|s| relative(root, &s.path))
        .collect();
    names
        .iter()
        .filter(|n| n.contains(char::REPLACEMENT_CHARACTER))
        .map(|n| {
            if dir_rel.is_empty() {
                (*n).to_owned()
            } else {
                format!("{dir_rel}/{n}")
            }
        })
        .filter(|p| !listed.contains(p))
        .collect()
}

/// The subdirectories of a listing that the index does not know: new
/// folders, whose every file is new.
fn walk_new_subdirs(
    root: &Path,
    subdirs: &[std::path::PathBuf],
    known_dirs: &PathSet<String>,
    stale: &mut Stale,
) {
    for sub in subdirs {
        let sub_rel = relative(root, sub);
        if known_dirs.contains(&sub_rel) || sub_rel.starts_with('.') {
            continue;
        }
        if let Ok(t) = crate::scan::walk(sub, root) {
            stale
                .reread
                .extend(t.files.iter().map(|f| relative(root, f)));
            stale
                .skipped
                .extend(t.skipped.iter().map(|s| skipped_problem(root, s)));
            for (d, m) in t.dirs.iter().zip(&t.dir_changed) {
                stale.dirs.push(dir_stamp_at(root, d, *m));
            }
        }
    }
}

/// Reads every path of `stale` again into a delta: the new state of each
/// (a session, a problem, or gone), the skipped entries, the directory
/// stamps.
pub fn read_stale(store: &SessionStore<MarkdownCodec>, stale: Stale) -> (Delta, Vec<Entry>) {
    let root = store.dir();
    let mut delta = Delta::default();
    let mut entries = Vec::new();
    let mut seen = HashSet::new();
    let unreadable = stale.unreadable_dirs;
    let under_unreadable = |rel: &str| {
        unreadable.iter().any(|d| {
            rel.strip_prefix(d.as_str())
                .is_some_and(|r| r.starts_with('/'))
        })
    };
    let mut pending = stale.reread;
    let mut dirs = stale.dirs;
    let mut skipped = stale.skipped;
    while let Some(rel) = pending.pop() {
        if !seen.insert(rel.clone()) {
            continue;
        }
        let full = root.join(&rel);
        match std::fs::symlink_metadata(&full) {
            Err(_) if under_unreadable(&rel) => delta.set(&rel, None, None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => delta.set(&rel, None, None),
            Err(e) => skipped.push(skipped_problem(
                root,
                &crucible_core::store::Skipped {
                    path: full,
                    reason: format!("cannot be read ({e})"),
                },
            )),
            // The row of a folder that could not be read: it changed, so
            // walk it now (or record again that it cannot be read).
            Ok(m) if m.is_dir() => match crate::scan::walk(&full, root) {
                Ok(t) => {
                    delta.set(&rel, None, None);
                    pending.extend(t.files.iter().map(|f| relative(root, f)));
                    skipped.extend(t.skipped.iter().map(|s| skipped_problem(root, s)));
                    for (d, m) in t.dirs.iter().zip(&t.dir_changed) {
                        dirs.push(dir_stamp_at(root, d, *m));
                    }
                }
                Err(e) => skipped.push(skipped_problem(
                    root,
                    &crucible_core::store::Skipped {
                        path: full,
                        reason: format!("folder cannot be read ({e})"),
                    },
                )),
            },
            Ok(_) => {
                let entry = index_file(store, &full);
                record(&mut delta, &rel, &entry);
                entries.push(entry);
            }
        }
    }
    for p in skipped {
        if seen.insert(p.path.clone()) {
            delta.set(&p.path.clone(), None, Some(p));
        }
    }
    for d in dirs {
        delta.set_dir(d);
    }
    for d in stale.gone_dirs {
        delta.set_dir(DirStamp {
            path: d,
            changed_ns: 0,
        });
    }
    (delta, entries)
}

fn record(delta: &mut Delta, rel: &str, entry: &Entry) {
    match entry {
        Entry::Session(s, summary) => {
            let phases = crate::record::PhaseRecord::from_summary(rel, summary);
            delta.set(rel, Some(((**s).clone(), phases)), None);
        }
        Entry::Problem(p) => delta.set(rel, None, Some(p.clone())),
        Entry::NotASession(stamp) => delta.set_note(crate::record::Note {
            path: rel.to_owned(),
            stamp: *stamp,
        }),
    }
}

/// Whether reading `stale` files again costs more than rebuilding an index
/// of `rows` sessions: a rebuild parses on every core and streams its rows
/// to the file, where reading again parses on one and keeps every file's
/// summary until the delta is saved. 100,000 files touched at once (a
/// copy made with hard links changes every file's ctime; so do `chown -R`
/// and a restore) took 76 s and 6.8 GB read again, against 10 s and 355 MB
/// rebuilt: reading one file again costs about what rebuilding eight
/// rows does.
pub fn worth_rebuilding(stale: usize, rows: usize) -> bool {
    stale > 64 && stale.saturating_mul(8) > rows
}

/// Brings a whole in-memory `index` up to date by the rule above; returns
/// what changed (to be persisted when the directory is writable), or
/// `None` when so much changed that a rebuild is cheaper
/// ([`worth_rebuilding`]); `index` is then as it was.
/// `removed`: the removed paths of the delta `index` was loaded with.
pub fn refresh(
    store: &SessionStore<MarkdownCodec>,
    index: &mut Index,
    removed: &[String],
) -> Option<Delta> {
    let root = store.dir();
    let check = Check::new(root, &index.dirs);
    let mut stale = Stale::default();
    let mut indexed = PathSet::default();
    let rows = (index.sessions.iter())
        .map(|s| (&s.path, check.session(&s.path, s.live, &s.stamp)))
        .chain(
            index
                .notes
                .iter()
                .map(|n| (&n.path, check.note(&n.path, &n.stamp))),
        )
        .chain(
            index
                .problems
                .iter()
                .map(|p| (&p.path, check.problem(&p.path, &p.stamp))),
        );
    for (path, state) in rows {
        // Live sessions are read again too: the whole index is answered from
        // the delta applied below.
        if state != RowState::Fresh {
            stale.reread.push(path.clone());
        }
        if check.in_changed(path) {
            indexed.insert(path.clone());
        }
    }
    relist(root, &check.changed, &indexed, &check.known, &mut stale);
    check.reread_removed_but_there(removed, &mut stale.reread);
    if worth_rebuilding(stale.reread.len(), index.sessions.len()) {
        return None;
    }
    let (delta, _) = read_stale(store, stale);
    crate::files::apply(index, &delta);
    Some(delta)
}
