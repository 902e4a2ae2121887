//! What every command needs: the configuration and the sessions directory,
//! found from flags, the environment and the files, in that order.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use crucible_core::config::ConfigLayer;
use crucible_core::{
    Config, DiscoveryInputs, SessionStore, StoreObserver, discover_sessions_dir, find_kiln,
};
use crucible_parser::MarkdownCodec;

use crate::cli::GlobalArgs;
use crate::error::CliError;

pub struct Context {
    pub config: Config,
    pub store: SessionStore<MarkdownCodec>,
    /// `--strict`: commands that would skip part of their input refuse it.
    pub strict: bool,
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
            store,
            strict: global.strict,
        })
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
