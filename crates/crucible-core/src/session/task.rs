//! The entries of a session's `tasks` block.

use serde::{Deserialize, Serialize};

use super::TaskStatus;

/// One task of the fenced `tasks` block: `{id, content, status, priority}`.
///
/// Fields other tools add are kept in `extra`, in order, so a round trip
/// through cru never drops them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub content: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}
