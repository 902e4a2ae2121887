//! Gemini CLI chats: `~/.gemini/tmp/<project hash>/chats/session-*.json`
//! (one JSON document) and the newer `session-*.jsonl` (see [`chat`]).
//!
//! - a `user` message → a new phase named from its words, with a
//!   `[!user]` callout (a user message with no text, only function
//!   responses, is kept in the sidecar as a source record); an
//!   `inlineData`/`fileData` part is a marker in the callout and an image
//!   record;
//! - a `gemini` message → a `[!reply] @gemini`; its `toolCalls` → tool
//!   calls (✗ when `status` is `error` or `cancelled`), arguments and
//!   result whole in the sidecar; its `thoughts` → thinking records; its
//!   `tokens` → one usage record (its time, model, id and tokens, see
//!   [`usage_of`]);
//! - `info`, `error`, `warning` messages → context records;
//! - the metadata (`sessionId`, `projectHash`, `startTime`, `kind`, ...)
//!   → the source id and start, and a source record with all of it;
//! - subagents (`chats/<parent sessionId>/<id>.jsonl`) → linked children.

mod chat;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crucible_core::{
    AgentRef, ContextData, DataRecord, Frontmatter, ImageData, Phase, SessionId, SessionLog,
    SourceData, ThinkingData, Timestamp, Tokens, ToolCall, args_line,
};

use crate::transcript::{
    CallBook, base64_len, finish_paused, image_marker, push_reply, push_user_phase, text_of,
    title_from,
};
use crate::{Child, ImportError, Imported, RecordTally, SubagentLink};

use crate::requests::{Requests, record, time};

use chat::{Chat, Message};

/// True for a line of a Gemini CLI JSONL chat: the metadata line, a
/// message (`id`, `type` of gemini-cli's, `timestamp`, and no Claude Code
/// or Codex envelope), or a `$set`/`$rewindTo` line.
pub(crate) fn is_record(o: &impl crate::line_shape::Fields) -> bool {
    // A line that is no object has no keys: every test below fails.
    if o.key_count() == 1 && (o.has("$set") || o.has("$rewindTo")) {
        return true;
    }
    if o.has("sessionId") && o.has("projectHash") {
        return true;
    }
    matches!(
        o.str_at("type"),
        Some("user" | "gemini" | "info" | "error" | "warning")
    ) && o.has("id")
        && o.has("timestamp")
        && o.has("content")
        && !o.has("message")
        && !o.has("sessionId")
}

/// True for the start of a classic chat document: an object whose first
/// key is `sessionId`, with a `projectHash` soon after (gemini-cli writes
/// them first, pretty-printed).
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(2048)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    t.starts_with('{')
        && t[1..].trim_start().starts_with("\"sessionId\"")
        && t.contains("\"projectHash\"")
}

/// A folder walk imports a subagent's chat with its parent: true for
/// `chats/<parent id>/<id>.jsonl` when `chats/` holds the parent's file
/// (named `session-<time>-<first 8 characters of its id>.json[l]`).
pub(crate) fn has_parent(path: &Path) -> bool {
    parent_of(path).is_some()
}

pub(crate) fn parent_of(path: &Path) -> Option<PathBuf> {
    let folder = path.parent()?;
    let parent_id = folder.file_name()?.to_str()?;
    let short = parent_id.get(..8)?;
    let chats = folder.parent()?;
    let (json, jsonl) = (format!("-{short}.json"), format!("-{short}.jsonl"));
    let named_for_parent = |n: &std::ffi::OsStr| {
        n.to_str().is_some_and(|n| {
            n.starts_with("session-") && (n.ends_with(&json) || n.ends_with(&jsonl))
        })
    };
    // What this listing skips, the folder walk that asked names itself.
    crate::folder::list(chats, chats, &named_for_parent)
        .files
        .pop()
}

