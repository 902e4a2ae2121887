//! A Codex rollout: lines of `{timestamp, type, payload}`.
//!
//! - `session_meta` → the source id, `cwd`, `cli_version`, `originator`, the
//!   start; the record whole in the sidecar;
//! - `turn_context` → the model the next tokens are spent by (the first one
//!   is the session's); each one that changes something, whole in the
//!   sidecar;
//! - `response_item` `message` from the user → a new phase named from its
//!   first words with a `[!user]` callout; what Codex wrote itself (the
//!   environment, instructions, AGENTS.md, the IDE's open tabs) → context
//!   records, never a phase or the title; from the assistant → a
//!   `[!reply] @codex`; from the developer → context;
//! - `function_call`, `custom_tool_call`, `local_shell_call`,
//!   `web_search_call` → a tool call, kept whole (id, arguments parsed as
//!   JSON when they are, an `apply_patch`'s patch as its diff), answered by
//!   the `*_output` with its `call_id` (full output, exit code, duration;
//!   ✗ when the exit code is not 0 or Codex says it did not run);
//! - `reasoning` → a thinking record (its summary);
//! - `event_msg` `token_count` → tokens ([`super::tokens`]); the events
//!   that repeat a response item (`user_message`, `agent_message`,
//!   `agent_reasoning`) are read as that item's echo; `turn_aborted`,
//!   `compacted` and `context_compacted` are kept as context.

use std::path::Path;

use serde_json::{Map, Value, json};

use crucible_core::{
    AgentRef, ContextData, DataRecord, ImageData, Phase, SourceData, ThinkingData, Timestamp,
    ToolCall, args_line,
};

use super::tokens::{TokenCounter, replay_second};
use super::{Output, split_user_message};
use crate::requests::{Requests, record, time};
use crate::transcript::{
    CallBook, base64_len, conversation_session, image_marker, push_reply, push_user_phase, text_of,
};
use crate::{ImportWarning, Imported, RecordTally};

/// What a rollout has given so far.
struct Reader {
    agent: AgentRef,
    started: Option<Timestamp>,
    id: Option<String>,
    /// The session's model: the first `turn_context`'s.
    model: Option<String>,
    /// The model spending tokens now.
    current_model: Option<String>,
    last_context: Option<Value>,
    extra: Vec<(&'static str, String)>,
    phases: Vec<Phase>,
    first_prompt: Option<String>,
    book: CallBook,
    records: Vec<DataRecord>,
    tally: RecordTally,
    tokens: TokenCounter,
    requests: Requests,
}

pub(super) fn import(path: &Path, bytes: &[u8], text: &str) -> Imported {
    let mut warnings = Vec::new();
    let lines = crate::transcript::json_lines(path, text, &mut warnings);
    let mut r = Reader {
        agent: "codex".parse().expect("a valid agent name"),
        started: None,
        id: None,
        model: None,
        current_model: None,
        last_context: None,
        extra: Vec::new(),
        phases: Vec::new(),
        first_prompt: None,
        book: CallBook::default(),
        records: Vec::new(),
        tally: RecordTally::default(),
        tokens: TokenCounter::new(fork_replay(&lines)),
        requests: Requests::default(),
    };
    for (line, v) in &lines {
        if r.started.is_none() {
            r.started = v
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok());
        }
        r.line(*line, v);
    }
    r.finish(path, bytes, warnings)
}

/// The second a forked or spawned rollout replayed its parent's history in
/// (see [`super::tokens`]).
fn fork_replay(lines: &[(usize, Value)]) -> Option<String> {
    let forked = lines.iter().any(|(_, v)| {
        v.get("type").and_then(Value::as_str) == Some("session_meta")
            && (v.pointer("/payload/forked_from_id").is_some()
                || v.pointer("/payload/source/subagent").is_some())
    });
    let stamps: Vec<&str> = lines
        .iter()
        .filter(|(_, v)| v.pointer("/payload/info/total_token_usage").is_some())
        .filter_map(|(_, v)| v.get("timestamp").and_then(Value::as_str))
        .collect();
    replay_second(forked, &stamps)
}

