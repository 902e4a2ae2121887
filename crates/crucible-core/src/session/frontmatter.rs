//! The YAML frontmatter of a session file.

use serde::{Deserialize, Serialize};

use super::{AgentRef, PhaseId, SessionId, SessionStatus, Timestamp};

/// The metadata block at the top of every session file.
///
/// `type: session`, `session_id`, `started` and `status` are required; the
/// rest is optional. Keys cru does not know are kept in `extra`, in the order
/// the file had them, and written back after the known ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontmatter {
    pub session_id: SessionId,
    pub started: Timestamp,
    pub status: SessionStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub participants: Vec<AgentRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tokens this session used itself. A subagent's tokens are counted in its
    /// own session file (and noted in `subagents`), never here too, so summing
    /// every file never counts a token twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<SubagentEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_point: Option<PhaseId>,
    /// The session this one is a subagent of (`link` and `embed` children).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<SessionId>,
    /// Unknown keys, in file order.
    #[serde(default, skip_serializing_if = "crate::yaml::Mapping::is_empty")]
    pub extra: crate::yaml::Mapping,
}

impl Frontmatter {
    /// The smallest valid frontmatter: an active session started at `started`.
    pub fn new(session_id: SessionId, started: Timestamp) -> Self {
        Self {
            session_id,
            started,
            status: SessionStatus::Active,
            ended: None,
            title: None,
            channel: None,
            participants: Vec::new(),
            model: None,
            tokens_used: None,
            cost_usd: None,
            subagents: Vec::new(),
            resume_point: None,
            parent: None,
            extra: crate::yaml::Mapping::new(),
        }
    }

    /// Milliseconds from `started` to `ended`, when the session has ended and
    /// the two are in order.
    pub fn duration_ms(&self) -> Option<i64> {
        let ended = self.ended.as_ref()?;
        let d = ended.ms_since(&self.started);
        (d >= 0).then_some(d)
    }
}

/// One entry of the frontmatter `subagents` array: a child session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentEntry {
    pub session: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "crate::yaml::Mapping::is_empty")]
    pub extra: crate::yaml::Mapping,
}
