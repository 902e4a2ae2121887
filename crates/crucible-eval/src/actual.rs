//! What a phase did: its tool calls and its result.

use crucible_core::{Block, CalloutKind, Phase, ToolCall};

/// A phase's tool calls, in order, and its result: the last `[!reply]`,
/// else its prose (what an agent said).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Actual {
    pub calls: Vec<ToolCall>,
    pub result: String,
    pub tokens: Option<u64>,
    pub duration_ms: Option<u64>,
}

impl Actual {
    pub fn of_phase(p: &Phase) -> Self {
        let mut calls = Vec::new();
        let mut reply: Option<String> = None;
        let mut prose: Vec<String> = Vec::new();
        for b in &p.blocks {
            match b {
                Block::ToolCalls { calls: list } => calls.extend(list.iter().cloned()),
                Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") => {
                    reply = Some(c.text().trim().to_owned());
                }
                Block::Prose { text } => prose.push(text.trim().to_owned()),
                Block::Callout(c) if c.kind() == CalloutKind::User => {}
                _ => {}
            }
        }
        Self {
            calls,
            result: reply.unwrap_or_else(|| prose.join("\n\n")),
            tokens: p.meta.tokens,
            duration_ms: p.meta.duration_ms,
        }
    }

    /// The tool names, in order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.calls.iter().map(|c| c.tool.as_str()).collect()
    }
}
