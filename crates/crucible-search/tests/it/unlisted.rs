//! The manifest's shortcut: while no session directory changed, a search
//! `stat`s the files it knows instead of listing the directories. What
//! that must still see, on real files: an edit in place (the folder does
//! not change), a live session's journal growing, and, once a folder
//! changes, a file added, removed or renamed over.
//!
//! Changes within a clock tick of the manifest's write are not trusted
//! (the index lists again), so the tests wait out that tick before each
//! change they expect the shortcut to see.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::{search_ids, session};

/// The ids that match `query`, and whether the search listed directories.
fn search(dir: &Path, query: &str) -> (Vec<String>, bool) {
    let (ids, opened) = search_ids(dir, query);
    assert!(
        opened
            .warnings
            .iter()
            .all(|w| w.to_string() == "search index is missing: rebuilt"),
        "{:?}",
        opened.warnings
    );
    (ids, opened.listed)
}

/// Longer than the tick within which stamps are not trusted.
fn wait_out_the_tick() {
    std::thread::sleep(Duration::from_millis(250));
}

/// Settles the index: built, then searched again once the directory's
/// last change is older than the tick, so the next search can take the
/// shortcut.
fn settle(dir: &Path) {
    wait_out_the_tick();
    search(dir, "anything");
    wait_out_the_tick();
    assert!(!search(dir, "anything").1, "settled: nothing listed");
}

fn edit_in_place(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn an_edit_in_place_is_seen_without_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("2025-12")).unwrap();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("2025-12/b.md"), session("b", "the wombat too")).unwrap();
    search(dir, "wombat");
    settle(dir);

    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let before = inode(&dir.join("2025-12/b.md"));
    edit_in_place(&dir.join("2025-12/b.md"), &session("b", "a numbat now"));
    assert_eq!(inode(&dir.join("2025-12/b.md")), before, "same file");
    assert_eq!(search(dir, "numbat"), (vec!["b".to_owned()], false));
    assert_eq!(search(dir, "wombat").0, ["a"]);
}

#[test]
fn files_added_removed_or_renamed_over_are_seen_by_listing_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("2025-12")).unwrap();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("2025-12/b.md"), session("b", "the wombat too")).unwrap();
    search(dir, "wombat");

    settle(dir);
    std::fs::write(dir.join("2025-12/c.md"), session("c", "a new wombat")).unwrap();
    assert_eq!(
        search(dir, "wombat"),
        (vec!["a".into(), "b".into(), "c".into()], true)
    );

    settle(dir);
    std::fs::remove_file(dir.join("a.md")).unwrap();
    assert_eq!(search(dir, "wombat"), (vec!["b".into(), "c".into()], true));

    // Saved as editors and cru save: a new file renamed over the old one.
    settle(dir);
    std::fs::write(dir.join("2025-12/.b.tmp"), session("b", "a numbat")).unwrap();
    std::fs::rename(dir.join("2025-12/.b.tmp"), dir.join("2025-12/b.md")).unwrap();
    assert_eq!(search(dir, "numbat"), (vec!["b".to_owned()], true));
    assert_eq!(search(dir, "wombat").0, ["c"]);

    // A new folder of sessions.
    settle(dir);
    std::fs::create_dir(dir.join("2026-01")).unwrap();
    std::fs::write(dir.join("2026-01/d.md"), session("d", "one more wombat")).unwrap();
    assert_eq!(search(dir, "wombat"), (vec!["c".into(), "d".into()], true));
}

#[test]
fn a_live_sessions_journal_growing_is_seen_without_listing() {
    use crucible_core::{Recorder, SessionConfig, SessionStore, store::journal};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let live = session("a", "the wombat").replace("status: completed", "status: active");
    std::fs::write(dir.join("a.md"), live).unwrap();
    let store = SessionStore::new(dir, crucible_parser::MarkdownCodec);
    let mut recorder = Recorder::open(&store, "a", &SessionConfig::default(), false).unwrap();
    recorder
        .tool_call("bash", "grep numbat", None, false)
        .unwrap();
    recorder.flush().unwrap();
    assert!(
        journal::journal_path(&dir.join("a.md")).exists(),
        "a live session"
    );
    assert_eq!(search(dir, "numbat").0, ["a"]);

    settle(dir);
    recorder
        .tool_call("bash", "grep quokka", None, false)
        .unwrap();
    recorder.flush().unwrap();
    assert_eq!(search(dir, "quokka"), (vec!["a".to_owned()], false));
}

