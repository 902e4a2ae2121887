//! The counts and facts an index keeps about a session, without its text.

use serde::{Deserialize, Serialize};

use super::{
    AgentRef, Block, CalloutKind, Frontmatter, PhaseFigures, Section, SessionLog, Timestamp,
    UsageLine, UsageRecord, attribute,
};

/// What one phase did, in numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseSummary {
    pub name: String,
    pub level: u8,
    pub agent: Option<AgentRef>,
    pub channel: Option<String>,
    pub started: Option<Timestamp>,
    pub duration_ms: Option<u64>,
    pub tokens: Option<u64>,
    pub model: Option<String>,
    pub cost_usd: Option<f64>,
    /// The phase's model requests, as written.
    pub usage: Vec<UsageRecord>,
    pub counts: Counts,
}

/// Tool calls and callouts, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub tool_calls: u64,
    pub failed_tool_calls: u64,
    pub decisions: u64,
    pub errors: u64,
    pub user_interventions: u64,
    pub subagents: u64,
}

impl Counts {
    /// Adds what `block` holds.
    pub fn add_block(&mut self, block: &Block) {
        match block {
            Block::ToolCalls { calls } => {
                self.tool_calls += calls.len() as u64;
                self.failed_tool_calls += calls.iter().filter(|c| c.failed).count() as u64;
            }
            Block::Callout(c) => self.add_callout(&c.kind()),
            _ => {}
        }
    }

    pub fn add_callout(&mut self, kind: &CalloutKind) {
        match kind {
            CalloutKind::Decision => self.decisions += 1,
            CalloutKind::Error => self.errors += 1,
            CalloutKind::User => self.user_interventions += 1,
            CalloutKind::Subagent => self.subagents += 1,
            CalloutKind::Other(_) => {}
        }
    }

    pub fn add(&mut self, other: &Self) {
        self.tool_calls += other.tool_calls;
        self.failed_tool_calls += other.failed_tool_calls;
        self.decisions += other.decisions;
        self.errors += other.errors;
        self.user_interventions += other.user_interventions;
        self.subagents += other.subagents;
    }
}

/// A session without its text: the frontmatter, the title, each phase's
/// numbers, and the totals (which include blocks outside phases).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub frontmatter: Frontmatter,
    pub title: Option<String>,
    pub phases: Vec<PhaseSummary>,
    pub totals: Counts,
}

impl SessionLog {
    pub fn summary(&self) -> SessionSummary {
        let mut totals = Counts::default();
        for b in &self.preamble {
            totals.add_block(b);
        }
        let mut phases = Vec::new();
        for section in &self.sections {
            let mut counts = Counts::default();
            for b in section.blocks() {
                counts.add_block(b);
            }
            totals.add(&counts);
            if let Section::Phase(p) = section {
                phases.push(PhaseSummary {
                    name: p.name.clone(),
                    level: p.level,
                    agent: p.agent.clone(),
                    channel: p.channel.clone(),
                    started: p.meta.started.clone(),
                    duration_ms: p.meta.duration_ms,
                    tokens: p.meta.tokens,
                    model: p.meta.model.clone(),
                    cost_usd: p.meta.cost_usd,
                    usage: p.usage.clone(),
                    counts,
                });
            }
        }
        SessionSummary {
            frontmatter: self.frontmatter.clone(),
            title: self.title().map(str::to_owned),
            phases,
            totals,
        }
    }
}

impl SessionSummary {
    /// The session's usage, attributed by the same rule as
    /// [`SessionLog::usage_lines`].
    pub fn usage_lines(&self) -> Vec<UsageLine> {
        let phases = self.phases.iter().zip(1..).map(|(p, number)| PhaseFigures {
            number,
            agent: p.agent.as_ref(),
            channel: p.channel.as_ref(),
            started: p.started.as_ref(),
            model: p.model.as_ref(),
            tokens: p.tokens,
            cost_usd: p.cost_usd,
            records: &p.usage,
        });
        attribute(&self.frontmatter, phases)
    }
}