/// The subagents' chats of a session: `chats/<sessionId>/*.jsonl`, read
/// by the walker's rules (links only inside `chats/`), with what it left
/// out.
fn child_files(path: &Path, session_id: &str) -> crate::folder::Listing {
    let Some(chats) = path.parent() else {
        return crate::folder::Listing::default();
    };
    let is_chat = |n: &std::ffi::OsStr| {
        Path::new(n)
            .extension()
            .is_some_and(|x| x == "jsonl" || x == "json")
    };
    crate::folder::list(&chats.join(session_id), chats, &is_chat)
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let mut warnings = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut warnings);
    let mut tally = RecordTally::default();
    // A whole document is the classic shape; anything else is read as lines.
    let chat = match serde_json::from_str::<Value>(&text) {
        Ok(doc @ Value::Object(_)) if doc.get("messages").is_some() => {
            chat::from_document(doc, &mut tally)
        }
        _ => chat::from_lines(path, &text, &mut warnings, &mut tally),
    };
    let id = chat
        .meta
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut session = Session::default();
    for m in &chat.messages {
        session.message(m);
    }
    let (log, records) = session.finish(path, &chat);
    let mut imported = crate::imported(
        crate::Format::Gemini,
        path,
        id.clone(),
        &bytes,
        log,
        warnings,
    );
    imported.data.records = records;
    imported.records = tally;
    if let Some(id) = id {
        let children = child_files(path, &id);
        imported.skipped_files = children.skipped;
        for file in children.files {
            let child = import(&file)?;
            let summary = crate::transcript::last_reply(&child.log);
            imported.children.push(Child {
                imported: child,
                link: SubagentLink {
                    agent: gemini(),
                    anchor: None,
                    description: None,
                    summary,
                },
            });
        }
    }
    Ok(imported)
}

fn gemini() -> AgentRef {
    "gemini".parse().expect("a valid agent name")
}

/// Tokens of one reply, as ccusage's Gemini reader counts them: gemini-cli
/// reports `input` with the cached part inside it when `total` says so
/// (total = input + output + thoughts + tool), and `tool` (the prompt of
/// tool use) is input too. Output includes the thoughts (kept apart as
/// `reasoning`).
pub(crate) fn usage_of(tokens: &Value) -> Tokens {
    let n = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
    let (input, output, cached, thoughts, tool) = (
        n("input"),
        n("output"),
        n("cached"),
        n("thoughts"),
        n("tool"),
    );
    let inclusive = input + output + thoughts + tool;
    let total = tokens.get("total").and_then(Value::as_u64);
    let uncached = if cached > 0 && total == Some(inclusive) && total != Some(inclusive + cached) {
        input.saturating_sub(cached)
    } else {
        input
    };
    Tokens {
        input: uncached + tool,
        output: output + thoughts,
        cache_creation: 0,
        cache_read: cached,
        reasoning: thoughts,
        cache_creation_1h: 0,
    }
}

/// The session being built, message by message.
#[derive(Debug, Default)]
struct Session {
    phases: Vec<Phase>,
    book: CallBook,
    requests: Requests,
    records: Vec<DataRecord>,
    first_prompt: Option<String>,
    model: Option<String>,
    started: Option<Timestamp>,
}

/// Keys of a message the session or sidecar holds; a message with any
/// other key is also kept whole as a source record.
const KNOWN_KEYS: &[&str] = &[
    "id",
    "timestamp",
    "type",
    "content",
    "thoughts",
    "tokens",
    "model",
    "toolCalls",
];

