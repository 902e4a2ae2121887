//! `cru session end [<id>] --status completed|failed [--summary TEXT]`.

use clap::{Args, ValueEnum};
use crucible_core::{RecordError, Recorder, SessionStatus};

use super::log::session_query;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct EndArgs {
    /// The session (default: $CRU_SESSION).
    #[arg(add = crate::complete::sessions(), env = "CRU_SESSION")]
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
    end(ctx, &query, args.status, args.summary.as_deref())?;
    Ok(Outcome::Success)
}

/// Ends the session `query` names with `status` (and a summary).
pub fn end(
    ctx: &Context,
    query: &str,
    status: EndStatus,
    summary: Option<&str>,
) -> Result<(), CliError> {
    let status = match status {
        EndStatus::Completed => SessionStatus::Completed,
        EndStatus::Failed => SessionStatus::Failed,
    };
    // A session ends once. The status is checked when the session is opened
    // and again under the writers' lock when the end is written, so of two
    // racing `end`s (or an `end` and a `log`) exactly one order wins.
    let ended =
        Recorder::open(&ctx.store, query, &ctx.config.session, false).and_then(|mut rec| {
            rec.end(status, summary)?;
            rec.close()
        });
    match ended {
        Ok(()) => Ok(()),
        Err(RecordError::Ended { id, status }) => Err(CliError::new(format!(
            "session `{id}` already ended ({status}); a second end is refused"
        ))
        .with_hint(format!(
            "to go on with it, `cru session log --session {id} --reopen ...`, then end it again"
        ))),
        Err(e) => Err(CliError::from(e)),
    }
}
