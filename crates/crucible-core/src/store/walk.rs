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
pub fn walk(root: &Path, options: WalkOptions<'_>) -> io::Result<Tree> {
    let mut tree = Tree::default();
    // The canonical root, for confining links: computed at the first link.
    let mut canonical_root: Option<Option<PathBuf>> = None;
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        let changed = std::fs::metadata(&dir).ok().map(|m| change_time(&m));
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if dir == root && e.kind() == io::ErrorKind::NotFound => return Ok(tree),
            Err(e) if dir == root => return Err(e),
            Err(e) => {
                tree.skipped.push(Skipped {
                    path: dir,
                    reason: format!("folder cannot be read ({e})"),
                });
                continue;
            }
        };
        tree.dirs.push(dir.clone());
        tree.dir_changed.push(changed);
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    tree.skipped.push(Skipped {
                        path: dir.clone(),
                        reason: format!("folder cannot be listed whole ({e})"),
                    });
                    break;
                }
            };
            // One allocation per entry (the path; the name is borrowed from
            // it): a listing of 100,000 files is on every rebuild's serial
            // start, and on every read after a save changed the folder.
            let path = entry.path();
            let Some(name) = path.file_name() else {
                continue;
            };
            let bytes = name.as_encoded_bytes();
            if bytes.first() == Some(&b'.') {
                if let Some(session) = bytes
                    .strip_prefix(b".")
                    .and_then(|n| n.strip_suffix(b".journal"))
                {
                    use std::os::unix::ffi::OsStrExt;
                    tree.journals.insert(dir.join(OsStr::from_bytes(session)));
                }
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if options.recursive {
                    pending.push(path);
                } else {
                    tree.subdirs.push(path);
                }
                continue;
            }
            if !(options.file_filter)(name) {
                continue;
            }
            if options.utf8_names && name.to_str().is_none() {
                tree.skipped.push(Skipped {
                    path,
                    reason: "file name is not valid UTF-8 (rename it to have it indexed)".into(),
                });
                continue;
            }
            if kind.is_file() {
                tree.files.push(path);
            } else if kind.is_symlink() {
                let root_real = canonical_root
                    .get_or_insert_with(|| {
                        std::fs::canonicalize(options.confine_to.unwrap_or(root)).ok()
                    })
                    .as_deref();
                match link_verdict(&path, root_real) {
                    Ok(()) => tree.files.push(path),
                    Err(reason) => tree.skipped.push(Skipped { path, reason }),
                }
            } else {
                tree.skipped.push(Skipped {
                    path,
                    reason: format!("{}, not a regular file", kind_name(kind)),
                });
            }
        }
    }
    // By bytes, not by `Path`'s component-wise order: at 100,000 files the
    // latter was a visible share of an index rebuild, on its serial start.
    tree.files.sort_unstable_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    Ok(tree)
}

/// Whether a file found earlier (or named by an index row) may be read
/// again now: a regular file, or a link to a regular file, whose real path
/// is inside `root`. The whole path is resolved, so a folder on the way
/// replaced by a link out of the tree is caught too.
pub fn may_read(path: &Path, root: &Path) -> Result<(), String> {
    let root_real = std::fs::canonicalize(root).ok();
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => link_verdict(path, root_real.as_deref()),
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
fn link_verdict(link: &Path, root: Option<&Path>) -> Result<(), String> {
    let target = match std::fs::canonicalize(link) {
        Ok(t) => t,
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err("symbolic link loop".into());
        }
        Err(_) => return Err("broken symbolic link".into()),
    };
    if !root.is_some_and(|r| target.starts_with(r)) {
        return Err(format!(
            "symbolic link to {}, outside the sessions directory; not followed",
            target.display()
        ));
    }
    match std::fs::metadata(&target) {
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
