//! `resume --format json`: the resume context as one documented object
//! (docs/json.md), made for output rather than taken from the
//! context's own types, so that their changes do not change the schema.

use serde::Serialize;

use crucible_core::ResumeContext;
use crucible_core::resume::{Detail, block_text};

/// The version of this schema; a change that breaks readers raises it.
const VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct ResumeJson {
    version: u32,
    session: SessionJson,
    /// The phase work continues at (`phase-N`), null for a session without phases.
    resume_at: Option<String>,
    budget: u64,
    estimated_tokens: u64,
    over_budget: bool,
    phases: Vec<PhaseJson>,
    phases_after_resume_point: usize,
    tasks: Vec<TaskJson>,
    decisions: Vec<DecisionJson>,
    subagents: Vec<SubagentJson>,
    last_error: Option<LastErrorJson>,
}

#[derive(Debug, Serialize)]
struct SessionJson {
    id: String,
    title: Option<String>,
    status: &'static str,
}

#[derive(Debug, Serialize)]
struct PhaseJson {
    id: String,
    level: u8,
    name: String,
    agent: Option<String>,
    channel: Option<String>,
    /// `full`, `trimmed`, `outline` or `decisions`.
    detail: &'static str,
    left_out: LeftOutJson,
    /// The blocks kept, as the prompt gives them (markdown).
    text: String,
}

#[derive(Debug, Serialize)]
struct LeftOutJson {
    tool_calls: usize,
    blocks: usize,
}

#[derive(Debug, Serialize)]
struct TaskJson {
    id: String,
    content: String,
    status: &'static str,
    priority: Option<String>,
}

#[derive(Debug, Serialize)]
struct DecisionJson {
    phase: String,
    text: String,
}

#[derive(Debug, Serialize)]
struct SubagentJson {
    phase: String,
    agent: Option<String>,
    mode: String,
    session: Option<String>,
    summary: Option<String>,
}

#[derive(Debug, Serialize)]
struct LastErrorJson {
    phase: String,
    description: String,
    resolution: Option<String>,
}

impl ResumeJson {
    pub fn of(cx: &ResumeContext) -> Self {
        let phases = cx
            .phases
            .iter()
            .map(|p| PhaseJson {
                id: p.id.to_string(),
                level: p.level,
                name: p.name.clone(),
                agent: p.agent.as_ref().map(ToString::to_string),
                channel: p.channel.clone(),
                detail: detail_name(p.detail),
                left_out: LeftOutJson {
                    tool_calls: p.left_out.tool_calls,
                    blocks: p.left_out.blocks,
                },
                text: p
                    .blocks
                    .iter()
                    .filter_map(block_text)
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            })
            .collect();
        Self {
            version: VERSION,
            session: SessionJson {
                id: cx.session_id.to_string(),
                title: cx.title.clone(),
                status: cx.status.as_str(),
            },
            resume_at: cx.resume_at.map(|p| p.to_string()),
            budget: cx.budget,
            estimated_tokens: cx.estimated_tokens,
            over_budget: cx.over_budget,
            phases,
            phases_after_resume_point: cx.phases_after_resume_point,
            tasks: cx
                .tasks
                .iter()
                .map(|t| TaskJson {
                    id: t.id.clone(),
                    content: t.content.clone(),
                    status: t.status.as_str(),
                    priority: t.priority.clone(),
                })
                .collect(),
            decisions: cx
                .decisions()
                .map(|(phase, text)| DecisionJson {
                    phase: phase.to_string(),
                    text,
                })
                .collect(),
            subagents: cx
                .subagents
                .iter()
                .map(|s| SubagentJson {
                    phase: s.phase.to_string(),
                    agent: s.agent.as_ref().map(ToString::to_string),
                    mode: s.mode.to_string(),
                    session: s.session.as_ref().map(ToString::to_string),
                    summary: s.summary.clone(),
                })
                .collect(),
            last_error: cx.last_error.as_ref().map(|e| LastErrorJson {
                phase: e.phase.to_string(),
                description: e.description.clone(),
                resolution: e.resolution.clone(),
            }),
        }
    }
}

fn detail_name(d: Detail) -> &'static str {
    match d {
        Detail::Full => "full",
        Detail::Trimmed => "trimmed",
        Detail::Outline => "outline",
        Detail::Decisions => "decisions",
    }
}
