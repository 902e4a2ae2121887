//! Which file a session named over MCP is: always one of the served
//! directory's, never any other file on the machine.
//!
//! The CLI takes "an id, a unique prefix, or a path" because the person
//! typing it may name any file they can read. A client of the server is
//! not that person (a model, or anything that reaches `--http`), so here a
//! session is named by its id, a unique prefix of one, its file name, the
//! `path` `list_sessions` answers (relative to the sessions directory), or
//! its resource URI. Anything else is an unknown session, and the message
//! says nothing of what lies outside: not whether a file exists there, nor
//! what it holds.

use std::path::{Component, Path, PathBuf};

use crucible_core::store::walk::may_read;
use crucible_core::{SessionId, SessionStore, StoreError};
use crucible_mcp::ToolError;
use crucible_mcp::uri::percent_decode;
use crucible_parser::MarkdownCodec;

use super::backend::failure;
use crate::error::CliError;

/// The resource URI of a session, which a model may pass as its id.
pub const SESSION_URI: &str = "cru://session/";

/// How a client named a session, once its URI form and percent-encoding
/// are taken off.
enum Named<'a> {
    /// An id or a prefix of one.
    Id(&'a str),
    /// A path relative to the sessions directory (it has a `/` or ends in `.md`).
    Path(&'a Path),
}

fn named(query: &str) -> Named<'_> {
    let looks_like_path =
        query.contains('/') || query.contains('\\') || query.to_lowercase().ends_with(".md");
    if looks_like_path {
        Named::Path(Path::new(query))
    } else {
        Named::Id(query)
    }
}

/// `query` as the client meant it: `cru://session/ID` is `ID`, and a
/// percent-encoded id (what URL libraries make of a non-ASCII one) is
/// decoded.
pub fn unwrap_query(query: &str) -> String {
    percent_decode(query.strip_prefix(SESSION_URI).unwrap_or(query))
}

/// The file of the session `query` names in `store`'s directory.
pub fn resolve(store: &SessionStore<MarkdownCodec>, query: &str) -> Result<PathBuf, ToolError> {
    let unwrapped = unwrap_query(query);
    match named(&unwrapped) {
        Named::Id(id) => by_id(store, query, id),
        Named::Path(path) => match inside(store.dir(), path) {
            Some(file) => Ok(file),
            // A bare file name (`ID.md`) of a file that is not at the top:
            // the id it is named after.
            None if path.components().count() == 1 => match path.file_stem() {
                Some(stem) => by_id(store, query, &stem.to_string_lossy()),
                None => Err(unknown(store, query, &unwrapped)),
            },
            None => Err(unknown(store, query, &unwrapped)),
        },
    }
}

/// The file at `relative` below `dir`, when it is a markdown file that is
/// inside it, reached through no link that leads out.
fn inside(dir: &Path, relative: &Path) -> Option<PathBuf> {
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let markdown = relative
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !plain || !markdown {
        return None;
    }
    let full = dir.join(relative);
    may_read(&full, dir).ok().map(|()| full)
}

/// The file of an id or prefix; an unknown one names the nearest ids, an
/// ambiguous prefix its candidates, and an id two files declare their
/// paths in the directory, which pick one.
fn by_id(store: &SessionStore<MarkdownCodec>, typed: &str, id: &str) -> Result<PathBuf, ToolError> {
    let Ok(session_id) = SessionId::new(id) else {
        return Err(unknown(store, typed, id));
    };
    match store.resolve_id(&session_id) {
        Ok(path) => Ok(path),
        Err(StoreError::Ambiguous { query, candidates }) => Err(ToolError::new(format!(
            "`{query}` matches {} sessions: give more of the id",
            candidates.len()
        ))
        .with_candidates(candidates.iter().map(|c| c.id.to_string()).collect())),
        Err(StoreError::DuplicateId { id, paths }) => {
            let paths: Vec<String> = paths
                .iter()
                .map(|p| crucible_index::scan::relative(store.dir(), p))
                .collect();
            Err(ToolError::new(format!(
                "session id `{id}` is declared by {} files: {}; pass one of these paths as the \
                 id to pick that file",
                paths.len(),
                paths.join(", ")
            )))
        }
        Err(StoreError::NotFound { .. }) => Err(unknown(store, typed, id)),
        Err(e) => Err(failure(CliError::from(e).into())),
    }
}

/// A session named by nothing in the directory, with the nearest ids.
fn unknown(store: &SessionStore<MarkdownCodec>, typed: &str, meant: &str) -> ToolError {
    let files = store.scan();
    let ids = files.iter().flatten().map(|f| f.id.as_str());
    // The nearest to the id part of what was typed: a path's file stem.
    let stem = Path::new(meant)
        .file_stem()
        .map_or_else(|| meant.to_owned(), |s| s.to_string_lossy().into_owned());
    ToolError::new(format!(
        "no session `{typed}` in the sessions directory: give a session id, a unique prefix \
         of one, or the `path` list_sessions answers"
    ))
    .with_candidates(super::nearest::nearest(&stem, ids, 5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_percent_forms_name_the_id() {
        assert_eq!(
            unwrap_query("cru://session/2025-12-10-fix"),
            "2025-12-10-fix"
        );
        assert_eq!(unwrap_query("cru://session/a%E5%B9%AB-b"), "a幫-b");
    }

    #[test]
    fn only_plain_relative_markdown_paths_are_inside() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("a.md"), "x").unwrap();
        assert!(inside(t.path(), Path::new("a.md")).is_some());
        assert!(inside(t.path(), Path::new("./a.md")).is_some());
        assert!(inside(t.path(), Path::new("../a.md")).is_none());
        assert!(inside(t.path(), &t.path().join("a.md")).is_none());
        assert!(inside(t.path(), Path::new("missing.md")).is_none());
    }
}
