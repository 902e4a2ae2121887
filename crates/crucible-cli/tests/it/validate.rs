use crate::kiln::{TestKiln, fixtures};

#[test]
fn every_invalid_fixture_gets_a_file_and_line() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&[
        "session",
        "validate",
        fixtures().join("invalid").to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout, @r#"
    [FIXTURES]/invalid/bad-tasks-json.md:11: error: bad `tasks` block: task 2: unknown variant `finished`, expected one of `pending`, `in_progress`, `completed`
    [FIXTURES]/invalid/bad-timestamp.md:4: error: `started`: `last tuesday` is not an ISO-8601 timestamp (expected YYYY-MM-DD, optionally followed by T and HH:MM[:SS[.fraction]] and by Z or an offset such as +01:00, every field in range)
    [FIXTURES]/invalid/invalid-link-target.md:10: error: subagent link target `../../etc/passwd` is not a valid session id: session id `../../etc/passwd` cannot start with `.` or `-`
    [FIXTURES]/invalid/invalid-session-id.md:3: error: `session_id`: session id `../escape` cannot start with `.` or `-`
    [FIXTURES]/invalid/invalid-yaml.md:7: error: invalid YAML in frontmatter: did not find expected ',' or ']'
    [FIXTURES]/invalid/missing-field.md:1: error: missing required frontmatter field `started`
    [FIXTURES]/invalid/missing-frontmatter.md:1: error: no frontmatter (expected a `---` line opening YAML frontmatter on line 1)
    [FIXTURES]/invalid/not-a-session.md:2: error: `type` is `workflow`, expected `session`
    [FIXTURES]/invalid/not-utf8.md:10: error: file is not valid UTF-8 (first bad byte at column 4)
    [FIXTURES]/invalid/resume-point-out-of-range.md:6: error: resume_point `phase-4` names no phase (the session has 1)
    [FIXTURES]/invalid/subagent-without-mode.md:10: error: subagent callout has no `mode:` line (expected `mode: inline`, `mode: link` or `mode: embed`)
    [FIXTURES]/invalid/unclosed-frontmatter.md:1: error: frontmatter opened on line 1 is never closed (expected a `---` line)
    [FIXTURES]/invalid/unknown-status.md:5: error: status `done` is not one of active, paused, completed, failed
    [FIXTURES]/invalid/wrong-type.md:6: error: `tokens_used` should be a whole number, found the string `lots`
    "#);
    insta::assert_snapshot!(out.stderr, @"14 files checked: 0 valid, 14 invalid (14 errors, 0 warnings)");
}

#[test]
fn fixture_sessions_validate_with_warnings_only() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!(out.stdout, @r#"
    [KILN]/.crucible/sessions/feature-implementation-session.md:3: warning: file name does not match session_id `2025-12-05-feature-impl` (expected 2025-12-05-feature-impl.md); the frontmatter wins
    [KILN]/.crucible/sessions/feature-implementation-session.md:48: warning: link target `2025-12-05-research-logging` is not in [KILN]/.crucible/sessions (the child may live elsewhere)
    [KILN]/.crucible/sessions/feature-implementation-session.md:94: warning: link target `2025-12-05-implement-parser` is not in [KILN]/.crucible/sessions (the child may live elsewhere)
    "#);
    insta::assert_snapshot!(out.stderr, @"9 files checked: 9 valid, 0 invalid (0 errors, 3 warnings)");
}

#[test]
fn other_notes_in_the_sessions_directory_are_not_sessions() {
    let kiln = TestKiln::with_fixtures();
    kiln.write("notes/todo.md", "# Todo\n\n- buy milk\n");
    kiln.write(
        "notes/workflow.md",
        "---\ntype: workflow\n---\n\n## Build @ci\n",
    );
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    insta::assert_snapshot!(out.stderr, @"9 files checked: 9 valid, 0 invalid (0 errors, 3 warnings)");
    // Named explicitly, a directory's markdown files are all checked.
    let out = kiln.run(&[
        "session",
        "validate",
        kiln.sessions().join("notes").to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
}

#[test]
fn duplicate_ids_name_both_files() {
    let kiln = TestKiln::with_fixtures();
    let copy = std::fs::read_to_string(kiln.sessions().join("2025-12-11-write-tests.md")).unwrap();
    kiln.write("old/2025-12-11-write-tests.md", &copy);
    let out = kiln.run(&["session", "validate", "2025-12-11-write-tests"]);
    assert_eq!(out.code, 1);
    // The id names both files: each is checked, and each names the other.
    insta::assert_snapshot!(out.stdout, @r"
    [KILN]/.crucible/sessions/2025-12-11-write-tests.md:3: error: `session_id`: `2025-12-11-write-tests` is also the id of [KILN]/.crucible/sessions/old/2025-12-11-write-tests.md
    [KILN]/.crucible/sessions/old/2025-12-11-write-tests.md:3: error: `session_id`: `2025-12-11-write-tests` is also the id of [KILN]/.crucible/sessions/2025-12-11-write-tests.md
    ");
}

#[test]
fn unknown_targets_are_reported_and_the_rest_checked() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "validate", "nope", "2025-12-11-write-tests"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout, @"nope: error: no session matches `nope` in [KILN]/.crucible/sessions");
    insta::assert_snapshot!(out.stderr, @"2 files checked: 1 valid, 1 invalid (1 error, 0 warnings)");
}

#[test]
fn json_report() {
    let kiln = TestKiln::empty();
    let bad = fixtures().join("invalid/wrong-type.md");
    let out = kiln.run(&[
        "session",
        "validate",
        "--format",
        "json",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["files"][0]["valid"], false);
    assert_eq!(v["files"][0]["problems"][0]["line"], 6);
    assert_eq!(v["files"][0]["problems"][0]["severity"], "error");
}
