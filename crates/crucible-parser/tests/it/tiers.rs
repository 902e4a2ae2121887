//! The differential harness of the reading tiers (`crucible_parser::read`):
//! every cheap tier either defers or gives exactly the full reader's answer,
//! on every fixture, on the real files of the importers (imported, then
//! written as cru writes them), and on generated frontmatter in the forms
//! people write (spacing, quotes, comments, flow and block lists, anchors,
//! CRLF, BOM, `...`).

use std::path::{Path, PathBuf};

use crucible_parser::read::{self, Peek};
use crucible_parser::{ParseErrorKind, write_session};
use proptest::prelude::*;

/// Checks every tier on one file's bytes; the message names `what`.
fn check_tiers(what: &str, bytes: &[u8]) {
    let by_yaml = read::declared_id_by_yaml(bytes);
    let declared = read::declared_id(bytes);
    // The peek answers only what the YAML tier would answer.
    match read::peek(bytes) {
        Peek::Session(id) => assert_eq!(Some(id), by_yaml, "peek vs YAML on {what}"),
        Peek::NotASession => assert_eq!(None, by_yaml, "peek vs YAML on {what}"),
        Peek::Unsure => {}
    }
    assert_eq!(declared, by_yaml, "declared id vs YAML on {what}");
    // The id tiers against the full parser.
    let path = Path::new("tiers.md");
    let checked = read::check(path, bytes);
    let not_a_session = checked.errors.iter().any(|e| {
        matches!(
            e.kind,
            ParseErrorKind::NotASession { .. } | ParseErrorKind::MissingFrontmatter
        )
    });
    if let Some(log) = &checked.log {
        let head_holds_frontmatter = bytes.len() <= crucible_core::store::HEAD_BYTES as usize;
        if head_holds_frontmatter {
            assert_eq!(
                declared.as_deref(),
                Some(log.frontmatter.session_id.as_str()),
                "declared id vs full parse of {what}"
            );
        }
    } else if not_a_session {
        assert_eq!(declared, None, "declared id vs full parse of {what}");
    }
    // The summary tiers against the full parser.
    let full = read::full(path, bytes).map(|log| log.summary());
    if let Some(fast) = read::fast_summary(bytes) {
        assert_eq!(
            Some(&fast),
            full.as_ref().ok(),
            "fast summary vs full on {what}"
        );
    }
    let summary = read::summary(path, bytes);
    assert_eq!(summary.ok(), full.ok(), "summary vs full on {what}");
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.is_file() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

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

#[test]
fn imported_real_files_read_the_same_through_every_tier() {
    let mut imported = 0;
    for path in files_under(&fixtures().join("real"))
        .into_iter()
        .chain(files_under(&fixtures().join("foreign")))
    {
        let Some(format) = crucible_interop::detect(&path) else {
            continue;
        };
        let Ok(found) = crucible_interop::import(&path, format) else {
            continue;
        };
        let text = write_session(&found.log);
        check_tiers(&format!("{} imported", path.display()), text.as_bytes());
        assert!(
            matches!(read::peek(text.as_bytes()), Peek::Session(_)),
            "what cru writes takes the peek: {}",
            path.display()
        );
        imported += 1;
    }
    assert!(imported >= 5, "only {imported} real files imported");
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
