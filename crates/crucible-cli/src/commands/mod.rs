//! One module per command group, one file per command.

pub mod completions;
pub mod pricing;
pub mod session;
pub mod usage;
pub mod watch;
pub mod workflow;

use crate::cli::{Cli, Command};
use crate::error::Outcome;

pub fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Session(cmd) => session::run(cmd, &cli.global),
        Command::Workflow(cmd) => workflow::run(cmd, &cli.global),
        Command::Usage(cmd) => usage::run(&cmd, &cli.global),
        Command::Pricing(cmd) => pricing::run(cmd, &cli.global),
        Command::Completions(args) => completions::run(&args),
        Command::Watch(args) => watch::run(&args, &cli.global),
    }
}