impl Reader {
    fn line(&mut self, line: usize, v: &Value) {
        let payload = v.get("payload").unwrap_or(&Value::Null);
        let inner = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "session_meta" => self.session_meta(line, payload),
            "turn_context" => self.turn_context(line, payload),
            "response_item" => self.response_item(line, payload, inner),
            "event_msg" => self.event(line, v, payload, inner),
            "compacted" => {
                self.tally.read("compacted");
                self.context("compacted", text_of_compacted(payload), payload);
                // The history the summary replaces (images included) is
                // kept beside the summary, not only when there is none.
                if let (Some(history), Some(DataRecord::Context(c))) =
                    (payload.get("replacement_history"), self.records.last_mut())
                    && !c.extra.contains_key("record")
                {
                    c.extra
                        .entry("replacement_history")
                        .or_insert_with(|| history.clone());
                }
            }
            // Codex 0.15x: each response's own usage (the `token_count`
            // event after it says the same, and is what is counted), and
            // the environment the model was shown. Kept whole, not shown.
            kind @ ("token_usage_record" | "world_state") => {
                self.tally.read(kind);
                self.source(line, v);
            }
            other => {
                // Counted and kept whole, so the next change of the format
                // shows up in the report and loses nothing.
                self.tally
                    .unknown(if other.is_empty() { "(no type)" } else { other });
                self.source(line, v);
            }
        }
    }

    fn source(&mut self, line: usize, record: &Value) {
        self.records.push(DataRecord::Source(SourceData {
            phase: self.phases.len().checked_sub(1),
            line: Some(line),
            record: record.clone(),
        }));
    }

    fn context(&mut self, label: &str, text: String, whole: &Value) {
        let mut extra = Map::new();
        if text.is_empty() && !whole.is_null() {
            extra.insert("record".into(), whole.clone());
        }
        self.records.push(DataRecord::Context(ContextData {
            phase: self.phases.len().checked_sub(1),
            label: label.to_owned(),
            text,
            extra,
        }));
    }

    fn session_meta(&mut self, line: usize, payload: &Value) {
        self.tally.read("session_meta");
        self.id = payload.get("id").and_then(Value::as_str).map(str::to_owned);
        if let Some(t) = payload
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|t| t.parse().ok())
        {
            self.started = Some(t);
        }
        for key in ["cwd", "cli_version", "originator"] {
            if let Some(s) = payload.get(key).and_then(Value::as_str) {
                self.extra.push((key, s.to_owned()));
            }
        }
        self.source(line, &json!({"type": "session_meta", "payload": payload}));
    }

    /// The model the requests from here on are made with (the session's,
    /// if it is the first named).
    fn model_named(&mut self, m: &str) {
        self.model.get_or_insert_with(|| m.to_owned());
        self.current_model = Some(m.to_owned());
    }

    fn turn_context(&mut self, line: usize, payload: &Value) {
        self.tally.read("turn_context");
        if let Some(m) = payload.get("model").and_then(Value::as_str) {
            self.model_named(m);
        }
        // Codex writes one before every model request, mostly the same:
        // the first and each change are kept.
        if self.last_context.as_ref() != Some(payload) {
            self.source(line, &json!({"type": "turn_context", "payload": payload}));
            self.last_context = Some(payload.clone());
        }
    }

    fn response_item(&mut self, line: usize, payload: &Value, inner: &str) {
        let kind = format!("response_item/{inner}");
        match inner {
            "message" => {
                self.tally.read(&kind);
                self.message(payload);
            }
            "reasoning" => {
                self.tally.read(&kind);
                self.reasoning(payload);
            }
            "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
                self.tally.read(&kind);
                self.call(payload, inner);
            }
            "function_call_output" | "custom_tool_call_output" => {
                self.tally.read(&kind);
                self.output(payload);
            }
            _ => {
                self.tally.unknown(&kind);
                self.source(line, &json!({"type": "response_item", "payload": payload}));
            }
        }
    }

    fn message(&mut self, payload: &Value) {
        let words = payload.get("content").map(text_of).unwrap_or_default();
        match payload.get("role").and_then(Value::as_str) {
            Some("user") => {
                let (context, request) = split_user_message(&words);
                if let Some((label, text)) = context {
                    self.context(label, text, &Value::Null);
                }
                let images = user_images(payload.get("content"));
                for _ in &images {
                    self.tally.read("response_item/message/input_image");
                }
                let markers: Vec<String> = images.iter().map(|i| i.marker.clone()).collect();
                // The images go in the callout of the words they came with,
                // or in one of their own when Codex sent them alone.
                if let Some(r) = &request {
                    self.first_prompt.get_or_insert_with(|| r.clone());
                }
                let callout = match (request, markers.is_empty()) {
                    (Some(r), true) => Some(r),
                    (Some(r), false) => Some(format!("{r}\n\n{}", markers.join("\n"))),
                    (None, false) => Some(markers.join("\n")),
                    (None, true) => None,
                };
                if let Some(callout) = callout {
                    push_user_phase(&mut self.phases, &callout);
                }
                let phase = self.phases.len().checked_sub(1);
                self.records.extend(
                    images
                        .into_iter()
                        .map(|i| DataRecord::Image(ImageData { phase, ..i.record })),
                );
            }
            Some("assistant") if !words.trim().is_empty() => {
                push_reply(&mut self.phases, &self.agent, &words);
            }
            Some(role) => {
                let role = role.to_owned();
                self.context(&role, words, payload);
            }
            None => self.context("message", words, payload),
        }
    }

    fn reasoning(&mut self, payload: &Value) {
        let text = payload.get("summary").map(text_of).unwrap_or_default();
        let mut extra = Map::new();
        for key in ["content", "encrypted_content"] {
            if let Some(v) = payload.get(key).filter(|v| !v.is_null()) {
                extra.insert(key.into(), v.clone());
            }
        }
        self.records.push(DataRecord::Thinking(ThinkingData {
            phase: self.phases.len().checked_sub(1),
            text,
            extra,
        }));
    }

    fn call(&mut self, payload: &Value, inner: &str) {
        let name = match inner {
            "web_search_call" => "web_search",
            "local_shell_call" => "shell",
            _ => payload
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("tool"),
        };
        let raw = payload
            .get("arguments")
            .or_else(|| payload.get("input"))
            .or_else(|| payload.get("action"))
            .unwrap_or(&Value::Null);
        // Codex sends arguments as a JSON string: kept parsed when they parse.
        let arguments = match raw {
            Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| raw.clone()),
            other => other.clone(),
        };
        let call = ToolCall::new(
            name.split_whitespace().collect::<Vec<_>>().join("_"),
            args_line(raw),
        );
        let id = payload.get("call_id").and_then(Value::as_str);
        let data = self
            .book
            .add_full(&mut self.phases, call, id, Some(arguments.clone()));
        data.diff = patch_of(name, &arguments);
        data.extra.insert("item_type".into(), inner.into());
        if payload.get("input").is_some() && payload.get("arguments").is_none() {
            data.extra.insert("arguments_key".into(), "input".into());
        }
        if let Some(status) = payload.get("status") {
            data.extra.insert("status".into(), status.clone());
        }
    }

    fn output(&mut self, payload: &Value) {
        let id = payload.get("call_id").and_then(Value::as_str).unwrap_or("");
        let out = Output::read(payload.get("output").unwrap_or(&Value::Null));
        if let Some(data) =
            self.book
                .answer_full(&mut self.phases, id, Value::String(out.text), out.failed)
        {
            data.exit_code = out.exit_code;
            data.duration_ms = out.duration_ms;
            if let Some(m) = out.metadata {
                data.extra.insert("metadata".into(), m);
            }
        }
    }

    fn event(&mut self, line: usize, v: &Value, payload: &Value, inner: &str) {
        let kind = format!("event_msg/{inner}");
        match inner {
            "token_count" => {
                self.tally.read(&kind);
                if let Some(t) = payload.pointer("/info/total_token_usage") {
                    let model = payload
                        .pointer("/info/model")
                        .and_then(Value::as_str)
                        .or(self.current_model.as_deref())
                        .map(str::to_owned);
                    let at = v.get("timestamp").and_then(Value::as_str);
                    if let Some(step) = self.tokens.total(t, at) {
                        // Codex gives a request no id of its own.
                        let r = record(time(at), model.as_deref(), step, None);
                        self.requests.put(&mut self.phases, r);
                    }
                }
            }
            // Echoes of response items, read there.
            "user_message"
            | "agent_message"
            | "agent_reasoning"
            | "agent_reasoning_raw_content"
            | "task_started"
            | "task_complete" => self.tally.read(&kind),
            // Codex 0.15x: the thread's settings as applied (the model a
            // request after it is priced by, as `turn_context` says it).
            "thread_settings_applied" => {
                self.tally.read(&kind);
                if let Some(m) = payload
                    .pointer("/thread_settings/model")
                    .and_then(Value::as_str)
                {
                    self.model_named(m);
                }
                self.source(line, v);
            }
            // Codex 0.15x: each item as it completed, the same message,
            // reasoning, call or output as its response item (read there).
            // Kept whole: a command's exit code and duration are only here.
            "item_completed" => {
                self.tally.read(&kind);
                self.source(line, v);
            }
            "turn_aborted" | "context_compacted" => {
                self.tally.read(&kind);
                let reason = payload
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.context(inner, reason, payload);
            }
            _ => {
                self.tally.unknown(&kind);
                self.source(line, v);
            }
        }
    }

    fn finish(mut self, path: &Path, bytes: &[u8], warnings: Vec<ImportWarning>) -> Imported {
        let (agent, model, extra) = (self.agent, self.model, self.extra);
        self.requests.settle(&mut self.phases);
        let mut log = conversation_session(
            path,
            self.started,
            self.first_prompt.as_deref(),
            "Codex session",
            self.phases,
            |fm| {
                fm.participants.push(agent);
                fm.model = model;
                for (k, s) in extra {
                    fm.extra.insert(k, s);
                }
            },
        );
        log.refresh_usage_totals();
        let mut imported =
            crate::imported(crate::Format::Codex, path, self.id, bytes, log, warnings);
        imported.data.records = self.records;
        imported.data.records.extend(self.book.into_records());
        imported.records = self.tally;
        imported
    }
}

