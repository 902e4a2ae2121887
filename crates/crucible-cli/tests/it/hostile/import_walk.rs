//! `cru session import` of a folder: it walks as deep as the folder goes,
//! and whatever it will not or cannot read (FIFOs, sockets, links to
//! folders, broken links) is named with why, never silently left out and
//! never opened (a FIFO would hang the import).

use super::fs::mkfifo;
use crate::kiln::{TestKiln, fixtures};

fn codex_rollout() -> std::path::PathBuf {
    fixtures().join(
        "foreign/codex/sessions/2025/09/02/rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl",
    )
}

#[test]
fn a_source_deep_in_a_folder_is_found() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    // Deeper than the old walk's limit of 6 folders.
    let deep = src.path().join("a/b/c/d/e/f/g/h/i/j");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(codex_rollout(), deep.join("rollout.jsonl")).unwrap();
    let out = kiln.run(&["session", "import", src.path().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("1 created"), "{}", out.stderr);
}

#[test]
fn special_files_and_links_in_an_import_folder_are_named_and_skipped() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    let root = src.path();
    std::fs::copy(codex_rollout(), root.join("rollout.jsonl")).unwrap();
    mkfifo(&root.join("pipe.jsonl"));
    let _socket = std::os::unix::net::UnixListener::bind(root.join("agent.sock")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::copy(codex_rollout(), elsewhere.path().join("other.jsonl")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join("linked-folder")).unwrap();
    std::os::unix::fs::symlink(root.join("nowhere"), root.join("broken.jsonl")).unwrap();
    let out = kiln.run(&["session", "import", root.to_str().unwrap()]);
    // Done in time (a FIFO opened for reading would block forever), the
    // good source imported, each bad entry named with its reason.
    assert!(out.stderr.contains("1 created"), "{}", out.stderr);
    for (name, why) in [
        ("pipe.jsonl", "FIFO"),
        ("agent.sock", "socket"),
        ("linked-folder", "link to a folder (not followed)"),
        ("broken.jsonl", "broken symbolic link"),
    ] {
        assert!(
            out.stderr
                .lines()
                .any(|l| l.contains(name) && l.contains("skipped") && l.contains(why)),
            "{name}: {}",
            out.stderr
        );
    }
    assert_eq!(out.code, 3, "skipped entries make the run a partial one");
    assert!(out.stderr.contains("4 skipped"), "{}", out.stderr);
}

#[test]
fn loops_and_links_out_of_an_import_folder_are_named_and_not_followed() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    let root = src.path().join("import");
    std::fs::create_dir_all(root.join("deep")).unwrap();
    std::fs::copy(codex_rollout(), root.join("deep/rollout.jsonl")).unwrap();
    // A folder that links back to its parent, and two links that loop.
    std::os::unix::fs::symlink(&root, root.join("deep/up")).unwrap();
    std::os::unix::fs::symlink(root.join("b.jsonl"), root.join("a.jsonl")).unwrap();
    std::os::unix::fs::symlink(root.join("a.jsonl"), root.join("b.jsonl")).unwrap();
    // A transcript beside the folder, reached through a link in it.
    std::fs::copy(codex_rollout(), src.path().join("outside.jsonl")).unwrap();
    std::os::unix::fs::symlink(src.path().join("outside.jsonl"), root.join("out.jsonl")).unwrap();
    let out = kiln.run(&["session", "import", root.to_str().unwrap()]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("1 created"), "{}", out.stderr);
    for (name, why) in [
        ("up", "link to a folder (not followed)"),
        ("a.jsonl", "symbolic link loop"),
        ("b.jsonl", "symbolic link loop"),
        ("out.jsonl", "outside the folder being imported"),
    ] {
        assert!(
            out.stderr
                .lines()
                .any(|l| l.contains(name) && l.contains("skipped") && l.contains(why)),
            "{name}: {}",
            out.stderr
        );
    }
}

#[test]
fn hidden_folders_of_an_import_folder_are_walked() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    let hidden = src.path().join(".codex/sessions");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::copy(codex_rollout(), hidden.join("rollout.jsonl")).unwrap();
    let out = kiln.run(&["session", "import", src.path().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("1 created"), "{}", out.stderr);
}

#[test]
fn a_file_read_as_nothing_is_an_error_not_an_empty_session() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    // Lines of a Claude Code transcript that hold no message at all.
    let path = src.path().join("only-summaries.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"summary\",\"summary\":\"Old work\",\"leafUuid\":\"u1\",\"sessionId\":\"s\"}\n",
    )
    .unwrap();
    let out = kiln.run(&["session", "import", path.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("nothing to import"), "{}", out.stderr);
    assert!(out.stderr.contains("0 created"), "{}", out.stderr);
    let list = kiln.run(&["session", "list", "--format", "json"]);
    assert!(
        crate::kiln::listed_sessions(&list.stdout).is_empty(),
        "{}",
        list.stdout
    );
}

#[test]
fn strict_refuses_a_source_with_damaged_lines() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    let path = src.path().join("rollout.jsonl");
    let mut text = std::fs::read_to_string(codex_rollout()).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&path, &text).unwrap();
    let strict = kiln.run(&["session", "import", "--strict", path.to_str().unwrap()]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    assert!(
        strict.stderr.contains("not imported (--strict)"),
        "{}",
        strict.stderr
    );
    assert!(strict.stderr.contains("0 created"), "{}", strict.stderr);
    let lenient = kiln.run(&["session", "import", path.to_str().unwrap()]);
    assert!(lenient.stderr.contains("1 created"), "{}", lenient.stderr);
    assert!(lenient.stderr.contains("not JSON"), "{}", lenient.stderr);
}
