//! `cru workflow ...`: workflow documents (the markup `cru session codify`
//! writes): check them, show them, refine them with an agent, edit them.

mod edit;
pub mod json;
mod refine;
pub mod show;
mod validate;

use std::path::Path;

use clap::Subcommand;
use crucible_parser::workflow::{CheckedWorkflow, check_workflow};

use crate::cli::GlobalArgs;
use crate::error::{CliError, Outcome};

#[derive(Debug, Subcommand)]
pub enum WorkflowCommand {
    /// Check workflow files: `file:line:col: message` per problem; exit 1 on errors.
    Validate(validate::ValidateArgs),
    /// Steps in run order with agents, channels, inputs, outputs and run history.
    Show(show::ShowArgs),
    /// Have the agent backend clean a workflow up; keep it only if it validates.
    Refine(refine::RefineArgs),
    /// Edit a workflow in $VISUAL/$EDITOR until it validates, then save it.
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
    let mut checked = check_workflow(bytes);
    let text = String::from_utf8_lossy(bytes);
    let missing = crucible_parser::workflow::document_problems(&checked.workflow, &text);
    if !missing.is_empty() {
        checked.problems.extend(missing);
        checked.problems.sort_by_key(|p| (p.line, p.column));
    }
    checked
}

/// `file:line:col: error: message` lines for a checked workflow.
pub fn problem_lines(path: &Path, checked: &CheckedWorkflow) -> Vec<String> {
    checked
        .problems
        .iter()
        .map(|p| format!("{}:{p}", path.display()))
        .collect()
}
