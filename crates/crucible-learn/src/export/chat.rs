//! The chat shapes training tools read.
//!
//! SFT: `system`, a `user` turn with the task and what came before, the
//! agent's tool calls (`assistant` with `tool_calls`, each answered by a
//! `tool` message), then the turn that teaches: for a puzzle, the failure as
//! a `user` turn and the fix as the `assistant` answer; for a correction,
//! the user's exact words and the corrected behaviour. Roles alternate
//! (`tool` messages only right after the call they answer) and the last
//! message is always the assistant's.

use serde_json::{Value, json};

use crucible_core::ToolCall;

use crate::case::{Case, CaseBody};

/// The system message of a session that logged no system prompt.
const DEFAULT_SYSTEM: &str = "You are a coding agent working in a software repository. \
     Use tools to inspect and change files, and learn from failures and user corrections.";

fn system(case: &Case) -> String {
    case.system_prompt
        .clone()
        .unwrap_or_else(|| DEFAULT_SYSTEM.to_owned())
}

/// The first user turn: the task and the earlier phases.
fn opening(case: &Case) -> String {
    let mut s = format!("Task: {}", case.task);
    if !case.history.is_empty() {
        s.push_str("\n\nDone so far:\n");
        for h in &case.history {
            s.push_str(&format!("- {h}\n"));
        }
        s.truncate(s.trim_end().len());
    }
    s.push_str(&format!("\n\nNow: {}.", case.meta.phase));
    s
}

fn call_text(c: &ToolCall) -> String {
    let mut s = format!(
        "`{}{}{}`",
        c.tool,
        if c.args.is_empty() { "" } else { " " },
        c.args
    );
    match (&c.summary, c.failed) {
        (Some(r), true) => s.push_str(&format!(" → ✗ {r}")),
        (None, true) => s.push_str(" → ✗ failed"),
        (Some(r), false) => s.push_str(&format!(" → {r}")),
        (None, false) => {}
    }
    s
}

fn result_text(c: &ToolCall) -> String {
    match (&c.summary, c.failed) {
        (Some(r), true) => format!("error: {r}"),
        (None, true) => "error".into(),
        (Some(r), false) => r.clone(),
        (None, false) => "(no result recorded)".into(),
    }
}

/// The agent's tool calls as an assistant message and its tool results.
fn tool_turns(calls: &[ToolCall], content: Option<String>, tag: &str) -> Vec<Value> {
    if calls.is_empty() {
        return content
            .map(|c| vec![json!({"role": "assistant", "content": c})])
            .unwrap_or_default();
    }
    let ids: Vec<String> = (1..=calls.len())
        .map(|i| format!("call_{tag}{i}"))
        .collect();
    let tool_calls: Vec<Value> = calls
        .iter()
        .zip(&ids)
        .map(|(c, id)| {
            let arguments = if c.args.is_empty() {
                "{}".to_owned()
            } else {
                json!({"args": c.args}).to_string()
            };
            json!({"id": id, "type": "function", "function": {"name": c.tool, "arguments": arguments}})
        })
        .collect();
    let mut out = vec![json!({"role": "assistant", "content": content, "tool_calls": tool_calls})];
    for (c, id) in calls.iter().zip(&ids) {
        out.push(json!({"role": "tool", "tool_call_id": id, "content": result_text(c)}));
    }
    out
}

/// Appends a user turn, folding it into the previous one when that is a
/// user turn too (roles must alternate).
fn push_user(messages: &mut Vec<Value>, text: &str) {
    if let Some(last) = messages.last_mut()
        && last["role"] == "user"
    {
        let joined = format!("{}\n\n{text}", last["content"].as_str().unwrap_or(""));
        last["content"] = Value::String(joined);
        return;
    }
    messages.push(json!({"role": "user", "content": text}));
}

