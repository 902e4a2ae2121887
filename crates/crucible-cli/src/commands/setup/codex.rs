//! `cru setup codex [--remove] [--force]`.

use std::path::PathBuf;

use crucible_capture::setup::codex_config;

use super::{CodexArgs, apply, cru_program, read};
use crate::error::{CliError, Outcome};

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub(crate) fn codex_home() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("CODEX_HOME").or_else(|| env("HOME").map(|h| h.join(".codex")))
}

/// Codex's config: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
pub(crate) fn config_path() -> Result<PathBuf, CliError> {
    codex_home().map(|d| d.join("config.toml")).ok_or_else(|| {
        CliError::new("no $CODEX_HOME and no $HOME: cannot find Codex's config.toml")
    })
}

pub fn run(args: &CodexArgs) -> anyhow::Result<Outcome> {
    let path = config_path()?;
    let had = read(&path)?;
    let text = had.as_deref().unwrap_or("");
    let edit = if args.remove {
        codex_config::remove(text)
    } else {
        codex_config::install(text, &cru_program()?, args.force)
    };
    let edit =
        edit.map_err(|e| CliError::new(format!("{}: {e}; nothing was written", path.display())))?;
    if args.remove {
        apply(
            &path,
            had.as_deref(),
            edit,
            "removed cru's notify",
            "no cru notify in",
        )
    } else {
        apply(
            &path,
            had.as_deref(),
            edit,
            "cru is Codex's notify program",
            "cru is already Codex's notify program in",
        )
    }
}
