//! Searches while the index is rebuilt (`cru session index --rebuild`, or a
//! search that found it damaged): the rebuild builds the new index beside
//! the old one and swaps it in whole, so a search meanwhile answers from
//! the old one or the new one. Built in place, a search could open the
//! empty index a rebuild starts from, with the old manifest vouching for
//! every file, and answer nothing without a word.

use crucible_core::store::names;

use crucible_search::{Filter, Opened, Request, Sort};

use crate::session;

/// The sessions matching `wombat`, or the search's error.
fn hits(opened: &Opened, dir: &std::path::Path) -> Result<Vec<String>, String> {
    let request = Request {
        query: crucible_search::parse("wombat").unwrap(),
        filter: Filter::default(),
        limit: 0,
        offset: 0,
        sort: Sort::Relevance,
        per_session: 1,
    };
    let hits = crucible_search::search(opened, dir, &request).map_err(|e| e.to_string())?;
    let mut ids: Vec<String> = hits.into_iter().map(|h| h.id).collect();
    ids.sort();
    Ok(ids)
}

#[test]
fn a_search_during_rebuilds_finds_every_session() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_owned();
    let all: Vec<String> = (0..40).map(|i| format!("s{i:02}")).collect();
    for id in &all {
        let text = format!("the wombat {}", "and more words ".repeat(200));
        std::fs::write(dir.join(format!("{id}.md")), session(id, &text)).unwrap();
    }
    crucible_search::rebuild_all(&dir, 1 << 24).unwrap();
    let done = std::sync::atomic::AtomicBool::new(false);
    let (answers, failures) = std::thread::scope(|scope| {
        let rebuilder = scope.spawn(|| {
            for _ in 0..12 {
                crucible_search::rebuild_all(&dir, 1 << 24).unwrap();
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let (mut answers, mut failures) = (0, 0);
        let manifest = dir.join(names::SEARCH_INDEX).join("manifest");
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            // The index is never missing: it is swapped, not removed and
            // made again.
            assert!(
                manifest.is_file(),
                "the index went missing during a rebuild"
            );
            // An index that vanishes under a search may fail it (the CLI
            // then rebuilds and asks again); an answer is never short.
            let Ok(opened) = crucible_search::open(&dir, 1 << 24) else {
                failures += 1;
                continue;
            };
            match hits(&opened, &dir) {
                Ok(ids) => {
                    assert_eq!(ids, all, "a search during a rebuild answered short");
                    answers += 1;
                }
                Err(_) => failures += 1,
            }
        }
        rebuilder.join().unwrap();
        (answers, failures)
    });
    assert!(answers > 0, "no search answered ({failures} failed)");
    // Nothing of the build is left beside the index.
    assert!(!dir.join(names::SEARCH_INDEX_BUILD).exists());
    assert!(dir.join(names::SEARCH_INDEX).join("manifest").is_file());
}

#[test]
fn a_build_left_by_a_killed_rebuild_is_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    // What a rebuild killed half way leaves: a folder of its files, and a
    // link in it that must be removed, not followed.
    let build = dir.join(names::SEARCH_INDEX_BUILD);
    std::fs::create_dir(&build).unwrap();
    std::fs::write(build.join("meta.json"), "{half").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep"), "kept").unwrap();
    std::os::unix::fs::symlink(outside.path(), build.join("out")).unwrap();
    crucible_search::rebuild_all(dir, 1 << 24).unwrap();
    let (ids, _) = crate::search_ids(dir, "wombat");
    assert_eq!(ids, ["a"]);
    assert!(!build.exists());
    assert_eq!(
        std::fs::read_to_string(outside.path().join("keep")).unwrap(),
        "kept"
    );
}

#[test]
fn a_build_left_that_cannot_be_removed_stops_no_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    let build = dir.join(names::SEARCH_INDEX_BUILD);
    std::fs::create_dir(&build).unwrap();
    std::fs::write(build.join("meta.json"), "{old").unwrap();
    if !crucible_testkit::set_immutable(&build, true) {
        eprintln!("skipped: chattr +i is not allowed here");
        return;
    }
    let rebuilt = crucible_search::rebuild_all(dir, 1 << 24);
    let (ids, _) = crate::search_ids(dir, "wombat");
    crucible_testkit::set_immutable(&build, false);
    rebuilt.unwrap();
    assert_eq!(ids, ["a"]);
    // Built beside it, under the process's own name, and swapped in.
    let own = dir.join(format!(
        "{}.{}",
        names::SEARCH_INDEX_BUILD,
        std::process::id()
    ));
    assert!(!own.exists());
}

#[test]
fn an_old_index_that_cannot_be_removed_is_named_and_the_new_one_used() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    crucible_search::rebuild_all(dir, 1 << 24).unwrap();
    let stuck = dir.join(names::SEARCH_INDEX).join("stuck");
    std::fs::write(&stuck, "").unwrap();
    if !crucible_testkit::set_immutable(&stuck, true) {
        eprintln!("skipped: chattr +i is not allowed here");
        return;
    }
    std::fs::write(dir.join("b.md"), session("b", "another wombat")).unwrap();
    let rebuilt = crucible_search::rebuild_all(dir, 1 << 24);
    let kept = dir.join(names::SEARCH_INDEX_BUILD).join("stuck");
    crucible_testkit::set_immutable(&kept, false);
    crucible_testkit::set_immutable(&stuck, false);
    let rebuilt = rebuilt.unwrap();
    assert!(
        rebuilt
            .warnings
            .iter()
            .any(|w| w.to_string().contains("could not be removed")),
        "{:?}",
        rebuilt.warnings
    );
    assert_eq!(crate::search_ids(dir, "wombat").0, ["a", "b"]);
}
