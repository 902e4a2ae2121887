//! Codify on real sessions: every fixture, the sample session, a
//! write-then-read chain, merged runs, and generated sessions.

use std::path::{Path, PathBuf};

use crucible_codify::codify;
use crucible_core::workflow::{EdgeKind, StepMarker};
use crucible_core::{SessionLog, store::session_files};
use crucible_parser::parse_session;
use crucible_parser::workflow::{CheckedWorkflow, check_workflow, write_workflow};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions")
}

fn load(path: &Path) -> SessionLog {
    parse_session(path, &std::fs::read(path).unwrap()).unwrap()
}

fn fixture(id: &str) -> SessionLog {
    let path = session_files(&fixtures())
        .unwrap()
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == id))
        .unwrap();
    load(&path)
}

/// Codifies, writes, and reads back what was written.
fn emitted(sessions: &[&SessionLog]) -> (String, CheckedWorkflow) {
    let w = codify(sessions).unwrap();
    let text = write_workflow(&w);
    let checked = check_workflow(text.as_bytes());
    (text, checked)
}

#[test]
fn every_fixture_session_gives_a_valid_workflow() {
    let mut n = 0;
    for path in session_files(&fixtures()).unwrap() {
        let log = load(&path);
        if log.phase_count() == 0 {
            continue;
        }
        let (text, checked) = emitted(&[&log]);
        assert!(
            !checked.has_errors(),
            "{}: {:?}\n{text}",
            path.display(),
            checked.problems
        );
        assert!(
            checked.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            checked.problems
        );
        assert_eq!(checked.workflow.steps.len(), log.phase_count());
        n += 1;
    }
    assert!(n >= 7, "{n}");
}

#[test]
fn a_write_then_read_chain_across_phases_is_an_edge() {
    let log = fixture("2025-12-13-config-loader");
    let (text, c) = emitted(&[&log]);
    let edges: Vec<String> = c
        .graph
        .edges
        .iter()
        .filter_map(|e| match &e.kind {
            EdgeKind::Data { name } => Some(format!(
                "{} → {} ({name})",
                c.workflow.steps[e.from].name, c.workflow.steps[e.to].name
            )),
            EdgeKind::Condition { .. } => None,
        })
        .collect();
    assert_eq!(
        edges,
        [
            "Write the schema → Implement the loader (docs/config-schema.md)",
            "Implement the loader → Test the loader (src/config.rs)",
        ],
        "{text}"
    );
    // The test phase edits the loader it read: a new version, not a loop.
    assert!(
        text.contains("src/config.rs::Rust → tests/config.rs::Rust, src/config.rs@v2::Rust"),
        "{text}"
    );
    assert!(
        text.contains("docs/configuration.md::Markdown → docs/config-schema.md::Markdown"),
        "{text}"
    );
    assert_eq!(c.graph.order.as_ref().unwrap(), &[0, 1, 2],);
    // The failed build is a pitfall; the resolved error is not critical.
    assert!(
        text.contains("- Watch out: `bash cargo build` failed: error[E0433]"),
        "{text}"
    );
    assert!(c.workflow.steps.iter().all(|s| !s.is_critical()));
}

#[test]
fn the_paused_fixture_marks_where_it_was_blocked() {
    let log = fixture("2025-12-10-fix-flaky-test");
    let (text, c) = emitted(&[&log]);
    let steps = &c.workflow.steps;
    // Paused at phase-3 (Narrow it down): blocked there, so critical.
    assert_eq!(steps[2].name, "Narrow it down");
    assert_eq!(steps[2].marker, StepMarker::Critical);
    assert_eq!(steps[2].parent, Some(1));
    let status = |i: usize| {
        steps[i]
            .rows()
            .next()
            .unwrap()
            .get("status")
            .unwrap()
            .to_owned()
    };
    assert_eq!(status(0), "success");
    assert_eq!(status(2), "timeout");
    assert_eq!(status(3), "skipped");
    // Decisions are the step's notes; errors are pitfalls.
    assert!(
        text.contains(
            "- Decision: Keep the 200-run loop as the reproduction; it fails within a minute."
        ),
        "{text}"
    );
    assert!(
        text.contains("- Watch out: Two processes allocated"),
        "{text}"
    );
    assert!(
        text.contains("- Delegated to @debugger@0.3: Every failure is an id collision"),
        "{text}"
    );
    // The read-then-edit of allocate.rs is an edge between the phases.
    assert!(text.contains("crates/crucible-core/src/store/::Dir, crates/crucible-core/src/store/allocate.rs::Rust → crates/crucible-core/src/store/allocate.rs@v2::Rust"), "{text}");
}

#[test]
fn the_sample_session_codifies_to_a_valid_workflow() {
    let log = fixture("feature-implementation-session");
    let (text, c) = emitted(&[&log]);
    assert!(c.problems.is_empty(), "{:?}\n{text}", c.problems);
    let names: Vec<&str> = c.workflow.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Research Phase",
            "Design Phase",
            "Implementation Phase",
            "Review Phase"
        ]
    );
    assert!(text.contains("source_sessions:"), "{text}");
    // web_search reads no file but is still named in the notes.
    assert!(
        text.contains("web_search (not read for data flow)"),
        "{text}"
    );
}

