//! `cru session show --format json`.

use std::path::Path;

use crucible_core::SessionLog;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct ShowAnswer<'a> {
    /// The file shown.
    pub path: String,
    pub session: ShownSession<'a>,
    /// With `--full`: the sidecar's records (full tool arguments and
    /// results), one object each as in the sidecar file
    /// (docs/session-format.md); absent without `--full`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<crucible_core::DataRecord>>,
}

/// A session: the facts scripts ask for first at the top, then the whole
/// document as the session format defines it (docs/session-format.md):
/// the frontmatter's keys as written, then the blocks before the first
/// phase, then the sections (phases and the rest), each with its blocks.
#[derive(Debug, Serialize)]
pub struct ShownSession<'a> {
    pub id: &'a str,
    pub title: Option<&'a str>,
    pub status: &'static str,
    pub started: String,
    pub ended: Option<String>,
    pub frontmatter: &'a crucible_core::Frontmatter,
    pub preamble: &'a [crucible_core::Block],
    pub sections: &'a [crucible_core::Section],
}

impl<'a> ShowAnswer<'a> {
    pub fn new(
        path: &Path,
        log: &'a SessionLog,
        data: Option<Vec<crucible_core::DataRecord>>,
    ) -> Self {
        let fm = &log.frontmatter;
        Self {
            path: path.display().to_string(),
            session: ShownSession {
                id: fm.session_id.as_str(),
                title: fm.title.as_deref(),
                status: fm.status.as_str(),
                started: fm.started.to_string(),
                ended: fm.ended.as_ref().map(ToString::to_string),
                frontmatter: fm,
                preamble: &log.preamble,
                sections: &log.sections,
            },
            data,
        }
    }
}
