//! `cru setup claude-code|codex|gemini --mcp`: cru's MCP server (`cru mcp`)
//! in the agent's MCP configuration; the rest of the file kept byte for
//! byte (crucible-capture's `setup::mcp_servers`), a backup beside it.

use std::path::{Path, PathBuf};

use crucible_capture::setup::Edit;
use crucible_capture::setup::mcp_servers::{self, McpConfigError};

use super::{Change, apply, first_listed, program::cru_program, read};
use crate::error::{CliError, Outcome};

/// The agent whose configuration gets the server.
#[derive(Debug, Clone, Copy)]
pub enum Agent {
    /// `~/.claude.json` (user scope; in `$CLAUDE_CONFIG_DIR` when set), or
    /// the project's `.mcp.json`.
    ClaudeCode { project: bool },
    /// `~/.codex/config.toml` (`$CODEX_HOME`'s).
    Codex,
    /// `~/.gemini/settings.json`, or the project's `.gemini/settings.json`.
    Gemini { project: bool },
}

/// What to do with the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Add it; one that runs something else is refused.
    Install,
    /// Add it; one that runs something else gets cru's command and args.
    Force,
    /// Take it out.
    Remove,
}

impl Mode {
    pub fn of(remove: bool, force: bool) -> Self {
        match (remove, force) {
            (true, _) => Self::Remove,
            (false, true) => Self::Force,
            (false, false) => Self::Install,
        }
    }
}

fn home() -> Result<PathBuf, CliError> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| CliError::new("no $HOME: cannot find the agent's configuration"))
}

fn cwd() -> Result<PathBuf, CliError> {
    std::env::current_dir()
        .map_err(|e| CliError::new(format!("cannot read the working directory: {e}")))
}

/// The file the agent reads its MCP servers from.
fn config_path(agent: Agent) -> Result<PathBuf, CliError> {
    Ok(match agent {
        Agent::ClaudeCode { project: true } => cwd()?.join(".mcp.json"),
        Agent::ClaudeCode { project: false } => match first_listed("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir.join(".claude.json"),
            None => home()?.join(".claude.json"),
        },
        Agent::Codex => super::codex::config_path()?,
        Agent::Gemini { project: true } => cwd()?.join(".gemini/settings.json"),
        Agent::Gemini { project: false } => home()?.join(".gemini/settings.json"),
    })
}

fn refusal(path: &Path, had: Option<&str>, e: &McpConfigError) -> CliError {
    let (at, what) = match e {
        McpConfigError::Invalid {
            line,
            column,
            message,
        } => (
            format!(":{line}:{column}"),
            // serde_json's message ends with the place, said above already.
            format!(
                "not valid JSON: {}",
                message
                    .rsplit_once(" at line ")
                    .map_or(message.as_str(), |(m, _)| m)
            ),
        ),
        other => (String::new(), other.to_string()),
    };
    let commented = matches!(e, McpConfigError::Invalid { line, column, .. }
        if had.and_then(|t| t.lines().nth(line - 1))
            .and_then(|l| l.get(column.saturating_sub(1)..))
            .is_some_and(|rest| rest.starts_with("//") || rest.starts_with("/*")));
    let hint = match e {
        _ if commented => {
            "the agent reads comments in this file, cru's editor does not (it would lose \
             them): add the `cru` entry by hand (docs/mcp.md), or take the comments out"
        }
        McpConfigError::Customised { .. } => {
            "run again with --force to have cru's, or edit the entry by hand"
        }
        _ => "fix the file and run again",
    };
    CliError::new(format!(
        "{}{at}: {what}; nothing was written",
        path.display()
    ))
    .with_hint(hint)
}

/// The edit `mode` makes to `had` (the file's text, if any).
fn edited(
    agent: Agent,
    had: Option<&str>,
    (program, dir): (&str, Option<&str>),
    mode: Mode,
) -> Result<Edit, McpConfigError> {
    let force = mode == Mode::Force;
    match (agent, mode) {
        (Agent::Codex, Mode::Remove) => mcp_servers::remove_toml(had.unwrap_or("")),
        (_, Mode::Remove) => mcp_servers::remove_json(had),
        (Agent::Codex, _) => {
            let server = mcp_servers::entry(program, dir, false);
            let args: Vec<String> = server["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            mcp_servers::install_toml(had.unwrap_or(""), program, &args, force)
        }
        // Claude Code's entries name their transport; Gemini CLI's do not.
        (Agent::ClaudeCode { .. }, _) => {
            mcp_servers::install_json(had, &mcp_servers::entry(program, dir, true), force)
        }
        (Agent::Gemini { .. }, _) => {
            mcp_servers::install_json(had, &mcp_servers::entry(program, dir, false), force)
        }
    }
}

/// `dir`: the sessions directory the server is told to serve (`--dir`), if any.
pub fn run(agent: Agent, dir: Option<&str>, mode: Mode) -> anyhow::Result<Outcome> {
    let path = config_path(agent)?;
    let had = read(&path, "configuration file")?;
    let program = cru_program()?;
    let server = (program.as_str(), dir);
    let edit = edited(agent, had.as_deref(), server, mode)
        .map_err(|e| refusal(&path, had.as_deref(), &e))?;
    // What --force replaced is kept beside the first backup, which holds
    // the file as it was before cru ever changed it.
    let replaced = mode == Mode::Force
        && matches!(
            edited(agent, had.as_deref(), server, Mode::Install),
            Err(McpConfigError::Customised { .. })
        );
    if replaced && let (Some(old), Edit::Changed(_)) = (had.as_deref(), &edit) {
        let kept = replaced_backup(&path);
        crucible_core::store::atomic::write_atomic_mode(&kept, old.as_bytes(), 0o600)
            .map_err(|e| CliError::new(format!("{}: {e}", kept.display())))?;
        println!("the entry replaced is kept in {}", kept.display());
    }
    let (done, unchanged) = if mode == Mode::Remove {
        ("took cru's MCP server out of", "cru's MCP server is not in")
    } else {
        (
            "added cru's MCP server (`cru mcp`) to",
            "cru's MCP server is already in",
        )
    };
    apply(Change {
        path: &path,
        had: had.as_deref(),
        edit,
        done,
        unchanged,
        backup: mode != Mode::Remove,
    })?;
    Ok(Outcome::Success)
}

/// `<file>.bak-cru-replaced`: the file before --force replaced its entry.
fn replaced_backup(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak-cru-replaced");
    path.with_file_name(name)
}
