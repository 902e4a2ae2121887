//! OpenAI chat-completions messages into a session: the mapping shared by
//! message files and `.agent/sessions` folders (`docs/interop.md`).
//!
//! - `system` (or `developer`) messages → the `system-prompt` block;
//! - every `user` message starts a phase named from its first words and is
//!   that phase's first block, a `[!user]` callout (the user's words); the
//!   first one's first line is also the title;
//! - `assistant` text → a `[!reply] @agent` callout (kept whole, so no line
//!   of it can read as a heading or a tool-call list);
//! - `assistant` `tool_calls` → a tool-call list, each call's summary from
//!   the `tool` message with its `tool_call_id`; a result that starts with
//!   `Error`/`error`/`Traceback` or says `"is_error": true` marks it failed.

use std::path::Path;

use serde_json::Value;

use crucible_core::{
    AgentRef, Block, CallData, Callout, DataRecord, Frontmatter, Phase, SessionData, SessionId,
    SessionLog, Timestamp, ToolCall,
};

use crate::transcript::{
    PhaseCalls, finish_paused, looks_failed, mtime, phase_name, text_of, title_from,
};
use crate::{ImportError, ImportWarning, Imported};

/// The agent an import records replies as, when the source names none.
const AGENT: &str = "assistant";

/// The roles of chat-completions messages.
const ROLES: [&str; 6] = [
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

/// True for a JSON object with a chat-completions `role` at its top.
fn is_message(v: &Value) -> bool {
    v.get("role")
        .and_then(Value::as_str)
        .is_some_and(|r| ROLES.contains(&r))
}

/// True when `bytes` (a file's head) are a JSON array of messages, or
/// JSONL most of whose lines are messages. Any JSON that merely holds a
/// `"role"` somewhere (API schemas, other agents' logs, where it is nested
/// in an envelope) is not.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        return match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(items)) => !items.is_empty() && items.iter().all(is_message),
            Ok(_) => false,
            // A head cut off inside a long array: its first element tells.
            Err(_) => serde_json::Deserializer::from_str(rest.trim_start())
                .into_iter::<Value>()
                .next()
                .and_then(Result::ok)
                .is_some_and(|v| is_message(&v)),
        };
    }
    // Most lines, not most JSON lines: a page of prose or code that quotes
    // one message is no message file.
    let mut lines = 0;
    let mut messages = 0;
    for line in t.lines().map(str::trim).filter(|l| !l.is_empty()) {
        lines += 1;
        messages += usize::from(serde_json::from_str::<Value>(line).is_ok_and(|v| is_message(&v)));
    }
    messages > 0 && messages * 2 > lines
}

/// Messages from a JSON array, or one message per line (JSONL); a line that
/// does not parse is a warning.
pub(crate) fn read_messages(
    path: &Path,
    text: &str,
    warnings: &mut Vec<ImportWarning>,
) -> Result<Vec<Value>, ImportError> {
    let t = text.trim_start();
    if t.starts_with('[') {
        return match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(a)) => Ok(a),
            Ok(_) => Err(ImportError::Invalid {
                path: path.to_owned(),
                line: 1,
                message: "expected a JSON array of messages".into(),
            }),
            Err(e) => Err(ImportError::Invalid {
                path: path.to_owned(),
                line: e.line(),
                message: format!("not JSON: {e}"),
            }),
        };
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.get("role").is_some() => out.push(v),
            Ok(_) => warnings.push(ImportWarning {
                path: path.to_owned(),
                line: Some(i + 1),
                message: "not a message (no `role`); skipped".into(),
            }),
            Err(e) => warnings.push(ImportWarning {
                path: path.to_owned(),
                line: Some(i + 1),
                message: format!("not JSON ({e}); skipped"),
            }),
        }
    }
    Ok(out)
}

fn failed_result(text: &str, msg: &Value) -> bool {
    msg.get("is_error").and_then(Value::as_bool) == Some(true) || looks_failed(text)
}

/// An assistant message read: its blocks, and its calls whole for the
/// sidecar (their place in the phase set by [`push_assistant`]).
pub(crate) struct AssistantTurn {
    blocks: Vec<Block>,
    calls: Vec<CallData>,
}

