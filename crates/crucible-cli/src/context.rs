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

impl Context {
    pub fn load(global: &GlobalArgs) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        let home = env_path("HOME");
        let mut layers = Vec::new();
        if let Some(path) = user_config(home.as_deref()) {
            let base_dir = path.parent().map_or_else(|| cwd.clone(), Path::to_owned);
            layers.push(ConfigLayer { path, base_dir });
        }
        if let Some(kiln) = find_kiln(&cwd) {
            layers.push(ConfigLayer {
                path: kiln.join(".crucible/config.toml"),
                base_dir: kiln,
            });
        }
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
        Ok(Self {
            config,
            dir_source: source,
            store,
            strict: global.strict,
            prices_path: user_config(home.as_deref()).map(|p| p.with_file_name("prices.json")),
        })
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
