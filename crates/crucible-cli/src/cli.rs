//! The command tree.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands::session::SessionCommand;

/// Agent sessions kept as readable markdown: show, validate, and more.
#[derive(Debug, Parser)]
#[command(name = "cru", version, about, long_about = None, propagate_version = true)]
#[command(
    after_help = "The sessions directory is --dir, else $CRU_SESSIONS_DIR, else [session] dir \
in the config, else the nearest .crucible/sessions upward, else ~/.crucible/sessions."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// More log output on stderr (-v info, -vv debug, -vvv trace).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// The sessions directory (overrides $CRU_SESSIONS_DIR and the config).
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Fail (exit 1) when whole input files are skipped, instead of going
    /// on with a warning and exit 3. `import --strict` also refuses a source
    /// any of whose records is skipped.
    #[arg(long, global = true)]
    pub strict: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with sessions: record, resume, codify, list, stats, show, validate.
    #[command(subcommand)]
    Session(SessionCommand),
    /// Work with workflows: validate, show, refine, edit.
    #[command(subcommand)]
    Workflow(crate::commands::workflow::WorkflowCommand),
    /// Tokens and cost by day, week, month, session or billing block, as ccusage shows them.
    #[command(subcommand)]
    Usage(crate::commands::usage::UsageCommand),
    /// The price table cost is computed with: show it, or load a newer one.
    #[command(subcommand)]
    Pricing(crate::commands::pricing::PricingCommand),
    /// Print a shell completion script.
    #[command(
        after_long_help = "Turn completion on (session ids complete, with their titles):\n  bash:  echo 'source <(cru completions bash)' >> ~/.bashrc\n  zsh:   echo 'source <(cru completions zsh)' >> ~/.zshrc\n  fish:  echo 'cru completions fish | source' >> ~/.config/fish/config.fish\nthen open a new shell. `--static` prints a script that completes commands and flags only, without running cru, for packagers."
    )]
    Completions(crate::commands::completions::CompletionsArgs),
    /// What cru sees on this machine: the sessions directory and its indexes
    /// (exit 1 on a problem).
    Doctor(crate::commands::doctor::DoctorArgs),
    /// Write the sessions directory as a static site: a table of sessions
    /// that sorts and filters in the browser, a page per session; no server.
    #[command(
        after_long_help = "Exit status:\n  0  written\n  1  the directory is missing; the output folder holds files cru did not write (without --force); a --workflows folder that is not there; a page that cannot be written\n  2  a bad flag or filter value\n  3  written, but sessions (unreadable, or a second file with one id) or workflow files were left out"
    )]
    Site(crate::commands::site::SiteArgs),
    /// What agents run at each event to record into cru (installed by `cru setup`).
    #[command(subcommand)]
    Hook(crate::commands::hook::HookCommand),
    /// Make an agent record into cru by itself: install cru's hooks in its settings.
    #[command(subcommand)]
    Setup(crate::commands::setup::SetupCommand),
    /// Import agents' transcripts as they are written, and keep the indexes fresh.
    Watch(crate::commands::watch::WatchArgs),
    /// Serve cru to agents over the Model Context Protocol (stdio): search,
    /// list, show, resume and record sessions as tools.
    Mcp(crate::commands::mcp::McpArgs),
}
