//! `cru mcp [--read-only]`: cru as a Model Context Protocol server on
//! stdio, for agents (docs/mcp.md). The protocol is crucible-mcp's; the
//! answers are the session commands' own ([`backend`]).

mod backend;
mod nearest;
mod record;

use std::time::Duration;

use clap::Args;

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Offer no tool that writes (`record` is neither listed nor callable).
    #[arg(long)]
    pub read_only: bool,
    /// Check the sessions directory every SECS seconds, to tell the client
    /// when its list of sessions changed; 0 never checks.
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    pub poll: u64,
}

pub fn run(args: &McpArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let ctx = Context::load(global)?;
    // stdout is the protocol's: a word for the person who started it by
    // hand goes to stderr.
    eprintln!(
        "cru mcp: serving {} over stdio{}",
        ctx.store.dir().display(),
        if args.read_only { " (read-only)" } else { "" }
    );
    let options = crucible_mcp::Options {
        read_only: args.read_only,
        poll: (args.poll > 0).then(|| Duration::from_secs(args.poll)),
    };
    crucible_mcp::serve_stdio(backend::CliBackend::new(ctx), options)
        .map_err(|e| CliError::new(e.to_string()))?;
    Ok(Outcome::Success)
}
