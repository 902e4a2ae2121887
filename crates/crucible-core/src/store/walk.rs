//! The one walk over a directory tree that every command uses.
//!
//! Sessions directories are shared, synced and cloned, so a walk meets what
//! those tools carry. The rules, the same for every command:
//!
//! - Hidden entries (`.git`, `.obsidian`, cru's own temporaries) are not
//!   entered; a hidden `.<name>.journal` marks `<name>` as live.
//! - Directories are entered; links to directories are not (they could loop,
//!   or lead out of the tree), and are reported as skipped.
//! - A file is taken if its name passes the caller's filter and it is a
//!   regular file, or a link whose target is a regular file inside the
//!   walked root. FIFOs, sockets, devices, links leading out of the tree and
//!   broken links are reported as skipped, never opened (opening a FIFO
//!   blocks).
//! - A folder that cannot be read is reported as skipped and the walk goes
//!   on; only the root itself failing is an error.
//! - A file name that is not UTF-8 is kept (or, with `utf8_names`, reported
//!   as skipped for callers that key files by text).
//!
//! The walk looks at directory entries only (no `stat` per file): size
//! limits are checked when a file is opened (see [`super::safe_file`]).
//! The listing is the `walkdir` crate's; the rules are [`judge`]'s, which
//! every other listing of a sessions folder asks too.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

use super::safe_file::kind_name;

/// What a walk found.
#[derive(Debug, Default)]
pub struct Tree {
    /// Every directory entered, the root first.
    pub dirs: Vec<PathBuf>,
    /// When each of `dirs` last changed (its inode change time, which moves
    /// with every entry added or removed and, unlike the mtime, cannot be
    /// set back), looked at just before it was listed, so a change made
    /// while the walk goes on shows as a newer time; `None` if unknown.
    pub dir_changed: Vec<Option<std::time::SystemTime>>,
    /// The files taken, in path order.
    pub files: Vec<PathBuf>,
    /// Files that have a journal beside them (live sessions).
    pub journals: HashSet<PathBuf>,
    /// What was left out and why, for a warning.
    pub skipped: Vec<Skipped>,
    /// Subdirectories found but not entered (a walk that is not recursive).
    pub subdirs: Vec<PathBuf>,
}

/// An entry a walk left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// How a walk chooses files.
#[derive(Clone, Copy)]
pub struct WalkOptions<'a> {
    /// Takes a file by its name (e.g. ends with `.md`).
    pub file_filter: &'a dyn Fn(&OsStr) -> bool,
    /// Report names that are not UTF-8 as skipped instead of taking them.
    pub utf8_names: bool,
    /// Enter subdirectories (else list them in [`Tree::subdirs`]).
    pub recursive: bool,
    /// The tree links must stay inside: the walked folder itself when
    /// `None`; the sessions directory when a walk lists one of its folders.
    pub confine_to: Option<&'a Path>,
}

impl std::fmt::Debug for WalkOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkOptions")
            .field("utf8_names", &self.utf8_names)
            .field("recursive", &self.recursive)
            .field("confine_to", &self.confine_to)
            .finish_non_exhaustive()
    }
}

/// A file's inode change time.
pub fn change_time(meta: &std::fs::Metadata) -> std::time::SystemTime {
    use std::os::unix::fs::MetadataExt;
    let secs = u64::try_from(meta.ctime()).unwrap_or(0);
    let nanos = u32::try_from(meta.ctime_nsec()).unwrap_or(0);
    std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos)
}

/// Takes `*.md` files.
pub fn is_markdown(name: &OsStr) -> bool {
    Path::new(name).extension().is_some_and(|e| e == "md")
}

/// Walks `root` by the rules above. A root that does not exist is an empty
/// tree; a root that cannot be read is an error.
///
/// The listing is walkdir's, with links never followed by it (so no loop
/// is possible); every entry is then judged by [`judge`], the same rules
/// the index's fast re-listing of one folder applies.
pub fn walk(root: &Path, options: WalkOptions<'_>) -> io::Result<Tree> {
    walk_with(root, options, &SESSIONS)
}

