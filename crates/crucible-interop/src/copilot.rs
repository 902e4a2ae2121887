//! GitHub Copilot CLI sessions: `~/.copilot/session-state/<id>/events.jsonl`
//! (also `<id>.jsonl`), lines of `{type, data, id, timestamp, parentId}`.
//!
//! - `session.start` → the source id, start, `cwd` and CLI version;
//!   `session.model_change` → the model of what follows;
//! - `user.message` → a new phase with a `[!user]` callout from `content`
//!   (what the model was sent, `transformedContent`, is a context record;
//!   a message with no `content` of the user's, as autopilot's "keep
//!   going" nudges, is only that);
//! - `assistant.message` → a `[!reply] @copilot`, its `toolRequests` →
//!   tool calls (arguments whole in the sidecar), its `reasoningText` → a
//!   thinking record; `tool.execution_complete` → the call's result (✗ when
//!   `success` is false; a `detailedContent` diff is the call's diff);
//! - `system.message`, `session.info`, `session.mode_changed`,
//!   `session.task_complete` → context records;
//! - `session.shutdown`'s `modelMetrics` → one usage record per model (its
//!   `inputTokens` hold the cache reads, which are taken out, as ccusage
//!   does for Copilot's OpenTelemetry counts), at the shutdown's time, in
//!   the phase then being written: the run's requests together, the finest
//!   the log gives; a session without a shutdown (still running, or
//!   killed) has only the replies' output tokens, a record per reply;
//! - everything else (turn starts and ends, tool starts) is kept whole as a
//!   source record.

use std::path::Path;

use serde_json::{Map, Value};

use crucible_core::{
    AgentRef, ContextData, DataRecord, Phase, SessionLog, SourceData, ThinkingData, Timestamp,
    Tokens, ToolCall, UsageRecord, args_line,
};

use crate::requests::{Requests, record, time};
use crate::transcript::{CallBook, conversation_session, push_reply, push_user_phase, text_of};
use crate::{ImportError, Imported, RecordTally};

/// True for a line of a Copilot CLI event log: a dotted `type` of one of
/// its families, a `data` object, an `id` and a `timestamp`.
pub(crate) fn is_record(v: &impl crate::line_shape::Fields) -> bool {
    let family = v
        .str_at("type")
        .and_then(|t| t.split_once('.'))
        .map(|(f, _)| f);
    matches!(
        family,
        Some("session" | "user" | "assistant" | "tool" | "system" | "subagent" | "hook" | "skill")
    ) && v.object_at("data")
        && v.has("id")
        && v.has("timestamp")
}

/// The event types of Copilot CLI 1.0 this importer reads; any other is
/// counted as unknown and kept whole as a source record.
const KNOWN: &[&str] = &[
    "session.start",
    "session.model_change",
    "session.info",
    "session.mode_changed",
    "session.task_complete",
    "session.shutdown",
    "system.message",
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.turn_end",
    "tool.execution_start",
    "tool.execution_complete",
];

fn copilot() -> AgentRef {
    "copilot".parse().expect("a valid agent name")
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let mut warnings = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut warnings);
    let mut s = Session::default();
    for (line, v) in crate::transcript::json_lines(path, &text, &mut warnings) {
        s.event(line, &v);
    }
    let id = s.id.clone();
    let (log, records, tally) = s.finish(path);
    let mut imported = crate::imported(crate::Format::Copilot, path, id, &bytes, log, warnings);
    imported.data.records = records;
    imported.records = tally;
    Ok(imported)
}

#[derive(Debug, Default)]
struct Session {
    id: Option<String>,
    started: Option<Timestamp>,
    extra: Vec<(&'static str, String)>,
    model: Option<String>,
    first_model: Option<String>,
    phases: Vec<Phase>,
    book: CallBook,
    records: Vec<DataRecord>,
    tally: RecordTally,
    first_prompt: Option<String>,
    /// From each `session.shutdown`: its run's tokens by model, with the
    /// phase then being written.
    shutdown_usage: Option<Vec<(Option<usize>, UsageRecord)>>,
    /// The replies' `outputTokens`, for a session that never shut down.
    reply_usage: Vec<(Option<usize>, UsageRecord)>,
}

impl Session {
    fn phase(&self) -> Option<usize> {
        self.phases.len().checked_sub(1)
    }

    fn context(&mut self, label: &str, text: String) {
        self.records.push(DataRecord::Context(ContextData {
            phase: self.phase(),
            label: label.to_owned(),
            text,
            extra: Map::new(),
        }));
    }

    fn source(&mut self, line: usize, v: &Value) {
        self.records.push(DataRecord::Source(SourceData {
            phase: self.phase(),
            line: Some(line),
            record: v.clone(),
        }));
    }

