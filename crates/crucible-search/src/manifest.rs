//! What the search index was built from: a stamp (size, mtime, inode,
//! change time, and a live session's journal) per session file, and how
//! the files are stamped now.
//!
//! Proving the index fresh is a `stat` of every session file before every
//! answer, so both halves are made cheap at 100,000 files: the `stat`s go
//! through one open descriptor of the sessions directory (the kernel looks
//! up one or two names per file, not every component of an absolute path)
//! on every core, and the manifest is a line per file that is read without
//! a JSON parser.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::os::fd::OwnedFd;
use std::path::Path;

use crucible_core::store::{journal, walk};

use crate::SearchError;

/// Stat of one session file, as the manifest keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub inode: u64,
    /// The inode change time, which no tool can set back.
    pub ctime_ns: i64,
    /// The journal's size and change time, for a live session: its events
    /// are searched before they are folded into the markdown.
    pub journal: Option<(u64, i64)>,
}

impl Stamp {
    /// A file the manifest knows of but the committed index does not hold
    /// (no file has inode 0): it differs from every real stamp, so it is
    /// read at every search until it is written into the index.
    pub const NOT_INDEXED: Stamp = Stamp {
        size: 0,
        mtime_ns: 0,
        inode: 0,
        ctime_ns: 0,
        journal: None,
    };
}

pub use crate::stamps::Stamps;

/// The first line of a manifest, before its version.
const HEADER: &str = "crucible-search manifest ";

/// A manifest that cannot be read: what to say in the rebuild warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestError {
    /// Written by another version of cru.
    Version(u32),
    /// Not a manifest, or damaged at this line (1-based).
    Corrupt { line: usize, expected: &'static str },
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Version(v) => write!(f, "version {v}"),
            Self::Corrupt { line, expected } => {
                write!(f, "damaged at line {line} (expected {expected})")
            }
        }
    }
}

/// What the index was built from: its version, every directory the walk
/// entered with its change time, and every session file's stamp.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub version: u32,
    /// Directories by path relative to the sessions directory (`` for
    /// itself), each with its inode change time (ns) when it was listed.
    pub dirs: Vec<(String, i64)>,
    pub files: Stamps,
    /// The bytes it was read from, when they can be copied back.
    pub verbatim: Verbatim,
}

/// The bytes a manifest was read from, kept when its file lines are its
/// files one for one and in order (as cru writes them), with where the
/// first of those lines starts: a manifest written again with a few files
/// added copies the lines of the others instead of formatting 100,000
/// stamps again. Not part of what a manifest says: any two are equal.
#[derive(Debug, Clone, Default)]
pub struct Verbatim(Option<(Vec<u8>, usize)>);

impl PartialEq for Verbatim {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Verbatim {}

pub(crate) fn push_path(out: &mut String, path: &str) {
    // Most paths have nothing to escape: copied whole (a char at a time was
    // a visible part of writing 100,000 lines after a save).
    if !path.contains(['\\', '\n']) {
        out.push_str(path);
        out.push('\n');
        return;
    }
    for c in path.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\n');
}

/// Appends `n` in decimal and a space (the stamps' numbers: `write!` through
/// the formatting machinery was most of writing a manifest).
fn push_number(out: &mut String, negative: bool, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + u8::try_from(n % 10).expect("a digit");
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
    out.push(' ');
}

fn push_u64(out: &mut String, n: u64) {
    push_number(out, false, n);
}

fn push_i64(out: &mut String, n: i64) {
    push_number(out, n < 0, n.unsigned_abs());
}

/// The manifest's bytes: the header with the version; a line per
/// directory, `d ctime path`; then a line per file, `size mtime inode
/// ctime journal-size journal-ctime path` (`-` for no journal). Paths come
/// last, with `\` and newlines escaped.
pub fn write(manifest: &Manifest) -> Vec<u8> {
    write_files(
        manifest.version,
        &manifest.dirs,
        manifest.files.iter(),
        manifest.files.len(),
    )
}

/// [`write`] of `files` given in path order (`count` of them, to size the
/// buffer), without a map of them.
pub fn write_files<'a>(
    version: u32,
    dirs: &[(String, i64)],
    files: impl Iterator<Item = (&'a str, &'a Stamp)>,
    count: usize,
) -> Vec<u8> {
    let mut out = String::with_capacity(64 * count + 32);
    push_head(&mut out, version, dirs);
    for (path, s) in files {
        push_file(&mut out, path, s);
    }
    out.into_bytes()
}

