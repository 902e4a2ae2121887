//! `cru session list --format json|toon`.

use crucible_index::SessionView;
use serde::Serialize;

use super::{DuplicateId, SkippedFile};

#[derive(Debug, Serialize)]
pub struct ListAnswer<'a> {
    /// Newest first. The index owns a session's shape
    /// ([`SessionView`]): its fields are the record's, named for output.
    pub sessions: Vec<SessionView<'a>>,
    pub skipped: Vec<SkippedFile>,
    pub duplicates: Vec<DuplicateId>,
}
