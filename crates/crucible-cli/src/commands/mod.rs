//! One module per command group, one file per command.

pub mod completions;
pub mod doctor;
pub mod hook;
pub mod mcp;
pub mod pricing;
pub mod session;
pub mod setup;
pub mod site;
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
        Command::Doctor(args) => doctor::run(&crate::context::Context::load(&cli.global)?, &args),
        Command::Site(args) => site::run(&crate::context::Context::load(&cli.global)?, &args),
        Command::Hook(cmd) => Ok(hook::run(&cmd, &cli.global)),
        Command::Setup(cmd) => setup::run(&cmd, &cli.global),
        Command::Watch(args) => watch::run(&args, &cli.global),
        Command::Mcp(args) => mcp::run(&args, &cli.global),
    }
}
