//! A `codex exec --json` event stream: one JSON event per line, as Codex
//! prints a non-interactive run.
//!
//! - `thread.started` → the source id (`thread_id`);
//! - `turn.started` → a phase (`Turn N`: the stream does not repeat the
//!   prompt it was given);
//! - `item.started` / `item.updated` / `item.completed` → by the item's
//!   `type`: `agent_message` → a `[!reply] @codex`; `reasoning` → a
//!   thinking record; `command_execution`, `file_change`, `mcp_tool_call`,
//!   `web_search` → a tool call, kept whole (its last state wins; ✗ for a
//!   non-zero `exit_code` or a `failed` status); `todo_list` and `error`
//!   → context records;
//! - `turn.completed` → the turn's `usage` (per turn, not running totals),
//!   one usage record (no time, id or model: the stream has none);
//!   `turn.failed` and `error` → an `[!error]` callout.

use std::path::Path;

use serde_json::{Map, Value, json};

use crucible_core::{
    AgentRef, Block, Callout, ContextData, DataRecord, Frontmatter, Phase, SessionId, SessionLog,
    ThinkingData, ToolCall, args_line,
};

use super::tokens::Counts;
use crate::requests::{Requests, record};
use crate::transcript::{CallBook, finish_paused};
use crate::{Imported, RecordTally};

struct Reader {
    agent: AgentRef,
    id: Option<String>,
    phases: Vec<Phase>,
    book: CallBook,
    /// Item ids whose call is in the book.
    calls: std::collections::HashSet<String>,
    records: Vec<DataRecord>,
    tally: RecordTally,
    requests: Requests,
}

pub(super) fn import(path: &Path, bytes: &[u8], text: &str) -> Imported {
    let mut warnings = Vec::new();
    let mut r = Reader {
        agent: "codex".parse().expect("a valid agent name"),
        id: None,
        phases: Vec::new(),
        book: CallBook::default(),
        calls: Default::default(),
        records: Vec::new(),
        tally: RecordTally::default(),
        requests: Requests::default(),
    };
    for (_, v) in crate::transcript::json_lines(path, text, &mut warnings) {
        r.event(&v);
    }
    // The stream carries no times: the file's is the run's.
    let mut fm = Frontmatter::new(
        SessionId::new("imported").expect("valid"),
        crate::transcript::mtime(path),
    );
    fm.participants.push(r.agent);
    fm.extra.insert("source", "codex exec --json");
    let title = match &r.id {
        Some(id) => format!("Codex exec run {id}"),
        None => "Codex exec run".to_owned(),
    };
    let mut log = SessionLog::new(fm);
    r.requests.settle(&mut r.phases);
    finish_paused(&mut log, title, r.phases);
    log.refresh_usage_totals();
    let mut imported = crate::imported(crate::Format::Codex, path, r.id, bytes, log, warnings);
    imported.data.records = r.records;
    imported.data.records.extend(r.book.into_records());
    imported.records = r.tally;
    imported
}

impl Reader {
    fn event(&mut self, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("(no type)");
        match kind {
            "thread.started" => {
                self.tally.read(kind);
                self.id = v
                    .get("thread_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            "turn.started" => {
                self.tally.read(kind);
                let name = format!("Turn {}", self.phases.len() + 1);
                self.phases
                    .push(Phase::new(name, None, Some("main".into())));
            }
            "turn.completed" => {
                self.tally.read(kind);
                // A turn's usage, its requests together: the stream has no
                // times, ids or model.
                let tokens = v.get("usage").map(|u| Counts::of(u).usage());
                if let Some(t) = tokens.filter(|t| !t.is_zero()) {
                    self.requests
                        .put(&mut self.phases, record(None, None, t, None));
                }
            }
            "turn.failed" | "error" | "thread.error" => {
                self.tally.read(kind);
                let message = v
                    .pointer("/error/message")
                    .or_else(|| v.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or(kind);
                self.block(Block::Callout(Callout::error(message, None)));
            }
            "item.started" | "item.updated" | "item.completed" => {
                let item = v.get("item").unwrap_or(&Value::Null);
                let item_type = item.get("type").and_then(Value::as_str).unwrap_or("");
                self.tally.read(&format!("{kind}/{item_type}"));
                self.item(item, item_type, kind == "item.completed");
            }
            other => self.tally.unknown(other),
        }
    }

    fn phase(&mut self) -> &mut Phase {
        if self.phases.is_empty() {
            self.phases
                .push(Phase::new("Turn 1", None, Some("main".into())));
        }
        self.phases.last_mut().expect("a phase was just ensured")
    }

    fn block(&mut self, b: Block) {
        self.phase().blocks.push(b);
    }

    fn item(&mut self, item: &Value, item_type: &str, completed: bool) {
        let text = item.get("text").and_then(Value::as_str).unwrap_or_default();
        match item_type {
            "agent_message" if completed => {
                let reply = Callout::reply(Some(&self.agent), text.trim());
                self.block(Block::Callout(reply));
            }
            "reasoning" if completed => self.records.push(DataRecord::Thinking(ThinkingData {
                phase: self.phases.len().checked_sub(1),
                text: text.to_owned(),
                extra: Map::new(),
            })),
            "command_execution" | "file_change" | "mcp_tool_call" | "web_search" => {
                self.call(item, item_type);
            }
            "todo_list" | "error" if completed => {
                self.records.push(DataRecord::Context(ContextData {
                    phase: self.phases.len().checked_sub(1),
                    label: item_type.to_owned(),
                    text: text.to_owned(),
                    extra: std::iter::once(("item".to_owned(), item.clone())).collect(),
                }));
            }
            _ => {}
        }
    }

    /// Adds the call an item is, once, and puts its latest state on it.
    fn call(&mut self, item: &Value, item_type: &str) {
        let id = item.get("id").and_then(Value::as_str).unwrap_or("");
        let (tool, arguments) = match item_type {
            "command_execution" => ("shell".to_owned(), json!({"command": item["command"]})),
            "file_change" => (
                "apply_patch".to_owned(),
                json!({"changes": item["changes"]}),
            ),
            "mcp_tool_call" => (
                format!(
                    "{}__{}",
                    item["server"].as_str().unwrap_or("mcp"),
                    item["tool"].as_str().unwrap_or("tool")
                ),
                item.get("arguments").cloned().unwrap_or(json!({})),
            ),
            _ => ("web_search".to_owned(), json!({"query": item["query"]})),
        };
        if self.calls.insert(id.to_owned()) {
            self.phase();
            let call = ToolCall::new(tool, args_line(&arguments));
            let data = self
                .book
                .add_full(&mut self.phases, call, Some(id), Some(arguments));
            data.extra.insert("item_type".into(), item_type.into());
        }
        let exit_code = item.get("exit_code").and_then(Value::as_i64);
        let status = item.get("status").and_then(Value::as_str);
        let failed = exit_code.is_some_and(|c| c != 0) || status == Some("failed");
        let result = item
            .get("aggregated_output")
            .or_else(|| item.get("result"))
            .or_else(|| item.get("error"))
            .cloned()
            .unwrap_or(Value::String(String::new()));
        if let Some(data) = self.book.answer_full(&mut self.phases, id, result, failed) {
            data.exit_code = exit_code;
            if let Some(s) = status {
                data.extra.insert("status".into(), s.into());
            }
        }
    }
}
