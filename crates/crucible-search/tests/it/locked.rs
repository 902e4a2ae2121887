//! A search while another search holds the search index's lock: it never
//! waits, answers with the changed files read directly, and writes nothing.
//! The sessions' writer lock (held by `cru session log`) is not the search
//! index's: a search brings its index up to date while a session is being
//! recorded, and never holds up the recorder.

use std::path::Path;

use crucible_core::store::lock::DirLock;
use crucible_core::store::names;
use crucible_search::{Filter, Request, Sort};

fn session(id: &str, text: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n## Work @dev\n\n{text}\n"
    )
}

fn ids(dir: &Path, query: &str) -> (Vec<String>, usize) {
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    let request = Request {
        query: crucible_search::parse(query).unwrap(),
        filter: Filter::default(),
        limit: 0,
        offset: 0,
        sort: Sort::Relevance,
        per_session: 1,
    };
    let hits = crucible_search::search(&opened, dir, &request).unwrap();
    let mut ids: Vec<String> = hits.into_iter().map(|h| h.id).collect();
    ids.sort();
    (ids, opened.warnings.len())
}

#[test]
fn a_search_under_another_searchs_lock_sees_changes_without_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("b.md"), session("b", "the wombat too")).unwrap();
    assert_eq!(ids(dir, "wombat").0, ["a", "b"]);
    let manifest = dir.join(".search/manifest.json");
    let before = std::fs::read(&manifest).unwrap();

    let lock = DirLock::try_acquire_file(&dir.join(names::SEARCH_LOCK)).unwrap();
    std::fs::write(dir.join("a.md"), session("a", "a numbat now")).unwrap();
    std::fs::remove_file(dir.join("b.md")).unwrap();
    std::fs::write(dir.join("c.md"), session("c", "a new wombat")).unwrap();
    assert_eq!(ids(dir, "wombat"), (vec!["c".to_owned()], 0));
    assert_eq!(ids(dir, "numbat").0, ["a"]);
    assert_eq!(std::fs::read(&manifest).unwrap(), before, "nothing written");
    drop(lock);

    // With the lock free, the next search catches the index up.
    assert_eq!(ids(dir, "wombat").0, ["c"]);
    assert_ne!(std::fs::read(&manifest).unwrap(), before);
}

#[test]
fn the_sessions_writer_lock_does_not_stop_a_search_from_catching_up() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    assert_eq!(ids(dir, "wombat").0, ["a"]);
    let manifest = dir.join(".search/manifest.json");
    let before = std::fs::read(&manifest).unwrap();
    // A recorder holds the sessions' lock; the search does not take it.
    let recording = DirLock::acquire(dir).unwrap();
    std::fs::write(dir.join("b.md"), session("b", "another wombat")).unwrap();
    assert_eq!(
        ids(dir, "wombat"),
        (vec!["a".to_owned(), "b".to_owned()], 0)
    );
    assert_ne!(std::fs::read(&manifest).unwrap(), before, "caught up");
    drop(recording);
}

#[test]
fn a_wrong_version_is_rebuilt_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    ids(dir, "wombat");
    let manifest = dir.join(".search/manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let this = crucible_search::index::SCHEMA_VERSION;
    let written = format!("\"version\":{this}");
    assert!(text.contains(&written), "{text}");
    std::fs::write(&manifest, text.replace(&written, "\"version\":99")).unwrap();
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    let warnings: Vec<String> = opened.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [format!(
            "search index is version 99 (this cru writes {this}): rebuilt"
        )]
    );
}
