//! Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`,
//! lines of `{timestamp, type, payload}`.
//!
//! - `session_meta` → the source id, `cwd`, `cli_version`, the start;
//! - `turn_context` → the model (the first one);
//! - `response_item` `message` from the user → a new phase named from its
//!   first words with a `[!user]` callout (the same text also comes as an
//!   `event_msg` `user_message`, which is skipped: counted once); from the
//!   assistant → a `[!reply] @codex`;
//! - `function_call` → a tool call (name, arguments on one line), answered
//!   by the `function_call_output` with its `call_id` (an output that starts
//!   with `Error`/`error`, or whose JSON says a non-zero `exit_code`, marks
//!   it failed);
//! - the last `token_count`'s `total_token_usage.total_tokens` →
//!   `tokens_used` (the four parts under `usage:`);
//! - a line that does not parse is a warning.

use std::path::Path;

use serde_json::Value;

use crucible_core::{
    AgentRef, Block, Callout, Frontmatter, Phase, SessionId, SessionLog, Timestamp, ToolCall,
};

use crucible_core::args_line;

use crate::transcript::{finish_paused, phase_name, text_of, title_from};
use crate::{ImportError, Imported};

/// True for a line of a Codex rollout (detection counts them over the
/// whole head of a file, see [`crate::detect`]).
pub(crate) fn is_record(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("session_meta") && v.get("payload").is_some()
}

/// Whether a call's output says it failed.
fn failed(output: &str) -> bool {
    if crate::transcript::looks_failed(output) {
        return true;
    }
    serde_json::from_str::<Value>(output.trim_start())
        .ok()
        .and_then(|v| {
            v.pointer("/metadata/exit_code")
                .or_else(|| v.get("exit_code"))
                .and_then(Value::as_i64)
        })
        .is_some_and(|c| c != 0)
}

/// The text of an output: a string, or the `output` field of its JSON.
fn output_text(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => text_of(other),
    };
    serde_json::from_str::<Value>(&s)
        .ok()
        .and_then(|j| j.get("output").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or(s)
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let text = crate::transcript::utf8(&bytes);
    let mut warnings = Vec::new();
    let agent: AgentRef = "codex".parse().expect("valid");
    let mut started: Option<Timestamp> = None;
    let mut id: Option<String> = None;
    let mut model: Option<String> = None;
    let mut extra: Vec<(&str, String)> = Vec::new();
    let mut tokens: Option<Value> = None;
    let mut phases: Vec<Phase> = Vec::new();
    let mut first_prompt: Option<String> = None;
    let mut book = crate::transcript::CallBook::default();
    for (_, v) in crate::transcript::json_lines(path, &text, &mut warnings) {
        if started.is_none() {
            started = v
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok());
        }
        let payload = v.get("payload").unwrap_or(&Value::Null);
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "session_meta" => {
                id = payload.get("id").and_then(Value::as_str).map(str::to_owned);
                if let Some(t) = payload
                    .get("timestamp")
                    .and_then(Value::as_str)
                    .and_then(|t| t.parse().ok())
                {
                    started = Some(t);
                }
                for (key, field) in [("cwd", "cwd"), ("cli_version", "cli_version")] {
                    if let Some(s) = payload.get(field).and_then(Value::as_str) {
                        extra.push((key, s.to_owned()));
                    }
                }
            }
            "turn_context" if model.is_none() => {
                model = payload
                    .get("model")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            "event_msg" => {
                if payload.get("type").and_then(Value::as_str) == Some("token_count")
                    && let Some(t) = payload.pointer("/info/total_token_usage")
                {
                    tokens = Some(t.clone());
                }
            }
            "response_item" => match payload.get("type").and_then(Value::as_str).unwrap_or("") {
                "message" => {
                    let words = payload.get("content").map(text_of).unwrap_or_default();
                    match payload.get("role").and_then(Value::as_str) {
                        Some("user") if !words.trim().is_empty() => {
                            // Codex puts its environment notes in user messages too.
                            if words.trim_start().starts_with("<environment_context>")
                                || words.trim_start().starts_with("<user_instructions>")
                            {
                                continue;
                            }
                            first_prompt.get_or_insert_with(|| words.clone());
                            let mut p = Phase::new(
                                phase_name(&words, phases.len() + 1),
                                None,
                                Some("main".into()),
                            );
                            p.blocks
                                .push(Block::Callout(Callout::user(words.trim(), None)));
                            phases.push(p);
                        }
                        Some("assistant") if !words.trim().is_empty() => {
                            if phases.is_empty() {
                                phases.push(Phase::new("Start", None, Some("main".into())));
                            }
                            let p = phases.last_mut().expect("a phase");
                            p.blocks
                                .push(Block::Callout(Callout::reply(Some(&agent), words.trim())));
                        }
                        _ => {}
                    }
                }
                "function_call" | "custom_tool_call" | "local_shell_call" => {
                    let name = payload
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("shell");
                    let args = payload
                        .get("arguments")
                        .or_else(|| payload.get("input"))
                        .or_else(|| payload.get("action"))
                        .unwrap_or(&Value::Null);
                    let call = ToolCall::new(
                        name.split_whitespace().collect::<Vec<_>>().join("_"),
                        args_line(args),
                    );
                    book.add(
                        &mut phases,
                        call,
                        payload.get("call_id").and_then(Value::as_str),
                    );
                }
                "function_call_output" | "custom_tool_call_output" => {
                    let cid = payload.get("call_id").and_then(Value::as_str).unwrap_or("");
                    let out = output_text(payload.get("output").unwrap_or(&Value::Null));
                    book.answer(&mut phases, cid, &out, failed(&out));
                }
                _ => {}
            },
            _ => {}
        }
    }
    let started = started.unwrap_or_else(|| crate::transcript::mtime(path));
    let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
    fm.participants.push(agent);
    fm.model = model;
    if let Some(t) = &tokens {
        let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
        fm.tokens_used = t
            .get("total_tokens")
            .and_then(Value::as_u64)
            .or(Some(n("input_tokens") + n("output_tokens")));
        let mut u = serde_yaml::Mapping::new();
        for k in [
            "input_tokens",
            "cached_input_tokens",
            "output_tokens",
            "reasoning_output_tokens",
        ] {
            u.insert(k.into(), n(k).into());
        }
        fm.extra
            .insert("usage".into(), serde_yaml::Value::Mapping(u));
    }
    for (k, s) in extra {
        fm.extra.insert(k.into(), s.into());
    }
    let title = first_prompt
        .as_deref()
        .and_then(title_from)
        .unwrap_or_else(|| "Codex session".to_owned());
    let mut log = SessionLog::new(fm);
    finish_paused(&mut log, title, phases);
    let mut imported = crate::imported(crate::Format::Codex, path, id, &bytes, log, warnings);
    imported.data.records.extend(book.into_records());
    Ok(imported)
}
