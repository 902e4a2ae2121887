//! Full-text search over session files (`cru session search`).
//!
//! A tantivy index derived from the sessions and kept beside the other
//! index files (`.search/`), never the truth: [`index::open`] makes it
//! fresh before every answer (a `stat` per session file against its
//! manifest) and rebuilds a missing, corrupt, wrong-version or linked one
//! with a warning. Each session is indexed as parts: one per phase, one for
//! its title and the text before the first phase, one per `[!subagent]`
//! callout ([`document`]), with text by kind (prose, tool calls, decisions, errors, user interventions),
//! split into words as code and logs write them ([`tokenizer`]).
//! [`query::parse`] reads the query language of docs/search.md, and
//! [`search::search`] answers it: hits ranked by BM25 or newest first,
//! collapsed per session, each with its file, line and snippet, and the
//! subagent and parent when the text is a subagent's.
//! [`rebuild_all`] builds the index from nothing and [`check`] says where
//! it disagrees with the files (`cru session index --rebuild`, `--check`).

pub mod check;
mod deferred;
pub mod document;
pub mod index;
pub mod manifest;
mod parallel;
pub mod pending;
pub mod query;
pub mod search;
pub mod stamps;
pub mod tokenizer;

use std::path::PathBuf;

pub use check::{CheckReport, Disagreement, IndexState, check};
pub use index::{Opened, Rebuilt, catch_up_fully, open, open_vouched, rebuild_all};
pub use query::{ParsedQuery, QueryError, parse};
pub use search::{Filter, Hit, Kind, Request, Sort, search};

/// What can stop a search.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

/// What the caller should say on one line: the index was rebuilt, could
/// not be written, or a file was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexWarning {
    /// The index was (re)built; why.
    Rebuilt { reason: String },
    /// The index could not be used and another process held the lock: this
    /// answer read every session directly.
    ReadDirectly { reason: String },
    /// A session file that could not be read, left out.
    Skipped { path: PathBuf, message: String },
    /// A rebuild put the new index in place, but the old one, moved to
    /// `path`, could not be removed.
    OldIndexKept { path: PathBuf, reason: String },
}

impl std::fmt::Display for IndexWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rebuilt { reason } => write!(f, "search index {reason}: rebuilt"),
            Self::ReadDirectly { reason } => write!(
                f,
                "search index {reason}; another cru holds the lock, so the sessions were read directly"
            ),
            Self::Skipped { path, message } => {
                write!(f, "skipped {}: {message}", path.display())
            }
            Self::OldIndexKept { path, reason } => write!(
                f,
                "the search index was rebuilt, but the old one at {} could not be removed ({reason}); remove it by hand",
                path.display()
            ),
        }
    }
}