fn push_head(out: &mut String, version: u32, dirs: &[(String, i64)]) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "{HEADER}{version}");
    for (path, ctime) in dirs {
        out.push_str("d ");
        push_i64(out, *ctime);
        push_path(out, path);
    }
}

/// A file's line: `size mtime inode ctime journal-size journal-ctime path`.
fn push_file(out: &mut String, path: &str, s: &Stamp) {
    push_u64(out, s.size);
    push_i64(out, s.mtime_ns);
    push_u64(out, s.inode);
    push_i64(out, s.ctime_ns);
    match s.journal {
        Some((size, ctime)) => {
            push_u64(out, size);
            push_i64(out, ctime);
        }
        None => out.push_str("- - "),
    }
    push_path(out, path);
}

/// The manifest of the committed index `committed`, with the folders as
/// `current` found them and the files new since then stamped
/// [`Stamp::NOT_INDEXED`]: the next search `stat`s them without listing
/// the folders, and reads them (they differ from that stamp) until they
/// are written in. Made by merging the two in path order, no map built.
pub fn write_pending(committed: &Manifest, current: &Manifest) -> Vec<u8> {
    if let Verbatim(Some((bytes, files_at))) = &committed.verbatim {
        return write_pending_verbatim(bytes, *files_at, committed, current);
    }
    let mut old = committed.files.iter().peekable();
    let mut new = current.files.keys().peekable();
    let merged = std::iter::from_fn(move || match (old.peek(), new.peek()) {
        (Some((o, _)), Some(n)) if n < o => new.next().map(|n| (n, &Stamp::NOT_INDEXED)),
        (Some((o, _)), Some(n)) if n == o => {
            new.next();
            old.next()
        }
        (Some(_), _) => old.next(),
        (None, Some(_)) => new.next().map(|n| (n, &Stamp::NOT_INDEXED)),
        (None, None) => None,
    });
    write_files(
        committed.version,
        &current.dirs,
        merged,
        committed.files.len().max(current.files.len()),
    )
}

/// [`write_pending`] copying the committed files' lines from `bytes`, the
/// committed manifest as it was read (its file lines from `files_at`, one
/// per file of `committed`, in order): only the folders and the new files'
/// lines are formatted.
fn write_pending_verbatim(
    bytes: &[u8],
    files_at: usize,
    committed: &Manifest,
    current: &Manifest,
) -> Vec<u8> {
    let mut head = String::new();
    push_head(&mut head, committed.version, &current.dirs);
    let mut out = head.into_bytes();
    out.reserve(
        bytes.len() - files_at + 64 * current.files.len().saturating_sub(committed.files.len()),
    );
    let mut new = current.files.keys().peekable();
    let mut line = String::new();
    let mut not_indexed = |out: &mut Vec<u8>, path: &str| {
        line.clear();
        push_file(&mut line, path, &Stamp::NOT_INDEXED);
        out.extend_from_slice(line.as_bytes());
    };
    // Lines from `run` up to `at` (the start of the next committed line)
    // are copied at once, when a new line must go before the next.
    let (mut run, mut at) = (files_at, files_at);
    for path in committed.files.keys() {
        while let Some(n) = new.next_if(|n| n.as_bytes() < path.as_bytes()) {
            out.extend_from_slice(&bytes[run..at]);
            run = at;
            not_indexed(&mut out, n);
        }
        new.next_if(|n| *n == path);
        at += bytes[at..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len() - at, |i| i + 1);
    }
    out.extend_from_slice(&bytes[run..at]);
    for n in new {
        not_indexed(&mut out, n);
    }
    out
}

/// Reads a manifest written by [`write`]. A manifest of version 1 (JSON,
/// before this format) is told as version 1.
pub fn read(bytes: &[u8]) -> Result<Manifest, ManifestError> {
    read_lines(bytes).map(|(manifest, _)| manifest)
}

