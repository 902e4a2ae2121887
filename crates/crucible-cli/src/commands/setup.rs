//! `cru setup claude-code` and `cru setup codex`: the agents' own settings
//! made to run cru's hooks, everything else in them left as it was, a
//! backup of the file as it was before cru first changed it kept beside it
//! (`<file>.bak-cru`).
//! The edits themselves are crucible-capture's (`setup`).

pub(crate) mod claude_code;
pub(crate) mod codex;
mod mcp;
mod program;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use crucible_capture::setup::Edit;

use crate::cli::GlobalArgs;
use crate::error::{CliError, Outcome};

#[derive(Debug, Subcommand)]
pub enum SetupCommand {
    /// Install cru's hooks in Claude Code's settings.json (the user's unless --project); with --dir, they record there.
    ClaudeCode(ClaudeCodeArgs),
    /// Make cru Codex's notify program in its config.toml; with --dir, it records there.
    Codex(CodexArgs),
    /// Add cru's MCP server to Gemini CLI's settings.json (--mcp; Gemini CLI has no cru hooks).
    Gemini(GeminiArgs),
}

#[derive(Debug, Args)]
pub struct GeminiArgs {
    /// Add `cru mcp` to ~/.gemini/settings.json's mcpServers (required: the one thing set up for Gemini CLI).
    #[arg(long, required = true)]
    pub mcp: bool,
    /// This project's .gemini/settings.json (in the working directory) instead of the user's.
    #[arg(long)]
    pub project: bool,
    /// Take cru's MCP server out instead (other servers stay).
    #[arg(long)]
    pub remove: bool,
    /// Set the command and args of a `cru` entry that runs something else (its other keys stay).
    #[arg(long, conflicts_with = "remove")]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct ClaudeCodeArgs {
    /// This project's .claude/settings.json (in the working directory).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// The user's settings.json ($CLAUDE_CONFIG_DIR's first directory, else ~/.claude): the default.
    #[arg(long)]
    pub user: bool,
    /// Take cru's hooks out instead (other hooks stay); with --mcp, its MCP server.
    #[arg(long)]
    pub remove: bool,
    /// Add cru's MCP server (`cru mcp`) instead of its hooks: to
    /// ~/.claude.json (user scope), or with --project to ./.mcp.json.
    #[arg(long)]
    pub mcp: bool,
    /// With --mcp: set the command and args of a `cru` entry that runs something else (its other keys stay).
    #[arg(long, requires = "mcp", conflicts_with = "remove")]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct CodexArgs {
    /// Take cru's notify out instead; with --mcp, its MCP server.
    #[arg(long)]
    pub remove: bool,
    /// Replace another program's notify (kept in a comment above cru's; --remove puts it back); with --mcp, set the command and args of a `cru` entry that runs something else.
    #[arg(long)]
    pub force: bool,
    /// Add cru's MCP server (`cru mcp`) as [mcp_servers.cru] instead of its notify.
    #[arg(long)]
    pub mcp: bool,
}

pub fn run(cmd: &SetupCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let dir = hooks_dir(global)?;
    match cmd {
        SetupCommand::ClaudeCode(args) if args.mcp => mcp::run(
            mcp::Agent::ClaudeCode {
                project: args.project,
            },
            dir.as_deref(),
            mcp::Mode::of(args.remove, args.force),
        ),
        SetupCommand::ClaudeCode(args) => claude_code::run(args, dir.as_deref()),
        SetupCommand::Codex(args) if args.mcp => mcp::run(
            mcp::Agent::Codex,
            dir.as_deref(),
            mcp::Mode::of(args.remove, args.force),
        ),
        SetupCommand::Codex(args) => codex::run(args, dir.as_deref()),
        SetupCommand::Gemini(args) => mcp::run(
            mcp::Agent::Gemini {
                project: args.project,
            },
            dir.as_deref(),
            mcp::Mode::of(args.remove, args.force),
        ),
    }
}