/// Rules that differ between the trees walked.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Hidden entries are walked like any other (a folder named for import
    /// may hold `.agent/sessions`), instead of not entered.
    pub take_hidden: bool,
    /// What the tree is, in the reason a link out of it is skipped.
    pub tree: &'static str,
}

/// The rules of a sessions directory, where cru's own files are hidden.
pub const SESSIONS: Rules = Rules {
    take_hidden: false,
    tree: "the sessions directory",
};

/// The rules of a folder of workflow files (`cru site --workflows`,
/// `cru workflow validate DIR`).
pub const WORKFLOWS: Rules = Rules {
    take_hidden: false,
    tree: "the workflows folder",
};

/// [`walk`] with other [`Rules`].
pub fn walk_with(root: &Path, options: WalkOptions<'_>, rules: &Rules) -> io::Result<Tree> {
    let mut walk = Walk {
        root,
        options,
        rules,
        tree: Tree::default(),
        canonical_root: std::cell::OnceCell::new(),
        listing: Vec::new(),
    };
    let mut entries = walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(if options.recursive { usize::MAX } else { 1 })
        .into_iter();
    while let Some(next) = entries.next() {
        match next {
            Ok(entry) => {
                // walkdir has opened a folder (not a link to one) it yields,
                // and not read it yet: skipping it now reads nothing below.
                let opened = entry.file_type().is_dir();
                if walk.entry(entry)? == Descend::No && opened {
                    entries.skip_current_dir();
                }
            }
            Err(e) if e.depth() == 0 => {
                let e = into_io(e);
                return match e.kind() {
                    io::ErrorKind::NotFound => Ok(Tree::default()),
                    _ => Err(e),
                };
            }
            Err(e) => walk.error(&e),
        }
    }
    let mut tree = walk.tree;
    // By bytes, not by `Path`'s component-wise order: at 100,000 files the
    // latter was a visible share of an index rebuild, on its serial start.
    super::byte_order::sort_by_bytes(&mut tree.files, root.as_os_str().len());
    Ok(tree)
}

/// Whether the walk goes into the folder just found.
#[derive(Debug, PartialEq, Eq)]
enum Descend {
    Yes,
    No,
}

/// A walk under way: what it found so far.
struct Walk<'a> {
    root: &'a Path,
    options: WalkOptions<'a>,
    rules: &'a Rules,
    tree: Tree,
    /// The canonical root links must stay in: computed at the first link.
    canonical_root: std::cell::OnceCell<Option<PathBuf>>,
    /// The folder being listed at each depth, to name the folder of a
    /// listing error (walkdir gives those without a path).
    listing: Vec<PathBuf>,
}

