//! `cru session start [--title T] [--channel C] [--agent name@ver] [--model M]`.

use std::io::Write;

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
    /// How to print the new session: its id, or JSON with id and path.
    #[arg(long, value_enum, default_value_t = IdFormat::Text)]
    pub format: IdFormat,
}

pub fn run(ctx: &Context, args: &StartArgs) -> anyhow::Result<Outcome> {
    let rec = Recorder::start(
        &ctx.store,
        &StartOptions {
            title: args.title.clone(),
            channel: args.channel.clone(),
            agent: args.agent.clone(),
            model: args.model.clone(),
            parent: None,
        },
        &ctx.config.session,
    )
    .map_err(CliError::from)?;
    print_id(args.format, rec.id().as_str(), rec.path())?;
    rec.close().map_err(CliError::from)?;
    Ok(Outcome::Success)
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
