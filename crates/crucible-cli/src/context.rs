//! What every command needs: the configuration and the sessions directory,
//! found from flags, the environment and the files, in that order.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use crucible_core::config::ConfigLayer;
use crucible_core::{
    Config, DiscoveryInputs, SessionStore, SessionsDirSource, StoreObserver, discover_sessions_dir,
    find_kiln,
};
use crucible_parser::MarkdownCodec;

use crate::cli::GlobalArgs;
use crate::error::CliError;

pub struct Context {
    pub config: Config,
    /// Where the sessions directory came from: one the user named must
    /// exist for a command that reads it.
    pub dir_source: SessionsDirSource,
    pub store: SessionStore<MarkdownCodec>,
    /// `--strict`: commands that would skip part of their input refuse it.
    pub strict: bool,
    /// Where `cru pricing update` keeps the price list it loaded: beside
    /// the user's config file.
    pub prices_path: Option<PathBuf>,
    /// `--dir`, as given: a command that builds a [`Context::for_capture`]
    /// of its own (an import with no path) keeps it.
    pub flag_dir: Option<PathBuf>,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The user's configuration file: `$CRUCIBLE_CONFIG`, else
/// `$XDG_CONFIG_HOME/crucible/config.toml`, else `~/.config/crucible/config.toml`.
fn user_config(home: Option<&Path>) -> Option<PathBuf> {
    env_path("CRUCIBLE_CONFIG")
        .or_else(|| env_path("XDG_CONFIG_HOME").map(|x| x.join("crucible/config.toml")))
        .or_else(|| home.map(|h| h.join(".config/crucible/config.toml")))
}

/// The user's configuration file as a layer, relative paths in it
/// resolved against its folder.
fn user_layer(home: Option<&Path>, cwd: &Path) -> Option<ConfigLayer> {
    user_config(home).map(|path| {
        let base_dir = path.parent().map_or_else(|| cwd.to_owned(), Path::to_owned);
        ConfigLayer { path, base_dir }
    })
}

/// A project's configuration file as a layer (`<kiln>/.crucible/config.toml`).
fn kiln_layer(kiln: &Path) -> ConfigLayer {
    ConfigLayer {
        path: kiln.join(".crucible/config.toml"),
        base_dir: kiln.to_owned(),
    }
}

impl Context {
    pub fn load(global: &GlobalArgs) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        let home = env_path("HOME");
        let layers: Vec<ConfigLayer> = user_layer(home.as_deref(), &cwd)
            .into_iter()
            .chain(find_kiln(&cwd).map(|k| kiln_layer(&k)))
            .collect();
        let config = Config::load(&layers, home.as_deref())?;
        let env_dir = env_path("CRU_SESSIONS_DIR");
        let (dir, source) = discover_sessions_dir(&DiscoveryInputs {
            flag_dir: global.dir.as_deref(),
            env_dir: env_dir.as_deref(),
            config_dir: config.session.dir.as_deref(),
            cwd: &cwd,
            home: home.as_deref(),
        })
        .ok_or_else(|| {
            CliError::new(
                "no sessions directory: no --dir, no $CRU_SESSIONS_DIR, no config and no $HOME",
            )
            .with_hint("pass --dir DIR")
        })?;
        Ok(Self::with_dir(global, config, dir, source, home.as_deref()))
    }