/// The sessions directory the hooks are told to record into: `--dir`,
/// made absolute (the agent runs its hooks from its own working
/// directory). Without `--dir` the hooks find theirs when they run, as
/// every cru command does: `$CRU_SESSIONS_DIR` is then the agent's, not
/// this shell's, so a note says so when it is set here.
fn hooks_dir(global: &GlobalArgs) -> Result<Option<String>, CliError> {
    let Some(dir) = &global.dir else {
        if let Some(env) = std::env::var_os("CRU_SESSIONS_DIR").filter(|v| !v.is_empty()) {
            eprintln!(
                "note: $CRU_SESSIONS_DIR ({}) is not written into the hooks: they read it from the agent's environment when they run; to record there whatever that says, run this again with --dir {}",
                env.to_string_lossy(),
                env.to_string_lossy()
            );
        }
        return Ok(None);
    };
    let abs =
        std::path::absolute(dir).map_err(|e| CliError::new(format!("{}: {e}", dir.display())))?;
    abs.to_str().map(|s| Some(s.to_owned())).ok_or_else(|| {
        CliError::new(format!(
            "{}: the sessions directory's path is not UTF-8; settings files cannot name it",
            abs.display()
        ))
    })
}

/// The directories a `$CLAUDE_CONFIG_DIR` or `$CODEX_HOME` lists: both may
/// name several, with commas, as ccusage reads them.
fn listed(var: &str) -> Vec<PathBuf> {
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// The first directory `var` lists: the one setup writes to (and the one
/// doctor and the Codex hook read, so that all agree).
fn first_listed(var: &str) -> Option<PathBuf> {
    listed(var).into_iter().next()
}

/// Says which directory setup took when `var` lists several.
fn note_first_listed(var: &str) {
    if let [first, _, ..] = listed(var).as_slice() {
        eprintln!(
            "note: ${var} lists several directories; setup uses the first, {}",
            first.display()
        );
    }
}

/// The file's text, `None` when there is none. `what` names it in errors
/// ("settings file", "config file").
fn read(path: &Path, what: &str) -> Result<Option<String>, CliError> {
    if path.is_dir() {
        return Err(
            CliError::new(format!("{} is a folder, not a {what}", path.display())).with_hint(
                "the agent reads a file of that name: move the folder away (or rename it) and run again",
            ),
        );
    }
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Err(CliError::new(format!(
            "{}: not UTF-8 text; nothing was written",
            path.display()
        ))),
        Err(e) => Err(CliError::new(format!("{}: {e}", path.display()))),
    }
}

/// Where the backup of `path` goes.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak-cru");
    path.with_file_name(name)
}

/// What `apply` writes, and what it says it did.
struct Change<'a> {
    path: &'a Path,
    had: Option<&'a str>,
    edit: Edit,
    done: &'a str,
    unchanged: &'a str,
    /// Whether to keep a backup (when there is none yet). `--remove`
    /// keeps none: it takes out only cru's entries, the inverse of what
    /// setup did, and a backup taken then would hold cru's hooks.
    backup: bool,
}

/// Writes the change (backing up what was there first); tells what it
/// did, or that there was nothing to do. True when it wrote.
fn apply(change: Change<'_>) -> Result<bool, CliError> {
    let Change {
        path,
        had,
        edit,
        done,
        unchanged,
        backup: keep_backup,
    } = change;
    let Edit::Changed(text) = edit else {
        println!("{unchanged}: {}", path.display());
        return Ok(false);
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
    // may hold API keys and tokens. A file its owner may not write was
    // made so on purpose (a managed or frozen config): left alone.
    let mode = std::fs::metadata(path).map_or(0o600, |m| {
        std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777
    });
    if had.is_some() && mode & 0o200 == 0 {
        return Err(CliError::new(format!(
            "{} is read-only (its owner may not write it); nothing was written",
            path.display()
        ))
        .with_hint(format!(
            "make it writable (chmod u+w {}) and run again, or make the change by hand",
            path.display()
        )));
    }
    let backup = backup(path, had.filter(|_| keep_backup), mode).map_err(io)?;
    crucible_core::store::atomic::write_atomic_mode(path, text.as_bytes(), mode).map_err(io)?;
    match backup {
        Some(b) => println!(
            "{done}: {} (the file before cru first changed it: {})",
            path.display(),
            b.display()
        ),
        None => println!("{done}: {}", path.display()),
    }
    Ok(true)
}

/// Keeps `had` (the file before this change) as `<file>.bak-cru`, unless
/// a backup is there already: the first one holds the file as it was
/// before cru ever changed it, and a later run must not lose it.
fn backup(path: &Path, had: Option<&str>, mode: u32) -> std::io::Result<Option<PathBuf>> {
    let Some(old) = had else {
        return Ok(None);
    };
    let b = backup_path(path);
    if std::fs::symlink_metadata(&b).is_err() {
        crucible_core::store::atomic::write_atomic_mode(&b, old.as_bytes(), mode)?;
    }
    Ok(Some(b))
}
