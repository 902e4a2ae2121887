//! What a replayed run did, from the agent's reply. A program agent may
//! print plain text (the result, no tool calls known), or JSON:
//!
//! - `{"result": "...", "tool_calls": [{"name": "grep", "arguments": {...}}], "tokens": 812}`
//!   (`arguments` an object or a JSON string; `{"function": {...}}` as in
//!   the OpenAI API works too), or
//! - a chat-completions message array (what agent.log holds): the tool
//!   calls of its assistant messages, with the results their `tool`
//!   messages give, and the last assistant text as the result.

use serde_json::Value;

use crucible_core::{ToolCall, args_line, summary_line};

use crate::Actual;

fn call_of(v: &Value) -> Option<(ToolCall, Option<String>)> {
    let f = v.get("function").unwrap_or(v);
    let name = f.get("name").and_then(Value::as_str)?;
    let call = ToolCall::new(
        name.split_whitespace().collect::<Vec<_>>().join("_"),
        args_line(f.get("arguments").unwrap_or(&Value::Null)),
    );
    Some((call, v.get("id").and_then(Value::as_str).map(str::to_owned)))
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The run's calls and result from the agent's reply `reply`.
pub fn run_output(reply: &str) -> Actual {
    let t = reply.trim();
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(o)) if o.contains_key("result") || o.contains_key("tool_calls") => {
            let calls = o
                .get("tool_calls")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(call_of).map(|(c, _)| c).collect())
                .unwrap_or_default();
            Actual {
                calls,
                result: text(o.get("result")),
                tokens: o.get("tokens").and_then(Value::as_u64),
                duration_ms: None,
            }
        }
        Ok(Value::Array(messages)) if messages.iter().all(|m| m.get("role").is_some()) => {
            let mut calls: Vec<(ToolCall, Option<String>)> = Vec::new();
            let mut result = String::new();
            for m in &messages {
                match m.get("role").and_then(Value::as_str) {
                    Some("assistant") => {
                        let said = text(m.get("content"));
                        if !said.trim().is_empty() {
                            result = said;
                        }
                        if let Some(a) = m.get("tool_calls").and_then(Value::as_array) {
                            calls.extend(a.iter().filter_map(call_of));
                        }
                    }
                    Some("tool") => {
                        let id = m.get("tool_call_id").and_then(Value::as_str);
                        let out = text(m.get("content"));
                        if let Some((c, _)) = calls.iter_mut().find(|(_, i)| i.as_deref() == id) {
                            c.summary =
                                Some(summary_line(out.trim(), crucible_core::SUMMARY_LIMIT))
                                    .filter(|s| !s.is_empty());
                        }
                    }
                    _ => {}
                }
            }
            Actual {
                calls: calls.into_iter().map(|(c, _)| c).collect(),
                result: result.trim().to_owned(),
                tokens: None,
                duration_ms: None,
            }
        }
        _ => Actual {
            calls: Vec::new(),
            result: t.to_owned(),
            tokens: None,
            duration_ms: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_text_a_result_object_and_a_message_array() {
        let a = run_output("Just words.\n");
        assert_eq!((a.result.as_str(), a.calls.len()), ("Just words.", 0));
        let a = run_output(
            r#"{"result": "7 TODOs", "tokens": 90, "tool_calls": [
                {"name": "grep", "arguments": {"pattern": "TODO"}},
                {"function": {"name": "run", "arguments": "{\"command\": \"git blame x\"}"}}]}"#,
        );
        assert_eq!(a.result, "7 TODOs");
        assert_eq!(a.tokens, Some(90));
        assert_eq!(a.tool_names(), ["grep", "run"]);
        assert_eq!(a.calls[1].args, "git blame x");
        let a = run_output(
            r#"[{"role": "user", "content": "count"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\": \"TODO\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "3 lines"},
                {"role": "assistant", "content": "There are 3."}]"#,
        );
        assert_eq!(a.result, "There are 3.");
        assert_eq!(a.calls[0].summary.as_deref(), Some("3 lines"));
        // JSON that is neither is text.
        assert_eq!(run_output("[1, 2]").result, "[1, 2]");
    }
}