impl Walk<'_> {
    fn entry(&mut self, entry: walkdir::DirEntry) -> io::Result<Descend> {
        let depth = entry.depth();
        let kind = entry.file_type();
        if depth == 0 {
            // The root, through a link too (as `read_dir` would).
            if !kind.is_dir() && !std::fs::metadata(self.root).is_ok_and(|m| m.is_dir()) {
                return Err(io::Error::from_raw_os_error(
                    rustix::io::Errno::NOTDIR.raw_os_error(),
                ));
            }
            self.enter(entry.into_path(), depth);
            return Ok(Descend::Yes);
        }
        let path = entry.into_path();
        match judge(&path, kind, self.options, self.rules, || {
            self.canonical_root
                .get_or_init(|| {
                    std::fs::canonicalize(self.options.confine_to.unwrap_or(self.root)).ok()
                })
                .clone()
        }) {
            Verdict::Hidden { journal_of } => {
                if let Some(session) = journal_of {
                    let dir = path.parent().unwrap_or(self.root);
                    self.tree.journals.insert(dir.join(session));
                }
                return Ok(Descend::No);
            }
            Verdict::Folder if self.options.recursive => {
                self.enter(path, depth);
                return Ok(Descend::Yes);
            }
            Verdict::Folder => self.tree.subdirs.push(path),
            Verdict::Take => self.tree.files.push(path),
            Verdict::Skip(reason) => self.tree.skipped.push(Skipped { path, reason }),
            Verdict::Ignore => {}
        }
        Ok(Descend::No)
    }

    /// Notes a folder walkdir has just opened and not read yet: its change
    /// time is looked at now, before its entries are listed, so a change
    /// made while the walk goes on shows as a newer time.
    fn enter(&mut self, dir: PathBuf, depth: usize) {
        self.tree
            .dir_changed
            .push(std::fs::metadata(&dir).ok().map(|m| change_time(&m)));
        self.listing.truncate(depth);
        self.listing.push(dir.clone());
        self.tree.dirs.push(dir);
    }

    fn error(&mut self, e: &walkdir::Error) {
        let io = e
            .io_error()
            .map_or_else(|| e.to_string(), ToString::to_string);
        if let Some(dir) = e.path() {
            // The folder could not be opened: it was not listed after all.
            if self.tree.dirs.last().is_some_and(|d| d == dir) {
                self.tree.dirs.pop();
                self.tree.dir_changed.pop();
            }
            self.tree.skipped.push(Skipped {
                path: dir.to_owned(),
                reason: format!("folder cannot be read ({io})"),
            });
        } else {
            // An entry of the folder one level up could not be read.
            let dir = e
                .depth()
                .checked_sub(1)
                .and_then(|d| self.listing.get(d))
                .map_or_else(|| self.root.to_owned(), Clone::clone);
            self.tree.skipped.push(Skipped {
                path: dir,
                reason: format!("folder cannot be listed whole ({io})"),
            });
        }
    }
}

fn into_io(e: walkdir::Error) -> io::Error {
    let message = e.to_string();
    e.into_io_error()
        .unwrap_or_else(|| io::Error::other(message))
}

/// What the walk does with one entry of a folder.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A hidden entry: not entered, not taken; a journal marks its session
    /// (by name, beside it) as live.
    Hidden { journal_of: Option<PathBuf> },
    /// A folder (not a link to one): entered by a recursive walk.
    Folder,
    /// A file to take.
    Take,
    /// Left out, with why, for a warning.
    Skip(String),
    /// Not a file the caller wants (its name does not pass the filter).
    Ignore,
}

/// The rules of the module for one directory entry, from its name and the
/// type its folder listing gave (no `stat`): every walk decides with this,
/// the full walk above and the index's quick re-listing of a folder alike.
/// `canonical_root` is asked only for a link.
pub fn judge(
    path: &Path,
    kind: std::fs::FileType,
    options: WalkOptions<'_>,
    rules: &Rules,
    canonical_root: impl FnOnce() -> Option<PathBuf>,
) -> Verdict {
    let Some(name) = path.file_name() else {
        return Verdict::Ignore;
    };
    if !rules.take_hidden && name.as_encoded_bytes().first() == Some(&b'.') {
        return Verdict::Hidden {
            journal_of: super::names::journal_of(name).map(PathBuf::from),
        };
    }
    if kind.is_dir() {
        return Verdict::Folder;
    }
    if !(options.file_filter)(name) {
        return Verdict::Ignore;
    }
    if options.utf8_names && name.to_str().is_none() {
        return Verdict::Skip("file name is not valid UTF-8 (rename it to have it indexed)".into());
    }
    if kind.is_file() {
        Verdict::Take
    } else if kind.is_symlink() {
        match link_verdict(path, canonical_root().as_deref(), rules.tree) {
            Ok(()) => Verdict::Take,
            Err(reason) => Verdict::Skip(reason),
        }
    } else {
        Verdict::Skip(format!("{}, not a regular file", kind_name(kind)))
    }
}

