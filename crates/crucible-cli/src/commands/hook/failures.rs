//! Where a failed hook run is told: the sessions directory's hook error
//! log; the user's state directory's when that one cannot be written
//! (`$XDG_STATE_HOME/crucible/`, else `~/.local/state/crucible/`); stderr
//! as the last resort. Never stdout.

use std::path::{Path, PathBuf};

use crucible_capture::error_log::{self, HookError};
use crucible_core::Timestamp;

/// One failure, before it is dated.
pub struct Failure(HookError);

impl Failure {
    pub fn new(agent: &str, event: Option<&str>, session_id: Option<&str>, error: String) -> Self {
        Self(HookError {
            at: Timestamp::now(),
            agent: agent.to_owned(),
            event: event.map(str::to_owned),
            session_id: session_id.map(str::to_owned),
            error,
        })
    }
}

/// The fallback log, under the user's state directory.
pub fn fallback_path() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let state = env("XDG_STATE_HOME").or_else(|| env("HOME").map(|h| h.join(".local/state")))?;
    Some(error_log::path_in(&state.join("crucible")))
}

/// Logs `failure` in `sessions`' error log, else the fallback, else stderr.
pub fn log(sessions: Option<&Path>, failure: Failure) {
    let entry = failure.0;
    let written = sessions
        .map(error_log::path_in)
        .is_some_and(|p| error_log::append(&p, &entry).is_ok())
        || fallback_path().is_some_and(|p| error_log::append(&p, &entry).is_ok());
    if !written {
        eprintln!("cru hook {}: {}", entry.agent, entry.error);
    }
}
