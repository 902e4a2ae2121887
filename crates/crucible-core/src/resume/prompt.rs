//! The context as a markdown prompt for an agent.
//!
//! Not the session file's syntax: the prompt is written to be read by a
//! model, so phases become `###` sections under one "Work so far" heading,
//! and what was left out to fit the budget is said in place.

use std::fmt::Write;

use super::{ContextPhase, ResumeContext};
use crate::{Block, Callout, Task, TaskStatus};

impl ResumeContext {
    /// The whole prompt: framing, the phases, and where to continue.
    pub fn prompt(&self) -> String {
        let mut out = self.prompt_head();
        for p in &self.phases {
            out.push_str(&phase(p));
        }
        out.push_str(&self.prompt_tail());
        out
    }

    /// Title, instructions, system prompt and tasks.
    pub(super) fn prompt_head(&self) -> String {
        let mut out = format!("# Resuming session `{}`", self.session_id);
        if let Some(t) = &self.title {
            let _ = write!(out, ": {t}");
        }
        out.push_str("\n\n");
        out.push_str(
            "You are continuing an agent session that was recorded by cru and stopped \
             before it was done. The work so far follows, oldest first. Where detail was \
             left out to fit the context, it says so; every decision is kept. Continue \
             from where it stopped and do not redo finished work.\n",
        );
        if let Some(sp) = &self.system_prompt {
            let _ = write!(out, "\n## System prompt\n\n{}\n", sp.trim_end());
        }
        if !self.tasks.is_empty() {
            out.push_str("\n## Tasks\n\n");
            for t in &self.tasks {
                out.push_str(&task_line(t));
                out.push('\n');
            }
        }
        out.push_str("\n## Work so far\n");
        if self.phases.is_empty() {
            out.push_str("\nNo work has been recorded yet.\n");
        }
        out
    }

    /// The closing section: where to continue.
    pub(super) fn prompt_tail(&self) -> String {
        format!("\n## Continue\n\n{}", self.continue_text())
    }

    /// Where to continue, the open tasks, and what the context leaves out.
    pub(super) fn continue_text(&self) -> String {
        let mut out = String::new();
        match self.resume_phase() {
            Some(p) => {
                let _ = writeln!(out, "Resume at {}: {}.", p.id, heading_text(p));
            }
            None => out.push_str("Start the work: no phase has been recorded.\n"),
        }
        let open: Vec<String> = self
            .open_tasks()
            .map(|t| format!("{} ({})", t.id, t.content))
            .collect();
        if !open.is_empty() {
            let _ = writeln!(out, "Open tasks: {}.", open.join("; "));
        }
        if self.phases_after_resume_point > 0 {
            let _ = writeln!(
                out,
                "{} later phase(s) in the log come after the resume point and are not part \
                 of this context.",
                self.phases_after_resume_point
            );
        }
        out
    }
}

/// `- [x] 1: Reproduce (completed, high)`.
pub(super) fn task_line(t: &Task) -> String {
    let mark = match t.status {
        TaskStatus::Completed => "x",
        TaskStatus::InProgress => "~",
        TaskStatus::Pending => " ",
    };
    let mut line = format!("- [{mark}] {}: {} ({}", t.id, t.content, t.status);
    if let Some(p) = &t.priority {
        let _ = write!(line, ", {p}");
    }
    line.push(')');
    line
}

/// `Name @agent #channel`, as the session's heading says it.
pub(super) fn heading_text(p: &ContextPhase) -> String {
    let mut s = p.name.clone();
    if let Some(a) = &p.agent {
        let _ = write!(s, " @{a}");
    }
    if let Some(c) = &p.channel {
        let _ = write!(s, " #{c}");
    }
    s
}

/// One phase's section of the prompt.
pub(super) fn phase(p: &ContextPhase) -> String {
    let depth = usize::from(p.level.clamp(2, 5)) + 1;
    let mut out = format!("\n{} {}: {}\n", "#".repeat(depth), p.id, heading_text(p));
    for b in &p.blocks {
        if let Some(text) = block(b) {
            out.push('\n');
            out.push_str(&text);
            out.push('\n');
        }
    }
    let l = p.left_out;
    if l.tool_calls > 0 || l.blocks > 0 {
        let mut what = Vec::new();
        if l.tool_calls > 0 {
            what.push(format!("{} tool call(s)", l.tool_calls));
        }
        if l.blocks > 0 {
            what.push(format!("{} other block(s)", l.blocks));
        }
        let _ = write!(
            out,
            "\n_Left out to fit the context: {}._\n",
            what.join(" and ")
        );
    }
    out
}

/// A block as prompt text; `None` for blocks the framing already gives
/// (tasks, the system prompt).
pub fn block(b: &Block) -> Option<String> {
    match b {
        Block::Heading { text, .. } => Some(format!("**{text}**")),
        Block::Prose { text } => Some(text.trim_end().to_owned()),
        Block::Rule => Some("---".into()),
        Block::ToolCalls { calls } => {
            let mut out = String::from("Tool calls:");
            for c in calls {
                out.push_str("\n- ");
                out.push_str(&c.one_line());
            }
            Some(out)
        }
        Block::Callout(c) => Some(callout(c)),
        Block::Tasks { .. } | Block::SystemPrompt { .. } | Block::Prompt { .. } => None,
    }
}

fn callout(c: &Callout) -> String {
    let mut out = format!("> [!{}]", c.kind);
    if !c.title.is_empty() {
        out.push(' ');
        out.push_str(&c.title);
    }
    for l in &c.body {
        out.push_str("\n>");
        if !l.is_empty() {
            out.push(' ');
            out.push_str(l);
        }
    }
    out
}