/// [`read`], keeping `bytes` in the manifest when its file lines can be
/// copied back ([`Verbatim`]).
pub fn read_keeping(bytes: Vec<u8>) -> Result<Manifest, ManifestError> {
    let (mut manifest, files_at) = read_lines(&bytes)?;
    if let Some(files_at) = files_at {
        manifest.verbatim = Verbatim(Some((bytes, files_at)));
    }
    Ok(manifest)
}

/// [`read`], and where the file lines start when they are the files one
/// for one and in order, after every folder line, the last ending with a
/// newline.
fn read_lines(bytes: &[u8]) -> Result<(Manifest, Option<usize>), ManifestError> {
    if bytes.first() == Some(&b'{') {
        return Err(ManifestError::Version(1));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| ManifestError::Corrupt {
        line: 1,
        expected: "UTF-8 text",
    })?;
    let mut lines = text.split_terminator('\n');
    let version = lines
        .next()
        .and_then(|l| l.strip_prefix(HEADER))
        .and_then(|v| v.parse().ok())
        .ok_or(ManifestError::Corrupt {
            line: 1,
            expected: "`crucible-search manifest VERSION`",
        })?;
    let mut manifest = Manifest {
        version,
        ..Manifest::default()
    };
    // Sized up front from the line count (a line per file, give or take
    // the folders'): grown by doubling, the entries of 100,000 files were
    // copied and their pages zeroed again and again.
    let lines_left = count_byte(b'\n', text.as_bytes());
    manifest.files = Stamps::with_capacity(lines_left, text.len());
    let mut files_at = None;
    let mut verbatim = text.ends_with('\n');
    let mut last: Option<Cow<'_, str>> = None;
    for (i, line) in lines.enumerate() {
        let corrupt = |expected| ManifestError::Corrupt {
            line: i + 2,
            expected,
        };
        if let Some(rest) = line.strip_prefix("d ") {
            verbatim &= files_at.is_none();
            let (ctime, path) = rest.split_once(' ').ok_or(corrupt("`d CTIME PATH`"))?;
            let ctime = ctime.parse().map_err(|_| corrupt("`d CTIME PATH`"))?;
            let path = unescape(path).ok_or(corrupt("`d CTIME PATH`"))?;
            manifest.dirs.push((path, ctime));
        } else {
            let (path, stamp) = entry(line).ok_or(corrupt("six numbers (or `-`) and a path"))?;
            files_at.get_or_insert(line.as_ptr() as usize - text.as_ptr() as usize);
            verbatim &= last.is_none_or(|l| l.as_bytes() < path.as_bytes());
            // Written in path order: each is added at the end.
            manifest.files.push(&path, stamp);
            last = Some(path);
        }
    }
    let files_at = files_at.unwrap_or(text.len());
    Ok((manifest, verbatim.then_some(files_at)))
}

/// The files of a manifest stamped [`Stamp::NOT_INDEXED`], and its
/// version: what a search a watcher vouches for needs of it.
#[derive(Debug, Default)]
pub struct NotIndexed {
    pub version: u32,
    pub files: Vec<String>,
}

/// Reads of a manifest only its version and the files not written into
/// the index yet, without a map of every stamp; a damaged line is told as
/// [`read`] tells it only for those lines (the others are not parsed).
pub fn read_not_indexed(bytes: &[u8]) -> Result<NotIndexed, ManifestError> {
    if bytes.first() == Some(&b'{') {
        return Err(ManifestError::Version(1));
    }
    let mut lines = bytes.split(|b| *b == b'\n');
    let version = lines
        .next()
        .and_then(|l| std::str::from_utf8(l).ok())
        .and_then(|l| l.strip_prefix(HEADER))
        .and_then(|v| v.parse().ok())
        .ok_or(ManifestError::Corrupt {
            line: 1,
            expected: "`crucible-search manifest VERSION`",
        })?;
    // How [`write_files`] writes the stamp of a file not written in.
    const PREFIX: &[u8] = b"0 0 0 0 - - ";
    let mut files = Vec::new();
    for (i, line) in lines.enumerate() {
        if let Some(path) = line.strip_prefix(PREFIX) {
            let path = std::str::from_utf8(path).ok().and_then(unescape).ok_or(
                ManifestError::Corrupt {
                    line: i + 2,
                    expected: "six numbers (or `-`) and a path",
                },
            )?;
            files.push(path);
        }
    }
    Ok(NotIndexed { version, files })
}