/// The blocks of the assistant message `messages[i]`: its text as a
/// `[!reply]`, its tool calls with the results the later `tool` messages
/// give them; each call's id, arguments and result kept as the source had
/// them.
pub(crate) fn assistant_blocks(messages: &[Value], i: usize, agent: &AgentRef) -> AssistantTurn {
    let m = &messages[i];
    let mut out = Vec::new();
    let mut whole = Vec::new();
    let text = m.get("content").map(text_of).unwrap_or_default();
    if !text.trim().is_empty() {
        out.push(Block::Callout(Callout::reply(Some(agent), text.trim())));
    }
    let Some(calls) = m.get("tool_calls").and_then(Value::as_array) else {
        return AssistantTurn {
            blocks: out,
            calls: whole,
        };
    };
    let mut list = Vec::new();
    for c in calls {
        let f = c.get("function").unwrap_or(c);
        let name = f.get("name").and_then(Value::as_str).unwrap_or("tool");
        let mut call = ToolCall::new(
            name.split_whitespace().collect::<Vec<_>>().join("_"),
            crucible_core::args_line(f.get("arguments").unwrap_or(&Value::Null)),
        );
        let id = c.get("id").and_then(Value::as_str);
        let result = id.and_then(|id| {
            messages[i + 1..].iter().find(|r| {
                r.get("role").and_then(Value::as_str) == Some("tool")
                    && r.get("tool_call_id").and_then(Value::as_str) == Some(id)
            })
        });
        if let Some(r) = result {
            let out = r.get("content").map(text_of).unwrap_or_default();
            let summary = crucible_core::summary_line(out.trim(), crucible_core::SUMMARY_LIMIT);
            call.failed = failed_result(&out, r);
            if !summary.is_empty() {
                call.summary = Some(summary);
            }
        }
        let mut data = CallData {
            tool: call.tool.clone(),
            id: id.map(str::to_owned),
            arguments: f.get("arguments").cloned(),
            result: result.and_then(|r| r.get("content").cloned()),
            ..CallData::default()
        };
        // Which assistant message asked for it: the markdown joins the
        // calls of messages in a row into one list, an export splits them
        // again by this.
        data.extra.insert("message".into(), i.into());
        whole.push(data);
        list.push(call);
    }
    if !list.is_empty() {
        out.push(Block::ToolCalls { calls: list });
    }
    AssistantTurn {
        blocks: out,
        calls: whole,
    }
}

/// Appends an assistant message's blocks to phase `pi` (`p`), and its
/// calls, placed, to the sidecar.
pub(crate) fn push_assistant(
    p: &mut Phase,
    pi: usize,
    turn: AssistantTurn,
    data: &mut SessionData,
    counted: &mut PhaseCalls,
) {
    let before = counted.count(pi, p);
    push_blocks(&mut p.blocks, turn.blocks);
    for (k, mut c) in turn.calls.into_iter().enumerate() {
        c.phase = pi;
        c.call = before + k;
        data.records.push(DataRecord::Call(c));
    }
}

/// Appends blocks, joining a tool-call list to one just before it.
pub(crate) fn push_blocks(to: &mut Vec<Block>, blocks: Vec<Block>) {
    for b in blocks {
        match (to.last_mut(), b) {
            (Some(Block::ToolCalls { calls }), Block::ToolCalls { calls: more }) => {
                calls.extend(more);
            }
            (_, b) => to.push(b),
        }
    }
}

/// Builds a session from messages; `started` from the source; the title is
/// the first user message's first line, else `fallback_title`.
pub(crate) fn session_from(
    messages: &[Value],
    started: Timestamp,
    fallback_title: &str,
    path: &Path,
    warnings: &mut Vec<ImportWarning>,
) -> (SessionLog, SessionData) {
    let mut data = SessionData::default();
    let placeholder = SessionId::new("imported").expect("a valid id");
    let fm = Frontmatter::new(placeholder, started);
    let agent: AgentRef = AGENT.parse().expect("a valid agent");
    let mut log = SessionLog::new(fm);
    let mut phases: Vec<Phase> = Vec::new();
    let mut counted = PhaseCalls::default();
    let mut turn = 0;
    let mut title: Option<String> = None;
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let text = m.get("content").map(text_of).unwrap_or_default();
        match role {
            "system" | "developer" => {
                if !text.trim().is_empty() {
                    log.preamble.push(Block::SystemPrompt {
                        text: text.trim_end().to_owned(),
                    });
                }
            }
            "user" => {
                turn += 1;
                if title.is_none() {
                    title = title_from(&text);
                }
                let mut p = Phase::new(phase_name(&text, turn), None, Some("main".into()));
                if !text.trim().is_empty() {
                    p.blocks
                        .push(Block::Callout(Callout::user(text.trim(), None)));
                }
                phases.push(p);
            }
            "assistant" => {
                if phases.is_empty() {
                    phases.push(Phase::new("Start", None, Some("main".into())));
                }
                let pi = phases.len() - 1;
                let p = phases.last_mut().expect("a phase");
                let turn = assistant_blocks(messages, i, &agent);
                push_assistant(p, pi, turn, &mut data, &mut counted);
                if !log.frontmatter.participants.contains(&agent) {
                    log.frontmatter.participants.push(agent.clone());
                }
            }
            "tool" | "function" => {}
            other => warnings.push(ImportWarning {
                path: path.to_owned(),
                line: None,
                message: format!(
                    "message {}: role `{other}` is not one cru knows; skipped",
                    i + 1
                ),
            }),
        }
    }
    let title = title.unwrap_or_else(|| fallback_title.to_owned());
    finish_paused(&mut log, title, phases);
    (log, data)
}

