//! What a Claude session's payloads must leave in its cru session,
//! whatever order they really came in.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::PAYLOAD_LIMIT;
use super::logs::{Payload, event};

/// What the payloads of one Claude session must leave in its cru session,
/// whatever order they really came in.
#[derive(Debug, Default)]
pub(super) struct Expected {
    /// Tool names of the calls, each call once.
    pub(super) calls: BTreeMap<String, usize>,
    /// Calls announced with an id and never answered: recorded as failed
    /// once a Stop or SessionEnd closes their turn.
    pub(super) unanswered: usize,
    /// Calls whose inputs or result are over the payload limit, by id,
    /// with them: the sidecar must hold them whole.
    pub(super) large: BTreeMap<String, (Value, Value)>,
    pub(super) prompts: Vec<String>,
    /// `agent_id`s of the subagents that stopped.
    pub(super) agents: BTreeSet<String>,
    /// The answered calls' arguments as one line (`args_line`, what the
    /// markdown shows of them).
    pub(super) args: Vec<String>,
    /// Whether any event records something (a Notification or a
    /// SessionStart alone does not).
    pub(super) recorded: bool,
    /// By tool, the answered calls whose result has words in it: each
    /// must show a summary of its result.
    pub(super) with_result: BTreeMap<String, usize>,
}

impl Expected {
    pub(super) fn of(payloads: &[Payload]) -> Self {
        let mut exp = Self::default();
        let answered: BTreeSet<&str> = payloads
            .iter()
            .filter(|p| matches!(event(p), "PostToolUse" | "PostToolUseFailure"))
            .filter_map(|p| p["tool_use_id"].as_str())
            .collect();
        let closed = payloads
            .iter()
            .any(|p| matches!(event(p), "Stop" | "SessionEnd"));
        for p in payloads {
            // A SessionStart waits for the first prompt to name the session.
            exp.recorded |= !matches!(event(p), "Notification" | "SessionStart");
            let tool = p["tool_name"].as_str().unwrap_or("").to_owned();
            match event(p) {
                "UserPromptSubmit" => exp.prompts.push(p["prompt"].as_str().unwrap().to_owned()),
                "PostToolUse" | "PostToolUseFailure" => {
                    exp.args.push(crucible_core::args_line(&p["tool_input"]));
                    if has_words(&p["tool_response"]) || p["error"].is_string() {
                        *exp.with_result.entry(tool.clone()).or_default() += 1;
                    }
                    *exp.calls.entry(tool).or_default() += 1;
                    if let Some(id) = p["tool_use_id"].as_str().filter(|_| over_limit(p)) {
                        let whole = (p["tool_input"].clone(), p["tool_response"].clone());
                        exp.large.insert(id.to_owned(), whole);
                    }
                }
                "PreToolUse" => {
                    let id = p["tool_use_id"].as_str();
                    if closed && id.is_some_and(|id| !answered.contains(id)) {
                        *exp.calls.entry(tool).or_default() += 1;
                        exp.unanswered += 1;
                    }
                }
                "PreCompact" => *exp.calls.entry("compact".into()).or_default() += 1,
                "SubagentStop" => exp.agents.extend(p["agent_id"].as_str().map(str::to_owned)),
                _ => {}
            }
        }
        exp
    }
}

/// Whether a result's inputs or response are larger than the limit, as
/// the hook measures them (compact JSON; a string's own length).
fn over_limit(p: &Value) -> bool {
    let len = |v: &Value| match v {
        Value::String(s) => s.len(),
        Value::Null => 0,
        other => serde_json::to_vec(other).unwrap().len(),
    };
    let args = crucible_core::args_line(&p["tool_input"]).len();
    args > PAYLOAD_LIMIT || len(&p["tool_response"]) > PAYLOAD_LIMIT
}

/// Whether a tool's result says anything: a string with words, content
/// blocks of which one has text, any object.
fn has_words(response: &Value) -> bool {
    let words = |v: &Value| v.as_str().is_some_and(|s| !s.trim().is_empty());
    match response {
        Value::String(_) => words(response),
        Value::Array(parts) => parts.iter().any(|p| words(&p["text"])),
        Value::Object(_) => true,
        _ => false,
    }
}
