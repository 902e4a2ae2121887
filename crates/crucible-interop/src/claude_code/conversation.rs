//! One conversation of a Claude Code transcript (the main chain, or one
//! subagent's run) read line by line into phases, tool calls and the
//! sidecar's records.

use std::path::Path;

use serde_json::{Map, Value};

use crucible_core::{
    AgentRef, Block, Callout, ContextData, DataRecord, Frontmatter, ImageData, Phase, SessionData,
    SessionId, SessionLog, ThinkingData, Timestamp, ToolCall, cut, one_line,
};

use super::synthetic::{Machinery, Synthetic, classify, machinery};
use super::tokens::Responses;
use crate::transcript::{
    CallBook, base64_len, finish_paused, image_marker, phase_name, title_from,
};

/// Tool names Claude Code starts a subagent with.
const TASK_TOOLS: [&str; 2] = ["Task", "Agent"];

/// A `Task` call of the main chain: where it is and what it asked.
#[derive(Debug)]
pub(super) struct TaskCall {
    pub phase: usize,
    pub block: usize,
    pub prompt: String,
    pub description: String,
    pub subagent_type: Option<String>,
}

/// One conversation being read.
pub(super) struct Conversation {
    pub agent: AgentRef,
    pub started: Option<Timestamp>,
    pub last: Option<Timestamp>,
    pub title: Option<String>,
    model: Option<String>,
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    extra: Vec<(&'static str, String)>,
    responses: Responses,
    phases: Vec<Phase>,
    /// When each phase started, as far as the lines say.
    phase_started: Vec<Option<Timestamp>>,
    /// Blocks waiting for the next phase (a slash command met before any).
    pending: Vec<Block>,
    pub first_prompt: Option<String>,
    pub last_reply: Option<String>,
    book: CallBook,
    /// Thinking, images, context and kept source lines, in order.
    records: Vec<DataRecord>,
    pub tasks: Vec<TaskCall>,
    /// True for a subagent's run (its own file or a side chain).
    pub subagent: bool,
    /// Set when this run is Claude Code's own (compaction, warm-up).
    pub machinery: Option<Machinery>,
}

impl Conversation {
    pub(super) fn new(agent: AgentRef) -> Self {
        Self {
            agent,
            started: None,
            last: None,
            title: None,
            model: None,
            session_id: None,
            agent_id: None,
            extra: Vec::new(),
            responses: Responses::default(),
            phases: Vec::new(),
            phase_started: Vec::new(),
            pending: Vec::new(),
            first_prompt: None,
            last_reply: None,
            book: CallBook::default(),
            records: Vec::new(),
            tasks: Vec::new(),
            subagent: false,
            machinery: None,
        }
    }

    /// The index of the phase being written, if any.
    fn phase(&self) -> Option<usize> {
        self.phases.len().checked_sub(1)
    }

    /// Keeps a line nothing else holds (system, progress, snapshots, ...)
    /// whole in the sidecar.
    pub(super) fn keep(&mut self, line: usize, v: Value) {
        let phase = self.phase();
        self.records
            .push(DataRecord::Source(crucible_core::SourceData {
                phase,
                line: Some(line),
                record: v,
            }));
    }

    /// Takes line `n`, of `type` `user` or `assistant` (or a usage line
    /// without a type). Its content goes to the phases and the sidecar's
    /// call, thinking, image and context records; the rest of it (the
    /// envelope: `uuid`, `parentUuid`, `timestamp`, `requestId`, the
    /// message's `id`, `usage`, `stop_reason`, ...) is kept as a source
    /// record, so that nothing the line held is lost.
    pub(super) fn line(&mut self, n: usize, mut v: Value) {
        // The content is taken out, not copied: tool results are most of
        // a transcript's bytes, and they move on into the sidecar's calls.
        let content = v
            .get_mut("message")
            .and_then(Value::as_object_mut)
            .and_then(|m| m.remove("content"));
        self.message(&v, content);
        self.keep(n, v);
    }