/// Whether a file found earlier (or named by an index row) may be read
/// again now: a regular file, or a link to a regular file, whose real path
/// is inside `root`. The whole path is resolved, so a folder on the way
/// replaced by a link out of the tree is caught too.
pub fn may_read(path: &Path, root: &Path) -> Result<(), String> {
    let root_real = std::fs::canonicalize(root).ok();
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            link_verdict(path, root_real.as_deref(), SESSIONS.tree)
        }
        Ok(m) if m.is_file() => match std::fs::canonicalize(path) {
            Ok(real) if root_real.as_deref().is_some_and(|r| real.starts_with(r)) => Ok(()),
            Ok(real) => Err(format!(
                "reached through a link, at {}, outside the sessions directory; not followed",
                real.display()
            )),
            Err(e) => Err(format!("cannot be read: {e}")),
        },
        Ok(m) => Err(format!("{}, not a regular file", kind_name(m.file_type()))),
        Err(e) => Err(format!("cannot be read: {e}")),
    }
}

/// Whether a link found in the tree may be read: its target must be a
/// regular file inside the root.
fn link_verdict(link: &Path, root: Option<&Path>, tree: &str) -> Result<(), String> {
    let target = match std::fs::canonicalize(link) {
        Ok(t) => t,
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err("symbolic link loop".into());
        }
        Err(_) => return Err("broken symbolic link".into()),
    };
    let meta = std::fs::metadata(&target);
    // Never entered, wherever it leads: it could loop, or lead out of the tree.
    if meta.as_ref().is_ok_and(std::fs::Metadata::is_dir) {
        return Err("symbolic link to a folder (not followed)".into());
    }
    if !root.is_some_and(|r| target.starts_with(r)) {
        return Err(format!(
            "symbolic link to {}, outside {tree}; not followed",
            target.display()
        ));
    }
    match meta {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) => Err(format!(
            "symbolic link to {}, not a regular file",
            kind_name(m.file_type())
        )),
        Err(e) => Err(format!("symbolic link cannot be followed ({e})")),
    }
}

/// Every `*.md` file below `dir` by the rules above, with what was
/// skipped. A directory that does not exist holds no files.
pub fn session_tree(dir: &Path) -> io::Result<Tree> {
    walk(
        dir,
        WalkOptions {
            file_filter: &is_markdown,
            utf8_names: false,
            recursive: true,
            confine_to: None,
        },
    )
}

