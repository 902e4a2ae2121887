//! A session as turns: what every foreign format is made of. One phase is
//! one turn: the user's words that start it (its first `[!user]` callout,
//! else the phase's name), the agent's text, its tool calls with their
//! results, and the phase's numbers.

use std::collections::HashMap;

use serde_json::{Value, json};

use crucible_core::{
    Block, CallData, CalloutKind, Phase, SessionData, SessionLog, Timestamp, ToolCall,
    first_user_words, resume::block_text,
};

/// One phase, ready to be written in any format.
#[derive(Debug, Clone)]
pub(crate) struct Turn {
    /// What the user asked: the phase's first `[!user]` words, else its name.
    pub input: String,
    /// The turn as chat-completions messages, the user's first.
    pub messages: Vec<Value>,
    /// The agent's last reply, else all its text of the turn.
    pub result: String,
    pub calls: Vec<ToolCall>,
    /// Each call's arguments as a JSON object: the source's own from the
    /// sidecar when it has them, else rebuilt from the markdown line.
    pub call_args: Vec<Value>,
    pub model: Option<String>,
    pub duration_ms: Option<u64>,
    pub tokens: Option<u64>,
    pub cost_usd: Option<f64>,
    pub started: Option<Timestamp>,
    /// Phase metadata cru does not know (`expected`, `passed`, ...).
    pub extra: Vec<(String, String)>,
    /// The phase's blocks, for formats that place them one by one.
    pub blocks: Vec<Block>,
    /// From its `[!expect]` callout: the tools' names and the result.
    pub expect_tools: Vec<String>,
    pub expected: Option<String>,
    /// From its last `[!eval]` callout.
    pub passed: Option<bool>,
}

impl Turn {
    /// When the turn ended: its start plus its duration.
    pub(crate) fn ended(&self) -> Option<Timestamp> {
        let start = self.started.as_ref()?;
        let ms = i64::try_from(self.duration_ms.unwrap_or(0)).unwrap_or(0);
        // Up to the next whole second: an import keeps a start to the
        // second, cut down from the source's end less the duration, so
        // this gives that end back.
        let end = (start.unix_ms() + ms + 999).div_euclid(1000) * 1000;
        Some(Timestamp::from_unix_ms(end))
    }
}

/// The turns of a session, one per phase, in document order.
pub(crate) fn turns(log: &SessionLog, data: &SessionData) -> Vec<Turn> {
    // The call records by place, found once: looking each call up in the
    // whole sidecar would make a long session's export quadratic.
    let by_place: HashMap<(usize, usize), &CallData> =
        data.calls().map(|c| ((c.phase, c.call), c)).collect();
    log.phases()
        .enumerate()
        .map(|(pi, (_, p))| turn(pi, p, &by_place))
        .collect()
}

/// A tool call's arguments as a JSON object that reads back (through the
/// importers' argument line) as the same text: a shell call's command
/// line under `command`, anything else under `input`.
pub(crate) fn arguments(c: &ToolCall) -> Value {
    if c.args.is_empty() {
        json!({})
    } else if is_shell(&c.tool) {
        json!({ "command": c.args })
    } else {
        json!({ "input": c.args })
    }
}

fn is_shell(tool: &str) -> bool {
    matches!(
        tool.to_ascii_lowercase().as_str(),
        "bash" | "shell" | "sh" | "run" | "exec" | "exec_command" | "terminal"
    )
}

/// A call's arguments as a JSON value: the source's own from its sidecar
/// record (OpenAI-style arguments are a JSON string, read as JSON), else
/// rebuilt from the markdown line.
fn call_arguments(c: &ToolCall, whole: Option<&CallData>) -> Value {
    match whole.and_then(|w| w.arguments.as_ref()) {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!(s)),
        Some(v) => v.clone(),
        None => arguments(c),
    }
}

/// A tool's result as the text a `tool` message carries: the summary; a
/// failed call's reads as an error (`Error: ...`), which is how the
/// importers tell it failed.
pub(crate) fn result_text(c: &ToolCall) -> String {
    let s = c.summary.clone().unwrap_or_default();
    if !c.failed {
        return s;
    }
    if crate::transcript::looks_failed(&s) {
        s
    } else if s.is_empty() {
        "Error".to_owned()
    } else {
        format!("Error: {s}")
    }
}

/// Collects assistant text until tool calls or the end need a message.
struct Said {
    messages: Vec<Value>,
    pending: String,
    all: Vec<String>,
    last_reply: Option<String>,
}

impl Said {
    fn say(&mut self, s: &str) {
        let s = s.trim_end();
        if s.is_empty() {
            return;
        }
        if !self.pending.is_empty() {
            self.pending.push_str("\n\n");
        }
        self.pending.push_str(s);
        self.all.push(s.to_owned());
    }