/// The count of `byte` in `bytes`.
fn count_byte(byte: u8, bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b == byte).count()
}

pub(crate) fn unescape(raw: &str) -> Option<String> {
    unescaped(raw).map(Cow::into_owned)
}

/// `raw` with its escapes undone, borrowed when it has none (nearly every
/// path).
fn unescaped(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.contains('\\') {
        return Some(Cow::Borrowed(raw));
    }
    let mut path = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                'n' => path.push('\n'),
                '\\' => path.push('\\'),
                _ => return None,
            }
        } else {
            path.push(c);
        }
    }
    Some(Cow::Owned(path))
}

fn entry(line: &str) -> Option<(Cow<'_, str>, Stamp)> {
    let mut fields = line.splitn(7, ' ');
    let mut next = || fields.next();
    let size = next()?.parse().ok()?;
    let mtime_ns = next()?.parse().ok()?;
    let inode = next()?.parse().ok()?;
    let ctime_ns = next()?.parse().ok()?;
    let journal = match (next()?, next()?) {
        ("-", "-") => None,
        (s, c) => Some((s.parse().ok()?, c.parse().ok()?)),
    };
    let path = unescaped(next()?)?;
    let stamp = Stamp {
        size,
        mtime_ns,
        inode,
        ctime_ns,
        journal,
    };
    Some((path, stamp))
}

/// The stat of every session file of `dir` (the walker every command uses
/// lists them), by path relative to `dir`, and of every directory walked.
pub fn stamps(dir: &Path, version: u32) -> Result<Manifest, SearchError> {
    relisted(dir, version, &Stamps::new(), None)
}

/// A listing of the sessions folder started on a thread of its own (see
/// [`Listing::start`]).
pub type Listing = std::thread::JoinHandle<std::io::Result<walk::Tree>>;

/// Starts listing `dir` on a thread of its own when its change time says
/// the manifest at `manifest_path` is older than its last change, so that
/// it must be listed again (see [`restamp`]): the listing then goes on
/// while the manifest is read. `None` when that is not plain from the two
/// `stat`s; [`relisted`] lists in line then, as before.
pub fn start_listing_if_changed(dir: &Path, manifest_path: &Path) -> Option<Listing> {
    use std::os::unix::fs::MetadataExt as _;
    let written = std::fs::metadata(manifest_path).ok()?;
    let folder = std::fs::metadata(dir).ok()?;
    let ns = |s: i64, n: i64| s * 1_000_000_000 + n;
    let changed = ns(folder.ctime(), folder.ctime_nsec()) + RACY_NS
        >= ns(written.mtime(), written.mtime_nsec());
    let dir = dir.to_owned();
    changed.then(|| std::thread::spawn(move || walk::session_tree(&dir)))
}

/// [`stamps`] when a manifest names the files `known` already: while this
/// thread lists the folders, the other cores `stat` those files, so a
/// search after a save (a folder changed, so it is listed again) pays for
/// the listing beside the `stat`s instead of before them. A file the
/// listing finds that was not `stat`ed (new, or gone at that moment) is
/// `stat`ed after it.
///
/// Only stamps are taken early, never text: a file replaced after its early
/// `stat` keeps the older stamp here, differs from it at the next search
/// and is read again then; no answer is built from text newer than its
/// stamp says.
///
/// `listing` is the listing of `dir` already under way, if one is.
pub fn relisted(
    dir: &Path,
    version: u32,
    known: &Stamps,
    listing: Option<Listing>,
) -> Result<Manifest, SearchError> {
    let io = |source| SearchError::Io {
        path: dir.to_owned(),
        source,
    };
    let fd = open_dir(dir).map_err(io)?;
    let known_paths: Vec<&str> = known.keys().collect();
    let (tree, early) = std::thread::scope(|scope| {
        let early = scope.spawn(|| par_filter_map(&known_paths, |rel| Some(stat_at(&fd, rel))));
        let tree = match listing {
            Some(listing) => listing
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => walk::session_tree(dir),
        };
        let early = early
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (tree, early)
    });
    let tree = tree.map_err(io)?;
    let mut early = known_paths.iter().copied().zip(early).peekable();
    let mut files = Stamps::with_capacity(
        tree.files.len(),
        known.path_bytes().max(tree.files.len() * 40),
    );
    for full in &tree.files {
        let rel = relative(dir, full);
        // Both in byte order of their paths: the early stamps are walked
        // beside the listing, not looked up.
        while early
            .next_if(|(k, _)| k.as_bytes() < rel.as_bytes())
            .is_some()
        {}
        let stamp = match early.next_if(|(k, _)| *k == rel) {
            Some((_, Some(stamp))) => Some(stamp),
            _ => stat_at(&fd, &rel),
        };
        let Some(stamp) = stamp else {
            continue; // gone since the listing
        };
        // Few sessions are live: the set is not hashed into when empty.
        let journal = (!tree.journals.is_empty() && tree.journals.contains(full))
            .then(|| journal_stamp(&fd, &journal_of(&rel)))
            .flatten();
        files.push(&rel, Stamp { journal, ..stamp });
    }
    let dirs = tree
        .dirs
        .iter()
        .zip(&tree.dir_changed)
        .map(|(d, changed)| {
            let ns = changed
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |t| i64::try_from(t.as_nanos()).unwrap_or(i64::MAX));
            (relative(dir, d).into_owned(), ns)
        })
        .collect();
    Ok(Manifest {
        version,
        dirs,
        files,
        verbatim: Verbatim::default(),
    })
}

