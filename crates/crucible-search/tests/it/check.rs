//! `check` and `rebuild_all`: the search index against the session files.

use std::path::Path;

use crucible_search::{Disagreement, IndexState};

fn session(id: &str, text: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n## Work @dev\n\n{text}\n\n## Check @dev\n\nDone.\n"
    )
}

fn disagreements(dir: &Path) -> Vec<Disagreement> {
    crucible_search::check(dir).unwrap().disagreements
}

fn gone(path: &str) -> Disagreement {
    Disagreement::Gone { path: path.into() }
}

#[test]
fn no_index_yet_is_missing_and_no_problem() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.md"), session("a", "x")).unwrap();
    let report = crucible_search::check(tmp.path()).unwrap();
    assert_eq!(report.state, IndexState::Missing);
    assert!(report.disagreements.is_empty());
    assert!(!report.is_problem());
}

#[test]
fn a_fresh_index_agrees_and_each_change_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("b.md"), session("b", "the numbat")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/c.md"), session("c", "the quokka")).unwrap();
    crucible_search::open(dir, 1 << 24).unwrap();
    let report = crucible_search::check(dir).unwrap();
    // Three parts a session: the preamble and two phases.
    assert_eq!(report.state, IndexState::Present { parts: 9 });
    assert!(!report.is_problem(), "{report:?}");

    std::fs::write(dir.join("a.md"), session("a", "the wombat, edited")).unwrap();
    std::fs::remove_file(dir.join("b.md")).unwrap();
    std::fs::write(dir.join("d.md"), session("d", "new")).unwrap();
    let report = crucible_search::check(dir).unwrap();
    assert!(!report.is_problem(), "pending, not a problem: {report:?}");
    assert_eq!(
        report.disagreements,
        [
            Disagreement::NotIndexed {
                path: "d.md".into()
            },
            Disagreement::Changed {
                path: "a.md".into()
            },
            gone("b.md"),
        ]
    );
    // The check changed nothing; a search reads them directly and leaves
    // them pending; a rebuild writes them in, and then they agree.
    assert_eq!(disagreements(dir).len(), 3);
    crucible_search::open(dir, 1 << 24).unwrap();
    assert_eq!(disagreements(dir).len(), 3);
    crucible_search::rebuild_all(dir, 1 << 24).unwrap();
    assert_eq!(disagreements(dir), []);
}

#[test]
fn an_edit_by_rename_is_a_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "same text")).unwrap();
    crucible_search::open(dir, 1 << 24).unwrap();
    // As editors save: a new file renamed over the old one, same size.
    std::fs::write(dir.join(".a.md.tmp"), session("a", "SAME TEXT")).unwrap();
    std::fs::rename(dir.join(".a.md.tmp"), dir.join("a.md")).unwrap();
    assert_eq!(
        disagreements(dir),
        [Disagreement::Changed {
            path: "a.md".into()
        }]
    );
}

/// Parts of a file the manifest does not list (a manifest put back from
/// before it was written in) are found in the index itself: a problem, as
/// a search would show them.
#[test]
fn parts_of_a_file_that_is_gone_and_unlisted_are_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "x")).unwrap();
    crucible_search::open(dir, 1 << 24).unwrap();
    let manifest = dir.join(".search/manifest");
    let old = std::fs::read(&manifest).unwrap();
    // Enough new files to be written into the index, not read directly.
    for n in 0..70 {
        std::fs::write(dir.join(format!("b{n}.md")), session(&format!("b{n}"), "y")).unwrap();
    }
    crucible_search::open(dir, 1 << 24).unwrap();
    assert_eq!(disagreements(dir), []);
    std::fs::write(&manifest, &old).unwrap();
    std::fs::remove_file(dir.join("b7.md")).unwrap();
    let report = crucible_search::check(dir).unwrap();
    assert!(
        report.disagreements.contains(&Disagreement::Unlisted {
            path: "b7.md".into()
        }),
        "{report:?}"
    );
    assert!(report.is_problem());
}

/// A kill between a commit and the manifest written after it leaves the
/// manifest synced before it, which names the files being written as not
/// indexed: no search takes parts of one of them, deleted since, for its
/// text, and the check finds no problem.
#[test]
fn the_manifest_before_a_commit_keeps_a_lost_one_harmless() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "x")).unwrap();
    crucible_search::open(dir, 1 << 24).unwrap();
    for n in 0..70 {
        std::fs::write(
            dir.join(format!("b{n}.md")),
            session(&format!("b{n}"), "wombat"),
        )
        .unwrap();
    }
    crucible_search::open(dir, 1 << 24).unwrap();
    // The manifest as it was synced before that commit: the new files
    // stamped as not indexed (inode 0).
    let manifest = dir.join(".search/manifest");
    let before_commit: String = std::fs::read_to_string(&manifest)
        .unwrap()
        .lines()
        .map(|l| match l.split(' ').nth(6) {
            Some(name) if name.starts_with('b') => format!("0 0 0 0 - - {name}\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&manifest, before_commit).unwrap();
    std::fs::remove_file(dir.join("b7.md")).unwrap();

    let report = crucible_search::check(dir).unwrap();
    assert!(!report.is_problem(), "{report:?}");
    assert!(report.disagreements.contains(&gone("b7.md")), "{report:?}");
    let (ids, _) = crate::search_ids(dir, "wombat");
    assert_eq!(ids.len(), 69, "b7 is not found: {ids:?}");
    assert!(!ids.contains(&"b7".to_owned()));
}

#[test]
fn an_index_of_another_version_is_unusable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "x")).unwrap();
    crucible_search::open(dir, 1 << 24).unwrap();
    let manifest = dir.join(".search/manifest");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let this = format!("manifest {}", crucible_search::index::SCHEMA_VERSION);
    assert!(text.contains(&this), "{text}");
    std::fs::write(&manifest, text.replacen(&this, "manifest 99", 1)).unwrap();
    let report = crucible_search::check(dir).unwrap();
    assert_eq!(
        report.state,
        IndexState::Unusable {
            reason: format!(
                "is version 99 (this cru writes {})",
                crucible_search::index::SCHEMA_VERSION
            )
        }
    );
    assert!(report.is_problem());
}

#[test]
fn rebuild_all_starts_from_nothing_and_counts_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.md"), session("a", "the wombat")).unwrap();
    std::fs::write(dir.join("b.md"), session("b", "the numbat")).unwrap();
    std::fs::write(dir.join("bad.md"), "---\ntype: session\nsession_id: [\n").unwrap();
    crucible_search::open(dir, 1 << 24).unwrap();
    std::fs::remove_file(dir.join("b.md")).unwrap();
    // A file only tantivy would read: gone after a rebuild.
    std::fs::write(dir.join(".search/stray"), "x").unwrap();
    let rebuilt = crucible_search::rebuild_all(dir, 1 << 24).unwrap();
    assert_eq!((rebuilt.files, rebuilt.parts), (2, 3));
    assert_eq!(rebuilt.warnings.len(), 1, "{:?}", rebuilt.warnings);
    assert!(!dir.join(".search/stray").exists());
    let report = crucible_search::check(dir).unwrap();
    assert_eq!(report.state, IndexState::Present { parts: 3 });
    assert!(!report.is_problem(), "{report:?}");
}
