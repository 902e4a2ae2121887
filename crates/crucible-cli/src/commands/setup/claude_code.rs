//! `cru setup claude-code [--project|--user] [--remove]`.

use std::path::PathBuf;

use crucible_capture::setup::claude_settings::{self, SettingsError};

use super::{ClaudeCodeArgs, apply, cru_program, read};
use crate::error::{CliError, Outcome};

/// Claude Code's settings file: the project's, or the user's (the first
/// directory `$CLAUDE_CONFIG_DIR` lists, else `~/.claude`).
fn settings_path(args: &ClaudeCodeArgs) -> Result<PathBuf, CliError> {
    if args.project {
        return project_settings_path();
    }
    user_settings_path()
}

/// This project's settings file (in the working directory).
pub(crate) fn project_settings_path() -> Result<PathBuf, CliError> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::new(format!("cannot read the working directory: {e}")))?;
    Ok(cwd.join(".claude/settings.json"))
}

/// The user's settings file.
pub(crate) fn user_settings_path() -> Result<PathBuf, CliError> {
    let configured = std::env::var("CLAUDE_CONFIG_DIR").ok().and_then(|v| {
        v.split(',')
            .map(str::trim)
            .find(|d| !d.is_empty())
            .map(PathBuf::from)
    });
    let dir = match configured {
        Some(d) => d,
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".claude"))
            .ok_or_else(|| {
                CliError::new(
                    "no $HOME and no $CLAUDE_CONFIG_DIR: cannot find Claude Code's settings",
                )
                .with_hint("use --project, or set CLAUDE_CONFIG_DIR")
            })?,
    };
    Ok(dir.join("settings.json"))
}

pub fn run(args: &ClaudeCodeArgs) -> anyhow::Result<Outcome> {
    let path = settings_path(args)?;
    let had = read(&path)?;
    let edit = if args.remove {
        match &had {
            Some(text) => claude_settings::remove(text),
            None => Ok(crucible_capture::setup::Edit::Unchanged),
        }
    } else {
        claude_settings::install(had.as_deref(), &claude_settings::command(&cru_program()?))
    };
    let edit = edit.map_err(|e| match e {
        SettingsError::Invalid {
            line,
            column,
            message,
        } => CliError::new(format!(
            "{}:{line}:{column}: not valid JSON ({message}); nothing was written",
            path.display()
        ))
        .with_hint(
            "fix the file (Claude Code reads it as plain JSON, without comments) and run again",
        ),
        other @ SettingsError::NotAnObject(_) => {
            CliError::new(format!("{}: {other}; nothing was written", path.display()))
        }
    })?;
    if args.remove {
        apply(
            &path,
            had.as_deref(),
            edit,
            "removed cru's hooks",
            "no cru hooks in",
        )
    } else {
        apply(
            &path,
            had.as_deref(),
            edit,
            "installed cru's hooks",
            "cru's hooks are already in",
        )
    }
}
