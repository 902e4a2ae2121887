//! A search a running watcher vouches for reads no `stat` of the session
//! files: what it must still see are the files the watcher named as
//! changed since its last commit (`.search/pending`), on real files.

use std::collections::BTreeSet;

use crate::{ids_in, search_ids, session};

fn named(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| (*p).to_owned()).collect()
}

#[test]
fn files_the_watcher_named_are_read_directly_and_the_rest_from_the_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("b.md"), session("b", "the numbat")).unwrap();
    std::fs::write(dir.join("c.md"), session("c", "the quokka")).unwrap();
    // Built and committed, as a watcher's catch-up leaves it.
    assert!(crucible_search::catch_up_fully(dir, 1 << 24).unwrap());

    // Changed behind the committed index: a edited, b removed, d added.
    std::fs::write(dir.join("a.md"), session("a", "the numbat now")).unwrap();
    std::fs::remove_file(dir.join("b.md")).unwrap();
    std::fs::write(dir.join("d.md"), session("d", "a numbat too")).unwrap();

    // Not named: the vouched search answers from the commit alone (the
    // watcher vouches; it is its job to name what changed).
    let opened = crucible_search::open_vouched(dir, 1 << 24).unwrap();
    assert_eq!(ids_in(&opened, dir, "numbat"), ["b"]);

    crucible_search::pending::write(dir, &named(&["a.md", "b.md", "d.md"])).unwrap();
    let opened = crucible_search::open_vouched(dir, 1 << 24).unwrap();
    assert!(!opened.listed);
    assert_eq!(ids_in(&opened, dir, "numbat"), ["a", "d"]);
    assert_eq!(ids_in(&opened, dir, "wombat"), Vec::<String>::new());
    assert_eq!(
        ids_in(&opened, dir, "quokka"),
        ["c"],
        "the rest from the commit"
    );
    // The same as a search that proves freshness itself.
    assert_eq!(search_ids(dir, "numbat").0, ["a", "d"]);

    // Committed, then cleared: the commit alone answers.
    assert!(crucible_search::catch_up_fully(dir, 1 << 24).unwrap());
    crucible_search::pending::write(dir, &BTreeSet::new()).unwrap();
    assert!(!dir.join(".search/pending").exists());
    let opened = crucible_search::open_vouched(dir, 1 << 24).unwrap();
    assert_eq!(opened.parts.len(), 1);
    assert_eq!(ids_in(&opened, dir, "numbat"), ["a", "d"]);
}

#[test]
fn a_damaged_list_falls_back_to_proving_freshness() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    assert!(crucible_search::catch_up_fully(dir, 1 << 24).unwrap());
    std::fs::write(dir.join("a.md"), session("a", "the numbat")).unwrap();
    std::fs::write(dir.join(".search/pending"), "not a list\n").unwrap();
    let opened = crucible_search::open_vouched(dir, 1 << 24).unwrap();
    assert_eq!(ids_in(&opened, dir, "numbat"), ["a"]);
}
