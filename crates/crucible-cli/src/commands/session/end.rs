//! `cru session end [<id>] --status completed|failed [--summary TEXT]`.

use clap::{Args, ValueEnum};
use crucible_core::{Recorder, SessionStatus};

use super::log::session_query;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct EndArgs {
    /// The session (default: $CRU_SESSION).
    #[arg(env = "CRU_SESSION")]
    pub session: Option<String>,
    /// How it ended.
    #[arg(long, value_enum, default_value_t = EndStatus::Completed)]
    pub status: EndStatus,
    /// What was done. A subagent's summary goes to its parent's callout; a
    /// top-level session gets a `## Summary` section.
    #[arg(long)]
    pub summary: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EndStatus {
    Completed,
    Failed,
}

pub fn run(ctx: &Context, args: &EndArgs) -> anyhow::Result<Outcome> {
    let query = session_query(
        args.session.as_deref(),
        "name the session: `cru session end ID`",
    )?;
    // Ending an ended session again is allowed: it corrects the status.
    let mut rec =
        Recorder::open(&ctx.store, &query, &ctx.config.session, true).map_err(CliError::from)?;
    let status = match args.status {
        EndStatus::Completed => SessionStatus::Completed,
        EndStatus::Failed => SessionStatus::Failed,
    };
    rec.end(status, args.summary.as_deref())
        .map_err(CliError::from)?;
    rec.close().map_err(CliError::from)?;
    Ok(Outcome::Success)
}