#[test]
fn a_few_changes_are_read_directly_and_many_are_written_into_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    search(dir, "wombat");
    let meta = dir.join(".search/meta.json");
    let committed = std::fs::read(&meta).unwrap();

    // A new file: read directly, not committed; once the folder settles it
    // is found by its stamp in the manifest, without listing.
    settle(dir);
    std::fs::write(dir.join("b.md"), session("b", "a numbat")).unwrap();
    assert_eq!(search(dir, "numbat"), (vec!["b".to_owned()], true));
    settle(dir);
    assert_eq!(search(dir, "numbat"), (vec!["b".to_owned()], false));
    edit_in_place(&dir.join("a.md"), &session("a", "now a quokka"));
    assert_eq!(search(dir, "quokka"), (vec!["a".to_owned()], false));
    assert!(
        search(dir, "wombat").0.is_empty(),
        "the old text is left out"
    );
    assert_eq!(
        std::fs::read(&meta).unwrap(),
        committed,
        "nothing committed"
    );

    // Many: written into the index, and still found.
    for n in 0..70 {
        std::fs::write(
            dir.join(format!("m{n}.md")),
            session(&format!("m{n}"), "an echidna"),
        )
        .unwrap();
    }
    assert_eq!(search(dir, "echidna").0.len(), 70);
    assert_ne!(std::fs::read(&meta).unwrap(), committed, "committed");
    assert_eq!(search(dir, "quokka").0, ["a"]);
    assert_eq!(search(dir, "numbat").0, ["b"]);
    assert!(search(dir, "wombat").0.is_empty());
}

/// After the folder changed, the files the manifest knows are `stat`ed
/// while it is listed again; what the listing finds in their place is
/// still judged as every walk judges it: a session replaced by a FIFO is
/// passed over (never opened, so nothing hangs), one replaced by a link
/// out of the folder is not read through it, one saved over is read again,
/// and a file added meanwhile is found.
#[test]
fn sessions_replaced_by_a_fifo_or_a_link_out_are_passed_over_after_listing_again() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for id in ["a", "b", "c"] {
        std::fs::write(dir.join(format!("{id}.md")), session(id, "the wombat")).unwrap();
    }
    search(dir, "wombat");
    settle(dir);

    std::fs::remove_file(dir.join("a.md")).unwrap();
    crucible_testkit::mkfifo(&dir.join("a.md"));
    let secret = outside.path().join("b.md");
    std::fs::write(&secret, session("b", "a secret quokka")).unwrap();
    std::fs::remove_file(dir.join("b.md")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("b.md")).unwrap();
    std::fs::write(dir.join(".c.tmp"), session("c", "a numbat")).unwrap();
    std::fs::rename(dir.join(".c.tmp"), dir.join("c.md")).unwrap();
    std::fs::write(dir.join("d.md"), session("d", "a numbat too")).unwrap();

    let (ids, opened) = search_ids(dir, "wombat OR quokka OR numbat");
    assert!(opened.listed);
    assert_eq!(ids, ["c", "d"]);
}

/// A link the walker took (its real path inside the folder) that leads out
/// of it later, with nothing in the folder changed: its new target is not
/// read, and neither is a path a manifest edited by hand names outside.
#[test]
fn a_link_that_comes_to_lead_outside_is_not_read_without_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions");
    let evil = tmp.path().join("evil");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&evil).unwrap();
    std::fs::write(dir.join("s1.md"), session("s1", "the wombat")).unwrap();
    std::fs::write(evil.join("s1.md"), session("s1", "a secretword outside")).unwrap();
    let alias = tmp.path().join("alias");
    std::os::unix::fs::symlink(&dir, &alias).unwrap();
    std::os::unix::fs::symlink("../alias/s1.md", dir.join("link.md")).unwrap();
    search(&dir, "wombat");
    settle(&dir);

    std::fs::remove_file(&alias).unwrap();
    std::os::unix::fs::symlink(&evil, &alias).unwrap();
    let (ids, listed) = search(&dir, "secretword");
    assert!(!listed, "nothing in the folder changed");
    assert!(ids.is_empty(), "{ids:?}");
    assert_eq!(search(&dir, "wombat").0, ["s1"]);
}