/// A message file (JSON array or JSONL).
pub(crate) fn import_file(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let mut warnings = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut warnings);
    let messages = read_messages(path, &text, &mut warnings)?;
    let stem = path.file_stem().map_or_else(
        || "conversation".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let (log, data) = session_from(&messages, mtime(path), &stem, path, &mut warnings);
    let mut imported = crate::imported(
        crate::Format::OpenAiMessages,
        path,
        None,
        &bytes,
        log,
        warnings,
    );
    imported.records = tally(&messages);
    // JSONL lines that are not messages were warned about one by one;
    // they are counted here too.
    if !text.trim_start().starts_with('[') {
        let written = text.lines().filter(|l| !l.trim().is_empty()).count();
        for _ in messages.len()..written {
            imported.records.skip(
                "(not a message)",
                "a line that is not JSON or has no `role`",
            );
        }
    }
    imported.data = data;
    Ok(imported)
}

/// Messages counted by their role (`message/user`, `message/tool`, ...);
/// a role cru does not read is counted as skipped, by name.
pub(crate) fn tally(messages: &[Value]) -> crate::RecordTally {
    let mut t = crate::RecordTally::default();
    for m in messages {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("(no role)");
        let kind = format!("message/{role}");
        match role {
            "system" | "developer" | "user" | "assistant" | "tool" | "function" => t.read(&kind),
            _ => t.unknown(&kind),
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_message_files_look_like_messages() {
        let yes: [&[u8]; 3] = [
            br#"[{"role": "user", "content": "hi"}]"#,
            b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n{\"role\":",
            br#"[{"role": "system", "content": "s"}, {"role": "user", "content": "cut off he"#,
        ];
        for b in yes {
            assert!(looks_like(b), "{}", String::from_utf8_lossy(b));
        }
        let no: [&[u8]; 4] = [
            // Code or prose that quotes one message.
            b"def f():\n    return 1\n{\"role\": \"user\", \"content\": \"Hello\"}\n# more\nx = 2\n",
            // A JSON document that holds a role somewhere.
            br#"{"paths": {"/v1/chat": {"role": "user"}}}"#,
            // An envelope with the role inside (ccusage's Claude fixtures).
            br#"{"timestamp": "t", "message": {"role": "assistant", "usage": {}}}"#,
            br#"[{"type": "text", "role_name": "x"}]"#,
        ];
        for b in no {
            assert!(!looks_like(b), "{}", String::from_utf8_lossy(b));
        }
    }

    #[test]
    fn every_line_is_counted_and_calls_are_kept_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"role":"user","content":"hi"}"#,
                "\n",
                r#"{"role":"assistant","tool_calls":[{"id":"x9","type":"function","function":{"name":"read","arguments":"{\"path\": \"a\", \"n\": 2}"}}]}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"x9","content":"whole result"}"#,
                "\n",
                r#"{"role":"critic","content":"?"}"#,
                "\n",
                r#"{"note":"no role"}"#,
                "\n",
                r#"{"role":"user","#,
                "\n",
            ),
        )
        .unwrap();
        let imp = import_file(&path).unwrap();
        assert_eq!(imp.records.read_count(), 3);
        assert_eq!(imp.records.skipped["message/critic"].count, 1);
        assert_eq!(imp.records.skipped["(not a message)"].count, 2);
        let call = imp.data.calls().next().unwrap();
        assert_eq!(call.id.as_deref(), Some("x9"));
        assert_eq!(
            call.arguments,
            Some(Value::String(r#"{"path": "a", "n": 2}"#.into()))
        );
        assert_eq!(call.result, Some(Value::String("whole result".into())));
    }
}
