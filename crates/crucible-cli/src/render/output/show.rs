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

/// `cru session show ID#phase-N --format json`: one phase of a session,
/// with what names it (docs/json.md).
#[derive(Debug, Serialize)]
pub struct ShowPhaseAnswer<'a> {
    /// The file of the session.
    pub path: String,
    /// The session's id.
    pub id: &'a str,
    /// `ID#phase-N`, as a search hit names it.
    pub phase: String,
    /// N: the phase's number, from 1 in document order.
    pub number: usize,
    /// The phase as `show` prints each of `session.sections`.
    pub section: &'a crucible_core::Section,
    /// With `--full`: the sidecar's records of this phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<crucible_core::DataRecord>>,
}

impl<'a> ShowPhaseAnswer<'a> {
    pub fn new(
        path: &Path,
        log: &'a SessionLog,
        number: usize,
        section: &'a crucible_core::Section,
        data: Option<Vec<crucible_core::DataRecord>>,
    ) -> Self {
        let id = log.frontmatter.session_id.as_str();
        // The sidecar counts phases from 0.
        let of_phase = |r: &crucible_core::DataRecord| {
            use crucible_core::DataRecord as R;
            let phase = match r {
                R::Call(c) => Some(c.phase),
                R::Thinking(t) => t.phase,
                R::Image(m) => m.phase,
                R::Context(c) => c.phase,
                R::Source(s) => s.phase,
            };
            phase == Some(number - 1)
        };
        Self {
            path: path.display().to_string(),
            id,
            phase: format!("{id}#phase-{number}"),
            number,
            section,
            data: data.map(|d| d.into_iter().filter(of_phase).collect()),
        }
    }
}