impl Session {
    fn message(&mut self, m: &Message) {
        let v = &m.record;
        if self.started.is_none() {
            self.started = v
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok());
        }
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        let content = v.get("content").unwrap_or(&Value::Null);
        let words = match kind {
            // A user message's images open the phase its words do.
            "user" => self.words_and_images(content, self.phases.len()),
            "gemini" => self.words_and_images(content, self.phases.len().saturating_sub(1)),
            _ => content_text(content),
        };
        let kept_whole = match kind {
            "user" if !words.trim().is_empty() => {
                self.first_prompt.get_or_insert_with(|| words.clone());
                push_user_phase(&mut self.phases, &words);
                false
            }
            "gemini" => {
                self.reply(v, &words);
                false
            }
            kind @ ("info" | "error" | "warning") => {
                self.records.push(DataRecord::Context(ContextData {
                    phase: self.phases.len().checked_sub(1),
                    label: kind.to_owned(),
                    text: words,
                    extra: serde_json::Map::new(),
                }));
                false
            }
            _ => true,
        };
        let unknown_keys = v
            .as_object()
            .is_some_and(|o| o.keys().any(|k| !KNOWN_KEYS.contains(&k.as_str())));
        if kept_whole || unknown_keys || content_has_non_text(v) {
            self.records.push(DataRecord::Source(SourceData {
                phase: self.phases.len().checked_sub(1),
                line: m.line,
                record: v.clone(),
            }));
        }
    }

    /// The words of `content`, an image marker standing where each
    /// `inlineData`/`fileData` part was, whose record (media type, size,
    /// base64 or file URI) goes to the sidecar with `phase`.
    fn words_and_images(&mut self, content: &Value, phase: usize) -> String {
        let Some(parts) = content.as_array() else {
            return content_text(content);
        };
        let mut words: Vec<String> = Vec::new();
        for part in parts {
            if let Some(t) = part.get("text").and_then(Value::as_str).or(part.as_str()) {
                words.push(t.to_owned());
            }
            let Some((key, media)) = ["inlineData", "fileData"]
                .iter()
                .find_map(|k| Some((*k, part.get(*k)?)))
            else {
                continue;
            };
            let s = |k: &str| media.get(k).and_then(Value::as_str);
            let media_type = s("mimeType").unwrap_or("image").to_owned();
            let data = s("data").map(str::to_owned);
            let bytes = data.as_deref().map_or(0, base64_len);
            let mut extra = serde_json::Map::new();
            if let Some(uri) = s("fileUri") {
                extra.insert("file_uri".into(), uri.into());
            }
            words.push(match s("fileUri") {
                // A file by reference: its size is not known here.
                Some(uri) if key == "fileData" => format!("[file: {media_type}, {uri}]"),
                _ => image_marker(&media_type, bytes),
            });
            self.records.push(DataRecord::Image(ImageData {
                phase: Some(phase),
                call: None,
                media_type,
                bytes,
                data,
                extra,
            }));
        }
        words.join("\n")
    }

    fn reply(&mut self, v: &Value, words: &str) {
        let model = v.get("model").and_then(Value::as_str);
        if self.model.is_none() {
            self.model = model.map(str::to_owned);
        }
        if let Some(t) = v.get("tokens").map(usage_of).filter(|t| !t.is_zero()) {
            let at = time(v.get("timestamp").and_then(Value::as_str));
            let id = v.get("id").and_then(Value::as_str).map(str::to_owned);
            self.requests
                .put(&mut self.phases, record(at, model, t, id));
        }
        let phase = self.phases.len().checked_sub(1);
        for t in v
            .get("thoughts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut extra = serde_json::Map::new();
            for k in ["subject", "timestamp"] {
                if let Some(x) = t.get(k) {
                    extra.insert(k.to_owned(), x.clone());
                }
            }
            self.records.push(DataRecord::Thinking(ThinkingData {
                phase,
                text: t
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                extra,
            }));
        }
        if !words.trim().is_empty() {
            push_reply(&mut self.phases, &gemini(), words);
        }
        for call in v
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.tool_call(call);
        }
    }

    fn tool_call(&mut self, call: &Value) {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
        let args = call.get("args").cloned().unwrap_or(Value::Null);
        let id = call.get("id").and_then(Value::as_str);
        let line = ToolCall::new(
            name.split_whitespace().collect::<Vec<_>>().join("_"),
            args_line(&args),
        );
        let data = self.book.add_full(&mut self.phases, line, id, Some(args));
        if let Some(o) = call.as_object() {
            for (k, x) in o {
                if !matches!(k.as_str(), "id" | "name" | "args" | "result") {
                    data.extra.insert(k.clone(), x.clone());
                }
            }
        }
        let status = call.get("status").and_then(Value::as_str).unwrap_or("");
        let failed = matches!(status, "error" | "cancelled");
        let Some(result) = call.get("result") else {
            return;
        };
        let Some(id) = id else { return };
        // The markdown line gets the result's words; the record, the result whole.
        let summary = result_text(call, result);
        if let Some(data) =
            self.book
                .answer_full(&mut self.phases, id, Value::String(summary), failed)
        {
            data.result = Some(result.clone());
        }
    }

    fn finish(mut self, path: &Path, chat: &Chat) -> (SessionLog, Vec<DataRecord>) {
        let meta_time = |k: &str| {
            chat.meta
                .get(k)
                .and_then(Value::as_str)
                .and_then(|t| t.parse::<Timestamp>().ok())
        };
        let started = meta_time("startTime")
            .or(self.started)
            .unwrap_or_else(|| crate::transcript::mtime(path));
        let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
        fm.participants.push(gemini());
        fm.model = self.model;
        if let Some(h) = chat.meta.get("projectHash").and_then(Value::as_str) {
            fm.extra.insert("project_hash", h);
        }
        let title = self
            .first_prompt
            .as_deref()
            .and_then(title_from)
            .unwrap_or_else(|| "Gemini CLI session".to_owned());
        let mut log = SessionLog::new(fm);
        self.requests.settle(&mut self.phases);
        finish_paused(&mut log, title, self.phases);
        log.refresh_usage_totals();
        let mut records: Vec<DataRecord> = vec![DataRecord::Source(SourceData {
            phase: None,
            line: None,
            record: Value::Object(chat.meta.clone()),
        })];
        records.extend(self.book.into_records());
        records.extend(self.records);
        for m in &chat.rewound {
            records.push(DataRecord::Source(SourceData {
                phase: None,
                line: m.line,
                record: m.record.clone(),
            }));
        }
        (log, records)
    }
}