/// The stamps of the files `manifest` holds, taken again without listing
/// any directory: `None` when a directory changed (or changed too close to
/// `written_ns`, the manifest's write, to be trusted), so its files must be
/// listed again by [`stamps`]. A file added, removed or renamed changes its
/// directory's change time; a file changed in place changes its own.
pub fn restamp(dir: &Path, manifest: &Manifest, written_ns: i64) -> Option<Restamped> {
    let fd = open_dir(dir).ok()?;
    if manifest.dirs.is_empty() {
        return None;
    }
    for (rel, ctime) in &manifest.dirs {
        let now = stat_at(&fd, if rel.is_empty() { "." } else { rel })?;
        if now.ctime_ns != *ctime || now.ctime_ns + RACY_NS >= written_ns {
            return None;
        }
    }
    let files: Vec<(&str, &Stamp)> = manifest.files.iter().collect();
    // One stamp per file, in order (`None`: gone).
    let stamped: Vec<Option<Stamp>> = par_filter_map(&files, |(rel, old)| {
        let journal = old
            .journal
            .and_then(|_| journal_stamp(&fd, &journal_of(rel)));
        Some(stat_at(&fd, rel).map(|stamp| Stamp { journal, ..stamp }))
    });
    let same = files
        .iter()
        .zip(&stamped)
        .all(|((_, old), now)| now.is_some_and(|now| unchanged(old, &now, written_ns)));
    if same {
        return Some(Restamped::Unchanged);
    }
    let mut now = Stamps::with_capacity(files.len(), manifest.files.path_bytes());
    for ((rel, _), stamp) in files.into_iter().zip(stamped) {
        if let Some(stamp) = stamp {
            now.push(rel, stamp);
        }
    }
    let files = now;
    Some(Restamped::Changed(Manifest {
        version: manifest.version,
        dirs: manifest.dirs.clone(),
        files,
        verbatim: Verbatim::default(),
    }))
}

/// The stamps of `files` (paths relative to `dir`) as they are now, with
/// their journals; a file that is gone has none. For a few files named by
/// a watcher ([`crate::pending`]), not a listing.
pub fn stamps_of<'a>(dir: &Path, files: impl IntoIterator<Item = &'a String>) -> Stamps {
    let Ok(fd) = open_dir(dir) else {
        return Stamps::new();
    };
    files
        .into_iter()
        .filter_map(|rel| {
            let stamp = stat_at(&fd, rel)?;
            let journal = journal_stamp(&fd, &journal_of(rel));
            Some((rel.as_str(), Stamp { journal, ..stamp }))
        })
        .collect()
}

