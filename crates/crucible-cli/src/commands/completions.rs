//! `cru completions <shell> [--static]`.

use clap::Args;
use clap_complete::Shell;
use clap_complete::env::EnvCompleter;

use crate::error::Outcome;

/// Print the shell code that completes cru's commands, flags and session ids.
///
/// The code asks `cru` itself for candidates as you type (so session ids
/// of your sessions directory complete, with their titles), which is why it
/// is best loaded anew by each shell rather than saved to a file:
///
///   bash:  echo 'source <(cru completions bash)' >> ~/.bashrc
///   zsh:   echo 'source <(cru completions zsh)' >> ~/.zshrc
///   fish:  echo 'cru completions fish | source' >> ~/.config/fish/config.fish
///
/// (`source <(COMPLETE=bash cru)` is the same.) `--static` prints a script
/// that completes commands and flags only, without running cru, for
/// packagers.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
    /// A script that does not call cru: commands and flags, no session ids.
    #[arg(long = "static")]
    pub fixed: bool,
}

pub fn run(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut out = Vec::new();
    if args.fixed {
        let mut cmd = crate::command();
        clap_complete::generate(args.shell, &mut cmd, "cru", &mut out);
    } else {
        // The registration `COMPLETE=<shell> cru` prints, calling this very
        // binary (by its absolute path) for candidates.
        let exe = std::env::current_exe()?;
        let exe = exe.to_string_lossy();
        let shell: &dyn EnvCompleter = match args.shell {
            Shell::Bash => &clap_complete::env::Bash,
            Shell::Elvish => &clap_complete::env::Elvish,
            Shell::Fish => &clap_complete::env::Fish,
            Shell::PowerShell => &clap_complete::env::Powershell,
            Shell::Zsh => &clap_complete::env::Zsh,
            _ => anyhow::bail!("no dynamic completion for this shell; try --static"),
        };
        shell.write_registration("COMPLETE", "cru", "cru", &exe, &mut out)?;
    }
    std::io::Write::write_all(&mut std::io::stdout().lock(), &out)?;
    Ok(Outcome::Success)
}
