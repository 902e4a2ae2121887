//! `cru setup claude-code|codex|gemini --mcp`: cru's MCP server (`cru mcp`)
//! in the agent's MCP configuration; the rest of the file kept byte for
//! byte (crucible-capture's `setup::mcp_servers`), a backup beside it.

use std::path::{Path, PathBuf};

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

fn refusal(path: &Path, e: &McpConfigError) -> CliError {
    let at = match e {
        McpConfigError::Invalid { line, column, .. } => format!(":{line}:{column}"),
        _ => String::new(),
    };
    CliError::new(format!("{}{at}: {e}; nothing was written", path.display()))
        .with_hint("fix the file and run again")
}

/// `dir`: the sessions directory the server is told to serve (`--dir`), if any.
pub fn run(agent: Agent, dir: Option<&str>) -> anyhow::Result<Outcome> {
    let path = config_path(agent)?;
    let had = read(&path, "configuration file")?;
    let program = cru_program()?;
    let edit = match agent {
        Agent::Codex => {
            let server = mcp_servers::entry(&program, dir, false);
            let args: Vec<String> = server["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            mcp_servers::install_toml(had.as_deref().unwrap_or(""), &program, &args)
        }
        // Claude Code's entries name their transport; Gemini CLI's do not.
        Agent::ClaudeCode { .. } => {
            mcp_servers::install_json(had.as_deref(), &mcp_servers::entry(&program, dir, true))
        }
        Agent::Gemini { .. } => {
            mcp_servers::install_json(had.as_deref(), &mcp_servers::entry(&program, dir, false))
        }
    }
    .map_err(|e| refusal(&path, &e))?;
    apply(Change {
        path: &path,
        had: had.as_deref(),
        edit,
        done: "added cru's MCP server (`cru mcp`) to",
        unchanged: "cru's MCP server is already in",
        backup: true,
    })?;
    Ok(Outcome::Success)
}
