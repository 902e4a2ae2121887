//! `cru`, the command line of Crucible workflow sessions.
//!
//! This crate is the thin layer over the library crates: the clap command
//! tree, finding the sessions directory and configuration from flags and the
//! environment, rendering results in each `--format`, and turning errors into
//! messages and exit codes. Domain decisions live in the library crates.

mod agent_backend;
mod cli;
mod commands;
mod complete;
mod context;
mod error;
mod in_order;
mod output_guard;
mod picker;
mod render;
mod workflow_stages;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

pub use cli::Cli;
pub use error::{CliError, Outcome};

/// The whole command tree, for generated docs and completions.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Runs `cru` with the process arguments and environment.
pub fn main() -> ExitCode {
    // `COMPLETE=<shell> cru ...`: the shell asking for completions; answered
    // and exited here, before anything else (see `complete`).
    clap_complete::CompleteEnv::with_factory(command).complete();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // An agent reads a hook's exit 2 as "block": a command line a
            // newer or older cru wrote in its settings must not stop it.
            if let Some(agent) = commands::hook::invoked_as_hook(std::env::args_os().skip(1))
                && e.use_stderr()
            {
                commands::hook::command_line_failed(&agent, &e);
                return ExitCode::SUCCESS;
            }
            e.exit()
        }
    };
    error::init_tracing(cli.global.verbose);
    let strict = cli.global.strict;
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(strict),
        Err(e) => error::report(&e),
    }
}
