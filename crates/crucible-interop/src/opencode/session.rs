//! One OpenCode session's records into a cru session:
//!
//! - the session record → title, start, `directory` (as `cwd`), `version`,
//!   `slug` (frontmatter), and whole as a source record;
//! - a user message → a phase with a `[!user]` callout from its text parts
//!   (a `synthetic` text part, which OpenCode adds itself, is a context
//!   record; a `file` part is an image record with a `[file: name]` marker
//!   when its bytes are inline, a source record otherwise);
//! - an assistant message → one usage record: its `tokens` (by `modelID`),
//!   `cost`, id and `time.created`; its
//!   `text` parts → `[!reply] @opencode`; `reasoning` → thinking records;
//!   `tool` parts → tool calls (input, output or error whole, ✗ for status
//!   `error`, duration from `state.time`, title and metadata in `extra`);
//!   `step-start`, `step-finish`, `snapshot`, `patch`, `agent`, `subtask`,
//!   `retry`, `compaction` parts → source records, kept whole;
//! - every message record is kept whole (less its parts) as a source
//!   record; a part of a type not listed is counted unknown and kept.

use std::path::Path;

use serde_json::{Map, Value};

use crucible_core::{
    AgentRef, Block, Callout, ContextData, DataRecord, Frontmatter, ImageData, Phase, SessionId,
    SessionLog, SourceData, ThinkingData, Timestamp, Tokens, ToolCall, args_line,
};

use super::Rows;
use crate::RecordTally;
use crate::transcript::{CallBook, finish_paused, phase_name, title_from};

use crate::requests::{Requests, record};

pub(super) fn opencode() -> AgentRef {
    "opencode".parse().expect("a valid agent name")
}

/// Part types that are kept whole as source records.
const KEPT: &[&str] = &[
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "agent",
    "subtask",
    "retry",
    "compaction",
];

/// A `task` call and the session it started.
pub(super) struct Task {
    pub child: String,
    pub agent: AgentRef,
    pub anchor: (usize, usize),
    pub description: Option<String>,
}

/// A converted session.
pub(super) struct Made {
    pub id: Option<String>,
    pub log: SessionLog,
    pub records: Vec<DataRecord>,
    pub tally: RecordTally,
    pub tasks: Vec<Task>,
}

#[derive(Default)]
struct Session {
    phases: Vec<Phase>,
    book: CallBook,
    records: Vec<DataRecord>,
    tally: RecordTally,
    requests: Requests,
    cost: Option<f64>,
    model: Option<String>,
    first_prompt: Option<String>,
    tasks: Vec<Task>,
}

pub(super) fn convert(path: &Path, rows: &Rows) -> Made {
    let mut s = Session::default();
    s.tally.read("session");
    s.source(rows.info.clone());
    for m in &rows.messages {
        match m.info.get("role").and_then(Value::as_str) {
            Some("user") => {
                s.tally.read("message/user");
                s.user(&m.parts);
            }
            Some("assistant") => {
                s.tally.read("message/assistant");
                s.assistant(&m.info, &m.parts);
            }
            other => {
                s.tally
                    .unknown(&format!("message/{}", other.unwrap_or("without role")));
                for p in &m.parts {
                    s.kept_part(p);
                }
            }
        }
        let mut info = m.info.clone();
        if let Some(o) = info.as_object_mut() {
            o.insert("record".into(), "message".into());
        }
        s.source(info);
    }
    s.finish(path, &rows.info)
}

impl Session {
    fn phase(&self) -> Option<usize> {
        self.phases.len().checked_sub(1)
    }

    fn source(&mut self, record: Value) {
        self.records.push(DataRecord::Source(SourceData {
            phase: self.phase(),
            line: None,
            record,
        }));
    }

