//! The pieces a phase (or the text before the first phase) is made of.

use serde::{Deserialize, Serialize};

use super::{Callout, Task};

/// One block of a session body, in document order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// A heading that is not a phase: the `# Title`, or a `### Notes` inside a phase.
    Heading { level: u8, text: String },
    /// Markdown that is none of the constructs below, kept verbatim.
    Prose { text: String },
    /// A `---` line.
    Rule,
    /// A `**Tool calls:**` list.
    ToolCalls { calls: Vec<ToolCall> },
    /// A `> [!kind]` callout.
    Callout(Callout),
    /// The fenced `tasks` block (a JSON array).
    Tasks { tasks: Vec<Task> },
    /// The fenced `system-prompt` block.
    SystemPrompt { text: String },
    /// The fenced `prompt` block: the request the session started from,
    /// exactly as the user gave it.
    Prompt { text: String },
}

impl Block {
    pub fn prose(text: impl Into<String>) -> Self {
        Self::Prose { text: text.into() }
    }
}

/// One item of a tool-call list: ``- `tool args` → summary``.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name: the first word inside the backticks.
    pub tool: String,
    /// Everything after the first space inside the backticks.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub args: String,
    /// The result summary after the arrow, without the `✗ ` failure mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A failed call: its summary is written with a leading `✗`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}

impl ToolCall {
    /// The call on one line, `` `tool args` → summary ``, with `✗` for a
    /// failed call: how resume prompts, learning cases and exports show it
    /// (the session file's own list item is the parser's to write).
    pub fn one_line(&self) -> String {
        let content = if self.args.is_empty() {
            self.tool.clone()
        } else {
            format!("{} {}", self.tool, self.args)
        };
        let ticks = if content.contains('`') { "``" } else { "`" };
        let result = match (&self.summary, self.failed) {
            (Some(s), true) => format!(" → ✗ {s}"),
            (None, true) => " → ✗ failed".to_owned(),
            (Some(s), false) => format!(" → {s}"),
            (None, false) => String::new(),
        };
        format!("{ticks}{content}{ticks}{result}")
    }

    /// The call's result as the text of a chat `tool` message: the
    /// summary, `error: ...` for a failed call, and a note where none was
    /// recorded (an empty message would read as an empty success). Resume's
    /// OpenAI messages and learn's chat exports send it alike.
    pub fn result_message(&self) -> String {
        match (&self.summary, self.failed) {
            (Some(s), true) => format!("error: {s}"),
            (None, true) => "error".to_owned(),
            (Some(s), false) => s.clone(),
            (None, false) => "(no result recorded)".to_owned(),
        }
    }

    pub fn new(tool: impl Into<String>, args: impl Into<String>) -> Self {
        Self {
            tool: tool.into(),
            args: args.into(),
            summary: None,
            failed: false,
        }
    }

    #[must_use]
    pub fn with_summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    #[must_use]
    pub fn failed(mut self) -> Self {
        self.failed = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::ToolCall;

    #[test]
    fn a_result_message_says_failure_and_absence() {
        let call = |summary: Option<&str>, failed| ToolCall {
            summary: summary.map(str::to_owned),
            failed,
            ..ToolCall::new("run", "cargo test")
        };
        assert_eq!(call(Some("12 passed"), false).result_message(), "12 passed");
        assert_eq!(
            call(Some("3 failed"), true).result_message(),
            "error: 3 failed"
        );
        assert_eq!(call(None, true).result_message(), "error");
        assert_eq!(call(None, false).result_message(), "(no result recorded)");
    }
}
