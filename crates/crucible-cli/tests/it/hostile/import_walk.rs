//! `cru session import` of a folder: it walks as deep as the folder goes,
//! and whatever it will not or cannot read (FIFOs, sockets, links to
//! folders, broken links) is named with why, never silently left out and
//! never opened (a FIFO would hang the import).

use crate::kiln::{TestKiln, fixtures};
use crucible_testkit::mkfifo;

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
    super::assert_skipped(
        &out.stderr,
        &[
            ("pipe.jsonl", "FIFO"),
            ("agent.sock", "socket"),
            ("linked-folder", "link to a folder (not followed)"),
            ("broken.jsonl", "broken symbolic link"),
        ],
    );
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
    super::assert_skipped(
        &out.stderr,
        &[
            ("up", "link to a folder (not followed)"),
            ("a.jsonl", "symbolic link loop"),
            ("b.jsonl", "symbolic link loop"),
            ("out.jsonl", "outside the folder being imported"),
        ],
    );
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

/// A FIFO and a link out of the tree in `dir`, named `fifo` and `link`:
/// the link leads to a copy of `decoy` beside the tree, `outside`.
fn plant(
    dir: &std::path::Path,
    fifo: &str,
    link: &str,
    decoy: &std::path::Path,
) -> tempfile::TempDir {
    std::fs::create_dir_all(dir).unwrap();
    mkfifo(&dir.join(fifo));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join(link);
    std::fs::copy(decoy, &target).unwrap();
    std::os::unix::fs::symlink(&target, dir.join(link)).unwrap();
    outside
}

/// `cru session import PATH` finishes (a FIFO opened would block it for
/// ever: the run is killed after a while), names `fifo` and `link` as
/// skipped, with why, and exits 3: whole files were left out. `created`:
/// the sessions the rest makes.
fn imports_skipping(path: &std::path::Path, fifo: &str, link: &str, created: usize) {
    let kiln = TestKiln::empty();
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "import", path.to_str().unwrap()])
            .timeout(std::time::Duration::from_secs(60)),
    );
    assert!(
        out.stderr.contains(&format!(
            "{created} created, 0 updated, 0 unchanged, 2 skipped"
        )),
        "{}",
        out.stderr
    );
    super::assert_skipped(
        &out.stderr,
        &[(fifo, "FIFO"), (link, "outside the folder being imported")],
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
}

#[test]
fn a_fifo_and_a_link_out_in_a_gemini_chats_folder_are_skipped() {
    let src = tempfile::tempdir().unwrap();
    let chats = src.path().join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    let session = chats.join("session-2025-10-05T07-11-eefc44a3.json");
    std::fs::copy(
        fixtures().join("real/gemini/vibecodingtracker/history/session-eefc44a3.json"),
        &session,
    )
    .unwrap();
    // The subagents' folder of that chat, named by its sessionId.
    let subagents = chats.join("eefc44a3-0832-4bc0-ac33-fa668f038213");
    let _outside = plant(&subagents, "pipe.jsonl", "out.jsonl", &session);
    imports_skipping(&session, "pipe.jsonl", "out.jsonl", 1);
}

#[test]
fn a_fifo_and_a_link_out_in_a_claude_code_subagents_folder_are_skipped() {
    let src = tempfile::tempdir().unwrap();
    let project = fixtures().join("foreign/claude-code/projects/-home-me-myapp");
    let id = "c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46";
    let transcript = src.path().join(format!("{id}.jsonl"));
    std::fs::copy(project.join(format!("{id}.jsonl")), &transcript).unwrap();
    let subagents = src.path().join(id).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let agent = project.join(id).join("subagents/agent-a3f9c1e.jsonl");
    std::fs::copy(&agent, subagents.join("agent-a3f9c1e.jsonl")).unwrap();
    let _outside = plant(&subagents, "agent-pipe.jsonl", "agent-out.jsonl", &agent);
    // The transcript and the subagent's good file.
    imports_skipping(&transcript, "agent-pipe.jsonl", "agent-out.jsonl", 2);
}

#[test]
fn a_fifo_and_a_link_out_in_an_opencode_storage_folder_are_skipped() {
    let src = tempfile::tempdir().unwrap();
    let storage = src.path().join("storage");
    copy_tree(&fixtures().join("real/opencode/v1.1.65/storage"), &storage);
    let messages = storage.join("message/ses_df5df125affeaokKs1VDN7mI7Y");
    let decoy = std::fs::read_dir(&messages)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let _outside = plant(&messages, "msg_pipe.json", "msg_out.json", &decoy);
    // A file of the session folder too, which the listing of sessions meets.
    let projects = storage.join("session/global");
    let _beside = plant(&projects, "ses_pipe.json", "ses_out.json", &decoy);
    let kiln = TestKiln::empty();
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "import", storage.to_str().unwrap()])
            .timeout(std::time::Duration::from_secs(60)),
    );
    super::assert_skipped(
        &out.stderr,
        &[
            ("msg_pipe.json", ""),
            ("msg_out.json", ""),
            ("ses_pipe.json", ""),
            ("ses_out.json", ""),
        ],
    );
    assert!(
        out.stderr
            .contains("4 created, 0 updated, 0 unchanged, 4 skipped"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}
