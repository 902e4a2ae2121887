//! Where the sessions directory is, found the way git finds `.git`.

use std::path::{Path, PathBuf};

/// Everything discovery looks at, gathered by the caller (the CLI reads the
/// flags, the environment and the config; this module only decides).
#[derive(Debug, Clone)]
pub struct DiscoveryInputs<'a> {
    /// `--dir`.
    pub flag_dir: Option<&'a Path>,
    /// `$CRU_SESSIONS_DIR`.
    pub env_dir: Option<&'a Path>,
    /// `[session] dir` from the configuration, already resolved.
    pub config_dir: Option<&'a Path>,
    /// Where to start looking for a kiln.
    pub cwd: &'a Path,
    /// The user's home directory, for the last resort `~/.crucible/sessions`.
    pub home: Option<&'a Path>,
}

/// Which rule chose the sessions directory; `-v` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionsDirSource {
    Flag,
    Env,
    Config,
    /// The nearest `.crucible/` upward from the working directory.
    Kiln(PathBuf),
    Home,
}

/// The directory holding `.crucible/`, nearest first upward from `cwd`.
pub fn find_kiln(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| dir.join(".crucible").is_dir())
        .map(Path::to_owned)
}

/// Picks the sessions directory: `--dir`, then `$CRU_SESSIONS_DIR`, then the
/// config, then `<kiln>/.crucible/sessions`, then `~/.crucible/sessions`.
/// `None` only when nothing applies and there is no home directory.
pub fn discover_sessions_dir(inputs: &DiscoveryInputs<'_>) -> Option<(PathBuf, SessionsDirSource)> {
    let absolute = |p: &Path| {
        if p.is_absolute() {
            p.to_owned()
        } else {
            inputs.cwd.join(p)
        }
    };
    if let Some(d) = inputs.flag_dir {
        return Some((absolute(d), SessionsDirSource::Flag));
    }
    if let Some(d) = inputs.env_dir {
        return Some((absolute(d), SessionsDirSource::Env));
    }
    if let Some(d) = inputs.config_dir {
        return Some((absolute(d), SessionsDirSource::Config));
    }
    if let Some(kiln) = find_kiln(inputs.cwd) {
        return Some((
            kiln.join(".crucible/sessions"),
            SessionsDirSource::Kiln(kiln),
        ));
    }
    inputs
        .home
        .map(|h| (h.join(".crucible/sessions"), SessionsDirSource::Home))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_flag_env_config_kiln_home() {
        let t = tempfile::tempdir().unwrap();
        let kiln = t.path().join("project");
        let deep = kiln.join("src/deep");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(kiln.join(".crucible")).unwrap();
        let home = t.path().join("home");
        let mut i = DiscoveryInputs {
            flag_dir: Some(Path::new("/f")),
            env_dir: Some(Path::new("/e")),
            config_dir: Some(Path::new("/c")),
            cwd: &deep,
            home: Some(&home),
        };
        assert_eq!(
            discover_sessions_dir(&i).unwrap().1,
            SessionsDirSource::Flag
        );
        i.flag_dir = None;
        assert_eq!(discover_sessions_dir(&i).unwrap().0, PathBuf::from("/e"));
        i.env_dir = None;
        assert_eq!(
            discover_sessions_dir(&i).unwrap().1,
            SessionsDirSource::Config
        );
        i.config_dir = None;
        assert_eq!(
            discover_sessions_dir(&i).unwrap(),
            (
                kiln.join(".crucible/sessions"),
                SessionsDirSource::Kiln(kiln.clone())
            )
        );
        i.cwd = t.path();
        assert_eq!(
            discover_sessions_dir(&i).unwrap(),
            (home.join(".crucible/sessions"), SessionsDirSource::Home)
        );
    }

    #[test]
    fn relative_flag_is_taken_from_cwd() {
        let i = DiscoveryInputs {
            flag_dir: Some(Path::new("fixtures/sessions")),
            env_dir: None,
            config_dir: None,
            cwd: Path::new("/work"),
            home: None,
        };
        assert_eq!(
            discover_sessions_dir(&i).unwrap().0,
            PathBuf::from("/work/fixtures/sessions")
        );
    }
}