    /// One assistant message with `calls`, then one `tool` message per
    /// call. `whole` has each call's sidecar record, when it has one: its
    /// id, arguments and result are the source's own, not rebuilt from
    /// the markdown line.
    fn calls(&mut self, calls: &[ToolCall], whole: &[Option<&CallData>], next_id: &mut usize) {
        let ids: Vec<String> = whole
            .iter()
            .map(|w| {
                *next_id += 1;
                w.and_then(|w| w.id.clone())
                    .unwrap_or_else(|| format!("call_{next_id}"))
            })
            .collect();
        let tool_calls: Vec<Value> = calls
            .iter()
            .zip(&ids)
            .zip(whole)
            .map(|((c, id), w)| {
                let args = match w.and_then(|w| w.arguments.as_ref()) {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => arguments(c).to_string(),
                };
                json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": c.tool, "arguments": args},
                })
            })
            .collect();
        let content = std::mem::take(&mut self.pending);
        self.messages.push(json!({
            "role": "assistant",
            "content": if content.is_empty() { Value::Null } else { Value::String(content) },
            "tool_calls": tool_calls,
        }));
        for ((c, id), w) in calls.iter().zip(&ids).zip(whole) {
            let content = match w.and_then(|w| w.result.as_ref()) {
                Some(r) => crate::transcript::text_of(r),
                None => result_text(c),
            };
            self.messages.push(json!({
                "role": "tool",
                "tool_call_id": id,
                "content": content,
            }));
        }
    }

    /// A tool-call list: one assistant message per source message, where
    /// the sidecar says which message asked for each call (the markdown
    /// joins the calls of messages in a row).
    fn call_list(&mut self, list: &[ToolCall], whole: &[Option<&CallData>], next_id: &mut usize) {
        let message = |k: usize| whole[k].and_then(|w| w.extra.get("message"));
        let mut from = 0;
        for k in 1..=list.len() {
            if k == list.len() || message(k).is_none() || message(k) != message(k - 1) {
                self.calls(&list[from..k], &whole[from..k], next_id);
                from = k;
            }
        }
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let text = std::mem::take(&mut self.pending);
            self.messages
                .push(json!({"role": "assistant", "content": text}));
        }
    }
}

/// Phase `pi` as a turn; `data` has the sidecar's call records by place.
fn turn(pi: usize, p: &Phase, data: &HashMap<(usize, usize), &CallData>) -> Turn {
    let mut seen_input = false;
    let mut said = Said {
        messages: Vec::new(),
        pending: String::new(),
        all: Vec::new(),
        last_reply: None,
    };
    let mut calls = Vec::new();
    let mut call_args = Vec::new();
    let mut next_id = 0;
    for b in &p.blocks {
        match b {
            // What the phase was expected to do and how it was judged go
            // to the fields of formats that have them, not into the text.
            Block::Callout(c)
                if c.kind.eq_ignore_ascii_case("expect") || c.kind.eq_ignore_ascii_case("eval") => {
            }
            // The words that start the turn are its user message.
            Block::Callout(c) if c.kind() == CalloutKind::User && !seen_input => {
                seen_input = true;
            }
            Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") => {
                let t = c.text();
                said.last_reply = Some(t.trim().to_owned());
                said.say(&t);
            }
            // A rule only separates phases in the markdown.
            Block::Rule => {}
            Block::ToolCalls { calls: list } => {
                let whole: Vec<Option<&CallData>> = (0..list.len())
                    .map(|k| data.get(&(pi, calls.len() + k)).copied())
                    .collect();
                said.call_list(list, &whole, &mut next_id);
                call_args.extend(list.iter().zip(&whole).map(|(c, w)| call_arguments(c, *w)));
                calls.extend(list.iter().cloned());
            }
            other => {
                if let Some(t) = block_text(other) {
                    said.say(&t);
                }
            }
        }
    }
    said.flush();
    let input = first_user_words(&p.blocks).unwrap_or_else(|| p.name.clone());
    // A callout that cannot be read gives no fields; it is not lost from the
    // session, only not written to a format's eval fields.
    let expect = crucible_core::expectation_of(p).and_then(Result::ok);
    let mut messages = vec![json!({"role": "user", "content": input})];
    messages.append(&mut said.messages);
    let result = said.last_reply.unwrap_or_else(|| said.all.join("\n\n"));
    Turn {
        input,
        messages,
        result,
        calls,
        call_args,
        model: p.meta.model.clone(),
        duration_ms: p.meta.duration_ms,
        tokens: p.meta.tokens,
        cost_usd: p.meta.cost_usd,
        started: p.meta.started.clone(),
        extra: p.meta.extra.clone(),
        blocks: p.blocks.clone(),
        expect_tools: expect
            .as_ref()
            .map(|e| e.tools.iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default(),
        expected: expect.and_then(|e| e.result),
        passed: match crucible_core::last_verdict(p) {
            Some(crucible_core::Verdict::Passed) => Some(true),
            Some(crucible_core::Verdict::Failed) => Some(false),
            _ => None,
        },
    }
}

/// The words a session was started with: a `[!user]` callout before the
/// first phase (codeloops' prompt), else the first turn's input, else the
/// title.
pub(crate) fn opening_prompt(log: &SessionLog, turns: &[Turn]) -> String {
    first_user_words(&log.preamble)
        .or_else(|| turns.first().map(|t| t.input.clone()))
        .or_else(|| log.title().map(str::to_owned))
        .unwrap_or_default()
}
