//! Cases from the fixture sessions, every export checked against the
//! trainers' rules, and planted secrets that must not come out.

use std::path::{Path, PathBuf};

use crucible_core::store::session_files;
use crucible_core::{Block, Callout, Phase, Section, SessionLog, ToolCall};
use crucible_learn::check::check_line;
use crucible_learn::{
    Case, CaseBody, CaseFilter, CaseKind, CaseWriter, Export, Redactor, Schema, cases_of,
};
use crucible_parser::parse_session;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions")
}

fn all_sessions() -> Vec<SessionLog> {
    session_files(&fixtures())
        .unwrap()
        .into_iter()
        .map(|p| parse_session(&p, &std::fs::read(&p).unwrap()).unwrap())
        .collect()
}

fn session(id: &str) -> SessionLog {
    all_sessions()
        .into_iter()
        .find(|s| s.id().as_str() == id)
        .unwrap()
}

fn export(cases: &[Case], export: Export) -> (String, crucible_learn::Written) {
    let mut w = CaseWriter::new(Vec::new(), export);
    for c in cases {
        w.write(c).unwrap();
    }
    let (out, written) = w.finish().unwrap();
    (String::from_utf8(out).unwrap(), written)
}

#[test]
fn a_resolved_error_and_a_user_correction() {
    let cases = cases_of(&session("2025-12-10-fix-flaky-test"), CaseFilter::All);
    assert_eq!(cases.len(), 2);
    let p = &cases[0];
    assert_eq!(p.meta.kind, CaseKind::Puzzle);
    assert_eq!(p.meta.phase_id, "phase-1");
    assert_eq!(p.meta.agent.as_deref(), Some("orchestrator@1.0"));
    assert_eq!(p.meta.model.as_deref(), Some("claude-sonnet-4-20250514"));
    assert!(!p.meta.open);
    assert_eq!(p.actions.len(), 3);
    assert!(p.actions[1].failed);
    match &p.body {
        CaseBody::Puzzle {
            failure,
            expected,
            expected_from,
        } => {
            assert_eq!(
                failure,
                "Two processes allocated `2025-12-10-session` in the same second."
            );
            assert_eq!(
                expected.as_deref(),
                Some("traced to a check-then-create race; see the next phase.")
            );
            assert_eq!(expected_from.as_deref(), Some("resolution"));
        }
        other @ CaseBody::Correction { .. } => panic!("{other:?}"),
    }
    assert_eq!(
        p.task,
        "Fix the flaky store test: CI fails about one run in twenty on `store::tests::concurrent_create`."
    );
    let c = &cases[1];
    assert_eq!(c.meta.kind, CaseKind::Correction);
    assert_eq!(c.meta.phase_id, "phase-3");
    assert_eq!(c.history.len(), 2);
    assert!(c.history[0].starts_with(
        "phase-1 Reproduce @orchestrator@1.0: 3 tool call(s) (1 failed); error: Two processes"
    ));
    match &c.body {
        CaseBody::Correction {
            user_words,
            interpretation,
            after_text,
            ..
        } => {
            assert_eq!(
                user_words,
                "Don't just add a retry loop, I want the real fix"
            );
            assert_eq!(
                interpretation.as_deref(),
                Some("agreed: use create-new\nsemantics so the file system settles the race.")
            );
            assert_eq!(
                after_text,
                &["[decision_needed] Should ids be allocated under the directory lock as well?"]
            );
        }
        other @ CaseBody::Puzzle { .. } => panic!("{other:?}"),
    }
}

#[test]
fn an_error_with_no_resolution_is_an_open_puzzle() {
    let cases = cases_of(&session("2025-11-28-ci-failure"), CaseFilter::Puzzles);
    assert_eq!(cases.len(), 1);
    assert!(cases[0].meta.open);
    assert_eq!(cases[0].meta.session_status, "failed");
    // Open puzzles have nothing to train on: left out of JSONL, kept elsewhere.
    let (text, written) = export(&cases, Export::Jsonl(Schema::Sft));
    assert_eq!((text.as_str(), written.left_out), ("", 1));
    let (text, _) = export(&cases, Export::Puzzle);
    assert!(text.contains("_Open: no answer was logged._"), "{text}");
    let (text, _) = export(&cases, Export::Markdown);
    assert!(text.contains("## Open puzzle `puz-"), "{text}");
}