    fn message(&mut self, v: &Value, content: Option<Value>) {
        let at = v
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<Timestamp>().ok());
        if self.started.is_none() {
            self.started.clone_from(&at);
        }
        if at.is_some() {
            self.last.clone_from(&at);
        }
        self.envelope(v);
        let msg = v.get("message").unwrap_or(&Value::Null);
        // Content blocks as they are; a plain string is one text block.
        let blocks: Vec<Value> = match content {
            Some(Value::Array(a)) => a,
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        let is_user = v.get("type").and_then(Value::as_str) == Some("user")
            || msg.get("role").and_then(Value::as_str) == Some("user");
        if is_user {
            self.user(v, blocks);
        } else {
            self.assistant(v, msg, &blocks);
        }
        while self.phase_started.len() < self.phases.len() {
            self.phase_started.push(at.clone());
        }
    }

    /// The session-wide fields of a line: ids, `cwd`, `gitBranch`.
    fn envelope(&mut self, v: &Value) {
        let text_field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        if self.session_id.is_none() {
            self.session_id = text_field("sessionId");
        }
        if self.agent_id.is_none() {
            self.agent_id = text_field("agentId");
        }
        for (key, field) in [("cwd", "cwd"), ("git_branch", "gitBranch")] {
            if !self.extra.iter().any(|(k, _)| *k == key)
                && let Some(s) = text_field(field).filter(|s| !s.is_empty())
            {
                self.extra.push((key, s));
            }
        }
    }

    /// After the last block so far: where a run that starts now belongs.
    pub(super) fn here(&self) -> Option<(usize, usize)> {
        let p = self.phase()?;
        Some((p, self.phases[p].blocks.len().saturating_sub(1)))
    }

    /// The last block of the last phase that started by `t`.
    pub(super) fn at_time(&self, t: &Timestamp) -> Option<(usize, usize)> {
        let p = self
            .phase_started
            .iter()
            .rposition(|s| s.as_ref().is_some_and(|s| s.unix_ms() <= t.unix_ms()))?;
        Some((p, self.phases[p].blocks.len().saturating_sub(1)))
    }

    /// Starts a phase, with the blocks that waited for one.
    fn open_phase(&mut self, name: String) {
        let mut p = Phase::new(name, None, Some("main".into()));
        p.blocks.append(&mut self.pending);
        self.phases.push(p);
    }

    fn assistant(&mut self, v: &Value, msg: &Value, blocks: &[Value]) {
        let model = msg.get("model").and_then(Value::as_str);
        if self.model.is_none() {
            self.model = model.filter(|m| *m != "<synthetic>").map(str::to_owned);
        }
        if self.phases.is_empty() {
            self.open_phase("Start".into());
        }
        let synthetic = model == Some("<synthetic>");
        let pi = self.phases.len() - 1;
        self.responses.add(v, pi);
        for b in blocks {
            let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
            match s("type") {
                "text" => {
                    let t = s("text").trim();
                    if t.is_empty() {
                        continue;
                    }
                    let callout = if synthetic {
                        // Claude Code's placeholder for a failed request.
                        Callout::error(t, None)
                    } else {
                        self.last_reply = Some(t.to_owned());
                        Callout::reply(Some(&self.agent), t)
                    };
                    self.phases[pi].blocks.push(Block::Callout(callout));
                }
                "tool_use" => self.tool_use(b),
                "thinking" | "redacted_thinking" => {
                    let mut extra = Map::new();
                    for (k, val) in b.as_object().into_iter().flatten() {
                        if k != "thinking" && k != "type" {
                            extra.insert(k.clone(), val.clone());
                        }
                    }
                    if s("type") == "redacted_thinking" {
                        extra.insert("type".into(), "redacted_thinking".into());
                    }
                    self.records.push(DataRecord::Thinking(ThinkingData {
                        phase: Some(pi),
                        text: s("thinking").to_owned(),
                        extra,
                    }));
                }
                _ => {}
            }
        }
    }

