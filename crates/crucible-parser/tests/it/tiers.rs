//! The differential harness of the reading tiers (`crucible_parser::read`):
//! every cheap tier either defers or gives exactly the full reader's answer
//! (`read::check_agreement`), on every fixture and on generated frontmatter
//! in the forms people write (spacing, quotes, comments, flow and block
//! lists, anchors, CRLF, BOM, `...`). The importers' real files are checked
//! in crucible-interop's `tests/it/tiers_on_imports.rs`, which can import
//! them without this crate depending on its importer.

use std::path::{Path, PathBuf};

use crucible_parser::read::{self, Peek};
use proptest::prelude::*;

/// Checks every tier on one file's bytes; the message names `what`.
fn check_tiers(what: &str, bytes: &[u8]) {
    if let Err(d) = read::check_agreement(bytes) {
        panic!("{d}, on {what}");
    }
}

use crucible_testkit::files_under;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn every_fixture_reads_the_same_through_every_tier() {
    let files = files_under(&fixtures());
    assert!(files.len() > 50, "{} fixtures", files.len());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        check_tiers(&path.display().to_string(), &bytes);
    }
}

/// A key as people write it: plain, quoted, with spaces before the colon.
fn key(name: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just(format!("{name}: ")),
        1 => Just(format!("{name} : ")),
        1 => Just(format!("{name}:  ")),
        1 => Just(format!("\"{name}\": ")),
        1 => Just(format!("'{name}': ")),
    ]
}

/// A scalar value as people write it, from `text`.
fn value(text: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just(text.to_owned()),
        1 => Just(format!("'{text}'")),
        1 => Just(format!("\"{text}\"")),
        1 => Just(format!("{text} # a comment")),
        1 => Just(format!("&anchor {text}")),
        1 => Just(format!("!!str {text}")),
    ]
}

fn entry() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            key("type"),
            prop_oneof![value("session"), value("workflow")]
        )
            .prop_map(|(k, v)| format!("{k}{v}")),
        (
            key("session_id"),
            prop_oneof![value("s-1"), value("2025"), value("1e3"), value("a.b")]
        )
            .prop_map(|(k, v)| format!("{k}{v}")),
        Just("started: 2025-12-05T14:32:15Z".to_owned()),
        Just("status: paused".to_owned()),
        (key("title"), prop_oneof![value("Fix it"), value("a: b")])
            .prop_map(|(k, v)| format!("{k}{v}")),
        (
            key("import"),
            prop_oneof![value("x"), Just("{path: a}".to_owned())]
        )
            .prop_map(|(k, v)| format!("{k}{v}")),
        Just("\"\\u0069mport\": x".to_owned()),
        Just("tags: [a, b]".to_owned()),
        Just("tags:\n  - a\n  - 'b'".to_owned()),
        Just("tags:\n- a\n- \"b c\"".to_owned()),
        Just("notes: |\n  type: workflow\n  more".to_owned()),
        Just("notes: >\ntype: workflow".to_owned()),
        Just("quote: \"open\ntype: workflow\"".to_owned()),
        Just("ref: *anchor".to_owned()),
        Just("# type: workflow".to_owned()),
        Just(String::new()),
        Just("nested:\n  type: workflow".to_owned()),
    ]
}

prop_compose! {
    fn frontmatter_doc()(
        bom in any::<bool>(),
        crlf in any::<bool>(),
        flow in prop::bool::weighted(0.1),
        entries in prop::collection::vec(entry(), 0..8),
        end in prop_oneof![Just("---"), Just("..."), Just("--- ")],
        closed in prop::bool::weighted(0.95),
    ) -> String {
        let yaml = if flow {
            "{type: session, session_id: s-1, started: 2025-12-05T14:32:15Z, status: paused}".to_owned()
        } else {
            entries.join("\n")
        };
        let mut doc = format!("---\n{yaml}\n");
        if closed {
            doc.push_str(end);
            doc.push_str("\n\n## Phase @a\n\nText.\n");
        }
        if crlf {
            doc = doc.replace('\n', "\r\n");
        }
        if bom {
            doc.insert(0, '\u{feff}');
        }
        doc
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn generated_frontmatter_reads_the_same_through_every_tier(doc in frontmatter_doc()) {
        check_tiers(&format!("{doc:?}"), doc.as_bytes());
    }
}

#[test]
fn a_space_before_the_colon_is_read_as_yaml_reads_it() {
    // The bug of issue 18: the peek missed this session, so `list` showed
    // it and `show` said no session matches.
    let doc = "---\ntype : session\nsession_id: s-1\nstarted: 2025-12-05T14:32:15Z\nstatus: paused\n---\n";
    assert_eq!(read::peek(doc.as_bytes()), Peek::Unsure);
    assert_eq!(read::declared_id(doc.as_bytes()).as_deref(), Some("s-1"));
    check_tiers("type : session", doc.as_bytes());
}

#[test]
fn an_unknown_key_spelled_with_escapes_is_not_missed() {
    // The key tier must not call a key absent that YAML reads from escapes.
    for key in [
        "import",
        "import ",
        "'import'",
        "\"import\"",
        "\"\\u0069mport\"",
    ] {
        let doc = format!(
            "---\ntype: session\nsession_id: s-1\nstarted: 2025-12-05T14:32:15Z\nstatus: paused\n{key}: {{path: a}}\n---\n"
        );
        check_tiers(&doc, doc.as_bytes());
        assert!(read::may_hold_key(doc.as_bytes(), "import"), "{doc}");
    }
}
