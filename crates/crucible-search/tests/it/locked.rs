//! A search while another search holds the search index's lock: it never
//! waits, answers with the changed files read directly, and writes nothing.
//! The sessions' writer lock (held by `cru session log`) is not the search
//! index's: a search brings its index up to date while a session is being
//! recorded, and never holds up the recorder.

use std::path::Path;

use crucible_core::store::lock::DirLock;
use crucible_core::store::names;
use crucible_search::index::SCHEMA_VERSION;

use crate::{search_ids, session};

fn ids(dir: &Path, query: &str) -> (Vec<String>, usize) {
    let (ids, opened) = search_ids(dir, query);
    (ids, opened.warnings.len())
}

#[test]
fn a_search_under_another_searchs_lock_sees_changes_without_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("b.md"), session("b", "the wombat too")).unwrap();
    assert_eq!(ids(dir, "wombat").0, ["a", "b"]);
    let manifest = dir.join(".search/manifest");
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
    let manifest = dir.join(".search/manifest");
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
    let manifest = dir.join(".search/manifest");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replacen(&format!("manifest {SCHEMA_VERSION}"), "manifest 99", 1),
    )
    .unwrap();
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    let warnings: Vec<String> = opened.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [format!(
            "search index is version 99 (this cru writes {SCHEMA_VERSION}): rebuilt"
        )]
    );
    // The JSON manifest of version 1, from before this format.
    std::fs::remove_file(&manifest).unwrap();
    std::fs::write(
        dir.join(".search/manifest.json"),
        r#"{"version":1,"files":{}}"#,
    )
    .unwrap();
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    let warnings: Vec<String> = opened.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [format!(
            "search index is version 1 (this cru writes {SCHEMA_VERSION}): rebuilt"
        )]
    );
    assert!(manifest.exists(), "rebuilt with the new manifest");
}
