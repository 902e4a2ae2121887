//! `cru workflow ...`: workflow documents (the markup `cru session codify`
//! writes): check them, show them, refine them with an agent, edit them.

mod edit;
pub mod json;
mod refine;
pub mod show;
mod validate;

use std::path::Path;

use clap::Subcommand;
use crucible_parser::workflow::CheckedWorkflow;

use crate::cli::GlobalArgs;
use crate::error::{CliError, Outcome};

/// The exit status of each command (the rule is in docs/cli.md): shown by
/// `cru workflow X --help` and generated into docs/cli.md.
mod exit_status {
    pub const VALIDATE: &str = "Exit status:\n  0  every workflow valid\n  1  a workflow invalid or unreadable\n  2  a bad flag\n  3  every workflow valid, but entries of a folder named were skipped (FIFOs, links out of it or to folders)";
    pub const SHOW: &str = "Exit status:\n  0  shown\n  1  the workflow unreadable, or invalid (shown all the same, its errors on stderr)\n  2  a bad flag";
    pub const REFINE: &str = "Exit status:\n  0  refined and saved\n  1  a workflow invalid or unreadable; the agent failed; a refinement rejected (the original kept)\n  2  a bad flag";
    pub const EDIT: &str = "Exit status:\n  0  saved, or left as it was when the edit was given up\n  1  the file cannot be read or written; the editor failed\n  2  a bad flag";
}

#[derive(Debug, Subcommand)]
pub enum WorkflowCommand {
    /// Check workflow files: `file:line:col: message` per problem; exit 1 on errors.
    #[command(after_long_help = exit_status::VALIDATE)]
    Validate(validate::ValidateArgs),
    /// Steps in run order with agents, channels, inputs, outputs and run history.
    #[command(after_long_help = exit_status::SHOW)]
    Show(show::ShowArgs),
    /// Have the agent backend clean a workflow up; keep it only if it validates.
    #[command(after_long_help = exit_status::REFINE)]
    Refine(refine::RefineArgs),
    /// Edit a workflow in $VISUAL/$EDITOR until it validates, then save it.
    #[command(after_long_help = exit_status::EDIT)]
    Edit(edit::EditArgs),
}

pub fn run(cmd: WorkflowCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match cmd {
        WorkflowCommand::Validate(args) => validate::run(&args),
        WorkflowCommand::Show(args) => show::run(&args),
        WorkflowCommand::Refine(args) => refine::run(&args, global),
        WorkflowCommand::Edit(args) => edit::run(&args),
    }
}

/// Reads and checks a workflow file; a file that cannot be read is an error.
pub fn read(path: &Path) -> Result<CheckedWorkflow, CliError> {
    let bytes = crucible_core::store::safe_file::read_regular(
        path,
        crucible_core::store::DEFAULT_MAX_FILE_BYTES,
    )
    .map_err(|e| match e {
        crucible_core::store::UnsafeFile::Io { source, .. } => {
            CliError::new(format!("{}: cannot read: {source}", path.display()))
        }
        other => CliError::new(other.to_string()),
    })?;
    Ok(check(&bytes))
}

/// Reads and links a workflow document, and checks that it is one at all
/// (workflow frontmatter or a step): every command that takes a workflow
/// goes through here.
pub fn check(bytes: &[u8]) -> CheckedWorkflow {
    crucible_parser::workflow::check_document(bytes)
}

/// `file:line:col: error: message` lines for a checked workflow.
pub fn problem_lines(path: &Path, checked: &CheckedWorkflow) -> Vec<String> {
    checked
        .problems
        .iter()
        .map(|p| format!("{}:{p}", path.display()))
        .collect()
}