/// The words of a message's `content`: a string, or its text parts.
fn content_text(content: &Value) -> String {
    text_of(content)
}

/// True when `content` holds parts other than text and images (function
/// responses, parts with keys cru does not know), which only the source
/// record keeps.
fn content_has_non_text(v: &Value) -> bool {
    let held = |p: &Value| {
        let Some(o) = p.as_object() else { return false };
        let media_keys = |m: &Value| {
            m.as_object().is_some_and(|m| {
                m.keys()
                    .all(|k| matches!(k.as_str(), "mimeType" | "data" | "fileUri"))
            })
        };
        o.len() == 1
            && (o.get("text").is_some_and(Value::is_string)
                || o.get("inlineData").is_some_and(media_keys)
                || o.get("fileData").is_some_and(media_keys))
    };
    v.get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| !parts.iter().all(held))
}

/// A tool result's words: what was shown (`resultDisplay` when a string),
/// else the function response's `output` or `error`.
fn result_text(call: &Value, result: &Value) -> String {
    if let Some(s) = call.get("resultDisplay").and_then(Value::as_str) {
        return s.to_owned();
    }
    let mut out = Vec::new();
    for part in result.as_array().into_iter().flatten() {
        let r = part.pointer("/functionResponse/response");
        for k in ["output", "error"] {
            if let Some(s) = r.and_then(|r| r.get(k)).and_then(Value::as_str) {
                out.push(s.to_owned());
            }
        }
    }
    if out.is_empty() {
        text_of(result)
    } else {
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_input_is_taken_out_of_input_when_the_total_includes_it() {
        let t = serde_json::json!({"input": 7269, "output": 46, "cached": 5811,
            "thoughts": 58, "tool": 0, "total": 7373});
        let u = usage_of(&t);
        assert_eq!(
            (u.input, u.cache_read, u.output, u.reasoning),
            (1458, 5811, 104, 58)
        );
        assert_eq!(u.total(), 7373);
        // A total that counts the cache on top: input is already uncached.
        let t = serde_json::json!({"input": 100, "output": 10, "cached": 50, "total": 160});
        assert_eq!(usage_of(&t).input, 100);
    }

    #[test]
    fn records_of_other_formats_are_not_gemini_records() {
        let claude = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
            "timestamp": "t", "message": {"role": "user", "content": "hi"}});
        let codex = serde_json::json!({"type": "session_meta", "timestamp": "t", "payload": {}});
        let openai = serde_json::json!({"role": "user", "content": "hi"});
        for v in [claude, codex, openai] {
            assert!(!is_record(&v), "{v}");
        }
        let gemini =
            serde_json::json!({"id": "a", "timestamp": "t", "type": "info", "content": "x"});
        assert!(is_record(&gemini));
    }
}
