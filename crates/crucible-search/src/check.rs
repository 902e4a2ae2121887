//! Does the search index on disk agree with the session files?
//! (`cru session index --check`.)
//!
//! Read as the index is, without catching it up. Files changed, added or
//! deleted since the index was written are *pending*: every search finds
//! them by their stamps in the manifest, leaves their old parts out and
//! reads them directly, until enough of them are written in (see
//! `index`). They are reported, but are no problem. A problem is what a
//! search would get wrong or could not use: an index it must rebuild, or
//! parts of a file that is gone which the manifest does not name (a search
//! would not know to leave them out).

use std::collections::BTreeSet;
use std::path::Path;

use crucible_core::store::names;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{Searcher, Term};

use crate::SearchError;
use crate::index::{SCHEMA_VERSION, load, schema};
use crate::manifest::{Stamp, stamps};

/// The state of the search index as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// There is none yet: the first search builds it. Not a problem.
    Missing,
    /// It is there but cannot be used (corrupt, another version, a link):
    /// the next search rebuilds it. Why.
    Unusable { reason: String },
    /// It can be read: how many parts (documents) it holds.
    Present { parts: u64 },
}

/// One way the index disagrees with the session files; paths are relative
/// to the sessions directory.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Disagreement {
    /// A session file the manifest does not list.
    NotIndexed { path: String },
    /// A session file whose size, modification time, inode or journal is
    /// not the one the manifest recorded: the index holds an older text.
    Changed { path: String },
    /// A file the manifest lists that is no longer among the session
    /// files: its parts are left out of every answer until written out.
    Gone { path: String },
    /// Parts in the index of a file that is gone and that the manifest
    /// does not list: a search would show them. A problem.
    Unlisted { path: String },
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotIndexed { .. } => write!(
                f,
                "not in the search index yet (each search reads it directly until it is written in)"
            ),
            Self::Changed { .. } => write!(
                f,
                "changed since the search index read it (each search reads it directly until it is written in)"
            ),
            Self::Gone { .. } => write!(
                f,
                "gone, still in the search index (each search leaves it out until it is written out)"
            ),
            Self::Unlisted { .. } => write!(
                f,
                "gone, but its parts are in the search index and the manifest does not name it: a search would show them (`cru session index --rebuild` repairs it)"
            ),
        }
    }
}

impl Disagreement {
    /// Whether a search would answer wrongly because of it (the others are
    /// pending files, which every search reads directly).
    pub fn is_problem(&self) -> bool {
        matches!(self, Self::Unlisted { .. })
    }

    pub fn path(&self) -> &str {
        match self {
            Self::NotIndexed { path }
            | Self::Changed { path }
            | Self::Gone { path }
            | Self::Unlisted { path } => path,
        }
    }
}

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub state: IndexState,
    /// Sorted; empty when the index is missing or unusable.
    pub disagreements: Vec<Disagreement>,
}

impl CheckReport {
    /// Whether this is a problem worth an exit 1: an index that cannot be
    /// used, or parts a search would wrongly show. A missing index, or
    /// pending files, are not.
    pub fn is_problem(&self) -> bool {
        matches!(self.state, IndexState::Unusable { .. })
            || self.disagreements.iter().any(Disagreement::is_problem)
    }
}

/// Compares the search index of the sessions directory `dir` with its
/// session files (listed by the one walker), changing nothing.
pub fn check(dir: &Path) -> Result<CheckReport, SearchError> {
    let home = dir.join(names::SEARCH_INDEX);
    if std::fs::symlink_metadata(&home).is_err() {
        return Ok(CheckReport {
            state: IndexState::Missing,
            disagreements: Vec::new(),
        });
    }
    let crate::index::Loaded {
        searcher, manifest, ..
    } = match load(&home) {
        Ok(loaded) => loaded,
        Err(reason) => {
            return Ok(CheckReport {
                state: IndexState::Unusable { reason },
                disagreements: Vec::new(),
            });
        }
    };
    let current = stamps(dir, SCHEMA_VERSION)?.files;
    let mut out = BTreeSet::new();
    for (path, now) in current.iter() {
        match manifest.files.get(path) {
            None => {
                out.insert(Disagreement::NotIndexed {
                    path: path.to_owned(),
                });
            }
            Some(then) if *then == Stamp::NOT_INDEXED => {
                out.insert(Disagreement::NotIndexed {
                    path: path.to_owned(),
                });
            }
            Some(then) if !same_file(then, now) => {
                out.insert(Disagreement::Changed {
                    path: path.to_owned(),
                });
            }
            Some(_) => {}
        }
    }
    for path in manifest.files.keys() {
        if !current.contains_key(path) {
            out.insert(Disagreement::Gone {
                path: path.to_owned(),
            });
        }
    }
    for path in indexed_paths(&home, &searcher)? {
        if !current.contains_key(&path) && !manifest.files.contains_key(&path) {
            out.insert(Disagreement::Unlisted { path });
        }
    }
    Ok(CheckReport {
        state: IndexState::Present {
            parts: searcher.num_docs(),
        },
        disagreements: out.into_iter().collect(),
    })
}

/// The stamp the manifest keeps, less the change time: a file only
/// `chmod`ed (or touched back by no tool) holds the text that was indexed.
fn same_file(then: &Stamp, now: &Stamp) -> bool {
    (
        then.size,
        then.mtime_ns,
        then.inode,
        then.journal.map(|j| j.0),
    ) == (now.size, now.mtime_ns, now.inode, now.journal.map(|j| j.0))
}

/// The paths of which the index holds parts not deleted: the terms of the
/// `path` field, each counted against the live documents (a deleted
/// document keeps its terms until its segment is merged).
fn indexed_paths(home: &Path, searcher: &Searcher) -> Result<BTreeSet<String>, SearchError> {
    let (_, fields) = schema();
    let mut terms = BTreeSet::new();
    for segment in searcher.segment_readers() {
        let inverted = segment.inverted_index(fields.path)?;
        let mut stream = inverted
            .terms()
            .stream()
            .map_err(|source| SearchError::Io {
                path: home.to_owned(),
                source,
            })?;
        while stream.advance() {
            terms.insert(String::from_utf8_lossy(stream.key()).into_owned());
        }
    }
    let mut live = BTreeSet::new();
    for path in terms {
        let query = TermQuery::new(
            Term::from_field_text(fields.path, &path),
            IndexRecordOption::Basic,
        );
        if searcher.search(&query, &Count)? > 0 {
            live.insert(path);
        }
    }
    Ok(live)
}
