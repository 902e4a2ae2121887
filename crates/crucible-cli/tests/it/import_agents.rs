//! `cru session import` on real Gemini CLI and Copilot CLI files: found by
//! content in a folder, reported per file with their records, accepted by
//! `--strict`, and valid sessions afterwards.

use crate::kiln::{TestKiln, fixtures};

fn real(rel: &str) -> String {
    fixtures().join("real").join(rel).display().to_string()
}

#[test]
fn real_gemini_chats_import_strictly_and_validate() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", "--strict", &real("gemini")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 6, "{}", out.stdout);
    let report = out
        .stderr
        .replace(&fixtures().display().to_string(), "[FIXTURES]");
    // The JSONL chat's report names its update lines and rewritten replies.
    assert!(
        report.contains(
            "[FIXTURES]/real/gemini/vibecodingtracker/gemini.jsonl: 28 records read \
             ($set 11, gemini 11, info 2, metadata 1, user 3)"
        ),
        "{report}"
    );
    assert!(
        report.ends_with("6 created, 0 updated, 0 unchanged, 0 skipped\n"),
        "{report}"
    );
    let check = kiln.run(&["session", "validate"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

#[test]
fn a_real_copilot_log_imports_and_strict_refuses_an_unknown_event() {
    let kiln = TestKiln::empty();
    let file = real("copilot/vibecodingtracker/copilot.jsonl");
    let out = kiln.run(&["session", "import", "--strict", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(": 51 records read (assistant.message 6,"),
        "{}",
        out.stderr
    );
    assert_eq!(kiln.run(&["session", "validate"]).code, 0);
    // The same log with an event type cru does not know: imported without
    // --strict, refused with it.
    let grown = kiln.root.path().join("events.jsonl");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(
        r#"{"type":"session.something_new","data":{},"id":"x","timestamp":"2026-04-23T17:18:21.000Z"}"#,
    );
    text.push('\n');
    std::fs::write(&grown, text).unwrap();
    let strict = TestKiln::empty().run(&["session", "import", "--strict", grown.to_str().unwrap()]);
    assert_ne!(strict.code, 0, "{}", strict.stderr);
    assert!(
        strict
            .stderr
            .contains("session.something_new 1: a record type cru does not know"),
        "{}",
        strict.stderr
    );
    let lax = TestKiln::empty().run(&["session", "import", grown.to_str().unwrap()]);
    assert_eq!(lax.code, 0, "{}", lax.stderr);
}