#[test]
fn runs_of_the_same_task_merge_by_step_name() {
    let a = fixture("2025-12-11-refactor-store");
    let mut b = a.clone();
    b.frontmatter.session_id = "2025-12-12-refactor-store-again".parse().unwrap();
    b.sections
        .retain(|s| !matches!(s, crucible_core::Section::Phase(p) if p.name == "Test"));
    let (text, c) = emitted(&[&a, &b]);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert_eq!(c.workflow.steps.len(), a.phase_count());
    let plan = &c.workflow.steps[0];
    let sessions: Vec<&str> = plan.rows().map(|r| r.get("session").unwrap()).collect();
    assert_eq!(
        sessions,
        [
            "2025-12-11-refactor-store",
            "2025-12-12-refactor-store-again"
        ]
    );
    let test = c.workflow.steps.iter().find(|s| s.name == "Test").unwrap();
    assert_eq!(test.rows().count(), 1);
    assert!(
        text.contains("\n- 2025-12-12-refactor-store-again\n"),
        "{text}"
    );
}

mod generated {
    use crucible_codify::codify;
    use crucible_core::{
        Block, Callout, Frontmatter, Phase, PhaseId, Section, SessionId, SessionLog, SessionStatus,
        ToolCall,
    };
    use crucible_parser::workflow::{check_workflow, write_workflow};
    use proptest::prelude::*;

    const TOOLS: &[&str] = &[
        "read",
        "Write",
        "edit",
        "bash",
        "grep",
        "Glob",
        "apply_patch",
        "psql",
        "web_search",
    ];
    const ARGS: &[&str] = &[
        "src/a.rs",
        "src/b.rs",
        "docs/x.md",
        "data/in.csv",
        "cat src/a.rs > out/o.txt",
        "cp src/a.rs src/b.rs",
        "-n pattern src/",
        "*** Update File: src/a.rs",
        "cargo test",
        "a, b → c",
        "",
        "src/→/x.rs",
        "src/a->b.rs",
        "src/mod::x.rs",
        "`src/a.rs`",
        "src/über/日本.rs",
    ];
    const TEXTS: &[&str] = &[
        "Keep it simple.",
        "a → b",
        "x, y -> z",
        "## Not a heading",
        "```rust\nfn main() {}\n```",
        "---",
        "If it fails → proceed to Nowhere",
        "line one\nline two",
        "Otherwise → Retry",
    ];

    fn phase() -> impl Strategy<Value = Phase> {
        (
            "[A-Z][a-z]{0,6}( [a-z]{1,6}){0,2}( !| \\?)?",
            proptest::option::of("[a-z]{1,6}"),
            any::<bool>(),
            proptest::collection::vec((0..TOOLS.len(), 0..ARGS.len(), any::<bool>()), 0..6),
            proptest::collection::vec((0..3u8, 0..TEXTS.len()), 0..3),
        )
            .prop_map(|(name, agent, deep, calls, callouts)| {
                let mut p = Phase::new(name, agent.map(|a| a.parse().unwrap()), Some("dev".into()));
                p.level = if deep { 3 } else { 2 };
                if !calls.is_empty() {
                    p.blocks.push(Block::ToolCalls {
                        calls: calls
                            .into_iter()
                            .map(|(t, a, failed)| {
                                let c = ToolCall::new(TOOLS[t], ARGS[a]).with_summary("ok");
                                if failed { c.failed() } else { c }
                            })
                            .collect(),
                    });
                }
                for (kind, t) in callouts {
                    p.blocks.push(Block::Callout(match kind {
                        0 => Callout::decision(TEXTS[t]),
                        1 => Callout::error(TEXTS[t], None),
                        _ => Callout::user(TEXTS[t], Some(TEXTS[t])),
                    }));
                }
                p
            })
    }

    fn session() -> impl Strategy<Value = SessionLog> {
        (
            proptest::collection::vec(phase(), 1..7),
            0..4usize,
            any::<prop::sample::Index>(),
        )
            .prop_map(|(mut phases, status, at)| {
                phases[0].level = 2;
                let mut fm = Frontmatter::new(
                    SessionId::new("2025-01-01-generated").unwrap(),
                    "2025-01-01T00:00:00Z".parse().unwrap(),
                );
                fm.status = SessionStatus::ALL[status];
                if fm.status == SessionStatus::Paused {
                    fm.resume_point = Some(PhaseId::from_index(at.index(phases.len())));
                }
                let mut log = SessionLog::new(fm);
                log.sections = phases.into_iter().map(Section::Phase).collect();
                log
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn codified_sessions_always_validate(a in session(), b in session()) {
            for sessions in [vec![&a], vec![&a, &b]] {
                let w = codify(&sessions).unwrap();
                let text = write_workflow(&w);
                let c = check_workflow(text.as_bytes());
                prop_assert!(c.problems.is_empty(), "{:?}\n{}", c.problems, text);
                prop_assert!(c.graph.order.is_some());
                prop_assert_eq!(c.workflow.steps.len(), w.steps.len());
            }
            prop_assert_eq!(codify(&[&a]).unwrap().steps.len(), a.phase_count());
        }
    }
}
