//! `cru session ...`.

mod show;
mod validate;

use clap::Subcommand;

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::Outcome;

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Show a session: its metadata, phases, tool calls and callouts.
    Show(show::ShowArgs),
    /// Check session files against the format; exit 1 if any is invalid.
    Validate(validate::ValidateArgs),
}

pub fn run(cmd: SessionCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let ctx = Context::load(global)?;
    match cmd {
        SessionCommand::Show(args) => show::run(&ctx, &args),
        SessionCommand::Validate(args) => validate::run(&ctx, &args),
    }
}
