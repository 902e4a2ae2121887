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

/// The agent named after `hook` when `args` (the process arguments, the
/// program left out) run `cru hook`: the first word that is not a flag,
/// past the global flags and `--dir`'s value. `Some("")` for a bare
/// `cru hook`.
pub fn invoked_as_hook(args: impl IntoIterator<Item = std::ffi::OsString>) -> Option<String> {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg.to_string_lossy().into_owned();
        if arg == "--dir" {
            args.next();
        } else if arg == "hook" {
            return Some(
                args.next()
                    .map_or_else(String::new, |a| a.to_string_lossy().into_owned()),
            );
        } else if !arg.starts_with('-') {
            return None;
        }
    }
    None
}

/// A `cru hook` whose command line did not parse: logged as a failure of
/// that agent's hook (the agent goes on; `cru doctor` shows it).
pub fn command_line_failed(agent: &str, error: &clap::Error) {
    let agent = if agent.is_empty() { "hook" } else { agent };
    let message = format!(
        "the hook's command line did not parse (is the cru in the agent's settings older or newer than the one that wrote them?): {}",
        error
            .render()
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
    );
    failures::log(None, failures::Failure::new(agent, None, None, message));
}

#[cfg(test)]
mod tests {
    use super::invoked_as_hook;

    fn hook(args: &[&str]) -> Option<String> {
        invoked_as_hook(args.iter().map(std::ffi::OsString::from))
    }

    #[test]
    fn a_hook_is_told_past_the_global_flags() {
        assert_eq!(
            hook(&["hook", "claude-code", "--bad"]).as_deref(),
            Some("claude-code")
        );
        assert_eq!(
            hook(&["--dir", "hook", "hook", "claude-kode"]).as_deref(),
            Some("claude-kode")
        );
        assert_eq!(hook(&["-v", "--dir=x", "hook"]).as_deref(), Some(""));
        assert_eq!(hook(&["session", "start", "--title", "hook"]), None);
        assert_eq!(hook(&["--bogus"]), None);
    }
}
