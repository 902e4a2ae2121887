//! A session's project: the git root of its working directory.
//!
//! Reports group and filter sessions by project (`--group-by project`,
//! `--project DIR`), and the search issue uses the same definition: the
//! nearest directory at or above the session's `cwd` that holds `.git`,
//! else the `cwd` itself. It is resolved once, when the `cwd` becomes known
//! (an import, `cru session start`, [`crate::Recorder::start`]), and kept as
//! the frontmatter key `project`, because the file system it was resolved
//! on may be gone when the session is read.
//!
//! The walk reads the file system only: no `git` process (a session start
//! must not wait on one), and no environment (a relative `cwd` stays as it
//! is rather than being taken from this process's directory).

use std::path::{Path, PathBuf};

use crate::Frontmatter;

/// The frontmatter key of the working directory.
pub const CWD_KEY: &str = "cwd";
/// The frontmatter key of the resolved project.
pub const PROJECT_KEY: &str = "project";

/// The project of a session that ran in `cwd`: the nearest directory at or
/// above it holding `.git` (a directory, or a file as in worktrees and
/// submodules), else `cwd` itself.
///
/// A `cwd` that is relative or does not exist here (a transcript from
/// another machine) stays itself. One that exists is resolved through its
/// links first, as git does, so a directory reached by two paths is one
/// project (and `--project DIR` resolves DIR the same way).
pub fn project_of(cwd: &Path) -> PathBuf {
    if !cwd.is_absolute() {
        return cwd.to_owned();
    }
    let Ok(real) = std::fs::canonicalize(cwd) else {
        return cwd.to_owned();
    };
    match real.ancestors().find(|dir| holds_git(dir)) {
        Some(root) => root.to_owned(),
        None => real,
    }
}

/// `.git` as a directory or a file (a worktree's or submodule's pointer);
/// anything else of that name (a FIFO, a dangling link) is no repository.
fn holds_git(dir: &Path) -> bool {
    std::fs::metadata(dir.join(".git")).is_ok_and(|m| m.is_dir() || m.is_file())
}

impl Frontmatter {
    /// Records the directory the session runs in (`cwd`) and its project.
    pub fn set_working_dir(&mut self, cwd: &Path) {
        // A path that is not UTF-8 cannot be a YAML string: left out rather
        // than recorded mangled, so `--project` never matches a wrong path.
        if let Some(text) = cwd.to_str() {
            self.extra.insert(CWD_KEY, text);
            self.extra.remove(PROJECT_KEY);
            self.resolve_project();
        }
    }

    /// Sets `project` from `cwd` when the session has a `cwd` and no
    /// `project` yet. The key is written only when it says more than the
    /// `cwd` (which [`Frontmatter::project`] falls back to), so sessions
    /// outside any repository keep the frontmatter they had.
    pub fn resolve_project(&mut self) {
        if self.extra.contains_key(PROJECT_KEY) {
            return;
        }
        let Some(cwd) = self.extra.get_str(CWD_KEY).filter(|c| !c.is_empty()) else {
            return;
        };
        let project = project_of(Path::new(cwd));
        if let Some(p) = project.to_str().filter(|p| *p != cwd) {
            let p = p.to_owned();
            self.extra.insert(PROJECT_KEY, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SessionId, Timestamp};

    fn real(p: &Path) -> PathBuf {
        std::fs::canonicalize(p).unwrap()
    }

    #[test]
    fn the_nearest_git_directory_above_is_the_project() {
        let t = tempfile::tempdir().unwrap();
        let outer = t.path().join("outer");
        let inner = outer.join("vendor/inner");
        std::fs::create_dir_all(outer.join(".git")).unwrap();
        std::fs::create_dir_all(inner.join(".git")).unwrap();
        std::fs::create_dir_all(inner.join("src/deep")).unwrap();
        std::fs::create_dir_all(outer.join("docs")).unwrap();
        assert_eq!(project_of(&inner.join("src/deep")), real(&inner));
        assert_eq!(project_of(&inner), real(&inner));
        assert_eq!(project_of(&outer.join("docs")), real(&outer));
        assert_eq!(project_of(&outer.join("vendor")), real(&outer));
    }

    #[test]
    fn a_git_file_marks_a_worktree_or_submodule_root() {
        let t = tempfile::tempdir().unwrap();
        let wt = t.path().join("wt");
        std::fs::create_dir_all(wt.join("crates/a")).unwrap();
        std::fs::write(wt.join(".git"), "gitdir: /elsewhere/.git/worktrees/wt\n").unwrap();
        assert_eq!(project_of(&wt.join("crates/a")), real(&wt));
    }

    #[test]
    fn outside_any_repository_the_cwd_is_the_project() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("plain/sub");
        std::fs::create_dir_all(&dir).unwrap();
        // A tempdir might sit inside a repository (a CI checkout's target);
        // only a root found below the tempdir would be wrong here.
        let found = project_of(&dir);
        assert!(
            found == real(&dir) || !found.starts_with(real(t.path())),
            "{found:?}"
        );
    }

    #[test]
    fn a_missing_or_relative_cwd_stays_itself() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join(".git")).unwrap();
        let gone = t.path().join("not/here");
        assert_eq!(project_of(&gone), gone);
        assert_eq!(project_of(Path::new("rel/dir")), Path::new("rel/dir"));
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_cwd_is_resolved_to_the_repository_it_points_into() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src")).unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink(repo.join("src"), &link).unwrap();
        assert_eq!(project_of(&link), real(&repo));
    }

    #[cfg(unix)]
    #[test]
    fn a_git_entry_that_is_neither_file_nor_directory_is_no_repository() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("d");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::os::unix::fs::symlink(t.path().join("nowhere"), dir.join(".git")).unwrap();
        assert_ne!(project_of(&dir.join("sub")), real(&dir));
    }

    #[test]
    fn the_frontmatter_keeps_the_project_only_when_it_says_more_than_cwd() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        let mut fm = Frontmatter::new(SessionId::new("s").unwrap(), Timestamp::now());
        fm.set_working_dir(&repo.join("sub"));
        assert_eq!(fm.extra.get_str(CWD_KEY), repo.join("sub").to_str());
        assert_eq!(fm.project(), real(&repo).to_str());

        let mut away = Frontmatter::new(SessionId::new("s").unwrap(), Timestamp::now());
        away.extra.insert(CWD_KEY, "/no/such/machine/dir");
        // (Written only when it differs: a missing directory stays itself.)
        away.resolve_project();
        assert!(!away.extra.contains_key(PROJECT_KEY));
        assert_eq!(away.project(), Some("/no/such/machine/dir"));

        // A project already recorded is never re-resolved on this machine.
        let mut kept = fm.clone();
        kept.extra.insert(PROJECT_KEY, "/recorded");
        kept.resolve_project();
        assert_eq!(kept.project(), Some("/recorded"));
    }
}
