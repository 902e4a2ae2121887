//! The context as a summary for a person: what was done, the decisions,
//! open tasks, the last error, and where the session stops.

use std::fmt::Write;

use super::prompt::{heading_text, task_line};
use super::{Detail, ResumeContext};
use crate::{Block, CalloutKind, one_line};

impl ResumeContext {
    pub fn summary_text(&self) -> String {
        let mut out = String::new();
        self.write_header(&mut out);
        self.write_done(&mut out);
        self.write_lists(&mut out);
        self.write_where_it_stops(&mut out);
        out
    }

    /// The session, its status and how much of it the context holds.
    fn write_header(&self, out: &mut String) {
        let _ = write!(out, "Session {}", self.session_id);
        if let Some(t) = &self.title {
            let _ = write!(out, ": {t}");
        }
        let _ = writeln!(out, "\nStatus: {}", self.status);
        let _ = writeln!(
            out,
            "Context: {} phase(s), about {} tokens of a {} budget{}",
            self.phases.len(),
            self.estimated_tokens,
            self.budget,
            if self.over_budget {
                " (over budget: the decisions alone do not fit)"
            } else if self.trimmed() {
                " (older detail left out to fit)"
            } else {
                ""
            }
        );
    }

    /// Each phase with what happened in it.
    fn write_done(&self, out: &mut String) {
        out.push_str("\nDone:\n");
        if self.phases.is_empty() {
            out.push_str("  nothing recorded yet\n");
        }
        for p in &self.phases {
            let indent = "  ".repeat(usize::from(p.level.saturating_sub(1)));
            let _ = write!(out, "{indent}{} {}", p.id, heading_text(p));
            let facts = phase_facts(p);
            if !facts.is_empty() {
                let _ = write!(out, " — {facts}");
            }
            out.push('\n');
        }
    }

    /// Decisions, open tasks and subagents, each list when it has items.
    fn write_lists(&self, out: &mut String) {
        let decisions: Vec<_> = self.decisions().collect();
        if !decisions.is_empty() {
            out.push_str("\nDecisions:\n");
            for (phase, d) in decisions {
                let _ = writeln!(out, "  - [{phase}] {}", one_line(&d));
            }
        }
        let open: Vec<_> = self.open_tasks().collect();
        if !open.is_empty() {
            out.push_str("\nOpen tasks:\n");
            for t in open {
                let _ = writeln!(out, "  {}", task_line(t));
            }
        }
        if !self.subagents.is_empty() {
            out.push_str("\nSubagents:\n");
            for s in &self.subagents {
                let who = s
                    .agent
                    .as_ref()
                    .map_or_else(|| "(unnamed)".to_owned(), |a| format!("@{a}"));
                let _ = write!(out, "  - [{}] {who} ({})", s.phase, s.mode);
                if let Some(sum) = &s.summary {
                    let _ = write!(out, ": {}", one_line(sum));
                }
                out.push('\n');
            }
        }
    }

    /// The last error and the phase the session stops at.
    fn write_where_it_stops(&self, out: &mut String) {
        if let Some(e) = &self.last_error {
            let _ = write!(
                out,
                "\nLast error [{}]: {}",
                e.phase,
                one_line(&e.description)
            );
            if let Some(r) = &e.resolution {
                let _ = write!(out, "\n  resolution: {}", one_line(r));
            }
            out.push('\n');
        }
        out.push_str("\nStops at: ");
        match self.resume_phase() {
            Some(p) => {
                let _ = write!(out, "{} {}", p.id, heading_text(p));
                if let Some(last) = p.blocks.iter().rev().find_map(last_words) {
                    let _ = write!(out, "\n  last: {last}");
                }
            }
            None => out.push_str("the start (no phase recorded)"),
        }
        out.push('\n');
        if self.phases_after_resume_point > 0 {
            let _ = writeln!(
                out,
                "({} later phase(s) in the file are after the resume point and not in the context)",
                self.phases_after_resume_point
            );
        }
    }
}

/// `3 tool calls (1 failed), 1 decision, 1 error` for a phase.
fn phase_facts(p: &super::ContextPhase) -> String {
    let mut calls = p.left_out.tool_calls;
    let mut failed = 0;
    let (mut decisions, mut errors, mut users, mut subagents) = (0, 0, 0, 0);
    for b in &p.logged {
        match b {
            Block::ToolCalls { calls: c } if p.detail == Detail::Full => {
                calls += c.len();
                failed += c.iter().filter(|c| c.failed).count();
            }
            Block::Callout(c) => match c.kind() {
                CalloutKind::Decision => decisions += 1,
                CalloutKind::Error => errors += 1,
                CalloutKind::User => users += 1,
                CalloutKind::Subagent => subagents += 1,
                CalloutKind::Other(_) => {}
            },
            _ => {}
        }
    }
    let mut facts = Vec::new();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if calls > 0 {
        let mut s = plural(calls, "tool call", "tool calls");
        if failed > 0 {
            let _ = write!(s, " ({failed} failed)");
        }
        facts.push(s);
    }
    for (n, one, many) in [
        (decisions, "decision", "decisions"),
        (errors, "error", "errors"),
        (users, "user intervention", "user interventions"),
        (subagents, "subagent", "subagents"),
    ] {
        if n > 0 {
            facts.push(plural(n, one, many));
        }
    }
    facts.join(", ")
}

/// The gist of a block, for "where it stops".
fn last_words(b: &Block) -> Option<String> {
    let text = match b {
        Block::Prose { text } => text.clone(),
        Block::Callout(c) => format!("[!{}] {}", c.kind, c.text()),
        Block::ToolCalls { calls } => {
            let c = calls.last()?;
            format!("tool call {}", c.one_line())
        }
        _ => return None,
    };
    Some(crate::cut(&one_line(text.trim()), 120))
}
