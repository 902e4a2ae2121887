//! What an agent needs to pick a session up again: the resume context.
//!
//! [`ResumeContext::build`] takes a session's phases up to and including its
//! `resume_point` (all of them when it has none), its system prompt, tasks,
//! subagent summaries and decisions, and fits them into a token budget. The
//! framing (system prompt, tasks, where to continue) and every `[!decision]`
//! are never dropped; the rest of each phase gives way in a fixed order (see
//! [`Detail`]), oldest phases first, the phase at the resume point last.
//! The context is then rendered as a human summary ([`ResumeContext::summary_text`]),
//! a markdown prompt for an agent ([`ResumeContext::prompt`]) or an OpenAI
//! chat-completions message array ([`ResumeContext::messages`]).

mod estimate;
mod messages;
mod prompt;
mod summary;

use serde::Serialize;

use crate::{
    AgentRef, Block, Callout, CalloutKind, PhaseId, Section, SessionId, SessionLog, SessionStatus,
    SubagentMode, Task, TaskStatus,
};

pub use estimate::estimate_tokens;
pub use prompt::block as block_text;

/// How much of a phase the context keeps. Each step keeps less; a phase is
/// only ever moved down these steps, one at a time, until the context fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// Every block, as logged.
    Full,
    /// Tool-call lists left out (counted), and inline subagents cut to their
    /// description and summary.
    Trimmed,
    /// Only callouts: decisions, errors, user interventions and subagent
    /// summaries. Prose, headings and other callouts are left out.
    Outline,
    /// Only the decisions.
    Decisions,
}

impl Detail {
    const STEPS: [Self; 3] = [Self::Trimmed, Self::Outline, Self::Decisions];
}

/// What a phase's context left out at its detail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    pub tool_calls: usize,
    pub blocks: usize,
}

/// One phase as the context holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextPhase {
    pub id: PhaseId,
    pub level: u8,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    pub detail: Detail,
    /// The blocks kept at `detail`.
    pub blocks: Vec<Block>,
    pub left_out: LeftOut,
    /// The blocks as logged, to trim again from.
    #[serde(skip)]
    logged: Vec<Block>,
}

impl ContextPhase {
    fn set_detail(&mut self, detail: Detail) {
        let (blocks, left_out) = blocks_at(&self.logged, detail);
        self.detail = detail;
        self.blocks = blocks;
        self.left_out = left_out;
    }

    /// The decisions of this phase, as their text.
    pub fn decisions(&self) -> impl Iterator<Item = String> + '_ {
        callouts(&self.blocks)
            .filter(|c| c.kind() == CalloutKind::Decision)
            .map(|c| c.text().trim().to_owned())
    }
}

/// A subagent's work as the context reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubagentNote {
    pub phase: PhaseId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentRef>,
    pub mode: SubagentMode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The last `[!error]` before the resume point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LastError {
    pub phase: PhaseId,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
}

/// Everything a resumed agent is handed, fitted to a budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResumeContext {
    pub session_id: SessionId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub status: SessionStatus,
    /// The phase work continues at: the `resume_point`, else the last phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume_at: Option<PhaseId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    pub tasks: Vec<Task>,
    pub phases: Vec<ContextPhase>,
    /// Phases after the resume point: in the file, not in the context.
    pub phases_after_resume_point: usize,
    pub subagents: Vec<SubagentNote>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<LastError>,
    pub budget: u64,
    /// [`estimate_tokens`] of the prompt rendering.
    pub estimated_tokens: u64,
    /// True when the framing and the decisions alone exceed the budget: the
    /// context keeps them all the same.
    pub over_budget: bool,
}

impl ResumeContext {
    /// The context of `log`, fitted to `budget` tokens as far as the
    /// framing and decisions allow.
    pub fn build(log: &SessionLog, budget: u64) -> Self {
        let fm = &log.frontmatter;
        let count = log.phase_count();
        let resume_at = fm
            .resume_point
            .filter(|p| p.index() < count)
            .or_else(|| count.checked_sub(1).map(PhaseId::from_index));
        let included = resume_at.map_or(0, |p| p.index() + 1);
        let phases: Vec<ContextPhase> = log
            .sections
            .iter()
            .filter_map(|s| match s {
                Section::Phase(p) => Some(p),
                Section::Plain(_) => None,
            })
            .take(included)
            .enumerate()
            .map(|(i, p)| ContextPhase {
                id: PhaseId::from_index(i),
                level: p.level,
                name: p.name.clone(),
                agent: p.agent.clone(),
                channel: p.channel.clone(),
                detail: Detail::Full,
                blocks: p.blocks.clone(),
                left_out: LeftOut::default(),
                logged: p.blocks.clone(),
            })
            .collect();
        let mut cx = Self {
            session_id: fm.session_id.clone(),
            title: log.title().map(str::to_owned),
            status: fm.status,
            resume_at,
            system_prompt: log.system_prompt().map(str::to_owned),
            tasks: log.tasks().map(<[Task]>::to_vec).unwrap_or_default(),
            subagents: subagent_notes(&phases),
            last_error: last_error(&phases),
            phases,
            phases_after_resume_point: count - included,
            budget,
            estimated_tokens: 0,
            over_budget: false,
        };
        cx.fit();
        cx
    }

