//! Claude Code transcripts: `~/.claude/projects/<slug>/<sessionId>.jsonl`.
//!
//! - each line's `type`: `user` (a prompt, or `tool_result` blocks answering
//!   earlier calls), `assistant` (`text`, `tool_use`, `thinking` blocks),
//!   `summary`/`custom-title`/`ai-title` (the title); others are skipped;
//! - a user prompt starts a phase (named from its first words) with a
//!   `[!user]` callout; assistant text becomes a `[!reply] @claude-code`;
//!   `tool_use` a tool call (name, input on one line) whose summary and ✗
//!   come from the `tool_result` with its id (`is_error`);
//! - usage repeats on every line of one message: it is counted once per
//!   `(message.id, requestId)`; `tokens_used` is input + output + cache
//!   creation + cache read (what ccusage calls `totalTokens`), and the four
//!   parts are kept under `usage:`; the model is the first non-`<synthetic>`
//!   one, and a `<synthetic>` message (Claude Code's placeholder for a
//!   failed request) is an `[!error]`; `cwd` and `gitBranch` are kept;
//! - lines on a side chain (`isSidechain: true`) are left out of the main
//!   session; a line that does not parse is a warning.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crucible_core::{
    AgentRef, Block, Callout, Frontmatter, Phase, SessionId, SessionLog, Timestamp, ToolCall, cut,
    one_line,
};

use crate::transcript::{finish_paused, phase_name, text_of, title_from};
use crate::{ImportError, ImportWarning, Imported};

/// True when the first lines look like a Claude Code transcript.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').take(5).any(|line| {
        serde_json::from_slice::<Value>(line).ok().is_some_and(|v| {
            v.get("sessionId").is_some()
                && matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("user" | "assistant" | "summary" | "system")
                )
        })
    })
}

/// Token counts, summed once per message.
#[derive(Debug, Default)]
struct Usage {
    input: u64,
    output: u64,
    cache_creation: u64,
    cache_read: u64,
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut warnings = Vec::new();
    let agent: AgentRef = "claude-code".parse().expect("valid");
    let mut started: Option<Timestamp> = None;
    let mut title: Option<String> = None;
    let mut model: Option<String> = None;
    let mut session_id: Option<String> = None;
    let mut extra: Vec<(&str, String)> = Vec::new();
    let mut usage = Usage::default();
    let mut counted: HashSet<(String, String)> = HashSet::new();
    let mut phases: Vec<Phase> = Vec::new();
    let mut first_prompt: Option<String> = None;
    let mut sidechain = 0;
    let mut book = crate::transcript::CallBook::default();
    for (_, v) in crate::transcript::json_lines(path, &text, &mut warnings) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "summary" | "custom-title" | "ai-title" => {
                let t = ["summary", "customTitle", "aiTitle", "title"]
                    .iter()
                    .find_map(|k| v.get(*k).and_then(Value::as_str));
                if let Some(t) = t {
                    // A title the user set wins over the generated ones.
                    if title.is_none() || kind == "custom-title" {
                        title = Some(cut(&one_line(t.trim()), 80));
                    }
                }
                continue;
            }
            "user" | "assistant" => {}
            _ => continue,
        }
        if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            sidechain += 1;
            continue;
        }
        if started.is_none() {
            started = v
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok());
        }
        if session_id.is_none() {
            session_id = v
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        for (key, field) in [("cwd", "cwd"), ("git_branch", "gitBranch")] {
            if !extra.iter().any(|(k, _)| *k == key)
                && let Some(s) = v
                    .get(field)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
            {
                extra.push((key, s.to_owned()));
            }
        }
        let msg = v.get("message").cloned().unwrap_or(Value::Null);
        let blocks: Vec<Value> = match msg.get("content") {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        if kind == "assistant" {
            if let Some(u) = msg.get("usage") {
                let key = (
                    msg.get("id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    v.get("requestId")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                );
                if counted.insert(key) {
                    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                    usage.input += n("input_tokens");
                    usage.output += n("output_tokens");
                    usage.cache_creation += n("cache_creation_input_tokens");
                    usage.cache_read += n("cache_read_input_tokens");
                }
            }
            if model.is_none() {
                model = msg
                    .get("model")
                    .and_then(Value::as_str)
                    .filter(|m| *m != "<synthetic>")
                    .map(str::to_owned);
            }
            if phases.is_empty() {
                phases.push(Phase::new("Start", None, Some("main".into())));
            }
            let synthetic = msg.get("model").and_then(Value::as_str) == Some("<synthetic>");
            let pi = phases.len() - 1;
            for b in &blocks {
                let p = &mut phases[pi];
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                        if t.trim().is_empty() {
                        } else if synthetic {
                            // Claude Code's placeholder for a failed request.
                            p.blocks
                                .push(Block::Callout(Callout::error(t.trim(), None)));
                        } else {
                            p.blocks
                                .push(Block::Callout(Callout::reply(Some(&agent), t.trim())));
                        }
                    }
                    Some("tool_use") => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                        let call = ToolCall::new(
                            name.split_whitespace().collect::<Vec<_>>().join("_"),
                            crate::transcript::args_line(b.get("input").unwrap_or(&Value::Null)),
                        );
                        book.add(&mut phases, call, b.get("id").and_then(Value::as_str));
                    }
                    _ => {}
                }
            }
        } else {
            let prompt: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            for r in blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                let id = r.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                let out = r.get("content").map(text_of).unwrap_or_default();
                let failed = r.get("is_error").and_then(Value::as_bool) == Some(true);
                book.answer(&mut phases, id, &out, failed);
            }
            let words = prompt.join("\n");
            if !words.trim().is_empty() {
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
        }
    }
    if sidechain > 0 {
        warnings.push(ImportWarning {
            path: path.to_owned(),
            line: None,
            message: format!(
                "{sidechain} side-chain (subagent) lines left out of the main session"
            ),
        });
    }
    let started = started.unwrap_or_else(|| crate::transcript::mtime(path));
    let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
    fm.participants.push(agent);
    fm.model = model;
    let total = usage.input + usage.output + usage.cache_creation + usage.cache_read;
    fm.tokens_used = (total > 0).then_some(total);
    let title = title
        .or_else(|| first_prompt.as_deref().and_then(title_from))
        .unwrap_or_else(|| "Claude Code session".to_owned());
    for (k, s) in extra {
        fm.extra.insert(k.into(), s.into());
    }
    if total > 0 {
        let mut u = serde_yaml::Mapping::new();
        u.insert("input".into(), usage.input.into());
        u.insert("output".into(), usage.output.into());
        u.insert("cache_creation".into(), usage.cache_creation.into());
        u.insert("cache_read".into(), usage.cache_read.into());
        fm.extra
            .insert("usage".into(), serde_yaml::Value::Mapping(u));
    }
    let mut log = SessionLog::new(fm);
    finish_paused(&mut log, title, phases);
    Ok(crate::imported(
        crate::Format::ClaudeCode,
        path,
        session_id,
        &bytes,
        log,
        warnings,
    ))
}
