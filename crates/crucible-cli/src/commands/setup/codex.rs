//! `cru setup codex [--remove] [--force]`.

use std::path::PathBuf;

use crucible_capture::setup::{codex_config, hook_words};

use super::{
    Change, CodexArgs, apply, first_listed, note_first_listed, program::cru_program, read,
};
use crate::error::{CliError, Outcome};

/// Codex's home: the first directory `$CODEX_HOME` lists, else `~/.codex`.
pub(crate) fn codex_home() -> Option<PathBuf> {
    first_listed("CODEX_HOME").or_else(|| {
        std::env::var_os("HOME")
            .filter(|v| !v.is_empty())
            .map(|h| PathBuf::from(h).join(".codex"))
    })
}

/// Codex's config: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
pub(crate) fn config_path() -> Result<PathBuf, CliError> {
    codex_home().map(|d| d.join("config.toml")).ok_or_else(|| {
        CliError::new("no $CODEX_HOME and no $HOME: cannot find Codex's config.toml")
    })
}

/// `dir`: the sessions directory written into the notify (`--dir`), if any.
pub fn run(args: &CodexArgs, dir: Option<&str>) -> anyhow::Result<Outcome> {
    let path = config_path()?;
    note_first_listed("CODEX_HOME");
    let had = read(&path, "config file")?;
    let text = had.as_deref().unwrap_or("");
    // Said after the write: what cru kept of the user's own notify.
    let (edit, kept) = if args.remove {
        let back = codex_config::replaced_notify(text);
        let kept = back.map(|n| format!("put back the notify cru replaced: {n}"));
        (codex_config::remove(text), kept)
    } else {
        let words = hook_words(&cru_program()?, dir, "codex");
        let other = codex_config::other_notify(text).filter(|_| args.force);
        let kept = other.map(|n| {
            format!("the notify cru replaced, {n}, is kept in a comment above cru's; `cru setup codex --remove` puts it back")
        });
        (codex_config::install(text, &words, args.force), kept)
    };
    let edit =
        edit.map_err(|e| CliError::new(format!("{}: {e}; nothing was written", path.display())))?;
    let (done, unchanged) = if args.remove {
        ("removed cru's notify", "no cru notify in")
    } else {
        (
            "cru is Codex's notify program",
            "cru is already Codex's notify program in",
        )
    };
    let wrote = apply(Change {
        path: &path,
        had: had.as_deref(),
        edit,
        done,
        unchanged,
        backup: !args.remove,
    })?;
    if let (true, Some(kept)) = (wrote, kept) {
        println!("{kept}");
    }
    Ok(Outcome::Success)
}
