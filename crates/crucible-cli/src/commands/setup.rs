//! `cru setup claude-code` and `cru setup codex`: the agents' own settings
//! made to run cru's hooks, everything else in them left as it was, a
//! backup of the file kept beside it (`<file>.bak-cru`) before any change.
//! The edits themselves are crucible-capture's (`setup`).

pub(crate) mod claude_code;
pub(crate) mod codex;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use crucible_capture::setup::Edit;

use crate::error::{CliError, Outcome};

#[derive(Debug, Subcommand)]
pub enum SetupCommand {
    /// Install cru's hooks in Claude Code's settings.json (the user's unless --project).
    ClaudeCode(ClaudeCodeArgs),
    /// Make cru Codex's notify program in its config.toml.
    Codex(CodexArgs),
}

#[derive(Debug, Args)]
pub struct ClaudeCodeArgs {
    /// This project's .claude/settings.json (in the working directory).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// The user's settings.json ($CLAUDE_CONFIG_DIR's first directory, else ~/.claude): the default.
    #[arg(long)]
    pub user: bool,
    /// Take cru's hooks out instead (other hooks stay).
    #[arg(long)]
    pub remove: bool,
}

#[derive(Debug, Args)]
pub struct CodexArgs {
    /// Take cru's notify out instead.
    #[arg(long)]
    pub remove: bool,
    /// Replace another program's notify (a backup of the file is kept).
    #[arg(long)]
    pub force: bool,
}

pub fn run(cmd: &SetupCommand) -> anyhow::Result<Outcome> {
    match cmd {
        SetupCommand::ClaudeCode(args) => claude_code::run(args),
        SetupCommand::Codex(args) => codex::run(args),
    }
}

/// The running cru binary's absolute path: what the hooks run.
fn cru_program() -> Result<String, CliError> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| CliError::new(format!("cannot tell where the cru binary is: {e}")))?;
    exe.to_str().map(str::to_owned).ok_or_else(|| {
        CliError::new(format!(
            "{}: the cru binary's path is not UTF-8; settings files cannot name it",
            exe.display()
        ))
    })
}

/// The file's text, `None` when there is none.
fn read(path: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::new(format!("{}: {e}", path.display()))),
    }
}

/// Where the backup of `path` goes.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak-cru");
    path.with_file_name(name)
}

/// Writes `edit` to `path` (backing up what was there first); tells what
/// it did in `done`, or `unchanged` when there was nothing to do.
fn apply(
    path: &Path,
    had: Option<&str>,
    edit: Edit,
    done: &str,
    unchanged: &str,
) -> anyhow::Result<Outcome> {
    let Edit::Changed(text) = edit else {
        println!("{unchanged}: {}", path.display());
        return Ok(Outcome::Success);
    };
    let io = |e: std::io::Error| CliError::new(format!("{}: {e}", path.display()));
    // A settings file kept elsewhere and linked here (dotfiles) is edited
    // where it is: replacing the link would leave the real one behind.
    let real = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(io)?,
        _ => path.to_owned(),
    };
    let path = real.as_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    // Its permissions are kept, and the backup's are the same: settings
    // may hold API keys and tokens.
    let mode = std::fs::metadata(path).map_or(0o600, |m| {
        std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777
    });
    let backup = had
        .map(|old| {
            let b = backup_path(path);
            crucible_core::store::atomic::write_atomic_mode(&b, old.as_bytes(), mode).map(|()| b)
        })
        .transpose()
        .map_err(io)?;
    crucible_core::store::atomic::write_atomic_mode(path, text.as_bytes(), mode).map_err(io)?;
    match backup {
        Some(b) => println!("{done}: {} (the old file: {})", path.display(), b.display()),
        None => println!("{done}: {}", path.display()),
    }
    Ok(Outcome::Success)
}
