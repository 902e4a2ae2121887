//! Two files with one session id: listings say so, commands given the id
//! refuse it and name both files (a path picks one), and cru itself never
//! makes a second file with an id already taken.

use crate::kiln::{TestKiln, fixtures};

const ID: &str = "2025-12-10-fix-flaky-test";

/// The fixtures, and a copy of a paused session under another name and
/// folder: the same `session_id` in two files.
fn kiln_with_a_copy() -> TestKiln {
    let kiln = TestKiln::with_fixtures();
    let text = std::fs::read_to_string(kiln.sessions().join(format!("{ID}.md"))).unwrap();
    kiln.write("backup/copy.md", &text);
    kiln
}

const BOTH: &str = "[KILN]/.crucible/sessions/2025-12-10-fix-flaky-test.md, [KILN]/.crucible/sessions/backup/copy.md";

#[test]
fn list_and_stats_show_every_row_and_warn_with_both_paths() {
    let kiln = kiln_with_a_copy();
    for args in [&["session", "list"][..], &["session", "stats"]] {
        let out = kiln.run(args);
        // Nothing was skipped: every file is in the answer.
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "warning: session id `{ID}` is used by 2 files: {BOTH}"
            )),
            "{args:?}: {}",
            out.stderr
        );
    }
    let list = kiln.run(&["session", "list"]);
    assert_eq!(list.stdout.matches(ID).count(), 2, "{}", list.stdout);
    let json = kiln.run(&["session", "list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        v["duplicates"],
        serde_json::json!([{"id": ID, "paths": [format!("{ID}.md"), "backup/copy.md"]}])
    );
}

#[test]
fn index_check_lists_both_files_and_fails() {
    let kiln = kiln_with_a_copy();
    let out = kiln.run(&["session", "index", "--check"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    [KILN]/.crucible/sessions/2025-12-10-fix-flaky-test.md:1: session id `2025-12-10-fix-flaky-test` is declared by 2 files
    [KILN]/.crucible/sessions/backup/copy.md:1: session id `2025-12-10-fix-flaky-test` is declared by 2 files
    ");
}

#[test]
fn commands_given_a_shared_id_refuse_it_and_name_both_files() {
    let kiln = kiln_with_a_copy();
    for args in [
        &["session", "show", ID][..],
        &["session", "show", "2025-12-10-fix"],
        &["session", "resume", ID],
        &["session", "pause", ID],
        &["session", "end", ID],
        &["session", "export", ID, "--to", "codeloops"],
        &["session", "eval", ID],
        &["session", "codify", ID],
        &["session", "learn", ID, "--export", "jsonl"],
    ] {
        let out = kiln.run(args);
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "error: session id `{ID}` is used by 2 files: {BOTH}"
            )),
            "{args:?}: {}",
            out.stderr
        );
        if args[1] != "eval" {
            assert!(
                out.stderr.contains("hint: pass one of the paths"),
                "{args:?}"
            );
        }
    }
    // Neither file was changed by the refused commands.
    let copy = kiln.sessions().join("backup/copy.md");
    let original = kiln.sessions().join(format!("{ID}.md"));
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&original).unwrap()
    );
    // A path picks one.
    let out = kiln.run(&["session", "show", copy.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Fix the flaky store test"));
}

#[test]
fn start_twice_with_one_title_in_one_second_gives_two_ids() {
    let kiln = TestKiln::empty();
    let start = || kiln.run(&["session", "start", "--title", "Same title"]);
    let (a, b) = (start(), start());
    assert_eq!((a.code, b.code), (0, 0), "{}{}", a.stderr, b.stderr);
    assert_ne!(a.stdout.trim(), b.stdout.trim());
    assert!(b.stdout.trim().ends_with("-same-title-2"), "{}", b.stdout);
}

#[test]
fn start_never_takes_an_id_a_file_of_another_name_declares() {
    let kiln = TestKiln::empty();
    let first = kiln.run(&["session", "start", "--title", "Same title"]);
    let id = first.stdout.trim().to_owned();
    // The file renamed by hand: its name no longer says its id.
    std::fs::rename(
        kiln.sessions().join(format!("{id}.md")),
        kiln.sessions().join("renamed.md"),
    )
    .unwrap();
    let second = kiln.run(&["session", "start", "--title", "Same title"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_ne!(second.stdout.trim(), id);
    let list = kiln.run(&["session", "list"]);
    assert!(!list.stderr.contains("is used by"), "{}", list.stderr);
}

#[test]
fn import_never_makes_a_duplicate() {
    let kiln = TestKiln::empty();
    let source = fixtures().join("foreign/connectonion/.co/sessions/oo.yaml");
    let import = |path: &std::path::Path| {
        let out = kiln.run(&["session", "import", path.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    };
    let first = import(&source);
    let id = first.stdout.trim().to_owned();
    // The same source again: the session it made, unchanged.
    let again = import(&source);
    assert!(again.stderr.contains("1 unchanged"), "{}", again.stderr);
    // A file renamed by hand still holds its id.
    std::fs::rename(
        kiln.sessions().join(format!("{id}.md")),
        kiln.sessions().join("renamed.md"),
    )
    .unwrap();
    // Another source whose id would be the same (same day, same first
    // prompt), but a different session.
    let other = kiln.root.path().join("other/oo.yaml");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(&source)
        .unwrap()
        .replace("total_tokens: 33500", "total_tokens: 33600");
    std::fs::write(&other, text).unwrap();
    let second = import(&other);
    assert!(second.stderr.contains("1 created"), "{}", second.stderr);
    assert_ne!(second.stdout.trim(), id);
    let list = kiln.run(&["session", "list"]);
    assert_eq!(list.code, 0);
    assert!(!list.stderr.contains("is used by"), "{}", list.stderr);
}