    fn part_kind(p: &Value) -> &str {
        p.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// A part kept whole: counted read when of a known type, unknown else.
    fn kept_part(&mut self, p: &Value) {
        let kind = Self::part_kind(p);
        if KEPT.contains(&kind) {
            self.tally.read(&format!("part/{kind}"));
        } else {
            self.tally.unknown(&format!("part/{kind}"));
        }
        self.source(p.clone());
    }

    fn user(&mut self, parts: &[Value]) {
        let mut words = Vec::new();
        let mut later = Vec::new();
        for p in parts {
            let text = p.get("text").and_then(Value::as_str).unwrap_or("");
            match Self::part_kind(p) {
                "text" if p.get("synthetic").and_then(Value::as_bool) == Some(true) => {
                    self.tally.read("part/text");
                    later.push(p);
                }
                "text" => {
                    self.tally.read("part/text");
                    words.push(text.to_owned());
                }
                "file" => {
                    self.tally.read("part/file");
                    let name = p.get("filename").and_then(Value::as_str).unwrap_or("file");
                    words.push(format!("[file: {name}]"));
                    later.push(p);
                }
                _ => later.push(p),
            }
        }
        let words = words.join("\n");
        if !words.trim().is_empty() {
            self.first_prompt.get_or_insert_with(|| words.clone());
            let mut phase = Phase::new(
                phase_name(&words, self.phases.len() + 1),
                None,
                Some("main".into()),
            );
            phase
                .blocks
                .push(Block::Callout(Callout::user(words.trim(), None)));
            self.phases.push(phase);
        }
        for p in later {
            match Self::part_kind(p) {
                "text" => self.records.push(DataRecord::Context(ContextData {
                    phase: self.phase(),
                    label: "synthetic".into(),
                    text: p.get("text").and_then(Value::as_str).unwrap_or("").into(),
                    extra: rest(p, &["text", "type", "synthetic"]),
                })),
                "file" => self.file(p),
                _ => self.kept_part(p),
            }
        }
    }

    /// A file part: its bytes when inline (`data:<mime>;base64,...`).
    fn file(&mut self, p: &Value) {
        let url = p.get("url").and_then(Value::as_str).unwrap_or("");
        let Some((head, data)) = url
            .strip_prefix("data:")
            .and_then(|u| u.split_once(";base64,"))
        else {
            self.source(p.clone());
            return;
        };
        let media_type = p.get("mime").and_then(Value::as_str).unwrap_or(head);
        let pad = data.bytes().rev().take_while(|&b| b == b'=').count();
        self.records.push(DataRecord::Image(ImageData {
            phase: self.phase(),
            call: None,
            media_type: media_type.to_owned(),
            bytes: (data.len() / 4 * 3).saturating_sub(pad) as u64,
            data: Some(data.to_owned()),
            extra: rest(p, &["url", "mime", "type"]),
        }));
    }

    fn assistant(&mut self, info: &Value, parts: &[Value]) {
        let model = info.get("modelID").and_then(Value::as_str);
        if self.model.is_none() {
            self.model = model.map(str::to_owned);
        }
        let cost = info.get("cost").and_then(Value::as_f64);
        if let Some(c) = cost {
            *self.cost.get_or_insert(0.0) += c;
        }
        if let Some(t) = info.get("tokens") {
            let n = |p: &str| t.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            // OpenCode's `output` leaves the reasoning out; cru's holds it.
            let tokens = Tokens {
                input: n("/input"),
                output: n("/output") + n("/reasoning"),
                cache_creation: n("/cache/write"),
                cache_read: n("/cache/read"),
                reasoning: n("/reasoning"),
                cache_creation_1h: 0,
            };
            if !tokens.is_zero() {
                let at = info
                    .pointer("/time/created")
                    .and_then(Value::as_i64)
                    .map(Timestamp::from_unix_ms);
                let id = info.get("id").and_then(Value::as_str).map(str::to_owned);
                let mut r = record(at, model, tokens, id);
                r.cost_usd = cost;
                self.requests.put(&mut self.phases, r);
            }
        }
        for p in parts {
            match Self::part_kind(p) {
                "text" => {
                    self.tally.read("part/text");
                    let text = p.get("text").and_then(Value::as_str).unwrap_or("").trim();
                    if !text.is_empty() {
                        if self.phases.is_empty() {
                            self.phases
                                .push(Phase::new("Start", None, Some("main".into())));
                        }
                        let last = self.phases.last_mut().expect("a phase was just ensured");
                        last.blocks
                            .push(Block::Callout(Callout::reply(Some(&opencode()), text)));
                    }
                }
                "reasoning" => {
                    self.tally.read("part/reasoning");
                    self.records.push(DataRecord::Thinking(ThinkingData {
                        phase: self.phase(),
                        text: p.get("text").and_then(Value::as_str).unwrap_or("").into(),
                        extra: rest(p, &["text", "type"]),
                    }));
                }
                "tool" => {
                    self.tally.read("part/tool");
                    self.tool(p);
                }
                _ => self.kept_part(p),
            }
        }
    }

    fn tool(&mut self, p: &Value) {
        let name = p.get("tool").and_then(Value::as_str).unwrap_or("tool");
        let state = p.get("state").unwrap_or(&Value::Null);
        let input = state.get("input").cloned().unwrap_or(Value::Null);
        let id = p
            .get("callID")
            .or_else(|| p.get("id"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let call = ToolCall::new(name, args_line(&input));
        let record = self
            .book
            .add_full(&mut self.phases, call, Some(&id), Some(input.clone()));
        // The part's own `id` is kept as `partID`: `id` is the call's.
        record.extra = rest(p, &["tool", "callID", "state", "type", "id"]);
        if let Some(part) = p.get("id") {
            record.extra.insert("partID".into(), part.clone());
        }
        record.exit_code = state.pointer("/metadata/exit").and_then(Value::as_i64);
        for (k, v) in rest(state, &["input", "output", "error"]) {
            record.extra.insert(k, v);
        }
        let time = |k: &str| state.pointer(&format!("/time/{k}")).and_then(Value::as_i64);
        if let (Some(a), Some(b)) = (time("start"), time("end")) {
            record.duration_ms = u64::try_from(b - a).ok();
        }
        let status = state.get("status").and_then(Value::as_str).unwrap_or("");
        let answer = match status {
            "completed" => state.get("output").map(|o| (o.clone(), false)),
            "error" => Some((state.get("error").cloned().unwrap_or(Value::Null), true)),
            _ => None,
        };
        if let Some((result, failed)) = answer {
            self.book.answer_full(&mut self.phases, &id, result, failed);
        }
        if name == "task" {
            self.task(state, &input);
        }
    }

    /// A `task` call: the subagent session it started, by the id OpenCode
    /// put in its metadata (or its output's `task_id:` line).
    fn task(&mut self, state: &Value, input: &Value) {
        let from_output = || {
            let out = state.get("output").and_then(Value::as_str)?;
            let line = out.lines().find_map(|l| l.strip_prefix("task_id: "))?;
            line.split_whitespace().next().map(str::to_owned)
        };
        let Some(child) = state
            .pointer("/metadata/sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(from_output)
        else {
            return;
        };
        let p = self.phases.len() - 1;
        let anchor = (p, self.phases[p].blocks.len() - 1);
        let agent = input
            .get("subagent_type")
            .and_then(Value::as_str)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(opencode);
        self.tasks.push(Task {
            child,
            agent,
            anchor,
            description: input
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }

    fn finish(mut self, path: &Path, info: &Value) -> Made {
        let str_of = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| info.get(*k).and_then(Value::as_str))
                .map(str::to_owned)
        };
        let started = info
            .get("time_created")
            .or_else(|| info.pointer("/time/created"))
            .and_then(Value::as_i64)
            .map_or_else(|| crate::transcript::mtime(path), Timestamp::from_unix_ms);
        let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
        fm.participants.push(opencode());
        fm.model = self.model;
        fm.cost_usd = self.cost;
        // The working directory under the key every importer gives it.
        for (key, field) in [
            ("cwd", "directory"),
            ("version", "version"),
            ("slug", "slug"),
        ] {
            if let Some(v) = str_of(&[field]) {
                fm.extra.insert(key, v);
            }
        }
        let title = str_of(&["title"])
            .filter(|t| !t.trim().is_empty())
            .or_else(|| self.first_prompt.as_deref().and_then(title_from))
            .unwrap_or_else(|| "OpenCode session".to_owned());
        let mut log = SessionLog::new(fm);
        self.requests.settle(&mut self.phases);
        finish_paused(&mut log, title, self.phases);
        log.refresh_usage_totals();
        let mut records: Vec<DataRecord> = self.book.into_records().collect();
        records.extend(self.records);
        Made {
            id: str_of(&["id"]),
            log,
            records,
            tally: self.tally,
            tasks: self.tasks,
        }
    }
}

/// An object's fields but `leave`.
fn rest(v: &Value, leave: &[&str]) -> Map<String, Value> {
    v.as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !leave.contains(&k.as_str()))
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect()
}