/// The paths whose stamp differs between `then` (the manifest written at
/// `written_ns`) and `now`, or that only one of them holds. Both are in
/// path order, so they are walked side by side: a look-up per path was a
/// tenth of a search after a save at 100,000 files.
pub fn changed_between(then: &Stamps, now: &Stamps, written_ns: i64) -> BTreeSet<String> {
    let mut changed = BTreeSet::new();
    let (mut then, mut now) = (then.iter().peekable(), now.iter().peekable());
    loop {
        match (then.peek(), now.peek()) {
            (None, None) => break,
            (Some((old_path, old)), Some((new_path, new))) if old_path == new_path => {
                if !unchanged(old, new, written_ns) {
                    changed.insert((*new_path).to_owned());
                }
                then.next();
                now.next();
            }
            (Some((old_path, _)), Some((new_path, _))) if new_path < old_path => {
                changed.insert((*new_path).to_owned());
                now.next();
            }
            (Some((old_path, _)), _) => {
                changed.insert((*old_path).to_owned());
                then.next();
            }
            (None, Some((new_path, _))) => {
                changed.insert((*new_path).to_owned());
                now.next();
            }
        }
    }
    changed
}

/// What [`restamp`] found without listing a folder.
#[derive(Debug)]
pub enum Restamped {
    /// Every file as the manifest has it: the index answers as it is.
    Unchanged,
    /// The files as they are now (the manifest's, less those gone).
    Changed(Manifest),
}

/// Whether a file stamped `now` is the one the manifest stamped `old`, and
/// was not changed too close to the manifest's write (`written_ns`) to
/// trust its stamp.
pub fn unchanged(old: &Stamp, now: &Stamp, written_ns: i64) -> bool {
    old == now
        && now.ctime_ns + RACY_NS < written_ns
        && now.journal.is_none_or(|j| j.1 + RACY_NS < written_ns)
}

/// The kernel keeps timestamps at a coarse tick: something changed within
/// the tick of a stamp keeps that stamp. A change this close to the
/// manifest's own write (the file system's clock, not ours) is looked at
/// again.
pub const RACY_NS: i64 = 100_000_000;

/// `path` relative to `dir`, which the walker's paths start with: cut as
/// bytes (`Path::strip_prefix` compares component by component, a tenth
/// of a listing's time at 100,000 files), else as components.
fn relative<'a>(dir: &Path, path: &'a Path) -> Cow<'a, str> {
    let (d, p) = (
        dir.as_os_str().as_encoded_bytes(),
        path.as_os_str().as_encoded_bytes(),
    );
    if let Some(rest) = p.strip_prefix(d)
        && let Some(rest) = rest.strip_prefix(b"/")
        && !d.is_empty()
        && !d.ends_with(b"/")
    {
        return String::from_utf8_lossy(rest);
    }
    path.strip_prefix(dir).unwrap_or(path).to_string_lossy()
}

/// `f` over `items` on every core, in order.
fn par_filter_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> Option<U> + Sync) -> Vec<U> {
    // Sized up front: at 100,000 files, growing these vectors (and
    // faulting in the pages of each larger copy) was a tenth of a search
    // that had to list the sessions again.
    let parts = crate::parallel::chunked(items, crate::parallel::cores(), |part| {
        let mut out = Vec::with_capacity(part.len());
        out.extend(part.iter().filter_map(&f));
        out
    });
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        all.extend(part);
    }
    all
}

fn journal_of(rel: &str) -> String {
    journal::journal_path(Path::new(rel))
        .to_string_lossy()
        .into_owned()
}

fn open_dir(dir: &Path) -> std::io::Result<OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(std::io::Error::from)
}

/// The stamp of `rel` under the directory `fd`, a link followed as the
/// walker took it (a file that vanished since the walk has none).
#[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
fn stat_at(fd: &OwnedFd, rel: &str) -> Option<Stamp> {
    let st = rustix::fs::statat(fd, rel, rustix::fs::AtFlags::empty()).ok()?;
    let ns = |s: i64, n: i64| s * 1_000_000_000 + n;
    Some(Stamp {
        size: u64::try_from(st.st_size).unwrap_or(0),
        mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
        inode: st.st_ino as u64,
        ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
        journal: None,
    })
}

