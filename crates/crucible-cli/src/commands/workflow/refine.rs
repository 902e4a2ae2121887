//! `cru workflow refine FILE [--output FILE] [--agent-cmd CMD]`: the agent
//! cleans up an existing workflow; its reply is kept only if it validates
//! and keeps every step and execution row, else it is saved beside the file
//! as `<stem>.refine-rejected.md` (exit 1).

use std::path::PathBuf;

use clap::Args;

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::workflow_stages::Refined;

#[derive(Debug, Args)]
pub struct RefineArgs {
    /// The workflow to refine.
    pub file: PathBuf,
    /// Where to write the result (default: the file itself, in place).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The agent: a command run with `sh -c`, as `cru session resume` takes it.
    #[arg(long, value_name = "CMD")]
    pub agent_cmd: Option<String>,
}

pub fn run(args: &RefineArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let ctx = Context::load(global)?;
    let checked = super::read(&args.file)?;
    if checked.has_errors() {
        for line in super::problem_lines(&args.file, &checked) {
            eprintln!("{line}");
        }
        return Err(CliError::new(format!(
            "{} is not a valid workflow; fix it first (`cru workflow edit`)",
            args.file.display()
        ))
        .into());
    }
    let original = std::fs::read_to_string(&args.file)?;
    let refined = crate::workflow_stages::refine(&ctx, args.agent_cmd.as_deref(), &original, None)?;
    let out = args.output.clone().unwrap_or_else(|| args.file.clone());
    match refined {
        Refined::Accepted(text) => {
            crate::workflow_stages::write_file(&out, &text, true)?;
            eprintln!("refined workflow written to {}", out.display());
            Ok(Outcome::Success)
        }
        Refined::Rejected { reply, reasons } => {
            crate::workflow_stages::save_rejected(&args.file, &reply, &reasons)?;
            eprintln!("{} is unchanged", args.file.display());
            Ok(Outcome::Failure)
        }
    }
}