    fn tool_use(&mut self, b: &Value) {
        let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
        let input = b.get("input").cloned().unwrap_or(Value::Null);
        let call = ToolCall::new(
            name.split_whitespace().collect::<Vec<_>>().join("_"),
            crucible_core::args_line(&input),
        );
        let id = b.get("id").and_then(Value::as_str);
        if TASK_TOOLS.contains(&name) {
            let field = |k: &str| {
                input
                    .get(k)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            };
            let task = TaskCall {
                phase: 0,
                block: 0,
                prompt: field("prompt"),
                description: field("description"),
                subagent_type: Some(field("subagent_type")).filter(|s| !s.is_empty()),
            };
            self.book.add_full(&mut self.phases, call, id, Some(input));
            let p = self.phases.len() - 1;
            self.tasks.push(TaskCall {
                phase: p,
                block: self.phases[p].blocks.len() - 1,
                ..task
            });
        } else {
            self.book.add_full(&mut self.phases, call, id, Some(input));
        }
    }

    fn user(&mut self, v: &Value, mut blocks: Vec<Value>) {
        let kind = |b: &Value| {
            b.get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        for r in blocks.iter_mut().filter(|b| kind(b) == "tool_result") {
            self.tool_result(v, r);
        }
        let mut words: Vec<String> = Vec::new();
        for b in &blocks {
            match kind(b).as_str() {
                "text" => {
                    let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                    match classify(v, t) {
                        None => words.push(t.to_owned()),
                        Some(Synthetic::Context(label)) => self.context(label, t),
                        Some(Synthetic::Command(cmd)) => {
                            self.context("command", t);
                            let callout = Block::Callout(Callout::user(&cmd, None));
                            match self.phase() {
                                Some(p) => self.phases[p].blocks.push(callout),
                                None => self.pending.push(callout),
                            }
                        }
                    }
                }
                "image" => {
                    let marker = self.image(b, None);
                    words.push(marker);
                }
                _ => {}
            }
        }
        let words = words.join("\n");
        if words.trim().is_empty() {
            return;
        }
        if self.subagent
            && self.phases.is_empty()
            && let Some(m) = machinery(&words)
        {
            // Claude Code's own prompt: context, never the run's title or
            // a phase named from it.
            self.machinery = Some(m);
            self.title = Some(m.title.to_owned());
            self.open_phase(m.title.to_owned());
            self.context(m.label, &words);
            return;
        }
        self.first_prompt.get_or_insert_with(|| words.clone());
        self.open_phase(phase_name(&words, self.phases.len() + 1));
        let p = self.phases.len() - 1;
        self.phases[p]
            .blocks
            .push(Block::Callout(Callout::user(words.trim(), None)));
    }

    fn context(&mut self, label: &str, text: &str) {
        let phase = self.phase();
        self.records.push(DataRecord::Context(ContextData {
            phase,
            label: label.to_owned(),
            text: text.to_owned(),
            extra: Map::new(),
        }));
    }

    /// An `image` block: its record, and the marker that stands for it.
    fn image(&mut self, b: &Value, call: Option<(usize, usize)>) -> String {
        let src = b.get("source").unwrap_or(&Value::Null);
        let s = |k: &str| src.get(k).and_then(Value::as_str);
        let media_type = s("media_type").unwrap_or("image").to_owned();
        let data = s("data").map(str::to_owned);
        let bytes = data.as_deref().map_or(0, base64_len);
        let mut extra = Map::new();
        if let Some(url) = s("url") {
            extra.insert("url".into(), url.into());
        }
        self.records.push(DataRecord::Image(ImageData {
            phase: call.map(|(p, _)| p).or_else(|| self.phase()),
            call: call.map(|(_, c)| c),
            media_type: media_type.clone(),
            bytes,
            data,
            extra,
        }));
        image_marker(&media_type, bytes)
    }

    /// A `tool_result` block: the call's ✗, summary and whole result, and
    /// what the line's `toolUseResult` adds (patch, duration, output).
    fn tool_result(&mut self, v: &Value, r: &mut Value) {
        let failed = r.get("is_error").and_then(Value::as_bool) == Some(true);
        // Taken, not copied: the block is not read again.
        let content = r.get_mut("content").map_or(Value::Null, Value::take);
        let id = r.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
        let images: Vec<Value> = match &content {
            Value::Array(parts) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("image"))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let Some(data) = self.book.answer_full(&mut self.phases, id, content, failed) else {
            return;
        };
        if let Some(extra) = v.get("toolUseResult") {
            tool_use_result(data, extra);
        }
        let (phase, call) = (data.phase, data.call);
        let markers: Vec<String> = images
            .iter()
            .map(|b| self.image(b, Some((phase, call))))
            .collect();
        if !markers.is_empty()
            && let Some(c) = nth_call(&mut self.phases[phase], call)
        {
            let mut s = c.summary.take().unwrap_or_default();
            for m in markers {
                s = if s.is_empty() { m } else { format!("{s} {m}") };
            }
            c.summary = Some(s);
        }
    }

    /// The session, paused at its last phase, and its sidecar.
    pub(super) fn into_log(
        mut self,
        path: &Path,
        fallback_title: &str,
    ) -> (SessionLog, SessionData) {
        let started = self
            .started
            .unwrap_or_else(|| crate::transcript::mtime(path));
        let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
        fm.participants.push(self.agent);
        fm.model = self.model;
        for (k, s) in self.extra {
            fm.extra.insert(k, s);
        }
        let title = self
            .title
            .or_else(|| self.first_prompt.as_deref().and_then(title_from))
            .unwrap_or_else(|| fallback_title.to_owned());
        let mut log = SessionLog::new(fm);
        if let Some(last) = self.phases.last_mut() {
            last.blocks.append(&mut self.pending);
        } else {
            log.preamble.append(&mut self.pending);
        }
        self.responses.into_phases(&mut self.phases);
        finish_paused(&mut log, title, self.phases);
        log.refresh_usage_totals();
        let mut records: Vec<DataRecord> = self.book.into_records().collect();
        records.extend(self.records);
        (log, SessionData { records })
    }
}

/// What Claude Code's `toolUseResult` says beyond the `tool_result`: an
/// edit's `structuredPatch` as a diff, a duration, an exit code; the whole
/// value is kept too (stdout, stderr, file contents, ...).
fn tool_use_result(data: &mut crucible_core::CallData, extra: &Value) {
    let n = |k: &str| extra.get(k).and_then(Value::as_u64);
    data.duration_ms = n("durationMs").or_else(|| n("totalDurationMs"));
    data.exit_code = ["exitCode", "returnCode", "code"]
        .iter()
        .find_map(|k| extra.get(*k).and_then(Value::as_i64));
    if let Some(Value::Array(hunks)) = extra.get("structuredPatch") {
        data.diff = Some(unified_diff(hunks)).filter(|d| !d.is_empty());
    }
    data.extra.insert("toolUseResult".into(), extra.clone());
}

/// `structuredPatch` hunks as unified-diff text.
fn unified_diff(hunks: &[Value]) -> String {
    let mut out = String::new();
    for h in hunks {
        let n = |k: &str| h.get(k).and_then(Value::as_u64).unwrap_or(0);
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            n("oldStart"),
            n("oldLines"),
            n("newStart"),
            n("newLines")
        ));
        for l in h
            .get("lines")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push_str(l.as_str().unwrap_or(""));
            out.push('\n');
        }
    }
    out
}

/// The tool call number `call` (in document order) of `phase`.
fn nth_call(phase: &mut Phase, call: usize) -> Option<&mut ToolCall> {
    phase
        .blocks
        .iter_mut()
        .filter_map(|b| match b {
            Block::ToolCalls { calls } => Some(calls),
            _ => None,
        })
        .flatten()
        .nth(call)
}

/// A title from a `summary`/`custom-title`/`ai-title` line, cut.
pub(super) fn title_text(t: &str) -> String {
    cut(&one_line(t.trim()), 80)
}