    fn event(&mut self, line: usize, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        let data = v.get("data").unwrap_or(&Value::Null);
        let str_of = |k: &str| data.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        if self.started.is_none() {
            self.started = v
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok());
        }
        if !is_record(v) {
            self.tally.unknown(if kind.is_empty() {
                "line without type"
            } else {
                kind
            });
            self.source(line, v);
            return;
        }
        if KNOWN.contains(&kind) {
            self.tally.read(kind);
        } else {
            self.tally.unknown(kind);
        }
        match kind {
            "session.start" => {
                self.start(data);
                self.source(line, v);
            }
            "session.model_change" => {
                self.model = data
                    .get("newModel")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if self.first_model.is_none() {
                    self.first_model.clone_from(&self.model);
                }
            }
            "user.message" => self.user(data),
            "assistant.message" => self.assistant(v, data),
            "tool.execution_complete" => self.tool_done(data),
            "system.message" => self.context("system prompt", str_of("content")),
            "session.info" => self.context("info", str_of("message")),
            "session.mode_changed" => self.context("mode", str_of("newMode")),
            "session.task_complete" => self.context("task complete", str_of("summary")),
            "session.shutdown" => {
                self.shutdown(v, data);
                self.source(line, v);
            }
            _ => self.source(line, v),
        }
    }

    fn start(&mut self, data: &Value) {
        self.id = data
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(t) = data
            .get("startTime")
            .and_then(Value::as_str)
            .and_then(|t| t.parse().ok())
        {
            self.started = Some(t);
        }
        if let Some(cwd) = data.pointer("/context/cwd").and_then(Value::as_str) {
            self.extra.push(("cwd", cwd.to_owned()));
        }
        if let Some(ver) = data.get("copilotVersion").and_then(Value::as_str) {
            self.extra.push(("cli_version", ver.to_owned()));
        }
    }

    fn user(&mut self, data: &Value) {
        let words = data.get("content").map(text_of).unwrap_or_default();
        if !words.trim().is_empty() {
            self.first_prompt.get_or_insert_with(|| words.clone());
            push_user_phase(&mut self.phases, &words);
        }
        if let Some(t) = data.get("transformedContent").and_then(Value::as_str) {
            self.context("sent to the model", t.to_owned());
        }
        let mut rest = data.as_object().cloned().unwrap_or_default();
        rest.remove("content");
        rest.remove("transformedContent");
        if !rest.is_empty() {
            self.records.push(DataRecord::Source(SourceData {
                phase: self.phase(),
                line: None,
                record: Value::Object(rest),
            }));
        }
    }

    fn assistant(&mut self, event: &Value, data: &Value) {
        if let Some(n) = data
            .get("outputTokens")
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
        {
            let u = Tokens {
                output: n,
                ..Tokens::default()
            };
            let id = data
                .get("messageId")
                .or_else(|| event.get("id"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let at = time(event.get("timestamp").and_then(Value::as_str));
            let r = record(at, self.model.as_deref(), u, id);
            self.reply_usage.push((self.phase(), r));
        }
        if let Some(t) = data.get("reasoningText").and_then(Value::as_str) {
            let mut extra = Map::new();
            if let Some(o) = data.get("reasoningOpaque") {
                extra.insert("reasoningOpaque".into(), o.clone());
            }
            self.records.push(DataRecord::Thinking(ThinkingData {
                phase: self.phase(),
                text: t.to_owned(),
                extra,
            }));
        }
        let words = data.get("content").map(text_of).unwrap_or_default();
        if !words.trim().is_empty() {
            push_reply(&mut self.phases, &copilot(), &words);
        }
        for req in data
            .get("toolRequests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = req.get("name").and_then(Value::as_str).unwrap_or("tool");
            let args = req.get("arguments").cloned().unwrap_or(Value::Null);
            let call = ToolCall::new(
                name.split_whitespace().collect::<Vec<_>>().join("_"),
                args_line(&args),
            );
            let id = req.get("toolCallId").and_then(Value::as_str);
            let record = self.book.add_full(&mut self.phases, call, id, Some(args));
            for (k, x) in req.as_object().into_iter().flatten() {
                if !matches!(k.as_str(), "toolCallId" | "name" | "arguments") {
                    record.extra.insert(k.clone(), x.clone());
                }
            }
        }
    }

    fn tool_done(&mut self, data: &Value) {
        let Some(id) = data.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        let failed = data.get("success").and_then(Value::as_bool) == Some(false);
        let result = data.get("result").cloned().unwrap_or(Value::Null);
        let words = result
            .get("content")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                data.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| text_of(&result));
        let Some(record) =
            self.book
                .answer_full(&mut self.phases, id, Value::String(words), failed)
        else {
            self.tally.skip(
                "tool.execution_complete",
                "a result for a call no reply asked for",
            );
            return;
        };
        let detail = result
            .get("detailedContent")
            .and_then(Value::as_str)
            .unwrap_or("");
        if detail.trim_start().starts_with("diff --git") {
            record.diff = Some(detail.to_owned());
        }
        record.result = Some(result);
        for (k, x) in data.as_object().into_iter().flatten() {
            if !matches!(k.as_str(), "toolCallId" | "result" | "success") {
                record.extra.insert(k.clone(), x.clone());
            }
        }
    }

    fn shutdown(&mut self, event: &Value, data: &Value) {
        // A resumed session shuts down once per run, each with its own counts.
        let at = time(event.get("timestamp").and_then(Value::as_str));
        let event_id = event.get("id").and_then(Value::as_str);
        let phase = self.phase();
        let runs = self.shutdown_usage.get_or_insert_with(Vec::new);
        for (model, m) in data
            .get("modelMetrics")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let u = m.get("usage").unwrap_or(&Value::Null);
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            let cache_read = n("cacheReadTokens");
            let tokens = Tokens {
                input: n("inputTokens").saturating_sub(cache_read),
                output: n("outputTokens"),
                cache_creation: n("cacheWriteTokens"),
                cache_read,
                reasoning: n("reasoningTokens"),
                cache_creation_1h: 0,
            };
            if tokens.is_zero() {
                continue;
            }
            let id = event_id.map(|e| format!("{e}:{model}"));
            runs.push((phase, record(at.clone(), Some(model), tokens, id)));
        }
    }