/// A journal's size and change time (the link itself, never followed).
#[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
fn journal_stamp(fd: &OwnedFd, rel: &str) -> Option<(u64, i64)> {
    let st = rustix::fs::statat(fd, rel, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    let size = u64::try_from(st.st_size).unwrap_or(0);
    Some((
        size,
        st.st_ctime as i64 * 1_000_000_000 + st.st_ctime_nsec as i64,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stamp() -> impl Strategy<Value = Stamp> {
        (
            any::<u64>(),
            any::<i64>(),
            any::<u64>(),
            any::<i64>(),
            proptest::option::of((any::<u64>(), any::<i64>())),
        )
            .prop_map(|(size, mtime_ns, inode, ctime_ns, journal)| Stamp {
                size,
                mtime_ns,
                inode,
                ctime_ns,
                journal,
            })
    }

    #[test]
    fn numbers_are_written_as_format_writes_them() {
        for n in [
            0,
            1,
            -1,
            9,
            10,
            -10,
            1_795_767_638_324_801_325,
            i64::MAX,
            i64::MIN,
        ] {
            let mut out = String::new();
            push_i64(&mut out, n);
            assert_eq!(out, format!("{n} "));
        }
        for n in [0, 7, 10, 1_000_000, u64::MAX] {
            let mut out = String::new();
            push_u64(&mut out, n);
            assert_eq!(out, format!("{n} "));
        }
    }

    proptest! {
        /// Any stamps under any path (spaces, `\`, newlines, any script)
        /// read back as they were written.
        #[test]
        fn manifests_round_trip(
            files in proptest::collection::btree_map("\\PC*|[ \\\\\n a-z]*", stamp(), 0..20),
            dirs in proptest::collection::vec(("\\PC*|[ \\\\\n a-z/]*", any::<i64>()), 0..5),
        ) {
            let manifest = Manifest { version: 7, dirs, files: files.into_iter().collect(), ..Manifest::default() };
            prop_assert_eq!(read(&write(&manifest)), Ok(manifest));
        }
    }

    proptest! {
        /// Walking the two maps side by side finds what a look-up of each
        /// path in the other finds.
        #[test]
        fn changed_between_is_the_look_up_of_each_path(
            then in proptest::collection::btree_map("[a-d]{1,2}", stamp(), 0..12),
            now in proptest::collection::btree_map("[a-d]{1,2}", stamp(), 0..12),
            written_ns in any::<i64>(),
        ) {
            let mut now = now;
            // Some paths with the very stamp they had.
            for (k, s) in then.iter().step_by(2) {
                now.insert(k.clone(), *s);
            }
            let expected: BTreeSet<String> = now
                .iter()
                .filter(|(k, n)| then.get(*k).is_none_or(|o| !unchanged(o, n, written_ns)))
                .map(|(k, _)| k.clone())
                .chain(then.keys().filter(|k| !now.contains_key(*k)).cloned())
                .collect();
            let (then, now): (Stamps, Stamps) = (then.into_iter().collect(), now.into_iter().collect());
            prop_assert_eq!(changed_between(&then, &now, written_ns), expected);
        }
    }

    proptest! {
        /// The light read finds exactly the files the full read has as not
        /// written in, under any path.
        #[test]
        fn the_not_indexed_files_are_those_of_the_full_read(
            files in proptest::collection::btree_map(
                "\\PC*|[ \\\\\n a-z0]*",
                prop_oneof![stamp(), Just(Stamp::NOT_INDEXED)],
                0..20,
            ),
            dirs in proptest::collection::vec(("\\PC*|[ 0\\\\\n a-z/]*", any::<i64>()), 0..5),
        ) {
            let manifest = Manifest { version: 7, dirs, files: files.into_iter().collect(), ..Manifest::default() };
            let light = read_not_indexed(&write(&manifest)).unwrap();
            let expected: Vec<String> = manifest
                .files
                .iter()
                .filter(|(_, s)| **s == Stamp::NOT_INDEXED)
                .map(|(p, _)| p.to_owned())
                .collect();
            prop_assert_eq!(light.version, 7);
            prop_assert_eq!(light.files, expected);
        }
    }

    proptest! {
        /// The merge writes what a map of the committed files plus the new
        /// ones as not indexed would.
        #[test]
        fn pending_is_the_committed_files_and_the_new_ones_not_indexed(
            committed in proptest::collection::btree_map("[a-e]{1,3}", stamp(), 0..12),
            current in proptest::collection::btree_map("[a-e]{1,3}", stamp(), 0..12),
        ) {
            let mut files = committed.clone();
            for key in current.keys() {
                files.entry(key.clone()).or_insert(Stamp::NOT_INDEXED);
            }
            let committed = Manifest { version: 4, dirs: vec![], files: committed.into_iter().collect(), ..Manifest::default() };
            let current = Manifest {
                version: 4,
                dirs: vec![("x".into(), 9)],
                files: current.into_iter().collect(),
                ..Manifest::default()
            };
            let expected = Manifest {
                version: 4,
                dirs: current.dirs.clone(),
                files: files.into_iter().collect(),
                ..Manifest::default()
            };
            prop_assert_eq!(write_pending(&committed, &current), write(&expected));
        }
    }

    proptest! {
        /// Copying the committed lines as they were read writes the very
        /// bytes formatting them again writes, whatever the paths (escapes,
        /// newlines, any script) and wherever the new files fall.
        #[test]
        fn pending_copied_from_the_bytes_read_is_pending_formatted(
            committed in proptest::collection::btree_map("\\PC{0,4}|[ \\\\\n a-e]{1,3}", stamp(), 0..12),
            current in proptest::collection::btree_map("\\PC{0,4}|[ \\\\\n a-e]{1,3}", stamp(), 0..12),
            dirs in proptest::collection::vec(("[ \\\\\n a-z/]*", any::<i64>()), 0..3),
        ) {
            let committed = Manifest {
                version: 4,
                dirs,
                files: committed.into_iter().collect(),
                ..Manifest::default()
            };
            let current = Manifest {
                version: 4,
                dirs: vec![("x".into(), 9)],
                files: current.into_iter().collect(),
                ..Manifest::default()
            };
            let read_back = read_keeping(write(&committed)).unwrap();
            prop_assert!(matches!(read_back.verbatim, Verbatim(Some(_))));
            prop_assert_eq!(
                write_pending(&read_back, &current),
                write_pending(&committed, &current)
            );
        }
    }

    /// A manifest edited by hand out of order (or with a folder line among
    /// the files) is not copied from: its files are sorted when read.
    #[test]
    fn a_manifest_out_of_order_is_formatted_again() {
        let line = |p: &str| format!("1 2 3 4 - - {p}\n");
        let text = format!("{HEADER}5\nd 7 \n{}{}", line("b.md"), line("a.md"));
        let read_back = read_keeping(text.clone().into_bytes()).unwrap();
        assert!(matches!(read_back.verbatim, Verbatim(None)));
        let moved = format!("{HEADER}5\n{}d 7 \n{}", line("a.md"), line("b.md"));
        assert!(matches!(
            read_keeping(moved.into_bytes()).unwrap().verbatim,
            Verbatim(None)
        ));
        let current = Manifest {
            version: 5,
            files: [("c.md", Stamp::NOT_INDEXED)].into_iter().collect(),
            ..Manifest::default()
        };
        let plain = Manifest {
            verbatim: Verbatim::default(),
            ..read_back.clone()
        };
        assert_eq!(
            write_pending(&read_back, &current),
            write_pending(&plain, &current)
        );
        assert_eq!(read_back.files.keys().collect::<Vec<_>>(), ["a.md", "b.md"]);
    }

    #[test]
    fn a_json_manifest_is_version_1_and_damage_names_its_line() {
        assert_eq!(
            read(br#"{"version":1,"files":{}}"#),
            Err(ManifestError::Version(1))
        );
        let mut bytes = write(&Manifest {
            version: 2,
            dirs: vec![(String::new(), 5)],
            files: Stamps::from_iter([(
                "a.md".to_owned(),
                Stamp {
                    size: 1,
                    mtime_ns: 2,
                    inode: 3,
                    ctime_ns: 4,
                    journal: None,
                },
            )]),
            ..Manifest::default()
        });
        bytes.extend_from_slice(b"12 x 3 4 - - b.md\n");
        assert_eq!(
            read(&bytes),
            Err(ManifestError::Corrupt {
                line: 4,
                expected: "six numbers (or `-`) and a path"
            })
        );
        assert!(matches!(
            read(b"nonsense\n"),
            Err(ManifestError::Corrupt { line: 1, .. })
        ));
    }
}
