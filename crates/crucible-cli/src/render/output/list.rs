//! `cru session list --format json|toon`.

use crucible_index::SessionRecord;
use serde::Serialize;

use super::{DuplicateId, SkippedFile};

#[derive(Debug, Serialize)]
pub struct ListAnswer {
    /// Newest first.
    pub sessions: Vec<SessionRow>,
    pub skipped: Vec<SkippedFile>,
    pub duplicates: Vec<DuplicateId>,
}

/// One session as `list` gives it: what the session says, nothing of how
/// the index keeps it (file stamps, whether it had a journal).
#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub id: String,
    pub status: &'static str,
    pub title: Option<String>,
    pub started: String,
    pub ended: Option<String>,
    pub duration_ms: Option<u64>,
    /// Participants (`name@version`) then the other agents of its phases.
    pub agents: Vec<String>,
    /// The frontmatter's `participants`.
    pub participants: Vec<String>,
    pub channels: Vec<String>,
    pub models: Vec<String>,
    pub tokens: Option<u64>,
    pub phases: u64,
    pub tool_calls: u64,
    pub failed_tool_calls: u64,
    pub decisions: u64,
    pub errors: u64,
    pub user_interventions: u64,
    pub subagents: u64,
    pub resume_point: Option<String>,
    pub parent: Option<String>,
    /// Relative to the sessions directory, `/`-separated.
    pub path: String,
}

impl From<&SessionRecord> for SessionRow {
    fn from(r: &SessionRecord) -> Self {
        Self {
            id: r.id.clone(),
            status: r.status.as_str(),
            title: r.title.clone(),
            started: r.started.clone(),
            ended: r.ended.clone(),
            duration_ms: r.duration_ms,
            agents: r.participants.iter().chain(&r.agents).cloned().collect(),
            participants: r.participants.clone(),
            channels: r.channel.iter().cloned().collect(),
            models: r.model.iter().cloned().collect(),
            tokens: r.tokens_used,
            phases: r.phases,
            tool_calls: r.counts.tool_calls,
            failed_tool_calls: r.counts.failed_tool_calls,
            decisions: r.counts.decisions,
            errors: r.counts.errors,
            user_interventions: r.counts.user_interventions,
            subagents: r.counts.subagents,
            resume_point: r.resume_point.clone(),
            parent: r.parent.clone(),
            path: r.path.clone(),
        }
    }
}