    /// Moves phases down the [`Detail`] steps until the estimate fits:
    /// every older phase one step, oldest first, then the next step; the
    /// phase at the resume point only once the older ones are down to their
    /// decisions.
    fn fit(&mut self) {
        let framing = estimate_tokens(&self.prompt_head()) + estimate_tokens(&self.prompt_tail());
        let mut sizes: Vec<u64> = self
            .phases
            .iter()
            .map(|p| estimate_tokens(&prompt::phase(p)))
            .collect();
        let fits = |sizes: &[u64]| framing + sizes.iter().sum::<u64>() <= self.budget;
        let last = self.phases.len().saturating_sub(1);
        let order = Detail::STEPS
            .iter()
            .flat_map(|&d| (0..last).map(move |i| (i, d)))
            .chain(Detail::STEPS.iter().map(|&d| (last, d)));
        for (i, detail) in order {
            if fits(&sizes) {
                break;
            }
            if let Some(p) = self.phases.get_mut(i)
                && p.detail < detail
            {
                p.set_detail(detail);
                sizes[i] = estimate_tokens(&prompt::phase(p));
            }
        }
        self.estimated_tokens = estimate_tokens(&self.prompt());
        self.over_budget = self.estimated_tokens > self.budget;
    }

    /// Every decision in the context, with its phase.
    pub fn decisions(&self) -> impl Iterator<Item = (PhaseId, String)> + '_ {
        self.phases
            .iter()
            .flat_map(|p| p.decisions().map(move |d| (p.id, d)))
    }

    /// Tasks not completed.
    pub fn open_tasks(&self) -> impl Iterator<Item = &Task> {
        self.tasks
            .iter()
            .filter(|t| t.status != TaskStatus::Completed)
    }

    /// The phase work continues at.
    pub fn resume_phase(&self) -> Option<&ContextPhase> {
        self.resume_at.and_then(|p| self.phases.get(p.index()))
    }

    /// True when some phase detail was left out to fit the budget.
    pub fn trimmed(&self) -> bool {
        self.phases.iter().any(|p| p.detail != Detail::Full)
    }
}

fn callouts(blocks: &[Block]) -> impl Iterator<Item = &Callout> {
    blocks.iter().filter_map(|b| match b {
        Block::Callout(c) => Some(c),
        _ => None,
    })
}

/// The blocks a phase keeps at `detail`, and what it leaves out.
fn blocks_at(logged: &[Block], detail: Detail) -> (Vec<Block>, LeftOut) {
    let mut left_out = LeftOut::default();
    let mut kept = Vec::new();
    for b in logged {
        let keep = match (b, detail) {
            (_, Detail::Full) => Some(b.clone()),
            (Block::ToolCalls { calls }, _) => {
                left_out.tool_calls += calls.len();
                None
            }
            (Block::Callout(c), _) => match (c.kind(), detail) {
                (CalloutKind::Subagent, Detail::Trimmed | Detail::Outline) => {
                    Some(Block::Callout(subagent_without_work(c)))
                }
                (CalloutKind::Decision, _)
                | (CalloutKind::Error | CalloutKind::User, Detail::Trimmed | Detail::Outline)
                | (CalloutKind::Other(_), Detail::Trimmed) => Some(b.clone()),
                _ => None,
            },
            (_, Detail::Trimmed) => Some(b.clone()),
            _ => None,
        };
        match keep {
            Some(k) => kept.push(k),
            None if !matches!(b, Block::ToolCalls { .. }) => left_out.blocks += 1,
            None => {}
        }
    }
    (kept, left_out)
}

/// A subagent callout without its inline work (description and summary
/// stay); one that cannot be read is kept as written.
fn subagent_without_work(c: &Callout) -> Callout {
    match c.subagent() {
        Ok(mut sub) => {
            sub.content.clear();
            Callout::from_subagent(&sub)
        }
        Err(_) => c.clone(),
    }
}

fn subagent_notes(phases: &[ContextPhase]) -> Vec<SubagentNote> {
    phases
        .iter()
        .flat_map(|p| {
            callouts(&p.logged)
                .filter(|c| c.kind() == CalloutKind::Subagent)
                .filter_map(|c| c.subagent().ok())
                .map(|s| SubagentNote {
                    phase: p.id,
                    agent: s.agent,
                    mode: s.mode,
                    session: s.target,
                    summary: s.summary,
                })
        })
        .collect()
}

fn last_error(phases: &[ContextPhase]) -> Option<LastError> {
    phases.iter().rev().find_map(|p| {
        callouts(&p.logged)
            .filter(|c| c.kind() == CalloutKind::Error)
            .last()
            .map(|c| {
                let parts = c.error_parts();
                LastError {
                    phase: p.id,
                    description: parts.description,
                    resolution: parts.resolution,
                }
            })
    })
}

#[cfg(test)]
mod tests;
