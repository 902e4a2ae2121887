//! `cru session stats --format json|toon`.

use crucible_index::StatsRow;
use serde::Serialize;

use super::{DuplicateId, SkippedFile};

#[derive(Debug, Serialize)]
pub struct StatsAnswer {
    /// What the groups are by: agent, channel, status, model, day or phase.
    pub group_by: &'static str,
    pub groups: Vec<StatsGroup>,
    /// Every matching session once (a session in two groups counts once).
    pub total: StatsGroup,
    pub skipped: Vec<SkippedFile>,
    pub duplicates: Vec<DuplicateId>,
}

/// The totals of one group.
#[derive(Debug, Serialize)]
pub struct StatsGroup {
    pub group: String,
    pub sessions: u64,
    pub tokens: u64,
    pub avg_duration_ms: Option<u64>,
    pub min_duration_ms: Option<u64>,
    pub max_duration_ms: Option<u64>,
    /// Sessions that ended `failed`.
    pub failed: u64,
    /// Sessions that ended, `completed` or `failed`.
    pub ended: u64,
    /// `failed / ended`; `null` when none has ended.
    pub failure_rate: Option<f64>,
    pub errors: u64,
    pub user_interventions: u64,
}

impl From<&StatsRow> for StatsGroup {
    fn from(r: &StatsRow) -> Self {
        Self {
            group: r.group.clone(),
            sessions: r.sessions,
            tokens: r.tokens,
            avg_duration_ms: r.avg_duration_ms,
            min_duration_ms: r.min_duration_ms,
            max_duration_ms: r.max_duration_ms,
            failed: r.failed,
            ended: r.ended,
            failure_rate: r.failure_rate,
            errors: r.errors,
            user_interventions: r.user_interventions,
        }
    }
}
