//! `cru mcp` serves its sessions directory and nothing else: a session
//! named over MCP is an id, a prefix, a file name, the `path` that
//! `list_sessions` answers or a resource URI, always inside the directory
//! (review of issue 24, F1, F26, F7, F18, F2).

use serde_json::{Value, json};

use crate::kiln::TestKiln;
use crate::mcp::Client;

/// A kiln, and beside its sessions (outside them) a session file whose
/// title must never reach a client.
fn kiln_with_a_secret_outside() -> (TestKiln, std::path::PathBuf) {
    let kiln = TestKiln::with_fixtures();
    let text = std::fs::read_to_string(kiln.sessions().join("2025-12-13-config-loader.md"))
        .unwrap()
        .replace("Add a config loader", "SECRET OUTSIDE TITLE");
    let outside = kiln.root.path().join("outside/secret-session.md");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(&outside, text).unwrap();
    (kiln, outside)
}

fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn no_tool_or_resource_reads_or_writes_a_file_outside_the_directory() {
    let (kiln, outside) = kiln_with_a_secret_outside();
    std::os::unix::fs::symlink(&outside, kiln.sessions().join("link-out.md")).unwrap();
    let before = std::fs::read_to_string(&outside).unwrap();
    let absolute = outside.display().to_string();
    let names = [
        absolute.as_str(),
        "../outside/secret-session.md",
        "sub/../../outside/secret-session.md",
        "link-out.md",
        "/etc/passwd",
    ];
    let mut c = Client::start(&kiln, &[]);
    for name in names {
        for (tool, args) in [
            ("show_session", json!({"id": name})),
            ("resume_context", json!({"id": name})),
            ("codify_session", json!({"id": name})),
            ("learning_cases", json!({"id": name})),
            (
                "record",
                json!({"event": "decision", "session": name, "text": "x", "reopen": true}),
            ),
            (
                "record",
                json!({"event": "end", "session": name, "status": "failed"}),
            ),
        ] {
            let text = error_text(&c.call(tool, args));
            assert!(text.contains("no session"), "{tool} {name}: {text}");
            assert!(!text.contains("SECRET"), "{tool} {name}: {text}");
            assert!(!text.contains("frontmatter"), "{tool} {name}: {text}");
        }
        for scheme in ["cru://session/", "cru://workflow/"] {
            let read = c.request("resources/read", json!({"uri": format!("{scheme}{name}")}));
            let error = read["error"]["message"].as_str().unwrap_or_default();
            assert!(error.contains("no session"), "{scheme}{name}: {read}");
            assert!(!read.to_string().contains("SECRET"), "{read}");
        }
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), before);
}

#[test]
fn the_path_list_answers_a_file_name_and_a_uri_name_a_session() {
    let kiln = TestKiln::with_fixtures();
    // The server runs elsewhere than the kiln: paths are the directory's.
    let mut c = Client::start(&kiln, &[]);
    let listed = c.structured("list_sessions", json!({}));
    let nested = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"].as_str().unwrap().contains('/'))
        .expect("a fixture in a subfolder")
        .clone();
    let shown = c.structured("show_session", json!({"id": nested["path"]}));
    assert_eq!(shown["id"], nested["id"], "{shown}");
    for name in [
        "2025-12-10-fix-flaky-test.md",
        "./2025-12-10-fix-flaky-test.md",
        "cru://session/2025-12-10-fix-flaky-test",
    ] {
        let shown = c.structured("show_session", json!({"id": name}));
        assert_eq!(shown["id"], "2025-12-10-fix-flaky-test", "{name}: {shown}");
    }
    // A nested file's bare name is the id it is named after.
    let file_name = nested["path"].as_str().unwrap().rsplit('/').next().unwrap();
    let shown = c.structured("show_session", json!({"id": file_name}));
    assert_eq!(shown["id"], nested["id"], "{shown}");
    // A miss names the ids it may have meant, whatever form it took.
    for miss in [
        "2025-12-10-fix-flakey-test.md",
        "cru://session/2025-12-10-fix-flakey-test",
    ] {
        let text = error_text(&c.call("show_session", json!({"id": miss})));
        assert!(
            text.contains("- 2025-12-10-fix-flaky-test\n"),
            "{miss}: {text}"
        );
    }
}

#[test]
fn an_id_two_files_declare_is_one_resource_and_either_file_is_readable_by_its_path() {
    let kiln = TestKiln::with_fixtures();
    let original = kiln.sessions().join("2025-12-10-investigate-ci.md");
    kiln.write(
        "sub/deeper/x.md",
        &std::fs::read_to_string(&original).unwrap(),
    );
    let mut c = Client::start(&kiln, &[]);
    let listed = c.request("resources/list", json!({}));
    let uri = "cru://session/2025-12-10-investigate-ci";
    let same: Vec<&Value> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["uri"] == uri)
        .collect();
    assert_eq!(same.len(), 1, "{listed}");
    let note = same[0]["description"].as_str().unwrap();
    assert!(note.contains("sub/deeper/x.md"), "{note}");
    let text = error_text(&c.call("show_session", json!({"id": "2025-12-10-investigate-ci"})));
    assert!(text.contains("sub/deeper/x.md"), "{text}");
    assert!(!text.contains("--"), "a CLI flag in {text}");
    for path in ["2025-12-10-investigate-ci.md", "sub/deeper/x.md"] {
        let shown = c.structured("show_session", json!({"id": path}));
        assert_eq!(shown["id"], "2025-12-10-investigate-ci", "{shown}");
        let read = c.request(
            "resources/read",
            json!({"uri": format!("cru://session/{path}")}),
        );
        assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
    }
}

#[test]
fn resource_uris_are_percent_encoded_and_read_back_either_way() {
    let kiln = TestKiln::with_fixtures();
    let text = std::fs::read_to_string(kiln.sessions().join("2025-12-13-config-loader.md"))
        .unwrap()
        .replace(
            "session_id: 2025-12-13-config-loader",
            "session_id: 2025-12-13-幫我-config",
        );
    kiln.write("2025-12-13-幫我-config.md", &text);
    let mut c = Client::start(&kiln, &[]);
    let listed = c.request("resources/list", json!({}));
    let encoded = "cru://session/2025-12-13-%E5%B9%AB%E6%88%91-config";
    assert!(
        listed["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == encoded && r["name"] == "2025-12-13-幫我-config"),
        "{listed}"
    );
    for uri in [encoded, "cru://session/2025-12-13-幫我-config"] {
        let read = c.request("resources/read", json!({"uri": uri}));
        assert!(
            read["result"]["contents"][0]["text"].is_string(),
            "{uri}: {read}"
        );
    }
}

#[test]
fn record_answers_the_session_id_of_a_file_named_otherwise() {
    let kiln = TestKiln::with_fixtures();
    // The fixture's file is not named after its id.
    let (id, file) = (
        "2025-12-05-feature-impl",
        "feature-implementation-session.md",
    );
    assert!(kiln.sessions().join(file).is_file());
    let mut c = Client::start(&kiln, &[]);
    let answer = c.structured(
        "record",
        json!({"event": "decision", "session": id, "text": "d1", "reopen": true}),
    );
    assert_eq!(answer["session"], id, "{answer}");
    let answer = c.structured(
        "record",
        json!({"event": "decision", "session": file, "text": "d2", "reopen": true}),
    );
    assert_eq!(answer["session"], id, "{answer}");
}