#[test]
fn every_jsonl_line_loads_as_the_trainers_expect() {
    let mut cases = Vec::new();
    for s in all_sessions() {
        cases.extend(cases_of(&s, CaseFilter::All));
    }
    assert!(cases.len() >= 8, "{}", cases.len());
    for schema in [Schema::Sft, Schema::Dpo, Schema::ShareGpt] {
        let (text, written) = export(&cases, Export::Jsonl(schema));
        assert!(written.puzzles + written.corrections > 0);
        for (i, line) in text.lines().enumerate() {
            check_line(schema, line)
                .unwrap_or_else(|e| panic!("{schema:?} line {}: {e}\n{line}", i + 1));
        }
    }
}

#[test]
fn ids_are_stable_and_equal_for_the_same_case_in_two_sessions() {
    let a = session("2025-12-13-config-loader");
    let mut b = a.clone();
    b.frontmatter.session_id = "2025-12-14-copy".parse().unwrap();
    let ids = |s: &SessionLog| -> Vec<String> {
        cases_of(s, CaseFilter::All)
            .into_iter()
            .map(|c| c.meta.case_id)
            .collect()
    };
    assert_eq!(ids(&a), ids(&a));
    assert_eq!(ids(&a), ids(&b));
    assert_eq!(ids(&a).len(), 2);
}

const SECRETS: &[&str] = &[
    "sk-proj-Abc123Def456Ghi789Jkl012Mno345",
    "sk-ant-api03-Zyx987Wvu654Tsr321Qpo000",
    "ghp_1234567890abcdefghijABCDEFGHIJ123456",
    "AKIAABCDEFGHIJKLMNOP",
    "xoxb-2222222222-ABCDEFGHIJKL",
    "eyJhbGciOiJIUzI1NiJ9.payload.signature",
    "MIIEpAIBAAKCAQEA0123456789",
    "hunter2-really",
];

fn secret_session() -> SessionLog {
    let mut log = session("2025-12-13-config-loader");
    log.preamble.push(Block::SystemPrompt {
        text: format!("Use the key {} for the API.", SECRETS[0]),
    });
    let mut p = Phase::new("Deploy", Some("coder@1".parse().unwrap()), None);
    p.blocks.push(Block::ToolCalls {
        calls: vec![
            ToolCall::new(
                "bash",
                format!(
                    "curl -H 'Authorization: Bearer {}' https://api.example.com",
                    SECRETS[5]
                ),
            ),
            ToolCall::new("bash", format!("export ANTHROPIC_API_KEY={}", SECRETS[1]))
                .with_summary("ok"),
            ToolCall::new(
                "bash",
                format!("git push https://{}@github.com/x/y", SECRETS[2]),
            )
            .with_summary(format!("aws key {} rejected", SECRETS[3]))
            .failed(),
        ],
    });
    p.blocks.push(Block::Callout(Callout::error(
        &format!("Slack said invalid_auth for {}", SECRETS[4]),
        Some(&format!("rotated; the new key file starts -----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----", SECRETS[6])),
    )));
    p.blocks.push(Block::Callout(Callout::user(
        &format!("use password={} for the staging db", SECRETS[7]),
        Some("done"),
    )));
    p.blocks.push(Block::ToolCalls {
        calls: vec![ToolCall::new(
            "bash",
            format!("psql postgres://app:{}@db/app", SECRETS[7]),
        )],
    });
    log.sections.push(Section::Phase(p));
    log
}

#[test]
fn planted_secrets_never_reach_any_export() {
    let log = secret_session();
    let r = Redactor::new();
    let raw = cases_of(&log, CaseFilter::All);
    let redacted: Vec<Case> = raw.iter().cloned().map(|c| c.redacted(&r)).collect();
    for e in [
        Export::Jsonl(Schema::Sft),
        Export::Jsonl(Schema::Dpo),
        Export::Jsonl(Schema::ShareGpt),
        Export::Markdown,
        Export::Puzzle,
    ] {
        let (text, _) = export(&redacted, e);
        for s in SECRETS {
            assert!(!text.contains(s), "{e:?} leaks {s}:\n{text}");
        }
        assert!(text.contains("[REDACTED:"), "{e:?}");
    }
    // Without redaction they are there: the test can fail.
    let (text, _) = export(&raw, Export::Jsonl(Schema::Sft));
    for s in SECRETS {
        assert!(text.contains(s), "{s} is not in the unredacted export");
    }
}

#[test]
fn files_without_error_or_user_callouts_give_no_case() {
    for s in all_sessions() {
        let text = crucible_parser::write_session(&s);
        if !crucible_learn::may_have_cases(text.as_bytes()) {
            assert!(cases_of(&s, CaseFilter::All).is_empty(), "{}", s.id());
        }
    }
    assert!(crucible_learn::may_have_cases(b"> [!ERROR]\n> x"));
    assert!(!crucible_learn::may_have_cases(b"> [!decision]\n> x"));
}
