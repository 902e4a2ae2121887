//! The session sidecar (`.<stem>.data.jsonl`): written by import, read by
//! `show --full` and export, checked by `validate`, invisible to the index.

use crate::kiln::{TestKiln, fixtures};

fn codex_rollout() -> std::path::PathBuf {
    fixtures().join(
        "foreign/codex/sessions/2025/09/02/rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl",
    )
}

/// Imports the Codex fixture; returns the session's id and its sidecar's path.
fn imported(kiln: &TestKiln) -> (String, std::path::PathBuf) {
    let out = kiln.run(&["session", "import", codex_rollout().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let data = kiln.sessions().join(format!(".{id}.data.jsonl"));
    assert!(data.is_file(), "no sidecar at {}", data.display());
    (id, data)
}

#[test]
fn import_writes_a_sidecar_that_show_full_prints_whole() {
    let kiln = TestKiln::empty();
    let (id, data) = imported(&kiln);
    let text = std::fs::read_to_string(&data).unwrap();
    assert!(text.starts_with(&format!("{{\"cru_data\":1,\"session_id\":\"{id}\"}}\n")));
    let plain = kiln.run(&["session", "show", &id]);
    let full = kiln.run(&["session", "show", &id, "--full"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    // The full result has the line the one-line summary folds with ⏎.
    assert!(
        !plain.stdout.contains("    run: npm ci && npm test\n"),
        "{}",
        plain.stdout
    );
    assert!(
        full.stdout.contains("run: npm ci && npm test\n"),
        "{}",
        full.stdout
    );
    assert!(full.stdout.contains("call_X1"), "{}", full.stdout);
    let json = kiln.run(&["session", "show", &id, "--full", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let first_call = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "call")
        .unwrap();
    assert_eq!(first_call["id"], "call_X1");
    assert_eq!(v["session"]["frontmatter"]["session_id"], id.as_str());
    let check = kiln.run(&["session", "validate"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

#[test]
fn validate_names_a_sidecar_that_disagrees_with_its_session() {
    let kiln = TestKiln::empty();
    let (_, data) = imported(&kiln);
    let text = std::fs::read_to_string(&data).unwrap();
    // The last call is `apply_patch` in the session.
    std::fs::write(
        &data,
        text.replace("\"tool\":\"apply_patch\"", "\"tool\":\"shell\""),
    )
    .unwrap();
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 1);
    let line = 1 + text
        .lines()
        .position(|l| l.contains(r#""tool":"apply_patch""#))
        .unwrap();
    let expected = format!(
        ".data.jsonl:{line}: error: call 1 of phase 2 is `apply_patch` in the session, `shell` here"
    );
    assert!(out.stdout.contains(&expected), "{}", out.stdout);
    std::fs::write(&data, format!("{text}{{\"no kind\":1}}\n")).unwrap();
    let out = kiln.run(&["session", "validate"]);
    let last = text.lines().count() + 1;
    let expected = format!(".data.jsonl:{last}: error: expected a record with a known `kind`");
    assert!(out.stdout.contains(&expected), "{}", out.stdout);
    // `show --full` still shows the session, and says why the data is not.
    let id = kiln.run(&["session", "list", "--format", "json"]);
    assert_eq!(id.code, 0);
    std::fs::write(kiln.sessions().join(".gone.data.jsonl"), &text).unwrap();
    let out = kiln.run(&["session", "validate"]);
    assert!(
        out.stdout
            .contains(".gone.data.jsonl: error: a sidecar without its session (gone.md is gone)"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_damaged_sidecar_does_not_hide_the_session() {
    let kiln = TestKiln::empty();
    let (id, data) = imported(&kiln);
    std::fs::write(&data, "not json\n").unwrap();
    let out = kiln.run(&["session", "show", &id, "--full"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("(full data not shown:"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("bump CI to node 20 then"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_index_answers_the_same_whatever_happens_to_a_sidecar() {
    let kiln = TestKiln::with_fixtures();
    let (_, data) = imported(&kiln);
    let list = |k: &TestKiln| {
        let out = k.run(&["session", "list", "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let before = list(&kiln);
    std::fs::write(&data, "changed\n").unwrap();
    assert_eq!(list(&kiln), before);
    std::fs::remove_file(&data).unwrap();
    assert_eq!(list(&kiln), before);
    let stats = kiln.run(&["session", "stats"]);
    let rebuilt = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(rebuilt.code, 0, "{}", rebuilt.stderr);
    assert_eq!(kiln.run(&["session", "stats"]).stdout, stats.stdout);
    assert_eq!(list(&kiln), before);
}

#[test]
fn export_writes_the_sources_ids_and_full_results() {
    let kiln = TestKiln::empty();
    let (id, _) = imported(&kiln);
    let out = kiln.run(&["session", "export", &id, "--to", "openai-messages"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let tool = v
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(tool["tool_call_id"], "call_X1");
    assert_eq!(tool["content"], "node-version: 16\nrun: npm ci && npm test");
}

#[test]
fn a_sidecar_that_is_a_link_is_never_followed() {
    let kiln = TestKiln::empty();
    let (id, data) = imported(&kiln);
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("side.jsonl");
    std::fs::rename(&data, &target).unwrap();
    std::os::unix::fs::symlink(&target, &data).unwrap();
    let full = kiln.run(&["session", "show", &id, "--full"]);
    assert!(
        full.stdout.contains("(full data not shown:"),
        "{}",
        full.stdout
    );
    assert!(!full.stdout.contains("call_X1"), "{}", full.stdout);
    let check = kiln.run(&["session", "validate"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(check.stdout.contains("symbolic link"), "{}", check.stdout);
    let export = kiln.run(&["session", "export", &id, "--to", "openai-messages"]);
    assert_eq!(export.code, 1, "{}", export.stdout);
}

#[test]
fn another_sessions_sidecar_is_not_put_on_this_ones_calls() {
    let kiln = TestKiln::empty();
    let (id, data) = imported(&kiln);
    // A session of another id beside the same sidecar bytes.
    let text = std::fs::read_to_string(&data).unwrap();
    std::fs::write(&data, text.replacen(&id, "2025-01-01-someone-else", 1)).unwrap();
    let full = kiln.run(&["session", "show", &id, "--full"]);
    assert!(full.stdout.contains("not of"), "{}", full.stdout);
    assert!(!full.stdout.contains("call_X1"), "{}", full.stdout);
    let export = kiln.run(&["session", "export", &id, "--to", "openai-messages"]);
    assert_eq!(export.code, 1, "{}", export.stderr);
    assert!(export.stderr.contains("validate"), "{}", export.stderr);
}

#[test]
fn validate_tells_a_sidecar_changed_or_lost_since_the_import() {
    let kiln = TestKiln::empty();
    let (_, data) = imported(&kiln);
    let text = std::fs::read_to_string(&data).unwrap();
    // Same calls, another result: only the import's hash can tell.
    std::fs::write(&data, text.replace("v20.11.0", "TOTALLY DIFFERENT")).unwrap();
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("changed since the import that wrote it"),
        "{}",
        out.stdout
    );
    std::fs::remove_file(&data).unwrap();
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("missing: the import wrote it"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_lost_sessions_sidecar_is_found_in_any_folder() {
    let kiln = TestKiln::with_fixtures();
    let (_, data) = imported(&kiln);
    let lonely = kiln.sessions().join("archive/old");
    std::fs::create_dir_all(&lonely).unwrap();
    std::fs::copy(&data, lonely.join(".gone.data.jsonl")).unwrap();
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("old/.gone.data.jsonl: error: a sidecar without its session"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_source_that_moved_updates_its_session_instead_of_making_another() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    let first = src.path().join("sessions/rollout.jsonl");
    std::fs::create_dir_all(first.parent().unwrap()).unwrap();
    std::fs::copy(codex_rollout(), &first).unwrap();
    let out = kiln.run(&["session", "import", first.to_str().unwrap()]);
    assert!(out.stderr.contains("1 created"), "{}", out.stderr);
    // Codex moves old rollouts to `archived_sessions`.
    let moved = src.path().join("archived_sessions/rollout.jsonl");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&first, &moved).unwrap();
    let out = kiln.run(&["session", "import", moved.to_str().unwrap()]);
    assert!(
        out.stderr.contains("0 created, 1 updated"),
        "{}",
        out.stderr
    );
    let list = kiln.run(&["session", "list", "--format", "json"]);
    let rows = crate::kiln::listed_sessions(&list.stdout);
    assert_eq!(rows.len(), 1, "{}", list.stdout);
    let again = kiln.run(&["session", "import", moved.to_str().unwrap()]);
    assert!(again.stderr.contains("1 unchanged"), "{}", again.stderr);
}

#[test]
fn from_reads_a_named_file_whose_first_line_is_longer_than_detection_reads() {
    let kiln = TestKiln::empty();
    let src = tempfile::tempdir().unwrap();
    let path = src.path().join("big-first.jsonl");
    // A first prompt of 5 MB (a pasted image, a log): no line end in the
    // 4 MB that detection reads.
    let big = "x".repeat(5 * 1024 * 1024);
    let text = format!(
        "{{\"type\":\"user\",\"sessionId\":\"s1\",\"uuid\":\"u1\",\"parentUuid\":null,\"timestamp\":\"2025-08-14T09:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"{big}\"}}}}\n{{\"type\":\"assistant\",\"sessionId\":\"s1\",\"uuid\":\"u2\",\"parentUuid\":\"u1\",\"timestamp\":\"2025-08-14T09:00:01.000Z\",\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{{\"type\":\"text\",\"text\":\"Done.\"}}],\"usage\":{{\"input_tokens\":3,\"output_tokens\":2}}}}}}\n"
    );
    std::fs::write(&path, text).unwrap();
    let auto = kiln.run(&["session", "import", path.to_str().unwrap()]);
    assert_eq!(auto.code, 1, "{}", auto.stderr);
    let named = kiln.run(&[
        "session",
        "import",
        "--from",
        "claude-code",
        path.to_str().unwrap(),
    ]);
    assert_eq!(named.code, 0, "{}", named.stderr);
    assert!(named.stderr.contains("1 created"), "{}", named.stderr);
}
