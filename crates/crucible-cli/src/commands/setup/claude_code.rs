//! `cru setup claude-code [--project|--user] [--remove]`.

use std::path::PathBuf;

use crucible_capture::setup::claude_settings::{self, SettingsError};

use super::{
    Change, ClaudeCodeArgs, apply, first_listed, note_first_listed, program::cru_program, read,
};
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
    let dir = match first_listed("CLAUDE_CONFIG_DIR") {
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

/// The CLI's message for a settings file that cannot be edited.
fn refusal(path: &std::path::Path, e: SettingsError) -> CliError {
    match e {
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
        other => CliError::new(format!("{}: {other}; nothing was written", path.display()))
            .with_hint("fix it by hand (see Claude Code's settings reference) and run again"),
    }
}

/// `dir`: the sessions directory written into the hook (`--dir`), if any.
pub fn run(args: &ClaudeCodeArgs, dir: Option<&str>) -> anyhow::Result<Outcome> {
    let path = settings_path(args)?;
    if !args.project {
        note_first_listed("CLAUDE_CONFIG_DIR");
    }
    let had = read(&path, "settings file")?;
    let program = if args.remove {
        None
    } else {
        Some(cru_program()?)
    };
    let edit = match (&program, &had) {
        (Some(program), _) => {
            claude_settings::install(had.as_deref(), &claude_settings::command(program, dir))
        }
        (None, Some(text)) => claude_settings::remove(text),
        (None, None) => Ok(crucible_capture::setup::Edit::Unchanged),
    }
    .map_err(|e| refusal(&path, e))?;
    let (done, unchanged) = if args.remove {
        ("removed cru's hooks", "no cru hooks in")
    } else {
        ("installed cru's hooks", "cru's hooks are already in")
    };
    let wrote = apply(Change {
        path: &path,
        had: had.as_deref(),
        edit,
        done,
        unchanged,
        backup: !args.remove,
    })?;
    if let (true, true, Some(program)) = (wrote, args.project, &program) {
        eprintln!(
            "note: a project's .claude/settings.json is usually committed: its hooks run this machine's cru, {program}"
        );
    }
    Ok(Outcome::Success)
}
