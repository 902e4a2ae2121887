//! `cru completions <shell>`.

use clap::Args;
use clap_complete::Shell;

use crate::error::Outcome;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut cmd = crate::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "cru", &mut out);
    std::io::Write::write_all(&mut std::io::stdout().lock(), &out)?;
    Ok(Outcome::Success)
}
