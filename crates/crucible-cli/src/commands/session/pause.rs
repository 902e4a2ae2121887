//! `cru session pause [<id>] [--at <phase-id>] [--idle]`.

use std::io::Write;

use clap::Args;
use crucible_core::{PhaseId, Recorder};

use super::log::session_query;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct PauseArgs {
    /// The session (default: $CRU_SESSION).
    #[arg(add = crate::complete::sessions(), env = "CRU_SESSION")]
    pub session: Option<String>,
    /// The phase to resume at (phase-N or N; default: the current phase).
    #[arg(long, value_name = "PHASE")]
    pub at: Option<PhaseId>,
    /// Instead: pause every active session idle for longer than
    /// [session] idle_timeout, and print their ids.
    #[arg(long, conflicts_with_all = ["session", "at"])]
    pub idle: bool,
}

pub fn run(ctx: &Context, args: &PauseArgs) -> anyhow::Result<Outcome> {
    if args.idle {
        // The index knows which sessions are active; only those are looked at.
        let paused = crucible_index::SessionIndex::new(&ctx.store)
            .open(Some(ctx.config.session.idle_timeout), &|_, _| {})
            .map_err(|e| CliError::new(e.to_string()))?
            .paused;
        let mut out = std::io::stdout().lock();
        for id in paused {
            writeln!(out, "{id}")?;
        }
        return Ok(Outcome::Success);
    }
    let query = session_query(
        args.session.as_deref(),
        "name the session: `cru session pause ID`",
    )?;
    pause(ctx, &query, args.at)?;
    Ok(Outcome::Success)
}

/// Pauses the session `query` names, at phase `at` (else its last).
pub fn pause(ctx: &Context, query: &str, at: Option<PhaseId>) -> Result<(), CliError> {
    let mut rec =
        Recorder::open(&ctx.store, query, &ctx.config.session, false).map_err(CliError::from)?;
    rec.pause(at).map_err(CliError::from)?;
    rec.close().map_err(CliError::from)
}
