//! The chat shapes training tools read.
//!
//! SFT: `system`, a `user` turn with the task and what came before, the
//! agent's tool calls (`assistant` with `tool_calls`, each answered by a
//! `tool` message), then the turn that teaches: for a puzzle, the failure as
//! a `user` turn and the fix as the `assistant` answer; for a correction,
//! the user's exact words and the corrected behaviour. Roles alternate
//! (`tool` messages only right after the call they answer) and the last
//! message is always the assistant's.

use serde::Serialize;
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

/// One chat message, serialized as the chat-completions format has it
/// (typed rather than a `Value` tree: the export writes a great many).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Msg {
    role: &'static str,
    /// Text; `null` only beside tool calls.
    content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<CallJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
}

impl Msg {
    fn text(role: &'static str, content: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(content.into()),
            tool_calls: None,
            tool_call_id: None,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct CallJson {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionJson,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FunctionJson {
    name: String,
    /// A JSON object, as a string (the format's choice).
    arguments: String,
}

/// The agent's tool calls as an assistant message and its tool results.
fn tool_turns(calls: &[ToolCall], content: Option<String>) -> Vec<Msg> {
    if calls.is_empty() {
        return content
            .map(|c| vec![Msg::text("assistant", c)])
            .unwrap_or_default();
    }
    let ids: Vec<String> = (1..=calls.len()).map(|i| format!("call_{i}")).collect();
    let tool_calls: Vec<CallJson> = calls
        .iter()
        .zip(&ids)
        .map(|(c, id)| CallJson {
            id: id.clone(),
            kind: "function",
            function: FunctionJson {
                name: c.tool.clone(),
                arguments: if c.args.is_empty() {
                    "{}".to_owned()
                } else {
                    json!({"args": c.args}).to_string()
                },
            },
        })
        .collect();
    let mut out = vec![Msg {
        role: "assistant",
        content,
        tool_calls: Some(tool_calls),
        tool_call_id: None,
    }];
    for (c, id) in calls.iter().zip(ids) {
        out.push(Msg {
            role: "tool",
            content: Some(c.result_message()),
            tool_calls: None,
            tool_call_id: Some(id),
        });
    }
    out
}

/// Appends a user turn, folding it into the previous one when that is a
/// user turn too (roles must alternate).
fn push_user(messages: &mut Vec<Msg>, text: &str) {
    if let Some(last) = messages.last_mut()
        && last.role == "user"
    {
        let prev = last.content.take().unwrap_or_default();
        last.content = Some(format!("{prev}\n\n{text}"));
        return;
    }
    messages.push(Msg::text("user", text));
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
            .map(|c| format!("- {}", c.one_line()))
            .collect();
        parts.push(format!("Tool calls:\n{}", lines.join("\n")));
    }
    let text = parts.join("\n\n");
    (!text.trim().is_empty()).then_some(text)
}

/// The SFT messages of a case; `None` for an open puzzle or a correction
/// with nothing after it (no answer to learn).
pub(crate) fn sft_messages(case: &Case) -> Option<Vec<Msg>> {
    let mut m = vec![
        Msg::text("system", system(case)),
        Msg::text("user", opening(case)),
    ];
    match &case.body {
        CaseBody::Puzzle {
            failure, expected, ..
        } => {
            let expected = expected.as_ref()?;
            m.extend(tool_turns(&case.actions, None));
            push_user(
                &mut m,
                &format!("That failed: {}\nWhat should be done?", failure.trim()),
            );
            m.push(Msg::text("assistant", expected.trim()));
        }
        CaseBody::Correction {
            user_words,
            before_text,
            ..
        } => {
            let answer = corrected(&case.body)?;
            let before = (!before_text.is_empty()).then(|| before_text.join("\n\n"));
            m.extend(tool_turns(&case.actions, before));
            push_user(&mut m, user_words.trim());
            m.push(Msg::text("assistant", answer));
        }
    }
    Some(m)
}

/// A JSONL line: `value` and the case's metadata beside it.
fn line_with_meta(head: &str, value: &impl Serialize, case: &Case) -> String {
    let mut s = format!("{{\"{head}\":");
    s.push_str(&serde_json::to_string(value).unwrap_or_else(|_| "null".into()));
    s.push_str(",\"metadata\":");
    s.push_str(&serde_json::to_string(&case.meta).unwrap_or_else(|_| "null".into()));
    s.push_str("}\n");
    s
}

/// One SFT line.
pub fn sft_line(case: &Case) -> Option<String> {
    Some(line_with_meta("messages", &sft_messages(case)?, case))
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
            .map(|c| format!("- {}", c.one_line()))
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
    let pair = json!({
        "prompt": [
            {"role": "system", "content": system(case)},
            {"role": "user", "content": opening(case)},
        ],
        "chosen": [{"role": "assistant", "content": chosen.trim()}],
        "rejected": [{"role": "assistant", "content": rejected}],
        "metadata": case.meta,
    });
    let mut s = pair.to_string();
    s.push('\n');
    Some(s)
}

/// One ShareGPT line: the SFT conversation with tool calls and their
/// results written into the `gpt` turns.
pub fn sharegpt_line(case: &Case) -> Option<String> {
    #[derive(Serialize)]
    struct Turn {
        from: &'static str,
        value: String,
    }
    let messages = sft_messages(case)?;
    let mut conv: Vec<Turn> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for m in messages {
        match m.role {
            "system" => conv.push(Turn {
                from: "system",
                value: m.content.unwrap_or_default(),
            }),
            "user" => conv.push(Turn {
                from: "human",
                value: m.content.unwrap_or_default(),
            }),
            "assistant" => {
                let mut text = m.content.unwrap_or_default();
                if let Some(calls) = &m.tool_calls {
                    pending = calls
                        .iter()
                        .map(|c| {
                            let args: Value =
                                serde_json::from_str(&c.function.arguments).unwrap_or(Value::Null);
                            let args = args["args"]
                                .as_str()
                                .map(|a| format!(" {a}"))
                                .unwrap_or_default();
                            format!("`{}{args}`", c.function.name)
                        })
                        .collect();
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str("Tool calls:");
                }
                conv.push(Turn {
                    from: "gpt",
                    value: text,
                });
            }
            _ => {
                // A tool result goes into the gpt turn that made the call.
                let call = if pending.is_empty() {
                    String::new()
                } else {
                    pending.remove(0)
                };
                if let Some(last) = conv.last_mut() {
                    last.value
                        .push_str(&format!("\n- {call} → {}", m.content.unwrap_or_default()));
                }
            }
        }
    }
    Some(line_with_meta("conversations", &conv, case))
}
