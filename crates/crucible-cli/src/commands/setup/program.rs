//! The path the hooks run cru by. The path the user ran cru by, when it is
//! this binary: a link on `$PATH` that a package manager or a version
//! manager keeps pointing at the installed cru (Homebrew's
//! `/opt/homebrew/bin/cru` → `…/Cellar/cru/<version>/bin/cru`, a
//! `~/.local/bin/cru` → a versioned folder) outlives an upgrade, and the
//! folder it points into does not. Else the binary's own resolved path.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// The absolute path the hooks should run cru by.
pub(super) fn cru_program() -> Result<String, CliError> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| CliError::new(format!("cannot tell where the cru binary is: {e}")))?;
    let cwd = std::env::current_dir().ok();
    let ran = std::env::args_os().next().zip(cwd).and_then(|(arg0, cwd)| {
        ran_path(&arg0, std::env::var_os("PATH"), &cwd).filter(|p| same_file(p, &exe))
    });
    let program = ran.unwrap_or(exe);
    program.to_str().map(str::to_owned).ok_or_else(|| {
        CliError::new(format!(
            "{}: the cru binary's path is not UTF-8; settings files cannot name it",
            program.display()
        ))
    })
}

/// The absolute path a shell found `arg0` at: as given when it holds a
/// `/` (from `cwd` when relative), else the first `$PATH` directory that
/// has a file of that name. Links are not followed.
fn ran_path(arg0: &OsStr, path: Option<OsString>, cwd: &Path) -> Option<PathBuf> {
    let arg0 = Path::new(arg0);
    let found = if arg0.as_os_str().as_encoded_bytes().contains(&b'/') {
        arg0.to_owned()
    } else {
        std::env::split_paths(&path?)
            .map(|dir| dir.join(arg0))
            .find(|p| p.is_file())?
    };
    std::path::absolute(cwd.join(found)).ok()
}

/// True when `a` (followed through links) is the file `b`.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_a_shell_ran_is_found_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("versions/1.2/cru");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "").unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&real, bin.join("cru")).unwrap();
        let path = std::env::join_paths([dir.path().join("none"), bin.clone()]).unwrap();
        let found = ran_path(OsStr::new("cru"), Some(path), Path::new("/")).unwrap();
        assert_eq!(found, bin.join("cru"));
        assert!(same_file(&found, &real));
        assert_eq!(
            ran_path(OsStr::new("bin/cru"), None, dir.path()).unwrap(),
            bin.join("cru")
        );
        assert!(ran_path(OsStr::new("cru"), None, dir.path()).is_none());
        assert!(!same_file(&found, &bin));
    }
}