    /// The context capture writes through (hooks, `cru watch`, `cru
    /// session import` with no path): the user's sessions directory
    /// (`--dir`, `$CRU_SESSIONS_DIR`, `[session] dir` of the user's
    /// config, else `~/.crucible/sessions`), not the nearest
    /// `.crucible/sessions` of the working directory, unless the project
    /// at `project_cwd` opts in with `[capture] project = true`: then its
    /// own (its `[session] dir`, else `<project>/.crucible/sessions`).
    /// Whether the project captures at all is [`CapturePolicy::decide`]'s.
    pub fn for_capture(global: &GlobalArgs, project_cwd: Option<&Path>) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        let home = env_path("HOME");
        let user = user_layer(home.as_deref(), &cwd);
        let kiln = project_cwd.and_then(project_root);
        let layers: Vec<ConfigLayer> = user
            .clone()
            .into_iter()
            .chain(kiln.as_deref().map(kiln_layer))
            .collect();
        let config = Config::load(&layers, home.as_deref())?;
        let absolute = |p: PathBuf| if p.is_absolute() { p } else { cwd.join(p) };
        let chosen = if let Some(d) = global.dir.clone() {
            Some((absolute(d), SessionsDirSource::Flag))
        } else if let Some(d) = env_path("CRU_SESSIONS_DIR") {
            Some((absolute(d), SessionsDirSource::Env))
        } else if let Some(kiln) = kiln.filter(|_| config.capture.project) {
            let own = Config::load(&[kiln_layer(&kiln)], home.as_deref())?;
            Some(match own.session.dir {
                Some(d) => (d, SessionsDirSource::Config),
                None => (
                    kiln.join(".crucible/sessions"),
                    SessionsDirSource::Kiln(kiln),
                ),
            })
        } else {
            let user_only = Config::load(user.as_slice(), home.as_deref())?;
            match (user_only.session.dir, home.as_deref()) {
                (Some(d), _) => Some((d, SessionsDirSource::Config)),
                (None, Some(h)) => Some((h.join(".crucible/sessions"), SessionsDirSource::Home)),
                (None, None) => None,
            }
        };
        let (dir, source) = chosen.ok_or_else(|| {
            CliError::new("no sessions directory to capture into: no --dir, no $CRU_SESSIONS_DIR, no [session] dir and no $HOME")
                .with_hint("pass --dir DIR")
        })?;
        Ok(Self::with_dir(global, config, dir, source, home.as_deref()))
    }

    fn with_dir(
        global: &GlobalArgs,
        config: Config,
        dir: PathBuf,
        source: SessionsDirSource,
        home: Option<&Path>,
    ) -> Self {
        tracing::info!(dir = %dir.display(), ?source, configs = ?config.sources, "sessions directory");
        // Every write through the store keeps the index current.
        let index = crucible_index::IndexObserver::new(dir.clone());
        let observer: std::sync::Arc<dyn StoreObserver> =
            match std::env::var("CRU_TEST_KILL_AFTER_WRITES")
                .ok()
                .and_then(|n| n.parse().ok())
            {
                Some(writes) => std::sync::Arc::new(KillAfterWrites {
                    inner: index,
                    left: std::sync::atomic::AtomicUsize::new(writes),
                }),
                None => std::sync::Arc::new(index),
            };
        let store = SessionStore::new(dir, MarkdownCodec)
            .with_max_file_bytes(config.session.max_file_bytes)
            .with_observer(observer);
        Self {
            config,
            dir_source: source,
            store,
            strict: global.strict,
            prices_path: user_config(home).map(|p| p.with_file_name("prices.json")),
            flag_dir: global.dir.clone(),
        }
    }
}

/// The project a working directory is in, for capture: the nearest
/// folder upward that holds `.crucible/config.toml`.
pub fn project_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| dir.join(".crucible/config.toml").is_file())
        .map(Path::to_owned)
}

/// What capture does with the sessions of one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureDecision {
    /// The project whose `.crucible/config.toml` decided, if any.
    pub project: Option<PathBuf>,
    /// False: `[capture] enabled = false` (or a config that cannot be
    /// read: nothing is captured against what it may say).
    pub enabled: bool,
    /// `[capture] project = true`: the project keeps its own sessions.
    pub keeps_own: bool,
    /// Why the project's config could not be read, if it could not.
    pub error: Option<String>,
}

/// Answers "is capture enabled for this cwd" for many sessions at once
/// (an import reads thousands): each project's config is read once.
#[derive(Debug)]
pub struct CapturePolicy {
    home: Option<PathBuf>,
    user: Option<ConfigLayer>,
    /// By working directory: the project it is in.
    roots: std::collections::HashMap<PathBuf, Option<PathBuf>>,
    /// By project (`None`: in none): the decision.
    decisions: std::collections::HashMap<Option<PathBuf>, CaptureDecision>,
}

impl CapturePolicy {
    /// Reads `$HOME` and where the user's config is; nothing else yet.
    pub fn load() -> Self {
        let home = env_path("HOME");
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        Self {
            user: user_layer(home.as_deref(), &cwd),
            home,
            roots: std::collections::HashMap::new(),
            decisions: std::collections::HashMap::new(),
        }
    }

    /// The user's config file, where there is one to read.
    pub fn user_config(&self) -> Option<&Path> {
        self.user.as_ref().map(|l| l.path.as_path())
    }

