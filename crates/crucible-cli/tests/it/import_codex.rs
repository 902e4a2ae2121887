//! `cru session import` on real Codex files (`fixtures/real/codex/`): the
//! per-file report, `--strict`, `validate` afterwards, and `export --to
//! codex` read back.

use crate::kiln::{TestKiln, fixtures};

fn real(rel: &str) -> String {
    fixtures()
        .join("real/codex")
        .join(rel)
        .display()
        .to_string()
}

const RESTARTED: &str =
    "agentcmd/full/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl";

#[test]
fn import_reports_every_codex_record_by_type_and_passes_strict() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", "--strict", &real(RESTARTED)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stderr, @r"
    [FIXTURES]/real/codex/agentcmd/full/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl: 355 records read (event_msg/agent_message 1, event_msg/agent_reasoning 57, event_msg/token_count 58, event_msg/user_message 2, response_item/function_call 57, response_item/function_call_output 57, response_item/message 5, response_item/reasoning 58, session_meta 1, turn_context 59)
    1 created, 0 updated, 0 unchanged, 0 skipped
    ");
    // The restarted counter is counted in steps, as ccusage does: 1,400,951.
    let text =
        std::fs::read_to_string(kiln.sessions().join("2025-09-25-quality-score.md")).unwrap();
    assert!(text.contains("tokens_used: 1400951\n"), "{text}");
    assert!(text.contains("  input: 82071\n  output: 8672\n  cache_creation: 0\n  cache_read: 1310208\n  reasoning: 4224\n"), "{text}");
    let validate = kiln.run(&["session", "validate"]);
    assert_eq!(validate.code, 0, "{}{}", validate.stdout, validate.stderr);
}

#[test]
fn import_of_the_real_codex_folder_takes_rollouts_and_exec_streams() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", "--strict", &real("")]);
    // One real exec stream holds only its start (`thread.started`,
    // `turn.started`): nothing to import, which is said, not an empty session.
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "stream-output-multi-1.jsonl: nothing to import: 2 records read (thread.started 1, turn.started 1)"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("19 created, 0 updated, 0 unchanged, 1 skipped"),
        "{}",
        out.stderr
    );
    // An exec stream's events are named in the report too.
    assert!(
        out.stderr
            .contains("stream-output-2.jsonl: 7 records read (item.completed/agent_message 1"),
        "{}",
        out.stderr
    );
    let validate = kiln.run(&["session", "validate"]);
    assert_eq!(validate.code, 0, "{}{}", validate.stdout, validate.stderr);
}

#[test]
fn export_to_codex_writes_a_rollout_that_imports_back() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&[
        "session",
        "import",
        &real("ai-sessions/codex-pomodor-timer.jsonl"),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let codex_home = tempfile::tempdir().unwrap();
    let sessions = codex_home.path().join("sessions");
    let out = kiln.run(&[
        "session",
        "export",
        &id,
        "--to",
        "codex",
        "--output",
        &sessions.display().to_string(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let day = sessions.join("2025/10/21");
    assert_eq!(out.stdout.trim(), day.display().to_string());
    let files: Vec<_> = std::fs::read_dir(&day)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("rollout-2025-10-21T") && name.ends_with(".jsonl"),
        "{name}"
    );
    let again = TestKiln::empty();
    let back = again.run(&[
        "session",
        "import",
        "--strict",
        "--from",
        "codex",
        &files[0].display().to_string(),
    ]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    let validate = again.run(&["session", "validate"]);
    assert_eq!(validate.code, 0, "{}{}", validate.stdout, validate.stderr);
}

#[test]
fn import_of_a_rollout_with_a_failed_command_and_an_image_reports_and_keeps_both() {
    let kiln = TestKiln::empty();
    let src = kiln.write(
        "in/rollout-2026-03-10T08-00-00-019c0000-0000-7000-8000-000000000002.jsonl",
        concat!(
            r#"{"timestamp":"2026-03-10T08:00:00.000Z","type":"session_meta","payload":{"id":"019c0000-0000-7000-8000-000000000002","timestamp":"2026-03-10T08:00:00.000Z","cwd":"/tmp/x","originator":"codex_cli_rs","cli_version":"0.98.0","source":"cli"}}"#,
            "\n",
            r#"{"timestamp":"2026-03-10T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"what is in this screenshot"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}]}}"#,
            "\n",
            r#"{"timestamp":"2026-03-10T08:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"npm test\"}","call_id":"c1"}}"#,
            "\n",
            r#"{"timestamp":"2026-03-10T08:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 1\nWall time: 5.8 seconds\nOutput:\nFAIL src/a.test.ts"}}"#,
            "\n",
        ),
    );
    let out = kiln.run(&["session", "import", "--strict", &src.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("5 records read (response_item/function_call 1, response_item/function_call_output 1, response_item/message 1, response_item/message/input_image 1, session_meta 1)"),
        "{}",
        out.stderr
    );
    let md = kiln
        .sessions()
        .join("2026-03-10-what-is-in-this-screenshot.md");
    let text = std::fs::read_to_string(&md).unwrap_or_else(|e| panic!("{e}: {}", out.stderr));
    assert!(text.contains("[image: image/png, 0.1 KB]"), "{text}");
    assert!(text.contains("✗"), "{text}");
    let sidecar = std::fs::read_to_string(
        kiln.sessions()
            .join(".2026-03-10-what-is-in-this-screenshot.data.jsonl"),
    )
    .unwrap();
    assert!(sidecar.contains(r#""media_type":"image/png""#), "{sidecar}");
    assert!(sidecar.contains(r#""exit_code":1"#), "{sidecar}");
    assert!(sidecar.contains(r#""duration_ms":5800"#), "{sidecar}");
    let validate = kiln.run(&["session", "validate"]);
    assert_eq!(validate.code, 0, "{}{}", validate.stdout, validate.stderr);
}

/// A count no request has, in any format, is counted 0 and named: written,
/// it would be a usage line the session's own reader refuses (`session
/// list` and `usage` then disagreed by 1.8×10¹⁹).
#[test]
fn a_count_beyond_any_request_is_counted_zero_and_named() {
    let kiln = TestKiln::empty();
    let text = std::fs::read_to_string(real(
        "localpush/sessions/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
    ))
    .unwrap();
    let hostile = text.replacen(
        "\"input_tokens\":",
        "\"input_tokens\":18446744073709551615,\"was\":",
        1,
    );
    assert_ne!(hostile, text);
    let src = kiln.write("rollout-2026-02-23T12-40-23-hostile.jsonl", &hostile);
    let out = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("token count(s) above"),
        "{}",
        out.stderr
    );
    let list: serde_json::Value =
        serde_json::from_str(&kiln.run(&["session", "list", "--format", "json"]).stdout).unwrap();
    let usage: serde_json::Value =
        serde_json::from_str(&kiln.run(&["usage", "daily", "--json"]).stdout).unwrap();
    assert_eq!(
        list["sessions"][0]["tokens"],
        usage["totals"]["totalTokens"]
    );
    let v = kiln.run(&["session", "validate"]);
    assert!(
        !v.stdout.contains("more tokens than any count"),
        "{}",
        v.stdout
    );
}
