//! Listing one folder an importer reads beside its source (a Gemini
//! chat's subagent folder, Claude Code's `subagents/`, OpenCode's
//! storage), through the one walker, so those listings keep the rules a
//! folder import keeps: regular files only (a FIFO is never opened: it
//! would block), links only to files inside the tree, the rest named with
//! why.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crucible_core::store::walk::{Skipped, WalkOptions, walk_with};

use crate::sources::IMPORT;

/// What one folder holds that an importer may read.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// Files whose names pass the filter, sorted by path.
    pub files: Vec<PathBuf>,
    /// Folders in it (never links to folders), sorted by path.
    pub folders: Vec<PathBuf>,
    /// Entries left out, with why.
    pub skipped: Vec<Skipped>,
}

/// The entries of `dir` (not below it) whose names pass `filter`; links
/// are taken only when they lead to a regular file inside `tree`. A folder
/// that does not exist holds nothing; one that cannot be read is skipped.
pub(crate) fn list(dir: &Path, tree: &Path, filter: &dyn Fn(&OsStr) -> bool) -> Listing {
    let options = WalkOptions {
        file_filter: filter,
        utf8_names: false,
        recursive: false,
        confine_to: Some(tree),
    };
    match walk_with(dir, options, &IMPORT) {
        Ok(mut t) => {
            t.subdirs.sort();
            Listing {
                files: t.files,
                folders: t.subdirs,
                skipped: t.skipped,
            }
        }
        Err(e) => Listing {
            skipped: vec![Skipped {
                path: dir.to_owned(),
                reason: format!("folder cannot be read ({e})"),
            }],
            ..Listing::default()
        },
    }
}

/// A filter taking names with extension `ext`.
pub(crate) fn with_extension(ext: &str) -> impl Fn(&OsStr) -> bool + '_ {
    move |name| Path::new(name).extension().is_some_and(|e| e == ext)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn takes_regular_files_and_names_fifos_and_links_out() {
        let t = tempfile::tempdir().unwrap();
        let tree = t.path().join("tree");
        let dir = tree.join("chats");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.jsonl"), "{}").unwrap();
        std::fs::write(dir.join("b.txt"), "").unwrap();
        std::fs::write(tree.join("in.jsonl"), "{}").unwrap();
        std::fs::write(t.path().join("out.jsonl"), "{}").unwrap();
        symlink(tree.join("in.jsonl"), dir.join("in.jsonl")).unwrap();
        symlink(t.path().join("out.jsonl"), dir.join("out.jsonl")).unwrap();
        crucible_testkit::mkfifo(&dir.join("pipe.jsonl"));
        let l = list(&dir, &tree, &with_extension("jsonl"));
        assert_eq!(l.files, [dir.join("a.jsonl"), dir.join("in.jsonl")]);
        assert_eq!(l.folders, [dir.join("sub")]);
        let mut skipped: Vec<_> = l.skipped.iter().map(|s| s.path.clone()).collect();
        skipped.sort();
        assert_eq!(skipped, [dir.join("out.jsonl"), dir.join("pipe.jsonl")]);
        assert!(
            list(&tree.join("missing"), &tree, &|_| true)
                .files
                .is_empty()
        );
    }
}