    /// What capture does for a session run in `cwd`: the user's config,
    /// then the project's `[capture]` table.
    pub fn decide(&mut self, cwd: &Path) -> &CaptureDecision {
        let root = self
            .roots
            .entry(cwd.to_owned())
            .or_insert_with(|| project_root(cwd))
            .clone();
        if !self.decisions.contains_key(&root) {
            let layers: Vec<ConfigLayer> = self
                .user
                .clone()
                .into_iter()
                .chain(root.as_deref().map(kiln_layer))
                .collect();
            let decision = match Config::load(&layers, self.home.as_deref()) {
                Ok(c) => CaptureDecision {
                    project: root.clone(),
                    enabled: c.capture.enabled,
                    keeps_own: c.capture.project,
                    error: None,
                },
                Err(e) => CaptureDecision {
                    project: root.clone(),
                    enabled: false,
                    keeps_own: false,
                    error: Some(e.to_string()),
                },
            };
            self.decisions.insert(root.clone(), decision);
        }
        &self.decisions[&root]
    }

    /// Whether the sessions of an agent run in `cwd` are captured.
    #[allow(
        dead_code,
        reason = "the hooks (issue 21, the HOOK part) call it; the lead wires it"
    )]
    pub fn is_enabled(&mut self, cwd: &Path) -> bool {
        self.decide(cwd).enabled
    }
}

impl Context {
    /// For commands that read sessions: a sessions directory that the user
    /// named (`--dir`, `$CRU_SESSIONS_DIR`, the config) and that does not
    /// exist is an error, not an empty answer (a typo in a path would
    /// otherwise read as "no sessions"). The default directory not made yet
    /// is just empty: nothing was recorded so far.
    pub fn require_dir(&self) -> Result<(), CliError> {
        let named = matches!(
            self.dir_source,
            SessionsDirSource::Flag | SessionsDirSource::Env | SessionsDirSource::Config
        );
        let dir = self.store.dir();
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(CliError::new(format!("not a directory: {}", dir.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CliError::new(format!(
                "no such directory: {}",
                dir.display()
            ))
            .with_hint(
                "check --dir, $CRU_SESSIONS_DIR or [session] dir; `cru session start` or `import` creates it",
            )),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(CliError::new(
                format!("permission denied: {}", dir.display()),
            )),
            Err(e) => Err(CliError::new(format!("{}: {e}", dir.display()))),
        }
    }
}

/// For the kill tests only (`CRU_TEST_KILL_AFTER_WRITES=N`, undocumented):
/// the process dies, as under SIGKILL, right after the store's Nth session
/// file write, so that a test can stop a command at each of its steps in
/// turn, deterministically, and check that running it again converges.
#[derive(Debug)]
struct KillAfterWrites {
    inner: crucible_index::IndexObserver,
    left: std::sync::atomic::AtomicUsize,
}

impl StoreObserver for KillAfterWrites {
    fn written(&self, path: &Path, log: &crucible_core::SessionLog) {
        self.inner.written(path, log);
        if self.left.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            std::process::abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> CapturePolicy {
        CapturePolicy {
            home: None,
            user: None,
            roots: std::collections::HashMap::new(),
            decisions: std::collections::HashMap::new(),
        }
    }

    #[test]
    fn capture_is_decided_by_the_nearest_project_config_and_read_once() {
        let t = tempfile::tempdir().unwrap();
        let off = t.path().join("off");
        let own = t.path().join("own");
        let bad = t.path().join("bad");
        for (dir, text) in [
            (&off, "[capture]\nenabled = false\n"),
            (&own, "[capture]\nproject = true\n"),
            (&bad, "[capture]\nenabled = \"no\"\n"),
        ] {
            std::fs::create_dir_all(dir.join(".crucible")).unwrap();
            std::fs::write(dir.join(".crucible/config.toml"), text).unwrap();
        }
        std::fs::create_dir_all(off.join("src/deep")).unwrap();
        let mut p = policy();
        let d = p.decide(&off.join("src/deep")).clone();
        assert_eq!(
            (d.project.as_deref(), d.enabled),
            (Some(off.as_path()), false)
        );
        let d = p.decide(&own).clone();
        assert!(d.enabled && d.keeps_own);
        assert!(p.is_enabled(t.path()));
        // A config that cannot be read captures nothing, and says why.
        let d = p.decide(&bad).clone();
        assert!(!d.enabled && d.error.is_some_and(|e| e.contains("config.toml")));
        // Read once per working directory and project: a change during
        // the run is not seen for a directory asked about already.
        std::fs::remove_file(off.join(".crucible/config.toml")).unwrap();
        assert!(!p.is_enabled(&off.join("src/deep")));
        assert_eq!(project_root(&off.join("src")), None);
    }
}
