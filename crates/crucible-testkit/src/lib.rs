//! What the workspace's tests share: where the fixtures are, a sessions
//! directory copied from them, every file under a folder, and a FIFO or
//! an immutable file made where a hostile test needs one. A
//! dev-dependency only; nothing that ships depends on it.

use std::path::{Path, PathBuf};

use crucible_core::store::walk;

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A temporary sessions directory holding a copy of `fixtures/sessions`
/// (subfolders kept), for tests that write.
pub fn copy_session_fixtures() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = fixtures().join("sessions");
    for f in crucible_core::store::session_files(&src).expect("fixtures/sessions is readable") {
        let to = dir
            .path()
            .join(f.strip_prefix(&src).expect("under the fixtures"));
        std::fs::create_dir_all(to.parent().expect("a file has a folder"))
            .expect("the copy's folder");
        std::fs::copy(&f, to).expect("a fixture copied");
    }
    dir
}

/// Every regular file under `dir`, hidden ones too (fixtures hold
/// `.agent/sessions` folders), sorted: listed by cru's one walker.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let rules = walk::Rules {
        take_hidden: true,
        tree: "the fixtures",
    };
    let options = walk::WalkOptions {
        file_filter: &|_| true,
        utf8_names: false,
        recursive: true,
        confine_to: None,
    };
    let mut files = walk::walk_with(dir, options, &rules)
        .expect("the fixtures are readable")
        .files;
    files.sort();
    files
}

/// Makes a FIFO (named pipe) at `path`, as a hostile test puts one where
/// a file is expected (`mkfifo(1)`: std has no call for it, and the
/// workspace forbids `unsafe`).
pub fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Sets (or clears) the immutable attribute of `path` (`chattr +i`): the
/// one way a test running as root makes a file or folder that cannot be
/// written or removed (permissions stop nothing for root). False where
/// the file system or the sandbox does not allow it; the test then says
/// it was skipped.
pub fn set_immutable(path: &Path, on: bool) -> bool {
    std::process::Command::new("chattr")
        .arg(if on { "+i" } else { "-i" })
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_holds_every_session_fixture() {
        let copy = copy_session_fixtures();
        let listed = |d: &Path| {
            files_under(d)
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .map(|p| p.strip_prefix(d).unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        let original = listed(&fixtures().join("sessions"));
        assert!(!original.is_empty());
        assert_eq!(listed(copy.path()), original);
    }
}
