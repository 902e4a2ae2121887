//! `cru session index --format json`.

use serde::Serialize;

use super::{DuplicateId, SkippedFile};

#[derive(Debug, Serialize)]
pub struct IndexAnswer {
    /// The sessions directory.
    pub dir: String,
    /// Sessions in the index.
    pub sessions: usize,
    /// Files that could not be read as sessions.
    pub unreadable: Vec<SkippedFile>,
    pub duplicates: Vec<DuplicateId>,
}
