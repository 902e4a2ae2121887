//! `cru session stats --format json|toon`.

use crucible_index::StatsRow;
use serde::Serialize;

use super::{DuplicateId, SkippedFile};

/// The groups are the index's rows as they are: `StatsRow` owns the
/// shape of a group in the JSON (docs/json.md).
#[derive(Debug, Serialize)]
pub struct StatsAnswer<'a> {
    /// What the groups are by: agent, channel, status, model, day or phase.
    pub group_by: &'static str,
    pub groups: &'a [StatsRow],
    /// Every matching session once (a session in two groups counts once).
    pub total: &'a StatsRow,
    pub skipped: Vec<SkippedFile>,
    pub duplicates: Vec<DuplicateId>,
}