/// The files of [`session_tree`], in path order, for callers that report
/// nothing about what was skipped (tests, benchmarks).
pub fn session_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    session_tree(dir).map(|t| t.files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn names(root: &Path, paths: &[PathBuf]) -> Vec<String> {
        paths
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn finds_markdown_in_subfolders_and_skips_hidden() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        for f in [
            "a.md",
            "2025-12/b.md",
            ".hidden/c.md",
            ".d.md",
            "e.txt",
            "x/.obsidian/f.md",
            ".a.md.journal",
        ] {
            let path = p.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let tree = session_tree(p).unwrap();
        assert_eq!(names(p, &tree.files), ["2025-12/b.md", "a.md"]);
        assert_eq!(tree.journals, HashSet::from([p.join("a.md")]));
        assert!(tree.skipped.is_empty());
        assert!(session_files(&p.join("missing")).unwrap().is_empty());
    }

    #[test]
    fn takes_only_regular_files_and_links_that_stay_inside() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("s");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("real.md"), "x").unwrap();
        std::fs::write(t.path().join("outside.md"), "x").unwrap();
        symlink(root.join("real.md"), root.join("sub/inside-link.md")).unwrap();
        symlink(t.path().join("outside.md"), root.join("out-link.md")).unwrap();
        symlink("/dev/zero", root.join("zero.md")).unwrap();
        symlink(root.join("nowhere.md"), root.join("broken.md")).unwrap();
        symlink(t.path(), root.join("loop")).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            root.join("fifo.md"),
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let tree = session_tree(&root).unwrap();
        assert_eq!(names(&root, &tree.files), ["real.md", "sub/inside-link.md"]);
        let mut skipped = names(
            &root,
            &tree
                .skipped
                .iter()
                .map(|s| s.path.clone())
                .collect::<Vec<_>>(),
        );
        skipped.sort();
        assert_eq!(skipped, ["broken.md", "fifo.md", "out-link.md", "zero.md"]);
        assert!(
            tree.skipped
                .iter()
                .any(|s| s.reason.contains("FIFO") && s.path.ends_with("fifo.md"))
        );
    }

    #[test]
    fn link_loops_and_links_to_folders_are_named_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.md"), "x").unwrap();
        symlink(root.join("b.md"), root.join("a.md")).unwrap();
        symlink(root.join("a.md"), root.join("b.md")).unwrap();
        // A folder linking back up, named like a session and not.
        symlink(root, root.join("sub/up.md")).unwrap();
        symlink(root, root.join("sub/up")).unwrap();
        let tree = session_tree(root).unwrap();
        assert_eq!(names(root, &tree.files), ["sub/a.md"]);
        let mut skipped: Vec<String> = tree.skipped.iter().map(ToString::to_string).collect();
        skipped.sort();
        let root = root.display();
        assert_eq!(
            skipped,
            [
                format!("{root}/a.md: symbolic link loop"),
                format!("{root}/b.md: symbolic link loop"),
                format!("{root}/sub/up.md: symbolic link to a folder (not followed)"),
            ]
        );
    }

    #[test]
    fn a_walk_of_one_folder_lists_its_subfolders_and_takes_hidden_files_when_told() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        for f in ["a.md", "sub/b.md", ".hidden/c.md", ".d.md"] {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let options = WalkOptions {
            file_filter: &is_markdown,
            utf8_names: false,
            recursive: false,
            confine_to: None,
        };
        let tree = walk(root, options).unwrap();
        assert_eq!(names(root, &tree.files), ["a.md"]);
        assert_eq!(names(root, &tree.subdirs), ["sub"]);
        assert_eq!(tree.dirs, [root.to_owned()]);
        let all = Rules {
            take_hidden: true,
            tree: "the folder",
        };
        let mut tree = walk_with(root, options, &all).unwrap();
        tree.subdirs.sort();
        assert_eq!(names(root, &tree.files), [".d.md", "a.md"]);
        assert_eq!(names(root, &tree.subdirs), [".hidden", "sub"]);
    }

    #[test]
    fn a_root_that_is_a_file_is_an_error_and_a_missing_one_is_empty() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f.md"), "x").unwrap();
        assert!(session_tree(&t.path().join("f.md")).is_err());
        let tree = session_tree(&t.path().join("missing")).unwrap();
        assert!(tree.files.is_empty() && tree.dirs.is_empty());
    }

    #[test]
    fn an_unreadable_folder_is_skipped_not_fatal() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir(root.join("locked")).unwrap();
        std::fs::write(root.join("locked/a.md"), "x").unwrap();
        std::fs::write(root.join("b.md"), "x").unwrap();
        std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        // Root reads any folder whatever its mode: then there is nothing to skip.
        let readable = std::fs::read_dir(root.join("locked")).is_ok();
        let tree = session_tree(root);
        std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        let tree = tree.unwrap();
        if readable {
            assert_eq!(names(root, &tree.files), ["b.md", "locked/a.md"]);
        } else {
            assert_eq!(names(root, &tree.files), ["b.md"]);
            assert_eq!(tree.skipped.len(), 1, "{:?}", tree.skipped);
            assert!(tree.skipped[0].reason.contains("cannot be read"));
        }
    }

    #[test]
    fn names_that_are_not_utf8_are_kept_or_reported() {
        use std::os::unix::ffi::OsStrExt;
        let t = tempfile::tempdir().unwrap();
        let name = OsStr::from_bytes(b"caf\xe9.md");
        std::fs::write(t.path().join(name), "x").unwrap();
        assert_eq!(session_files(t.path()).unwrap().len(), 1);
        let tree = walk(
            t.path(),
            WalkOptions {
                file_filter: &is_markdown,
                utf8_names: true,
                recursive: true,
                confine_to: None,
            },
        )
        .unwrap();
        assert!(tree.files.is_empty());
        assert!(tree.skipped[0].reason.contains("UTF-8"));
    }
}
