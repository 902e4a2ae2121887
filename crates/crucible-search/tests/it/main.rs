//! crucible-search on real files: the tokenizer's properties, a search
//! that must answer while another process holds the writer lock, and the
//! manifest's shortcut past listing folders.

mod check;
mod locked;
mod rebuilt_meanwhile;
mod subagents;
mod tokenizer;
mod unlisted;
mod vouched;

use std::path::Path;

use crucible_search::{Filter, Opened, Request, Sort};

/// A completed session of one phase holding `text`.
pub fn session(id: &str, text: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n## Work @dev\n\n{text}\n"
    )
}

/// The ids of the sessions matching `query` in `dir` (sorted), with the
/// index as the search opened it.
pub fn search_ids(dir: &Path, query: &str) -> (Vec<String>, Opened) {
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    (ids_in(&opened, dir, query), opened)
}

/// The ids of the sessions matching `query` (sorted) in an opened index.
pub fn ids_in(opened: &Opened, dir: &Path, query: &str) -> Vec<String> {
    let request = Request {
        query: crucible_search::parse(query).unwrap(),
        filter: Filter::default(),
        limit: 0,
        offset: 0,
        sort: Sort::Relevance,
        per_session: 1,
    };
    let hits = crucible_search::search(opened, dir, &request).unwrap();
    let mut ids: Vec<String> = hits.into_iter().map(|h| h.id).collect();
    ids.sort();
    ids
}
