//! The real session in ../shared/samples, written by someone else.

use std::path::PathBuf;

use crucible_core::{Block, CalloutKind, SubagentMode};
use crucible_parser::{check_session, parse_session, write_session};

fn sample() -> (PathBuf, Vec<u8>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sessions/feature-implementation-session.md");
    let bytes = std::fs::read(&path).expect("the sample is copied into fixtures/sessions");
    (path, bytes)
}

#[test]
fn every_construct_of_the_sample_is_recognised() {
    let (path, bytes) = sample();
    let checked = check_session(&path, &bytes);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    assert!(checked.warnings.is_empty(), "{:?}", checked.warnings);
    let log = checked.log.unwrap();
    assert_eq!(log.id().as_str(), "2025-12-05-feature-impl");
    assert_eq!(
        log.title(),
        Some("Feature Implementation: Workflow Sessions")
    );
    assert_eq!(log.frontmatter.participants.len(), 3);
    assert_eq!(log.frontmatter.subagents.len(), 2);
    assert_eq!(log.frontmatter.tokens_used, Some(18420));
    assert_eq!(
        log.frontmatter.duration_ms(),
        Some((2 * 3600 + 13 * 60 + 7) * 1000)
    );
    assert_eq!(log.tasks().unwrap().len(), 4);

    let phases: Vec<_> = log
        .phases()
        .map(|(id, p)| (id.to_string(), p.name.clone()))
        .collect();
    assert_eq!(
        phases,
        [
            ("phase-1".into(), "Research Phase".into()),
            ("phase-2".into(), "Design Phase".into()),
            ("phase-3".into(), "Implementation Phase".into()),
            ("phase-4".into(), "Review Phase".into()),
        ]
    );
    for (_, p) in log.phases() {
        assert_eq!(p.agent.as_ref().unwrap().name, "orchestrator");
        assert_eq!(p.channel.as_deref(), Some("dev"));
    }
    assert_eq!(log.tool_calls().count(), 11);
    let count = |k: CalloutKind| log.callouts().filter(|c| c.kind() == k).count();
    assert_eq!(count(CalloutKind::Decision), 4);
    assert_eq!(count(CalloutKind::Error), 1);
    assert_eq!(count(CalloutKind::User), 1);
    assert_eq!(count(CalloutKind::Subagent), 2);
    assert_eq!(log.callouts().count(), 8);

    let links: Vec<_> = checked
        .links
        .iter()
        .map(|l| (l.target.to_string(), l.mode, l.line))
        .collect();
    assert_eq!(
        links,
        [
            ("2025-12-05-research-logging".into(), SubagentMode::Link, 48),
            ("2025-12-05-implement-parser".into(), SubagentMode::Link, 94),
        ]
    );
    let error = log
        .callouts()
        .find(|c| c.kind() == CalloutKind::Error)
        .unwrap()
        .error_parts();
    assert!(
        error
            .resolution
            .unwrap()
            .starts_with("Session types are independent")
    );
    let user = log
        .callouts()
        .find(|c| c.kind() == CalloutKind::User)
        .unwrap()
        .user_parts();
    assert_eq!(
        user.quote.as_deref(),
        Some("Use frontmatter instead of HTML comments for metadata")
    );

    // The closing `## Summary` is a section, kept as prose.
    let summary = log.sections.last().unwrap();
    assert!(matches!(summary.blocks()[0], Block::Prose { .. }));
}

#[test]
fn the_sample_round_trips_byte_for_byte() {
    let (path, bytes) = sample();
    let log = parse_session(&path, &bytes).unwrap();
    let written = write_session(&log);
    assert_eq!(written, String::from_utf8(bytes).unwrap());
    assert_eq!(parse_session(&path, written.as_bytes()).unwrap(), log);
}