/// The corrected behaviour of a correction, as the assistant's answer.
fn corrected(body: &CaseBody) -> Option<String> {
    let CaseBody::Correction {
        interpretation,
        after_calls,
        after_text,
        ..
    } = body
    else {
        return None;
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(i) = interpretation {
        parts.push(i.trim().to_owned());
    }
    parts.extend(after_text.iter().cloned());
    if !after_calls.is_empty() {
        let lines: Vec<String> = after_calls
            .iter()
            .map(|c| format!("- {}", call_text(c)))
            .collect();
        parts.push(format!("Tool calls:\n{}", lines.join("\n")));
    }
    let text = parts.join("\n\n");
    (!text.trim().is_empty()).then_some(text)
}

/// The SFT messages of a case; `None` for an open puzzle or a correction
/// with nothing after it (no answer to learn).
pub fn sft_messages(case: &Case) -> Option<Vec<Value>> {
    let mut m = vec![
        json!({"role": "system", "content": system(case)}),
        json!({"role": "user", "content": opening(case)}),
    ];
    match &case.body {
        CaseBody::Puzzle {
            failure, expected, ..
        } => {
            let expected = expected.as_ref()?;
            m.extend(tool_turns(&case.actions, None, ""));
            push_user(
                &mut m,
                &format!("That failed: {}\nWhat should be done?", failure.trim()),
            );
            m.push(json!({"role": "assistant", "content": expected.trim()}));
        }
        CaseBody::Correction {
            user_words,
            before_text,
            ..
        } => {
            let answer = corrected(&case.body)?;
            let before = (!before_text.is_empty()).then(|| before_text.join("\n\n"));
            m.extend(tool_turns(&case.actions, before, ""));
            push_user(&mut m, user_words.trim());
            m.push(json!({"role": "assistant", "content": answer}));
        }
    }
    Some(m)
}

fn metadata(case: &Case) -> Value {
    serde_json::to_value(&case.meta).unwrap_or(Value::Null)
}

fn line(v: &Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}

/// One SFT line.
pub fn sft_line(case: &Case) -> Option<String> {
    let messages = sft_messages(case)?;
    Some(line(
        &json!({"messages": messages, "metadata": metadata(case)}),
    ))
}

/// What the agent did, as one text (the rejected side of a pair).
fn behaviour(case: &Case) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let CaseBody::Correction { before_text, .. } = &case.body {
        parts.extend(before_text.iter().cloned());
    }
    if !case.actions.is_empty() {
        let lines: Vec<String> = case
            .actions
            .iter()
            .map(|c| format!("- {}", call_text(c)))
            .collect();
        parts.push(format!("Tool calls:\n{}", lines.join("\n")));
    }
    if let CaseBody::Puzzle { failure, .. } = &case.body {
        parts.push(format!("(It failed: {})", failure.trim()));
    }
    let text = parts.join("\n\n");
    (!text.trim().is_empty()).then_some(text)
}

/// One DPO line: the prompt (system and task), the corrected behaviour as
/// chosen and what the agent did as rejected. Resolved puzzles pair the
/// failing steps with the fix.
pub fn dpo_line(case: &Case) -> Option<String> {
    let chosen = match &case.body {
        CaseBody::Puzzle { expected, .. } => expected.clone()?,
        CaseBody::Correction { .. } => corrected(&case.body)?,
    };
    let rejected = behaviour(case)?;
    let prompt = vec![
        json!({"role": "system", "content": system(case)}),
        json!({"role": "user", "content": opening(case)}),
    ];
    Some(line(&json!({
        "prompt": prompt,
        "chosen": [{"role": "assistant", "content": chosen.trim()}],
        "rejected": [{"role": "assistant", "content": rejected}],
        "metadata": metadata(case),
    })))
}

/// One ShareGPT line: the SFT conversation with tool calls and their
/// results written into the `gpt` turns.
pub fn sharegpt_line(case: &Case) -> Option<String> {
    let messages = sft_messages(case)?;
    let mut conv: Vec<Value> = Vec::new();
    let mut pending_calls: Vec<String> = Vec::new();
    for m in &messages {
        match m["role"].as_str().unwrap_or("") {
            "system" => conv.push(json!({"from": "system", "value": m["content"]})),
            "user" => conv.push(json!({"from": "human", "value": m["content"]})),
            "assistant" => {
                let mut text = m["content"].as_str().unwrap_or("").to_owned();
                if let Some(calls) = m["tool_calls"].as_array() {
                    pending_calls = calls
                        .iter()
                        .map(|c| {
                            let args: Value = serde_json::from_str(
                                c["function"]["arguments"].as_str().unwrap_or("{}"),
                            )
                            .unwrap_or(Value::Null);
                            let args = args["args"]
                                .as_str()
                                .map(|a| format!(" {a}"))
                                .unwrap_or_default();
                            format!("`{}{args}`", c["function"]["name"].as_str().unwrap_or(""))
                        })
                        .collect();
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str("Tool calls:");
                }
                conv.push(json!({"from": "gpt", "value": text}));
            }
            "tool" => {
                // Results go into the gpt turn that made the calls.
                let call = if pending_calls.is_empty() {
                    String::new()
                } else {
                    pending_calls.remove(0)
                };
                if let Some(last) = conv.last_mut() {
                    let v = format!(
                        "{}\n- {call} → {}",
                        last["value"].as_str().unwrap_or(""),
                        m["content"].as_str().unwrap_or("")
                    );
                    last["value"] = Value::String(v);
                }
            }
            _ => {}
        }
    }
    Some(line(
        &json!({"conversations": conv, "metadata": metadata(case)}),
    ))
}
