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
    /// The search index: as rebuilt, or as checked (`--check`).
    pub search: SearchIndexAnswer,
}

/// The search index (`.search/`) against the session files.
#[derive(Debug, Serialize)]
pub struct SearchIndexAnswer {
    /// `missing` (no search yet built it), `unusable` (the next search
    /// rebuilds it; `reason` says why) or `present`.
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Parts (documents: phases, preambles, plain sections) it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<u64>,
    /// Where it disagrees with the files (`--check`; empty after a rebuild).
    pub disagreements: Vec<SearchDisagreement>,
}

#[derive(Debug, Serialize)]
pub struct SearchDisagreement {
    /// Relative to the sessions directory.
    pub path: String,
    /// `not_indexed`, `changed` or `gone` (pending: each search reads or
    /// leaves them out itself, no problem), or `unlisted` (parts of a file
    /// that is gone, which a search would show: a problem).
    pub problem: &'static str,
    /// Whether a search would answer wrongly because of it (only
    /// `unlisted`): exit 1.
    pub is_problem: bool,
    pub message: String,
}

impl SearchIndexAnswer {
    pub fn of(report: &crucible_search::CheckReport) -> Self {
        use crucible_search::{Disagreement as D, IndexState as S};
        let (state, reason, parts) = match &report.state {
            S::Missing => ("missing", None, None),
            S::Unusable { reason } => ("unusable", Some(reason.clone()), None),
            S::Present { parts } => ("present", None, Some(*parts)),
        };
        Self {
            state,
            reason,
            parts,
            disagreements: report
                .disagreements
                .iter()
                .map(|d| SearchDisagreement {
                    path: d.path().to_owned(),
                    problem: match d {
                        D::NotIndexed { .. } => "not_indexed",
                        D::Changed { .. } => "changed",
                        D::Gone { .. } => "gone",
                        D::Unlisted { .. } => "unlisted",
                    },
                    is_problem: d.is_problem(),
                    message: d.to_string(),
                })
                .collect(),
        }
    }
}
