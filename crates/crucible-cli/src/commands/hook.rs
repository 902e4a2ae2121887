//! `cru hook claude-code` and `cru hook codex`: what an agent runs at each
//! event (installed by `cru setup`). A hook must never slow or break its
//! agent: it always exits 0 and prints nothing on stdout (Claude Code
//! reads a hook's stdout), even when cru fails; the failure goes to the
//! hook error log in the sessions directory, or, when that directory is
//! itself what is broken, to a fallback log in the user's state
//! directory (docs/recording.md, "Hooks").

mod claude_code;
mod codex;
pub(crate) mod failures;

use clap::{Args, Subcommand};

use crate::cli::GlobalArgs;
use crate::error::Outcome;

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Record one Claude Code hook event, read as JSON on stdin. Always exits 0, prints nothing.
    ClaudeCode(ClaudeCodeArgs),
    /// Record a Codex turn: Codex's notify JSON is the last argument. Always exits 0.
    Codex(CodexArgs),
}

#[derive(Debug, Args)]
pub struct ClaudeCodeArgs {
    /// A tool's input or result larger than this many bytes is kept whole
    /// in the session's sidecar and cut in the markdown.
    #[arg(long, value_name = "BYTES", default_value_t = crucible_capture::claude_code::DEFAULT_PAYLOAD_LIMIT)]
    pub payload_limit: usize,
}

#[derive(Debug, Args)]
pub struct CodexArgs {
    /// What Codex passes: the notification's JSON (the last one counts).
    #[arg(allow_hyphen_values = true, num_args = 0..)]
    pub payload: Vec<String>,
}

pub fn run(cmd: &HookCommand, global: &GlobalArgs) -> Outcome {
    // A panic, too, must not reach the agent as a failure.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match cmd {
        HookCommand::ClaudeCode(args) => claude_code::run(args, global),
        HookCommand::Codex(args) => codex::run(args, global),
    }));
    if ran.is_err() {
        let agent = match cmd {
            HookCommand::ClaudeCode(_) => crucible_capture::claude_code::AGENT,
            HookCommand::Codex(_) => crucible_capture::codex::AGENT,
        };
        failures::log(
            None,
            failures::Failure::new(agent, None, None, "cru panicked (see stderr)".into()),
        );
    }
    Outcome::Success
}
