//! What training tools require of each JSONL line, checked: so that a file
//! cru writes loads without edits.
//!
//! - SFT (OpenAI fine-tuning, TRL, Axolotl `chat_template`): `messages` is a
//!   non-empty array; roles are `system` (first only), `user`, `assistant`,
//!   `tool`; after an optional system message, user and assistant turns
//!   alternate starting with user; `tool` messages follow the assistant
//!   message whose `tool_calls` they answer, one per call id, each id
//!   answered once; `function.arguments` is a JSON string; the last message
//!   is the assistant's; `content` is a string (null only beside tool calls).
//! - DPO (TRL, conversational): `prompt` a message list ending with a user
//!   turn; `chosen` and `rejected` one assistant message each, different.
//! - ShareGPT: `conversations` with `from` in system/human/gpt, human and
//!   gpt alternating, ending with gpt; every `value` a string.

use std::collections::HashSet;

use serde_json::Value;

use crate::export::Schema;

/// The first thing wrong with `line`, or `Ok`.
pub fn check_line(schema: Schema, line: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    match schema {
        Schema::Sft => check_messages(v.get("messages").ok_or("no `messages`")?, true),
        Schema::Dpo => {
            check_messages(v.get("prompt").ok_or("no `prompt`")?, false)?;
            let last = v["prompt"]
                .as_array()
                .and_then(|a| a.last())
                .ok_or("empty prompt")?;
            if last["role"] != "user" {
                return Err("the prompt must end with a user turn".into());
            }
            for side in ["chosen", "rejected"] {
                let m = v
                    .get(side)
                    .and_then(Value::as_array)
                    .ok_or(format!("no `{side}` list"))?;
                if m.len() != 1 || m[0]["role"] != "assistant" || !m[0]["content"].is_string() {
                    return Err(format!("`{side}` must be one assistant message with text"));
                }
            }
            if v["chosen"] == v["rejected"] {
                return Err("chosen and rejected are the same".into());
            }
            Ok(())
        }
        Schema::ShareGpt => {
            let conv = v
                .get("conversations")
                .and_then(Value::as_array)
                .ok_or("no `conversations` list")?;
            let mut expect_human = true;
            for (i, t) in conv.iter().enumerate() {
                let from = t["from"].as_str().ok_or(format!("turn {i}: no `from`"))?;
                if !t["value"].is_string() {
                    return Err(format!("turn {i}: `value` is not a string"));
                }
                match from {
                    "system" if i == 0 => {}
                    "human" if expect_human => expect_human = false,
                    "gpt" if !expect_human => expect_human = true,
                    other => return Err(format!("turn {i}: `{other}` out of turn")),
                }
            }
            if !expect_human {
                return Err("the conversation must end with gpt".into());
            }
            Ok(())
        }
    }
}

fn check_messages(m: &Value, must_end_with_assistant: bool) -> Result<(), String> {
    let list = m.as_array().ok_or("messages are not a list")?;
    if list.is_empty() {
        return Err("no messages".into());
    }
    let mut open_calls: HashSet<String> = HashSet::new();
    let mut last_turn: Option<&str> = None;
    for (i, msg) in list.iter().enumerate() {
        let role = msg["role"]
            .as_str()
            .ok_or(format!("message {i}: no role"))?;
        match role {
            "system" if i == 0 => {}
            "tool" => {
                let id = msg["tool_call_id"]
                    .as_str()
                    .ok_or(format!("message {i}: tool message without tool_call_id"))?;
                if !open_calls.remove(id) {
                    return Err(format!("message {i}: `{id}` answers no open tool call"));
                }
                if !msg["content"].is_string() {
                    return Err(format!("message {i}: tool content is not a string"));
                }
            }
            "user" | "assistant" => {
                if !open_calls.is_empty() {
                    return Err(format!("message {i}: tool calls left unanswered"));
                }
                if last_turn == Some(role) || (last_turn.is_none() && role != "user") {
                    return Err(format!("message {i}: `{role}` out of turn"));
                }
                last_turn = Some(role);
                let calls = msg.get("tool_calls").and_then(Value::as_array);
                match (&msg["content"], calls) {
                    (Value::String(_), _) | (Value::Null, Some(_)) => {}
                    _ => return Err(format!("message {i}: content must be text")),
                }
                for c in calls.into_iter().flatten() {
                    if role != "assistant" || c["type"] != "function" {
                        return Err(format!("message {i}: bad tool call"));
                    }
                    let args = c["function"]["arguments"]
                        .as_str()
                        .ok_or(format!("message {i}: arguments are not a string"))?;
                    serde_json::from_str::<Value>(args)
                        .map_err(|e| format!("message {i}: arguments are not JSON: {e}"))?;
                    let id = c["id"]
                        .as_str()
                        .ok_or(format!("message {i}: call without id"))?;
                    if !open_calls.insert(id.to_owned()) {
                        return Err(format!("message {i}: call id `{id}` repeated"));
                    }
                }
            }
            other => return Err(format!("message {i}: role `{other}` not allowed here")),
        }
    }
    if !open_calls.is_empty() {
        return Err("tool calls left unanswered at the end".into());
    }
    if must_end_with_assistant && last_turn != Some("assistant") {
        return Err("the last turn must be the assistant's".into());
    }
    if !must_end_with_assistant && last_turn.is_none() {
        return Err("no user turn".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catches_what_trainers_reject() {
        let ok = r#"{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"},{"role":"user","content":"u2"},{"role":"assistant","content":"x"}]}"#;
        assert_eq!(check_line(Schema::Sft, ok), Ok(()));
        let two_users = r#"{"messages":[{"role":"user","content":"u"},{"role":"user","content":"u"},{"role":"assistant","content":"x"}]}"#;
        assert!(
            check_line(Schema::Sft, two_users)
                .unwrap_err()
                .contains("out of turn")
        );
        let orphan = r#"{"messages":[{"role":"user","content":"u"},{"role":"tool","tool_call_id":"z","content":"r"},{"role":"assistant","content":"x"}]}"#;
        assert!(
            check_line(Schema::Sft, orphan)
                .unwrap_err()
                .contains("answers no open")
        );
        let ends_user = r#"{"messages":[{"role":"user","content":"u"}]}"#;
        assert!(check_line(Schema::Sft, ends_user).is_err());
        let share =
            r#"{"conversations":[{"from":"human","value":"a"},{"from":"gpt","value":"b"}]}"#;
        assert_eq!(check_line(Schema::ShareGpt, share), Ok(()));
        let dpo = r#"{"prompt":[{"role":"user","content":"p"}],"chosen":[{"role":"assistant","content":"a"}],"rejected":[{"role":"assistant","content":"a"}]}"#;
        assert!(check_line(Schema::Dpo, dpo).unwrap_err().contains("same"));
    }
}
