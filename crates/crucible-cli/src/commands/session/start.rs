//! `cru session start [--title T] [--channel C] [--agent name@ver] [--model M]
//! [--cwd DIR] [--prompt TEXT | --prompt-file FILE]`.

use std::io::{Read, Write};

use clap::Args;
use crucible_core::{AgentRef, Recorder, StartOptions};

use super::IdFormat;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct StartArgs {
    /// What the session is about; also gives the id its slug.
    #[arg(long)]
    pub title: Option<String>,
    /// The session's channel (e.g. dev, ops).
    #[arg(long)]
    pub channel: Option<String>,
    /// The agent doing the work, as name or name@version.
    #[arg(long, value_name = "NAME@VERSION")]
    pub agent: Option<AgentRef>,
    /// The primary model.
    #[arg(long)]
    pub model: Option<String>,
    /// The prompt the session starts from, kept exactly (a `prompt` block).
    #[arg(long, value_name = "TEXT", conflicts_with = "prompt_file")]
    pub prompt: Option<String>,
    /// Read the prompt from FILE (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    pub prompt_file: Option<std::path::PathBuf>,
    /// The directory the session works in, recorded as `cwd` with its
    /// project (the git root above it) [default: the current directory].
    /// For hooks that run elsewhere than the agent they record.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
    /// How to print the new session: its id, or JSON with id and path.
    #[arg(long, value_enum, default_value_t = IdFormat::Text)]
    pub format: IdFormat,
}

pub fn run(ctx: &Context, args: &StartArgs) -> anyhow::Result<Outcome> {
    let (id, path) = start(ctx, args)?;
    print_id(args.format, &id, &path)?;
    Ok(Outcome::Success)
}

/// Starts the session `args` describes: its id and file.
pub fn start(ctx: &Context, args: &StartArgs) -> anyhow::Result<(String, std::path::PathBuf)> {
    // Read before the file exists: a prompt that cannot be read leaves no
    // half-started session behind.
    let prompt = prompt_text(args)?;
    let cwd = working_dir(args.cwd.as_deref())?;
    let mut rec = Recorder::start(
        &ctx.store,
        &StartOptions {
            title: args.title.clone(),
            channel: args.channel.clone(),
            agent: args.agent.clone(),
            model: args.model.clone(),
            parent: None,
            cwd: Some(cwd),
        },
        &ctx.config.session,
    )
    .map_err(CliError::from)?;
    if let Some(text) = prompt.as_deref().filter(|t| !t.trim().is_empty()) {
        // The user's words before any phase are the prompt (`SessionLog::apply`).
        rec.user(text, None).map_err(CliError::from)?;
    }
    let started = (rec.id().as_str().to_owned(), rec.path().to_owned());
    rec.close().map_err(CliError::from)?;
    Ok(started)
}

/// `--cwd` made absolute, else the process's working directory: what the
/// session records as `cwd` (the library never reads it itself).
fn working_dir(flag: Option<&std::path::Path>) -> anyhow::Result<std::path::PathBuf> {
    let dir = match flag {
        Some(dir) => std::path::absolute(dir)
            .map_err(|e| CliError::usage(format!("--cwd {}: {e}", dir.display())))?,
        None => std::env::current_dir()
            .map_err(|e| CliError::new(format!("cannot read the working directory: {e}")))?,
    };
    Ok(dir)
}

/// The text of `--prompt` or `--prompt-file`.
fn prompt_text(args: &StartArgs) -> anyhow::Result<Option<String>> {
    if let Some(text) = &args.prompt {
        return Ok(Some(text.clone()));
    }
    let Some(path) = &args.prompt_file else {
        return Ok(None);
    };
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| CliError::new(format!("stdin: cannot read the prompt: {e}")))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| {
            CliError::new(format!("{}: cannot read the prompt: {e}", path.display()))
        })?
    };
    Ok(Some(text))
}

/// Prints a session's id (and path, as JSON): what `start` and `log subagent` answer.
pub fn print_id(format: IdFormat, id: &str, path: &std::path::Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match format {
        IdFormat::Text => writeln!(out, "{id}")?,
        IdFormat::Json => crate::render::output::created::print(id, path)?,
    }
    Ok(())
}
