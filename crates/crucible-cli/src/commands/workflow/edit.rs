//! `cru workflow edit FILE`: open it in $VISUAL/$EDITOR, validate on save,
//! reopen with the errors on top while it is invalid, save when valid.

use std::path::PathBuf;

use clap::Args;

use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The workflow to edit.
    pub file: PathBuf,
}

pub fn run(args: &EditArgs) -> anyhow::Result<Outcome> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::new(format!("{}: cannot read: {e}", args.file.display())))?;
    match crate::workflow_stages::review(&text, &args.file.display().to_string())? {
        Some(edited) => {
            crate::workflow_stages::write_file(&args.file, &edited, true)?;
            eprintln!("saved {}", args.file.display());
            Ok(Outcome::Success)
        }
        None => Ok(Outcome::Success),
    }
}
