//! The session log: what one session file stands for.

mod agent;
mod block;
mod callout;
mod data;
mod eval_record;
mod event;
mod expect;
mod frontmatter;
mod id;
mod phase;
mod prompt;
mod redact;
mod status;
mod summary;
mod task;
mod timestamp;
mod tool_args;
mod usage;

pub use agent::{AgentRef, AgentRefError};
pub use block::{Block, ToolCall};
pub use callout::{
    Callout, CalloutKind, ErrorParts, SubagentError, SubagentMode, SubagentRef, UserParts,
    first_user_words, wikilink_target,
};
pub use data::{
    CallData, ContextData, DATA_VERSION, DataError, DataMismatch, DataRecord, ImageData,
    SessionData, SourceData, ThinkingData, data_path, is_data_file_name,
};
pub use eval_record::{Check, CheckKind, EvalRecord, JudgeVerdict, Verdict, last_verdict};
pub use event::{SUMMARY_LIMIT, SessionEvent, TimedEvent, cut, one_line, summary_line};
pub use expect::{ExpectError, Expectation, Order, ToolPattern, expectation_of};
pub use frontmatter::{Frontmatter, SubagentEntry};
pub use id::{SessionId, SessionIdError};
pub use phase::{Phase, PhaseId, PhaseIdError, PhaseMeta, PlainSection, Section};
pub use prompt::{is_bare_command, user_words};
pub use status::{SessionStatus, TaskStatus, UnknownStatus};
pub use summary::{Counts, PhaseSummary, SessionSummary};
pub use task::Task;
pub use timestamp::{Timestamp, TimestampError};
pub use tool_args::args_line;
pub use usage::{
    CountError, MAX_COST_USD, MAX_SUM_TOKENS, MAX_TOKENS, PhaseFigures, TIER_THRESHOLDS, Tokens,
    UNKNOWN_MODEL, UsageByModel, UsageLine, UsageRecord, attribute, is_cost, lines_total,
    parse_token_count, without_phases,
};

use serde::{Deserialize, Serialize};

/// A whole session file: frontmatter, the blocks before the first section
/// (title, intro, tasks, system prompt), then phases and plain sections in
/// document order.
///
/// Sections are kept flat, each with its heading level; nesting is derived
/// from the levels ([`SessionLog::phase_parent`]), which keeps document order
/// (and so the round trip) trivially exact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionLog {
    pub frontmatter: Frontmatter,
    #[serde(default)]
    pub preamble: Vec<Block>,
    #[serde(default)]
    pub sections: Vec<Section>,
}

impl SessionLog {
    pub fn new(frontmatter: Frontmatter) -> Self {
        Self {
            frontmatter,
            preamble: Vec::new(),
            sections: Vec::new(),
        }
    }

    pub fn id(&self) -> &SessionId {
        &self.frontmatter.session_id
    }

    /// The frontmatter `title`, else the first `# Title` line.
    pub fn title(&self) -> Option<&str> {
        self.frontmatter.title.as_deref().or_else(|| {
            self.preamble.iter().find_map(|b| match b {
                Block::Heading { level: 1, text } => Some(text.as_str()),
                _ => None,
            })
        })
    }

    /// Phases in document order, nested ones included, with their ids.
    pub fn phases(&self) -> impl Iterator<Item = (PhaseId, &Phase)> {
        self.sections
            .iter()
            .filter_map(|s| match s {
                Section::Phase(p) => Some(p),
                Section::Plain(_) => None,
            })
            .enumerate()
            .map(|(i, p)| (PhaseId::from_index(i), p))
    }

    pub fn phases_mut(&mut self) -> impl Iterator<Item = &mut Phase> {
        self.sections.iter_mut().filter_map(|s| match s {
            Section::Phase(p) => Some(p),
            Section::Plain(_) => None,
        })
    }

    pub fn phase_count(&self) -> usize {
        self.phases().count()
    }

    pub fn phase(&self, id: PhaseId) -> Option<&Phase> {
        self.phases().find(|(i, _)| *i == id).map(|(_, p)| p)
    }

    /// The phase a nested phase belongs to: the nearest earlier phase with a
    /// shallower heading, unless a plain section at that depth or shallower
    /// comes between them.
    pub fn phase_parent(&self, id: PhaseId) -> Option<PhaseId> {
        let mut stack: Vec<(u8, Option<PhaseId>)> = Vec::new();
        let mut next = 0;
        for section in &self.sections {
            let (level, this) = match section {
                Section::Phase(p) => {
                    next += 1;
                    (p.level, Some(PhaseId::from_index(next - 1)))
                }
                Section::Plain(s) => (s.level, None),
            };
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            if this == Some(id) {
                return stack.last().and_then(|(_, p)| *p);
            }
            stack.push((level, this));
        }
        None
    }

    /// Every block of the file: preamble, then each section's.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.preamble
            .iter()
            .chain(self.sections.iter().flat_map(|s| s.blocks().iter()))
    }

    /// The first `tasks` block.
    pub fn tasks(&self) -> Option<&[Task]> {
        self.blocks().find_map(|b| match b {
            Block::Tasks { tasks } => Some(tasks.as_slice()),
            _ => None,
        })
    }

    /// The `system-prompt` block, when the log has one.
    pub fn system_prompt(&self) -> Option<&str> {
        self.blocks().find_map(|b| match b {
            Block::SystemPrompt { text } => Some(text.as_str()),
            _ => None,
        })
    }

    /// Every callout of the file, in order.
    pub fn callouts(&self) -> impl Iterator<Item = &Callout> {
        self.blocks().filter_map(|b| match b {
            Block::Callout(c) => Some(c),
            _ => None,
        })
    }

    /// Every tool call of the file, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.blocks()
            .filter_map(|b| match b {
                Block::ToolCalls { calls } => Some(calls.iter()),
                _ => None,
            })
            .flatten()
    }
}