    fn finish(mut self, path: &Path) -> (SessionLog, Vec<DataRecord>, RecordTally) {
        let (model, extra) = (self.first_model, self.extra);
        let mut requests = Requests::default();
        for (phase, r) in self.shutdown_usage.unwrap_or(self.reply_usage) {
            requests.put_in(&mut self.phases, phase, r);
        }
        requests.settle(&mut self.phases);
        let mut log = conversation_session(
            path,
            self.started,
            self.first_prompt.as_deref(),
            "Copilot CLI session",
            self.phases,
            |fm| {
                fm.participants.push(copilot());
                fm.model = model;
                for (k, s) in extra {
                    fm.extra.insert(k, s);
                }
            },
        );
        log.refresh_usage_totals();
        let mut records: Vec<DataRecord> = self.book.into_records().collect();
        records.extend(self.records);
        (log, records, self.tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: &str, id: &str, at: &str, data: &Value) -> Value {
        json!({"type": kind, "id": id, "timestamp": at, "parentId": null, "data": data})
    }

    /// A session read from `events`.
    fn read(events: &[Value]) -> SessionLog {
        let mut s = Session::default();
        for (i, v) in events.iter().enumerate() {
            s.event(i + 1, v);
        }
        s.finish(Path::new("events.jsonl")).0
    }

    #[test]
    fn a_shutdown_gives_one_record_per_model_and_replies_none() {
        let events = [
            event(
                "session.start",
                "e0",
                "2026-01-01T10:00:00Z",
                &json!({"sessionId": "s"}),
            ),
            event(
                "user.message",
                "e1",
                "2026-01-01T10:00:01Z",
                &json!({"content": "hi"}),
            ),
            event(
                "assistant.message",
                "e2",
                "2026-01-01T10:00:02Z",
                &json!({"content": "hello", "outputTokens": 7}),
            ),
            event(
                "session.shutdown",
                "e3",
                "2026-01-01T10:05:00Z",
                &json!({"modelMetrics": {
                "m1": {"usage": {"inputTokens": 100, "outputTokens": 7, "cacheReadTokens": 40}},
                "m2": {"usage": {"inputTokens": 5, "outputTokens": 1}}}}),
            ),
        ];
        let log = read(&events);
        let records: Vec<_> = log.usage_records().collect();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].id.as_deref(), Some("e3:m1"));
        assert_eq!(records[0].tokens.input, 60);
        assert_eq!(
            records[0].at.as_ref().unwrap().as_str(),
            "2026-01-01T10:05:00Z"
        );
        assert_eq!(log.frontmatter.tokens_used, Some(60 + 7 + 40 + 6));
        // Without the shutdown: the reply's output, in its phase.
        let log = read(&events[..3]);
        let records: Vec<_> = log.usage_records().collect();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].tokens.output, 7);
        assert_eq!(records[0].id.as_deref(), Some("e2"));
        assert_eq!(log.frontmatter.tokens_used, Some(7));
    }

    #[test]
    fn records_of_other_formats_are_not_copilot_events() {
        let claude = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
            "timestamp": "t", "message": {"role": "user", "content": "hi"}});
        let codex = serde_json::json!({"type": "event_msg", "timestamp": "t", "payload": {}});
        let gemini =
            serde_json::json!({"id": "a", "timestamp": "t", "type": "user", "content": "x"});
        for v in [claude, codex, gemini] {
            assert!(!is_record(&v), "{v}");
        }
        let copilot = serde_json::json!({"type": "assistant.turn_end", "data": {"turnId": "0"},
            "id": "x", "timestamp": "t", "parentId": "y"});
        assert!(is_record(&copilot));
    }
}
