//! `PreToolUse`, `PostToolUse` and `PostToolUseFailure`: a call waits in
//! the state from its announcement to its result (matched by
//! `tool_use_id`, so parallel calls may finish in any order), and is
//! recorded once, whole, when the result comes.

use serde_json::Value;

use crucible_core::{CallData, SessionCodec, SessionEvent, args_line};

use super::Turn;
use crate::event::HookEvent;
use crate::payload::{cut_to, json_len};
use crate::state::{PendingCall, SessionState};

/// What a call that never got its result says.
const NO_RESULT: &str = "no result (denied or interrupted)";

impl<C: SessionCodec> Turn<'_, C> {
    pub(super) fn tool_event(&mut self, state: &mut SessionState) {
        let input = self.input;
        match &input.event {
            HookEvent::PreToolUse {
                tool_name,
                tool_input,
                tool_use_id: Some(id),
            } if !state.answered.contains(id) => {
                let (args, _) = cut_to(&args_line(tool_input), self.options.payload_limit);
                state.pending.insert(
                    id.clone(),
                    PendingCall {
                        tool: tool_name.clone(),
                        args,
                    },
                );
            }
            HookEvent::PostToolUse {
                tool_name,
                tool_input,
                tool_response,
                tool_use_id,
            } => {
                let failed = response_failed(tool_response);
                let summary = response_text(tool_response);
                self.call(
                    state,
                    tool_name,
                    tool_input,
                    tool_response,
                    tool_use_id.as_deref(),
                    &summary,
                    failed,
                );
            }
            HookEvent::PostToolUseFailure {
                tool_name,
                tool_input,
                tool_use_id,
                error,
            } => {
                let error = error.clone().unwrap_or_else(|| "failed".into());
                let response = Value::String(error.clone());
                self.call(
                    state,
                    tool_name,
                    tool_input,
                    &response,
                    tool_use_id.as_deref(),
                    &error,
                    true,
                );
            }
            _ => {}
        }
    }

    /// Records one answered call; its inputs or result over the limit go
    /// whole to the sidecar, pointed at the call.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        state: &mut SessionState,
        tool: &str,
        input: &Value,
        response: &Value,
        id: Option<&str>,
        summary: &str,
        failed: bool,
    ) {
        if let Some(id) = id {
            if state.answered.iter().any(|a| a == id) {
                return;
            }
            state.pending.remove(id);
            if state.answered.len() == crate::state::ANSWERED_KEPT {
                state.answered.pop_front();
            }
            state.answered.push_back(id.to_owned());
        }
        let limit = self.options.payload_limit;
        let (args, args_cut) = cut_to(&args_line(input), limit);
        let result_len = json_len(response);
        // What the hook dropped of a huge input before parsing it.
        let dropped = usize::try_from(self.input.dropped).unwrap_or(usize::MAX);
        let large = args_cut || result_len > limit;
        // The summary is a line of the result; a result too large for the
        // markdown says where the whole of it is.
        let summary = if result_len > limit {
            // Cut first so that the marker is what the summary ends with
            // (the summary line is cut at a hundred characters).
            let marker = if dropped > 0 {
                crate::payload::partly_kept_marker(result_len.saturating_add(dropped), result_len)
            } else {
                crate::payload::cut_marker(result_len)
            };
            let room = crucible_core::session::SUMMARY_LIMIT.saturating_sub(marker.chars().count());
            format!(
                "{}{marker}",
                crucible_core::session::summary_line(summary, room)
            )
        } else {
            summary.to_owned()
        };
        self.push(
            state,
            SessionEvent::tool(
                tool,
                &args,
                Some(summary.as_str()).filter(|s| !s.is_empty()),
                failed,
            ),
        );
        if large {
            self.calls.push(CallData {
                phase: state.phases - 1,
                call: state.calls - 1,
                tool: tool.split_whitespace().collect::<Vec<_>>().join("_"),
                id: id.map(str::to_owned),
                arguments: Some(input.clone()),
                result: Some(response.clone()),
                ..CallData::default()
            });
        }
    }

    /// Calls announced and never answered (the user denied them, or
    /// interrupted the turn): recorded as failed when the turn ends.
    pub(super) fn unanswered(&mut self, state: &mut SessionState) {
        for (_, call) in std::mem::take(&mut state.pending) {
            self.push(
                state,
                SessionEvent::tool(&call.tool, &call.args, Some(NO_RESULT), true),
            );
        }
    }
}

/// Whether a `tool_response` says the call failed: `is_error`, a shell's
/// interruption, or a non-zero exit code.
fn response_failed(r: &Value) -> bool {
    let flag = |k: &str| r.get(k).and_then(Value::as_bool) == Some(true);
    flag("is_error")
        || flag("interrupted")
        || r.get("exit_code")
            .or_else(|| r.get("exitCode"))
            .and_then(Value::as_i64)
            .is_some_and(|c| c != 0)
}

/// The text a result is summarised from: a string as it is; a shell's
/// stdout (else stderr); a `content` or `output` text; a file read's
/// content; else the compact JSON.
fn response_text(r: &Value) -> String {
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
    };
    match r {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| text(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => text(r, "stdout")
            .or_else(|| text(r, "stderr"))
            .or_else(|| text(r, "content"))
            .or_else(|| text(r, "output"))
            .or_else(|| r.get("file").and_then(|f| text(f, "content")))
            .unwrap_or_else(|| r.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_summarised_from_the_field_that_says_most() {
        assert_eq!(response_text(&json!({"stdout": "ok", "stderr": ""})), "ok");
        assert_eq!(
            response_text(&json!({"stdout": "", "stderr": "boom"})),
            "boom"
        );
        assert_eq!(
            response_text(&json!({"file": {"content": "fn main"}})),
            "fn main"
        );
        assert_eq!(response_text(&json!([{"type": "text", "text": "a"}])), "a");
        assert!(response_failed(&json!({"is_error": true})));
        assert!(response_failed(&json!({"interrupted": true})));
        assert!(!response_failed(
            &json!({"stdout": "x", "interrupted": false})
        ));
    }
}
