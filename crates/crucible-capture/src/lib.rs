//! Live capture: what agents tell cru while they work, recorded into cru
//! sessions as it happens (issue 21; docs/recording.md, "Hooks").
//!
//! - [`claude_code`]: Claude Code's hook events ([`HookInput`], one JSON
//!   object per hook run) applied to the cru session of their
//!   `session_id`, through the store's journal (the path
//!   `cru session log` takes), with a small [`state`] per Claude Code
//!   session beside it (which cru session, the transcript offset reached,
//!   tool calls waiting for their result);
//! - [`codex`]: Codex's `notify` argument and the rollout it names;
//! - [`error_log`]: where a hook that failed says so (hooks never fail
//!   the agent), and the typed reader `cru doctor` shows them with;
//! - [`setup`]: the agents' settings that run the hooks, edited in place
//!   (Claude Code's `settings.json`, Codex's `config.toml`).
//!
//! Nothing here prints, reads the environment or the clock: the caller
//! passes the sessions directory, the time, the paths and the limits.

pub mod claude_code;
pub mod codex;
pub mod error_log;
mod event;
pub mod huge_strings;
mod payload;
pub mod setup;
pub mod state;

pub use claude_code::{Capture, CaptureError, CaptureOptions, Recorded};

/// The longest a hook run waits for a lock (its session's state, the
/// sessions directory's writer lock) before it gives up, the event
/// logged as lost: an agent waits on its hook, and a stuck cru must not
/// stall every tool call. Hook runs of one session take a few ms each, so
/// even hundreds of parallel tool calls are served within it.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
pub use event::{HookEvent, HookInput};