/// A compaction's summary text.
fn text_of_compacted(payload: &Value) -> String {
    payload
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The patch an `apply_patch` call carries: its whole input (custom tool),
/// or its `input` argument (function tool).
fn patch_of(name: &str, arguments: &Value) -> Option<String> {
    if name != "apply_patch" {
        return None;
    }
    match arguments {
        Value::String(s) => Some(s.clone()),
        v => v.get("input").and_then(Value::as_str).map(str::to_owned),
    }
}

/// An image a user message carried: the marker its callout shows and its
/// record (phase set once the message's phase is known).
struct UserImage {
    marker: String,
    record: ImageData,
}

/// The `input_image` parts of a user message's content. Codex sends every
/// image (pasted, attached or a local file it read) as
/// `{"type": "input_image", "image_url": "data:<media type>;base64,..."}`;
/// an `image_url` that is not a data URL is kept as its `url`.
fn user_images(content: Option<&Value>) -> Vec<UserImage> {
    content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("input_image"))
        .map(|p| {
            let url = p.get("image_url").and_then(Value::as_str).unwrap_or("");
            let mut extra = Map::new();
            let (media_type, data) = if let Some((media, b64)) = url
                .strip_prefix("data:")
                .and_then(|rest| rest.split_once(";base64,"))
            {
                (media.to_owned(), Some(b64.to_owned()))
            } else {
                extra.insert("url".into(), url.into());
                ("image".to_owned(), None)
            };
            let bytes = data.as_deref().map_or(0, base64_len);
            let marker = match &data {
                Some(_) => image_marker(&media_type, bytes),
                None => format!("[image: {url}]"),
            };
            if let Some(detail) = p.get("detail") {
                extra.insert("detail".into(), detail.clone());
            }
            UserImage {
                marker,
                record: ImageData {
                    phase: None,
                    call: None,
                    media_type,
                    bytes,
                    data,
                    extra,
                },
            }
        })
        .collect()
}
