//! Claude Code's hook events as they arrive on a hook's stdin (the hooks
//! reference, <https://code.claude.com/docs/en/hooks>, "Hook input";
//! fixtures/hooks/ holds one payload of each). Unknown fields are
//! ignored and an unknown event is [`HookEvent::Other`]: Claude Code adds
//! fields and events often, and a newer one must never make a hook fail.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

/// One hook run's input: the fields every event has, and the event.
#[derive(Debug, Clone, Deserialize)]
pub struct HookInput {
    pub session_id: String,
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(flatten)]
    pub event: HookEvent,
    /// Bytes of strings over [`crate::huge_strings::KEPT`] dropped before
    /// the input was parsed (their markers say where).
    #[serde(skip)]
    pub dropped: u64,
}

/// The event, by its `hook_event_name`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "hook_event_name")]
pub enum HookEvent {
    /// `source`: `startup`, `resume`, `clear` or `compact`.
    SessionStart {
        #[serde(default)]
        source: Option<String>,
        #[serde(default)]
        model: Option<String>,
    },
    UserPromptSubmit {
        #[serde(default)]
        prompt: String,
    },
    PreToolUse {
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
        #[serde(default)]
        tool_use_id: Option<String>,
    },
    PostToolUse {
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
        #[serde(default)]
        tool_response: Value,
        #[serde(default)]
        tool_use_id: Option<String>,
    },
    /// A tool call that failed (newer releases; older ones send
    /// `PostToolUse` with the error in `tool_response`).
    PostToolUseFailure {
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
        #[serde(default)]
        tool_use_id: Option<String>,
        #[serde(default)]
        error: Option<String>,
    },
    Stop {
        #[serde(default)]
        stop_hook_active: bool,
    },
    /// A subagent finished; `agent_id` and `agent_transcript_path` in
    /// newer releases.
    SubagentStop {
        #[serde(default)]
        agent_id: Option<String>,
        #[serde(default)]
        agent_type: Option<String>,
        #[serde(default)]
        agent_transcript_path: Option<PathBuf>,
        #[serde(default)]
        last_assistant_message: Option<String>,
    },
    /// `trigger`: `manual` (`/compact`) or `auto`.
    PreCompact {
        #[serde(default)]
        trigger: Option<String>,
        #[serde(default)]
        custom_instructions: Option<String>,
    },
    /// `reason`: `clear`, `logout`, `prompt_input_exit`, `other`, ...
    SessionEnd {
        #[serde(default)]
        reason: Option<String>,
    },
    Notification {
        #[serde(default)]
        message: Option<String>,
    },
    /// An event cru does not record (recorded nowhere, not an error).
    #[serde(other)]
    Other,
}

impl HookEvent {
    /// The event's name as Claude Code spells it (`Other` for the rest).
    pub fn name(&self) -> &'static str {
        match self {
            Self::SessionStart { .. } => "SessionStart",
            Self::UserPromptSubmit { .. } => "UserPromptSubmit",
            Self::PreToolUse { .. } => "PreToolUse",
            Self::PostToolUse { .. } => "PostToolUse",
            Self::PostToolUseFailure { .. } => "PostToolUseFailure",
            Self::Stop { .. } => "Stop",
            Self::SubagentStop { .. } => "SubagentStop",
            Self::PreCompact { .. } => "PreCompact",
            Self::SessionEnd { .. } => "SessionEnd",
            Self::Notification { .. } => "Notification",
            Self::Other => "Other",
        }
    }

    /// The events `cru setup claude-code` installs a hook for.
    pub const INSTALLED: [&'static str; 10] = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
        "Notification",
    ];
}

impl HookInput {
    /// Reads one hook input. A payload that is not one names the line and
    /// column serde stopped at.
    pub fn from_json(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        let capped = crate::huge_strings::cap(bytes, crate::huge_strings::KEPT);
        let (bytes, dropped) = capped
            .as_ref()
            .map_or((bytes, 0), |(b, d)| (b.as_slice(), *d));
        let mut input = Self::parse(bytes)?;
        input.dropped = dropped;
        Ok(input)
    }

    fn parse(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes).or_else(|e| {
            // Claude Code is JavaScript: a string cut mid-emoji reaches the
            // hook as a lone surrogate escape, which must not lose the event.
            std::str::from_utf8(bytes)
                .ok()
                .and_then(crucible_interop::json_text::mend_lone_surrogates)
                .map_or(Err(e), |mended| serde_json::from_str(&mended))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_events_are_no_error() {
        let i = HookInput::from_json(
            br#"{"session_id":"s","hook_event_name":"PermissionDenied","new_field":1}"#,
        )
        .unwrap();
        assert!(matches!(i.event, HookEvent::Other));
        let i = HookInput::from_json(
            br#"{"session_id":"s","hook_event_name":"Stop","stop_hook_active":true,"later":[1]}"#,
        )
        .unwrap();
        assert!(matches!(
            i.event,
            HookEvent::Stop {
                stop_hook_active: true
            }
        ));
        assert!(HookInput::from_json(br#"{"hook_event_name":"Stop"}"#).is_err());
    }
}
