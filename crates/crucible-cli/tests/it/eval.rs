//! `cru session eval` and `cru session replay` with real programs as agent
//! and judge, and a stub HTTP endpoint as judge.

use std::path::PathBuf;

use crate::kiln::{TestKiln, fixtures, serve_one_completion};

const TRIAGE: &str = "2025-12-14-triage-flaky-test";

fn kiln_with_triage() -> TestKiln {
    let kiln = TestKiln::empty();
    let text =
        std::fs::read_to_string(fixtures().join("eval").join(format!("{TRIAGE}.md"))).unwrap();
    kiln.write(&format!("{TRIAGE}.md"), &text);
    kiln
}

/// An executable shell script in the kiln.
fn script(kiln: &TestKiln, name: &str, body: &str) -> PathBuf {
    let p = kiln.root.path().join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mut perms = std::fs::metadata(&p).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&p, perms).unwrap();
    p
}

fn session_text(kiln: &TestKiln, id: &str) -> String {
    std::fs::read_to_string(kiln.sessions().join(format!("{id}.md"))).unwrap()
}

#[test]
fn deterministic_checks_give_a_table_record_eval_callouts_and_exit_1() {
    let kiln = kiln_with_triage();
    let out = kiln.run(&["session", "eval", TRIAGE]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    session                       phase    checks                      judge  was  verdict
    2025-12-14-triage-flaky-test  phase-1  tools ✓ forbid ✓ pattern ✓  –      –    passed
    2025-12-14-triage-flaky-test  phase-2  tools ✗ forbid ✗            –      –    failed
    2025-12-14-triage-flaky-test  phase-3  –                           –      –    unchecked

    2025-12-14-triage-flaky-test phase-2: tools ✗ missing run_tests (called: edit_file, git_push)

    2025-12-14-triage-flaky-test phase-2: forbid ✗ called git_push
    ");
    assert_eq!(
        out.stderr,
        "2 cases: 1 passed, 1 failed, 1 with nothing to check without --judge\n"
    );
    // Recorded in the phases; the file is still a valid session.
    let text = session_text(&kiln, TRIAGE);
    assert!(
        text.contains("> [!eval] passed\n> tools: ✓ called read_logs, grep(timeout) in order\n"),
        "{text}"
    );
    assert!(
        text.contains("> [!eval] failed\n> tools: ✗ missing run_tests"),
        "{text}"
    );
    assert_eq!(kiln.run(&["session", "validate"]).code, 0);
    // A second run compares with what was recorded.
    let again = kiln.run(&["session", "eval", TRIAGE, "--format", "json", "--no-record"]);
    let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(v[1]["was"], "failed");
    assert_eq!(v[1]["verdict"], "failed");
    assert_eq!(v[1]["checks"][1]["detail"], "called git_push");
    // --no-record wrote nothing.
    assert_eq!(session_text(&kiln, TRIAGE), text);
}

#[test]
fn a_judge_program_must_answer_pass_or_fail_in_form() {
    let kiln = kiln_with_triage();
    // The judge sees the expected and the actual result.
    let judge = script(
        &kiln,
        "judge.sh",
        "q=$(cat); case \"$q\" in *\"10 s\"*\"10 s\"*) echo 'PASS: names cause and fix';; *) echo 'FAIL: no fix named';; esac",
    );
    let out = kiln.run(&[
        "session",
        "eval",
        TRIAGE,
        "--judge-cmd",
        judge.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[2]["judge"]["passed"], true, "{v}");
    assert_eq!(v[2]["judge"]["reason"], "names cause and fix");
    assert_eq!(v[2]["verdict"], "passed");
    // Phase 1 expects a result the judge finds no fix in.
    assert_eq!(v[0]["judge"]["passed"], false);
    assert_eq!(v[0]["verdict"], "failed");
    assert_eq!(out.code, 1);
    // An answer out of form is an error for that case, never a pass.
    let chatty = script(
        &kiln,
        "chatty.sh",
        "cat >/dev/null; echo 'I think it passes.'",
    );
    let out = kiln.run(&[
        "session",
        "eval",
        TRIAGE,
        "--judge-cmd",
        chatty.to_str().unwrap(),
        "--no-record",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[2]["verdict"], "error");
    assert!(
        v[2]["judge_error"]
            .as_str()
            .unwrap()
            .contains("not one line `PASS: <reason>`"),
        "{v}"
    );
}

#[test]
fn an_openai_compatible_judge_from_config() {
    let kiln = kiln_with_triage();
    let (url, server) = serve_one_completion("PASS: the cause and the fix are both named");
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        format!("[agent]\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel = \"judge-model\"\n"),
    )
    .unwrap();
    // Only phase 3 goes to the judge: the others fail or pass on checks
    // alone, but every case with a result is judged, so ask for one phase's
    // session copy with only that expectation.
    let text = session_text(&kiln, TRIAGE);
    let only_third = text
        .replace(
            "> [!expect]\n> tools: read_logs",
            "> [!note]\n> tools: read_logs",
        )
        .replace(
            "> [!expect]\n> tools: edit_file",
            "> [!note]\n> tools: edit_file",
        );
    kiln.write(&format!("{TRIAGE}.md"), &only_third);
    let out = kiln.run(&["session", "eval", TRIAGE, "--judge"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let request: serde_json::Value = serde_json::from_str(&server.join().unwrap()).unwrap();
    assert_eq!(request["model"], "judge-model");
    let question = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        question.contains("says the cause (a 2 s timeout) and the fix (10 s)"),
        "{question}"
    );
    assert!(question.contains("the timeout is now 10 s"), "{question}");
    let text = session_text(&kiln, TRIAGE);
    assert!(
        text.contains("> judge: ✓ the cause and the fix are both named\n> by: checks, judge "),
        "{text}"
    );
}

#[test]
fn an_imported_connectonion_file_evaluates_with_its_expectations() {
    let kiln = TestKiln::empty();
    let src = fixtures().join("foreign/connectonion/.co/sessions/gmail_agent.yaml");
    let imp = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert_eq!(imp.code, 0, "{}", imp.stderr);
    let id = imp.stdout.trim();
    let out = kiln.run(&["session", "eval", id]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("phase-1  tools ✓"), "{}", out.stdout);
    // Evaluated in cru: a re-import leaves it alone.
    let again = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert!(
        again.stderr.contains("0 created, 0 updated, 1 unchanged"),
        "{}",
        again.stderr
    );
}

#[test]
fn replay_runs_one_phase_records_a_linked_session_and_reports_the_diff() {
    let kiln = kiln_with_triage();
    let agent = script(
        &kiln,
        "agent.sh",
        "cat > \"$(dirname \"$0\")/prompt.txt\"; cp \"$CRU_MESSAGES_FILE\" \"$(dirname \"$0\")/messages.json\"; \
         echo '{\"result\": \"Raised TIMEOUT to 10 and ran the tests: 12 passed.\", \"tokens\": 640, \
         \"tool_calls\": [{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/upload.py\"}}, {\"name\": \"run_tests\", \"arguments\": {}}]}'",
    );
    let out = kiln.run(&[
        "session",
        "replay",
        TRIAGE,
        "--phase",
        "2",
        "--agent-cmd",
        agent.to_str().unwrap(),
        "--eval",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let new_id = out.stdout.trim();
    assert!(
        new_id.starts_with("20") && new_id.contains("replay-of-triage"),
        "{new_id}"
    );
    let report = out.stderr.replace(|c: char| c.is_ascii_digit(), "#");
    assert!(
        report.contains("tools added:   run_tests\ntools missing: git_push\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("tokens:        1800 → 640"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("eval: passed"), "{}", out.stderr);
    // The agent saw phase 1 whole and phase 2's question, nothing after.
    let prompt = std::fs::read_to_string(kiln.root.path().join("prompt.txt")).unwrap();
    assert!(prompt.contains("grep timeout src/upload.py"), "{prompt}");
    assert!(
        prompt.contains("Raise the timeout and run the test"),
        "{prompt}"
    );
    assert!(!prompt.contains("pushed"), "{prompt}");
    assert!(!prompt.contains("Summarise for the team"), "{prompt}");
    let messages: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(kiln.root.path().join("messages.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        messages[0]["content"],
        "You triage failing tests. Read the logs before you change anything."
    );
    // The new session: linked, with the run, the expectation and its outcome.
    let text = session_text(&kiln, new_id);
    assert!(
        text.contains("replay_of:\n  session: 2025-12-14-triage-flaky-test\n  phase: phase-2\n"),
        "{text}"
    );
    assert!(text.contains("[[2025-12-14-triage-flaky-test]]"), "{text}");
    assert!(text.contains("- `run_tests`"), "{text}");
    assert!(
        text.contains("> [!expect]\n> tools: edit_file(upload\\.py), run_tests\n"),
        "{text}"
    );
    assert!(text.contains("> [!eval] passed"), "{text}");
    assert_eq!(kiln.run(&["session", "validate"]).code, 0);
    // And it evaluates like any session.
    assert_eq!(kiln.run(&["session", "eval", new_id]).code, 0);
}

#[test]
fn a_regression_run_with_a_changed_prompt_lists_newly_failing_first() {
    let kiln = kiln_with_triage();
    // Recorded verdicts first: phase 1 passed, phase 2 failed.
    assert_eq!(kiln.run(&["session", "eval", TRIAGE]).code, 1);
    let prompt = kiln.root.path().join("new-prompt.md");
    std::fs::write(&prompt, "Fix fast. Do not read logs.").unwrap();
    // This agent no longer reads logs, but now runs the tests.
    let agent = script(
        &kiln,
        "agent.sh",
        "cat >/dev/null; grep -q 'Do not read logs' \"$CRU_MESSAGES_FILE\" || exit 3; \
         echo '{\"result\": \"Changed the timeout.\", \"tool_calls\": [{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/upload.py\"}}, {\"name\": \"run_tests\"}]}'",
    );
    let out = kiln.run(&[
        "session",
        "eval",
        TRIAGE,
        "--replay",
        "--agent-cmd",
        agent.to_str().unwrap(),
        "--system-prompt",
        prompt.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let rows: Vec<&str> = out.stdout.lines().skip(1).take(3).collect();
    assert!(
        rows[0].contains("phase-1") && rows[0].ends_with("passed  failed"),
        "{}",
        out.stdout
    );
    assert!(
        rows[1].contains("phase-2") && rows[1].ends_with("failed  passed"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("against the last recorded verdicts: 1 newly failing, 1 newly passing"),
        "{}",
        out.stderr
    );
    let text = session_text(&kiln, TRIAGE);
    assert!(text.contains("> by: replay with command"), "{text}");
    assert!(text.contains("system prompt "), "{text}");
    // Without an agent: a clear error.
    let none = kiln.run(&["session", "eval", TRIAGE, "--replay"]);
    assert_eq!(none.code, 1);
    assert!(
        none.stderr.contains("--replay needs an agent"),
        "{}",
        none.stderr
    );
}

#[test]
fn an_agent_that_fails_is_an_error_case_in_eval_and_an_error_in_replay() {
    let kiln = kiln_with_triage();
    let before = session_text(&kiln, TRIAGE);
    let agent = script(
        &kiln,
        "agent.sh",
        "cat >/dev/null; echo 'model quota exceeded' >&2; exit 5",
    );
    let agent = agent.to_str().unwrap();
    let out = kiln.run(&["session", "eval", TRIAGE, "--replay", "--agent-cmd", agent]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let rows: Vec<&str> = out.stdout.lines().skip(1).take(2).collect();
    assert!(rows.iter().all(|r| r.ends_with("error")), "{}", out.stdout);
    // Under the table, as failed checks are explained.
    assert!(
        out.stdout.contains(&format!(
            "{TRIAGE}: phase-2: the agent failed: agent command `[KILN]/agent.sh` failed (exit code 5); its stderr:\nmodel quota exceeded"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("2 cases: 0 passed, 0 failed, 2 errors (agent or judge failed), 1 with"),
        "{}",
        out.stderr
    );
    // No verdict is recorded for a case that could not run.
    assert_eq!(session_text(&kiln, TRIAGE), before);

    let out = kiln.run(&[
        "session",
        "replay",
        TRIAGE,
        "--phase",
        "2",
        "--agent-cmd",
        agent,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains("the agent failed: agent command")
            && out.stderr.contains("model quota exceeded"),
        "{}",
        out.stderr
    );
    // Nothing recorded: the sessions directory holds only the original.
    let files: Vec<_> = std::fs::read_dir(kiln.sessions())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .collect();
    assert_eq!(files.len(), 1);
}

#[test]
fn a_bad_expect_callout_is_an_error_naming_the_file_phase_and_line() {
    let kiln = kiln_with_triage();
    let text = session_text(&kiln, TRIAGE).replace("> order: sequence", "> order: sometimes");
    kiln.write(&format!("{TRIAGE}.md"), &text);
    let out = kiln.run(&["session", "eval", TRIAGE, "--no-record"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "phase-1: line 2 of the [!expect] callout: order `sometimes` is not `any` or `sequence`"
        ),
        "{}",
        out.stdout
    );
    let missing = kiln.run(&[
        "session",
        "replay",
        TRIAGE,
        "--phase",
        "9",
        "--agent-cmd",
        "cat",
    ]);
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("has no phase-9 (it has 3 phases)"),
        "{}",
        missing.stderr
    );
}
