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
    AgentRef, Block, Callout, Frontmatter, Phase, Section, SessionId, SessionLog, SessionStatus,
    Timestamp, ToolCall, cut, one_line,
};

use crate::{ImportError, ImportWarning, Imported};

/// The agent an import records replies as, when the source names none.
const AGENT: &str = "assistant";

/// True when `bytes` look like a message array or JSONL of messages.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let t = text.trim_start();
    (t.starts_with('[') || t.starts_with('{')) && t.contains("\"role\"")
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

/// The text of a message's `content`: a string, or the text parts of an array.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A phase name from a user's words: the first line, cut, without a
/// trailing `@`/`#` word (which a heading would read as agent or channel).
pub(crate) fn phase_name(words: &str, n: usize) -> String {
    let line = one_line(words.lines().find(|l| !l.trim().is_empty()).unwrap_or(""));
    let mut parts: Vec<&str> = line.split_whitespace().collect();
    while parts
        .last()
        .is_some_and(|w| w.starts_with('@') || w.starts_with('#'))
    {
        parts.pop();
    }
    let name = cut(&parts.join(" "), 60);
    if name.is_empty() {
        format!("Turn {n}")
    } else {
        name
    }
}

/// A tool call's arguments as one line: the usual single field (`command`,
/// `path`, `file_path`, `cmd`, `query`, `pattern`, `url`) when that is all
/// there is; a file path and then the other fields as JSON; else the JSON.
pub(crate) fn args_line(arguments: &Value) -> String {
    let v = match arguments {
        Value::String(s) => serde_json::from_str::<Value>(s).unwrap_or(Value::String(s.clone())),
        other => other.clone(),
    };
    if let Value::Object(m) = &v {
        // A shell call is its command line (Codex: `["bash", "-lc", "..."]`),
        // whatever else came with it (a working directory, a timeout).
        if let Some(cmd) = m.get("command") {
            match cmd {
                Value::String(c) => return one_line(c),
                Value::Array(a) => {
                    let words: Vec<String> = a
                        .iter()
                        .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                        .collect();
                    let shell = words.len() == 3
                        && matches!(words[0].as_str(), "bash" | "sh" | "zsh")
                        && matches!(words[1].as_str(), "-lc" | "-c");
                    return one_line(&if shell {
                        words[2].clone()
                    } else {
                        words.join(" ")
                    });
                }
                _ => {}
            }
        }
        // A file tool's path first, then what else it was given: the line
        // reads well and tools that look for a path find it.
        for key in ["file_path", "path", "notebook_path"] {
            if m.len() > 1
                && let Some(Value::String(p)) = m.get(key)
            {
                let mut rest = m.clone();
                rest.remove(key);
                return one_line(&format!("{p} {}", Value::Object(rest)));
            }
        }
        for key in [
            "command",
            "cmd",
            "path",
            "file_path",
            "query",
            "pattern",
            "url",
            "input",
        ] {
            if m.len() == 1
                && let Some(val) = m.get(key)
            {
                return match val {
                    Value::String(s) => one_line(s),
                    Value::Array(a) => one_line(
                        &a.iter()
                            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    other => other.to_string(),
                };
            }
        }
    }
    match v {
        Value::String(s) => one_line(&s),
        Value::Null => String::new(),
        other => one_line(&other.to_string()),
    }
}

fn failed_result(text: &str, msg: &Value) -> bool {
    let t = text.trim_start();
    msg.get("is_error").and_then(Value::as_bool) == Some(true)
        || t.starts_with("Error")
        || t.starts_with("error")
        || t.starts_with("Traceback")
}

/// The blocks of the assistant message `messages[i]`: its text as a
/// `[!reply]`, its tool calls with the results the later `tool` messages
/// give them.
pub(crate) fn assistant_blocks(messages: &[Value], i: usize, agent: &AgentRef) -> Vec<Block> {
    let m = &messages[i];
    let mut out = Vec::new();
    let text = m.get("content").map(text_of).unwrap_or_default();
    if !text.trim().is_empty() {
        out.push(Block::Callout(Callout::reply(Some(agent), text.trim())));
    }
    let Some(calls) = m.get("tool_calls").and_then(Value::as_array) else {
        return out;
    };
    let mut list = Vec::new();
    for c in calls {
        let f = c.get("function").unwrap_or(c);
        let name = f.get("name").and_then(Value::as_str).unwrap_or("tool");
        let mut call = ToolCall::new(
            name.split_whitespace().collect::<Vec<_>>().join("_"),
            args_line(f.get("arguments").unwrap_or(&Value::Null)),
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
            let summary = cut(&one_line(out.trim()), crucible_core::SUMMARY_LIMIT);
            call.failed = failed_result(&out, r);
            if !summary.is_empty() {
                call.summary = Some(summary);
            }
        }
        list.push(call);
    }
    if !list.is_empty() {
        out.push(Block::ToolCalls { calls: list });
    }
    out
}

/// Appends blocks, joining a tool-call list to one just before it.
pub(crate) fn push_blocks(to: &mut Vec<Block>, blocks: Vec<Block>) {
    for b in blocks {
        match (to.last_mut(), b) {
            (Some(Block::ToolCalls { calls }), Block::ToolCalls { calls: more }) => {
                calls.extend(more)
            }
            (_, b) => to.push(b),
        }
    }
}

/// Builds a session from messages; `started` from the source.
pub(crate) fn session_from(
    messages: &[Value],
    started: Timestamp,
    path: &Path,
    warnings: &mut Vec<ImportWarning>,
) -> SessionLog {
    let placeholder = SessionId::new("imported").expect("a valid id");
    let mut fm = Frontmatter::new(placeholder, started);
    fm.status = SessionStatus::Paused;
    let agent: AgentRef = AGENT.parse().expect("a valid agent");
    let mut log = SessionLog::new(fm);
    let mut phases: Vec<Phase> = Vec::new();
    let mut turn = 0;
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
                if turn == 1 {
                    let title = cut(&one_line(text.lines().next().unwrap_or("").trim()), 80);
                    if !title.is_empty() {
                        log.frontmatter.title = Some(title.clone());
                        log.preamble.insert(
                            0,
                            Block::Heading {
                                level: 1,
                                text: title,
                            },
                        );
                    }
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
                let p = phases.last_mut().expect("a phase");
                push_blocks(&mut p.blocks, assistant_blocks(messages, i, &agent));
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
    log.sections = phases.into_iter().map(Section::Phase).collect();
    if log.phase_count() > 0 {
        log.frontmatter.resume_point =
            Some(crucible_core::PhaseId::from_index(log.phase_count() - 1));
    }
    log
}

/// The file's modification time, as the session's start (a message array
/// carries no time of its own).
pub(crate) fn mtime(path: &Path) -> Timestamp {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(Timestamp::now, |d| {
            Timestamp::from_unix_ms(i64::try_from(d.as_millis()).unwrap_or(0))
        })
}

/// A message file (JSON array or JSONL).
pub(crate) fn import_file(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut warnings = Vec::new();
    let messages = read_messages(path, &text, &mut warnings)?;
    let log = session_from(&messages, mtime(path), path, &mut warnings);
    Ok(crate::imported(
        crate::Format::OpenAiMessages,
        path,
        None,
        &bytes,
        log,
        warnings,
    ))
}
