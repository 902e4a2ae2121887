//! `cru session export`: each format from the real binary, where files go,
//! what it refuses, and the whole trip: every kind of import resumes,
//! codifies, gives learning cases and exports again.

use crate::kiln::{TestKiln, fixtures};

#[test]
fn exports_each_format_to_stdout_or_a_file() {
    let kiln = TestKiln::with_fixtures();
    let id = "2025-12-11-refactor-store";
    let yaml = kiln.run(&["session", "export", id, "--to", "connectonion"]);
    assert_eq!(yaml.code, 0, "{}", yaml.stderr);
    let doc: serde_yaml::Value = serde_yaml::from_str(&yaml.stdout).unwrap();
    assert!(doc["turns"].as_sequence().is_some_and(|t| !t.is_empty()));
    let jsonl = kiln.run(&["session", "export", id, "--to", "codeloops"]);
    assert_eq!(jsonl.code, 0, "{}", jsonl.stderr);
    for line in jsonl.stdout.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
    let out = kiln.root.path().join("chat.json");
    let msgs = kiln.run(&[
        "session",
        "export",
        id,
        "--to",
        "openai-messages",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(msgs.code, 0, "{}", msgs.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v[0]["role"], "user");
    // Not over a file that exists, unless asked.
    let again = kiln.run(&[
        "session",
        "export",
        id,
        "--to",
        "codeloops",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.code, 1);
    insta::assert_snapshot!(again.stderr, @r"
    error: [KILN]/chat.json exists already
    hint: pass --force to replace it
    ");
    let forced = kiln.run(&[
        "session",
        "export",
        id,
        "--to",
        "codeloops",
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
}

#[test]
fn agent_dir_export_makes_a_timestamped_folder_that_imports_back() {
    let kiln = TestKiln::with_fixtures();
    let id = "2025-12-10-fix-flaky-test";
    let out = kiln.run(&["session", "export", id, "--to", "agent-dir"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dir = out.stdout.trim();
    assert!(dir.starts_with(".agent/sessions/2025-12-10-"), "{dir}");
    let folder = kiln.root.path().join(dir);
    assert!(folder.join("agent.log").is_file());
    assert!(folder.join("todos.json").is_file(), "the fixture has tasks");
    let twice = kiln.run(&["session", "export", id, "--to", "agent-dir"]);
    assert_eq!(twice.code, 1, "{}", twice.stderr);
    assert!(twice.stderr.contains("exists already"), "{}", twice.stderr);
    let back = kiln.run(&["session", "import", folder.to_str().unwrap()]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    let original = kiln.run(&["session", "show", id, "--format", "json"]);
    let imported = kiln.run(&["session", "show", back.stdout.trim(), "--format", "json"]);
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&original.stdout).unwrap(),
        serde_json::from_str(&imported.stdout).unwrap(),
    );
    let tasks = |v: &serde_json::Value| {
        v["session"]["preamble"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b.get("tasks").is_some() || b["type"] == "tasks")
            .cloned()
    };
    assert!(tasks(&a).is_some());
    assert_eq!(tasks(&a), tasks(&b));
}

#[test]
fn a_missing_session_is_a_clear_error() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "export", "no-such-session", "--to", "codeloops"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
    assert!(out.stderr.contains("no-such-session"), "{}", out.stderr);
}

/// The issue's last check: an imported session of every kind resumes,
/// codifies, gives learning cases and exports to every format.
#[test]
fn every_kind_of_import_resumes_codifies_learns_and_exports() {
    let kiln = TestKiln::empty();
    let src = fixtures().join("foreign");
    let out = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ids: Vec<&str> = out.stdout.lines().collect();
    assert!(ids.len() >= 14, "{ids:?}");
    for id in &ids {
        let r = kiln.run(&["session", "resume", id, "--format", "messages"]);
        assert_eq!(r.code, 0, "resume {id}: {}", r.stderr);
        let wf = kiln.root.path().join(format!("{id}.workflow.md"));
        let c = kiln.run(&["session", "codify", id, "-o", wf.to_str().unwrap()]);
        // A session with no phases has nothing to make steps of, and says so.
        if c.code != 0 {
            assert!(c.stderr.contains("no phases"), "codify {id}: {}", c.stderr);
            continue;
        }
        let v = kiln.run(&["workflow", "validate", wf.to_str().unwrap()]);
        assert_eq!(v.code, 0, "{id}: {}", v.stdout);
        for to in ["connectonion", "codeloops", "openai-messages"] {
            let e = kiln.run(&["session", "export", id, "--to", to]);
            assert_eq!(e.code, 0, "export {id} to {to}: {}", e.stderr);
        }
    }
    let learn = kiln.run(&["session", "learn", "--export", "jsonl"]);
    assert_eq!(learn.code, 0, "{}", learn.stderr);
    assert!(learn.stdout.lines().count() > 5, "{}", learn.stderr);
}
