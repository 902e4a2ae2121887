//! The context as an OpenAI chat-completions message array, the shape every
//! OpenAI-compatible endpoint (and most agent tools) take.
//!
//! `system`: the session's system prompt, else a default. Then a `user`
//! message with the framing (session, tasks), and per phase: the agent's
//! work as `assistant` text, each `[!user]` callout as a `user` message, and
//! each tool-call list as an `assistant` message with `tool_calls`, each
//! answered by a `tool` message with the logged result. Last, a `user`
//! message saying where to continue.

use serde_json::{Value, json};

use super::prompt::{block, heading_text, task_line};
use super::{ContextPhase, ResumeContext};
use crate::{Block, CalloutKind, ToolCall};

/// The system message of a session that logged no system prompt.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are an agent continuing a recorded work session. \
     Build on the work and decisions so far; do not redo finished work.";

impl ResumeContext {
    pub fn messages(&self) -> Vec<Value> {
        let system = self
            .system_prompt
            .as_deref()
            .map_or(DEFAULT_SYSTEM_PROMPT, str::trim_end);
        let mut out = vec![json!({"role": "system", "content": system})];
        let mut framing = format!("Resuming session `{}`", self.session_id);
        if let Some(t) = &self.title {
            framing.push_str(": ");
            framing.push_str(t);
        }
        framing.push('.');
        if !self.tasks.is_empty() {
            framing.push_str("\n\nTasks:\n");
            let lines: Vec<String> = self.tasks.iter().map(task_line).collect();
            framing.push_str(&lines.join("\n"));
        }
        out.push(json!({"role": "user", "content": framing}));
        for p in &self.phases {
            phase_messages(p, &mut out);
        }
        out.push(json!({"role": "user", "content": self.continue_text().trim_end()}));
        out
    }
}

/// Collects a phase's assistant text until a user message or tool calls
/// need their own message.
struct Turn<'a> {
    out: &'a mut Vec<Value>,
    text: String,
}

impl Turn<'_> {
    fn say(&mut self, s: &str) {
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        self.text.push_str(s.trim_end());
    }

    fn flush(&mut self) {
        if !self.text.is_empty() {
            let text = std::mem::take(&mut self.text);
            self.out.push(json!({"role": "assistant", "content": text}));
        }
    }
}

fn phase_messages(p: &ContextPhase, out: &mut Vec<Value>) {
    let mut turn = Turn {
        out,
        text: format!("### {}: {}", p.id, heading_text(p)),
    };
    let mut call_no = 0;
    for b in &p.blocks {
        match b {
            Block::Callout(c) if c.kind() == CalloutKind::User => {
                turn.flush();
                let u = c.user_parts();
                let content = u.quote.unwrap_or_else(|| c.text().trim().to_owned());
                turn.out.push(json!({"role": "user", "content": content}));
            }
            Block::ToolCalls { calls } => {
                let content = std::mem::take(&mut turn.text);
                let ids: Vec<String> = calls
                    .iter()
                    .map(|_| {
                        call_no += 1;
                        format!("call_{}_{}", p.id.number(), call_no)
                    })
                    .collect();
                let tool_calls: Vec<Value> = calls
                    .iter()
                    .zip(&ids)
                    .map(|(c, id)| tool_call(c, id))
                    .collect();
                let mut m = json!({"role": "assistant", "tool_calls": tool_calls});
                m["content"] = if content.is_empty() {
                    Value::Null
                } else {
                    Value::String(content)
                };
                turn.out.push(m);
                for (c, id) in calls.iter().zip(&ids) {
                    turn.out.push(json!({
                        "role": "tool",
                        "tool_call_id": id,
                        "content": c.result_message(),
                    }));
                }
            }
            other => {
                if let Some(text) = block(other) {
                    turn.say(&text);
                }
            }
        }
    }
    let l = p.left_out;
    if l.tool_calls > 0 || l.blocks > 0 {
        turn.say(&format!(
            "_Left out to fit the context: {} tool call(s), {} other block(s)._",
            l.tool_calls, l.blocks
        ));
    }
    turn.flush();
}

/// A logged call as an OpenAI tool call. The log keeps a call's arguments
/// as one line, given as `{"input": "<line>"}`: the shape every cru
/// importer reads back as that same line, so the messages round-trip.
fn tool_call(c: &ToolCall, id: &str) -> Value {
    let arguments = if c.args.is_empty() {
        "{}".to_owned()
    } else {
        json!({"input": c.args}).to_string()
    };
    json!({
        "id": id,
        "type": "function",
        "function": {"name": c.tool, "arguments": arguments},
    })
}
