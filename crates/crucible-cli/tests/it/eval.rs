//! `cru session eval` and `cru session replay` with real programs as agent
//! and judge, and a stub HTTP endpoint as judge.

use std::path::PathBuf;

use crate::kiln::{TestKiln, fixtures, serve_one_completion};

/// Phase 1 passes its checks and has a `result:`, phase 2 fails its
/// checks (no `result:`), phase 3 has only a `result:`.
const TRIAGE: &str = "2025-12-14-triage-flaky-test";
/// Phase 1 passes its checks (no `result:`), phase 2 has only a `result:`,
/// phase 3 has no `[!expect]`.
const RETRY: &str = "2025-12-16-add-upload-retry";

/// A kiln holding copies of these sessions of `fixtures/eval`.
fn kiln_with(ids: &[&str]) -> TestKiln {
    let kiln = TestKiln::empty();
    for id in ids {
        let text =
            std::fs::read_to_string(fixtures().join("eval").join(format!("{id}.md"))).unwrap();
        kiln.write(&format!("{id}.md"), &text);
    }
    kiln
}

fn kiln_with_triage() -> TestKiln {
    kiln_with(&[TRIAGE])
}

/// `--judge-cmd` for one of the scripted judges of `fixtures/eval/judges`.
fn judge(name: &str) -> String {
    format!("sh {}", fixtures().join("eval/judges").join(name).display())
}

fn json(out: &crate::kiln::Output) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
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
    2025-12-14-triage-flaky-test  phase-1  tools ✓ forbid ✓ pattern ✓  –      –    pass
    2025-12-14-triage-flaky-test  phase-2  tools ✗ forbid ✗            –      –    fail
    2025-12-14-triage-flaky-test  phase-3  –                           –      –    –

    2025-12-14-triage-flaky-test phase-2: tools ✗ missing run_tests (called: edit_file, git_push)

    2025-12-14-triage-flaky-test phase-2: forbid ✗ called git_push
    ");
    insta::assert_snapshot!(out.stderr, @"2 cases: 1 passed, 1 failed, 0 errors; 1 not evaluated (only `result:`, which needs --judge); the `result:` of 1 checked case was not judged (add --judge)");
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
    let v = json(&again);
    assert_eq!(v["results"][1]["was"], "fail");
    assert_eq!(v["results"][1]["verdict"], "fail");
    assert_eq!(v["results"][1]["checks"][1]["detail"], "called git_push");
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
    let v = json(&out)["results"].clone();
    assert_eq!(v[2]["judge"]["verdict"], "pass", "{v}");
    assert_eq!(v[2]["judge"]["reason"], "names cause and fix");
    assert_eq!(v[2]["verdict"], "pass");
    // Phase 1 expects a result the judge finds no fix in.
    assert_eq!(v[0]["judge"]["verdict"], "fail");
    assert_eq!(v[0]["verdict"], "fail");
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
    let v = json(&out)["results"].clone();
    assert_eq!(v[2]["verdict"], "error");
    assert_eq!(v[2]["judge"]["verdict"], "error");
    assert!(
        v[2]["judge"]["reason"]
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
    // The server answers once: keep only phase 3's expectation (phase 1's
    // has a `result:` too, and phase 2 fails its checks).
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
        new_id.starts_with("20")
            && new_id.ends_with("-replay-of-phase-2-of-triage-the-flaky-upload-tes"),
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
    assert!(out.stderr.contains("eval: pass"), "{}", out.stderr);
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
        rows[0].contains("phase-1") && rows[0].ends_with("pass  fail"),
        "{}",
        out.stdout
    );
    assert!(
        rows[1].contains("phase-2") && rows[1].ends_with("fail  pass"),
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
        out.stderr.contains(
            "2 cases: 0 passed, 0 failed, 2 errors (no verdict reached); 1 not evaluated"
        ),
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

#[test]
fn with_a_judge_a_phase_with_only_checks_keeps_its_checks_verdict() {
    let kiln = kiln_with(&[TRIAGE, RETRY]);
    let out = kiln.run(&[
        "session",
        "eval",
        TRIAGE,
        RETRY,
        "--judge-cmd",
        &judge("pass.sh"),
        "--no-record",
        "--format",
        "json",
    ]);
    let v = json(&out);
    let verdicts: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["session"], r["phase"], r["verdict"]))
        .collect();
    assert_eq!(
        verdicts,
        [
            "\"2025-12-14-triage-flaky-test\" \"phase-1\" \"pass\"",
            "\"2025-12-14-triage-flaky-test\" \"phase-2\" \"fail\"",
            "\"2025-12-14-triage-flaky-test\" \"phase-3\" \"pass\"",
            "\"2025-12-16-add-upload-retry\" \"phase-1\" \"pass\"",
            "\"2025-12-16-add-upload-retry\" \"phase-2\" \"pass\"",
        ]
    );
    // The judge was not asked where no `result:` asks for it.
    let triage_2 = &v["results"][1];
    assert_eq!(triage_2["judge"], serde_json::Value::Null);
    assert_eq!(triage_2["by"], "checks");
    assert_eq!(
        triage_2["reason"],
        "tools: missing run_tests (called: edit_file, git_push); forbid: called git_push"
    );
    assert_eq!(v["results"][3]["judge"], serde_json::Value::Null);
    assert_eq!(v["results"][4]["judge"]["verdict"], "pass");
    assert!(
        v["results"][4]["by"]
            .as_str()
            .unwrap()
            .starts_with("checks, judge command `sh "),
        "{v}"
    );
    assert_eq!(out.code, 1, "triage phase 2 fails: {}", out.stderr);
    // A session whose checks-only phase passes and whose judged phase
    // passes is all right.
    let out = kiln.run(&["session", "eval", RETRY, "--judge-cmd", &judge("pass.sh")]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    session                      phase    checks                      judge  was  verdict
    2025-12-16-add-upload-retry  phase-1  tools ✓ forbid ✓ pattern ✓  –      –    pass
    2025-12-16-add-upload-retry  phase-2  –                           ✓      –    pass
    ");
    insta::assert_snapshot!(out.stderr, @"2 cases: 2 passed, 0 failed, 0 errors");
    let text = session_text(&kiln, RETRY);
    assert!(
        text.contains(
            "> [!eval] passed\n> tools: ✓ called edit_file(upload\\.py), run_tests in order\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("> [!eval] passed\n> judge: ✓ the result says what was expected\n> by: checks, judge command"),
        "{text}"
    );
}

#[test]
fn each_judge_answer_is_exactly_one_verdict() {
    let kiln = kiln_with(&[RETRY]);
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[agent]\ntimeout = \"1s\"\n",
    )
    .unwrap();
    // (judge, exit code, phase-2 verdict, the judge's verdict, its reason holds)
    let cases = [
        (
            "pass.sh",
            0,
            "pass",
            "pass",
            "the result says what was expected",
        ),
        (
            "fail.sh",
            1,
            "fail",
            "fail",
            "the result does not say what was expected",
        ),
        (
            "chatty.sh",
            1,
            "error",
            "error",
            "not one line `PASS: <reason>` or `FAIL: <reason>`: \"I think it passes.\"",
        ),
        (
            "crash.sh",
            1,
            "error",
            "error",
            "(exit code 4); its stderr:\njudge model not found",
        ),
        ("slow.sh", 1, "error", "error", "gave no reply within 1 s"),
    ];
    for (script, code, verdict, judged, reason) in cases {
        let out = kiln.run(&[
            "session",
            "eval",
            RETRY,
            "--judge-cmd",
            &judge(script),
            "--no-record",
            "--format",
            "json",
        ]);
        assert_eq!(out.code, code, "{script}: {}", out.stderr);
        let v = json(&out);
        // The checks-only phase passes whatever the judge does.
        assert_eq!(v["results"][0]["verdict"], "pass", "{script}: {v}");
        assert_eq!(v["results"][0]["judge"], serde_json::Value::Null);
        let r = &v["results"][1];
        assert_eq!(r["verdict"], verdict, "{script}: {v}");
        assert_eq!(r["judge"]["verdict"], judged, "{script}: {v}");
        let said = r["judge"]["reason"].as_str().unwrap();
        assert!(said.contains(reason), "{script}: {said}");
        assert!(
            r["reason"].as_str().unwrap().contains(reason),
            "{script}: {r}"
        );
        let errors = usize::from(verdict == "error");
        assert_eq!(v["summary"]["error"], errors, "{script}: {v}");
    }
}

#[test]
fn a_judge_error_is_shown_under_the_table_and_counted() {
    let kiln = kiln_with(&[RETRY]);
    let out = kiln.run(&[
        "session",
        "eval",
        RETRY,
        "--judge-cmd",
        &judge("crash.sh"),
        "--no-record",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout, @r"
    session                      phase    checks                      judge  was  verdict
    2025-12-16-add-upload-retry  phase-1  tools ✓ forbid ✓ pattern ✓  –      –    pass
    2025-12-16-add-upload-retry  phase-2  –                           error  –    error

    2025-12-16-add-upload-retry phase-2: judge error: agent command `sh [FIXTURES]/eval/judges/crash.sh` failed (exit code 4); its stderr:
    judge model not found
    ");
    insta::assert_snapshot!(out.stderr, @"2 cases: 1 passed, 0 failed, 1 error (no verdict reached)");
}

/// A session file that parses up to its status, with an `[!expect]`.
const BROKEN: &str = "---\ntype: session\nsession_id: 2025-12-17-broken\nstarted: 2025-12-17T10:00:00Z\nstatus: sometimes\n---\n\n## Do it\n\n> [!expect]\n> tools: grep\n";

#[test]
fn exit_codes_follow_the_rule() {
    let kiln = kiln_with(&[TRIAGE, RETRY]);
    let code = |args: &[&str]| {
        let mut all = vec!["session", "eval", "--no-record"];
        all.extend_from_slice(args);
        kiln.run(&all)
    };
    // 0: every evaluated case passed; a `result:` without a judge and a
    // phase without [!expect] are not failures.
    assert_eq!(code(&[RETRY]).code, 0);
    // 1: a case failed, or had no verdict, or a named session is missing.
    assert_eq!(code(&[TRIAGE]).code, 1);
    assert_eq!(code(&[RETRY, "--judge-cmd", &judge("fail.sh")]).code, 1);
    assert_eq!(code(&[RETRY, "--judge-cmd", &judge("chatty.sh")]).code, 1);
    let missing = code(&["2099-01-01-nothing"]);
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no session matches"),
        "{}",
        missing.stderr
    );
    // 2: wrong usage.
    let ambiguous = code(&["2025-12-1"]);
    assert_eq!(ambiguous.code, 2, "{}", ambiguous.stderr);
    assert!(
        ambiguous.stderr.contains("matches 2 sessions"),
        "{}",
        ambiguous.stderr
    );
    assert_eq!(code(&[RETRY, "--agent-cmd", "cat"]).code, 2);
    assert_eq!(code(&["--all", RETRY]).code, 2);
    // 3: --all skipped a whole file and the rest passed; --strict makes it 1.
    std::fs::remove_file(kiln.sessions().join(format!("{TRIAGE}.md"))).unwrap();
    kiln.write("2025-12-17-broken.md", BROKEN);
    let skipped = code(&["--all"]);
    assert_eq!(skipped.code, 3, "{}", skipped.stderr);
    insta::assert_snapshot!(skipped.stderr, @r"
    warning: [KILN]/.crucible/sessions/2025-12-17-broken.md:5: status `sometimes` is not one of active, paused, completed, failed; skipped
    1 case: 1 passed, 0 failed, 0 errors; 1 not evaluated (only `result:`, which needs --judge); 1 file skipped
    ");
    let strict = kiln.run(&["--strict", "session", "eval", "--all", "--no-record"]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    // A failure wins over a skip.
    kiln.write(
        &format!("{TRIAGE}.md"),
        &std::fs::read_to_string(fixtures().join(format!("eval/{TRIAGE}.md"))).unwrap(),
    );
    assert_eq!(code(&["--all"]).code, 1);
    // Every file skipped: nothing was done.
    let only_broken = TestKiln::empty();
    only_broken.write("2025-12-17-broken.md", BROKEN);
    assert_eq!(only_broken.run(&["session", "eval", "--all"]).code, 1);
    // A named session that cannot be read is a failure, not a skip.
    let named = code(&["2025-12-17-broken", RETRY]);
    assert_eq!(named.code, 1, "{}", named.stderr);
    assert!(
        named
            .stderr
            .contains("error: [KILN]/.crucible/sessions/2025-12-17-broken.md:5: status"),
        "{}",
        named.stderr
    );
}

#[test]
// The length is the inline snapshot: the answer, whole.
#[allow(clippy::too_many_lines)]
fn eval_json_is_one_object_with_results_and_a_summary() {
    let kiln = kiln_with(&[TRIAGE]);
    let out = kiln.run(&["session", "eval", TRIAGE, "--no-record", "--format", "json"]);
    assert_eq!(out.code, 1);
    let mut v = json(&out);
    for r in v["results"].as_array_mut().unwrap() {
        assert!(r["at"].as_str().unwrap().starts_with("20"), "{r}");
        r["at"] = "[AT]".into();
    }
    insta::assert_snapshot!(serde_json::to_string_pretty(&v).unwrap(), @r#"
    {
      "version": 1,
      "results": [
        {
          "session": "2025-12-14-triage-flaky-test",
          "phase": "phase-1",
          "verdict": "pass",
          "reason": "tools, forbid, pattern passed",
          "checks": [
            {
              "kind": "tools",
              "passed": true,
              "detail": "called read_logs, grep(timeout) in order"
            },
            {
              "kind": "forbid",
              "passed": true,
              "detail": "none of edit_file called"
            },
            {
              "kind": "pattern",
              "passed": true,
              "detail": "/(?i)timeout/ matches"
            }
          ],
          "judge": null,
          "by": "checks",
          "at": "[AT]",
          "was": null
        },
        {
          "session": "2025-12-14-triage-flaky-test",
          "phase": "phase-2",
          "verdict": "fail",
          "reason": "tools: missing run_tests (called: edit_file, git_push); forbid: called git_push",
          "checks": [
            {
              "kind": "tools",
              "passed": false,
              "detail": "missing run_tests (called: edit_file, git_push)"
            },
            {
              "kind": "forbid",
              "passed": false,
              "detail": "called git_push"
            }
          ],
          "judge": null,
          "by": "checks",
          "at": "[AT]",
          "was": null
        }
      ],
      "not_evaluated": [
        {
          "session": "2025-12-14-triage-flaky-test",
          "phase": "phase-3",
          "reason": "its [!expect] has only `result:`, which needs a judge (--judge)"
        }
      ],
      "skipped_files": [],
      "summary": {
        "cases": 2,
        "pass": 1,
        "fail": 1,
        "error": 0,
        "not_evaluated": 1,
        "skipped_files": 0,
        "newly_failing": 0,
        "newly_passing": 0
      }
    }
    "#);
}

#[test]
fn replay_exit_codes_and_json() {
    let kiln = kiln_with_triage();
    let agent = script(
        &kiln,
        "agent.sh",
        "cat >/dev/null; echo '{\"result\": \"Raised TIMEOUT to 10.\", \"tool_calls\": [{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/upload.py\"}}]}'",
    );
    let agent = agent.to_str().unwrap();
    let replay = |args: &[&str]| {
        let mut all = vec!["session", "replay", TRIAGE, "--agent-cmd", agent];
        all.extend_from_slice(args);
        kiln.run(&all)
    };
    // 2: a phase that is not a number.
    let bad = replay(&["--phase", "second"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("--phase second: expected a phase number"),
        "{}",
        bad.stderr
    );
    // 1: the evaluation of the run fails (run_tests was not called).
    let out = replay(&["--phase", "2", "--eval", "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["version"], 1);
    assert_eq!(v["replay_of"]["phase"], "phase-2");
    assert_eq!(v["diff"]["tools_missing"][0], "git_push");
    assert_eq!(v["eval"]["verdict"], "fail");
    assert_eq!(
        v["eval"]["reason"],
        "tools: missing run_tests (called: edit_file)"
    );
    assert_eq!(v["eval"]["checks"][0]["kind"], "tools");
    // 0: recorded; without --eval there is no verdict to fail.
    let out = replay(&["--phase", "2", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(json(&out)["eval"], serde_json::Value::Null);
}

#[test]
fn a_named_session_without_expectations_says_there_is_nothing_to_evaluate() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "eval", "2025-12-10-fix-flaky-test"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    insta::assert_snapshot!(out.stderr, @r"
    warning: 2025-12-10-fix-flaky-test: no phase has an [!expect] callout, so there is nothing to evaluate (docs/eval.md says how to write one)
    0 cases: 0 passed, 0 failed, 0 errors
    ");
}

#[test]
fn an_unreachable_judge_endpoint_is_an_error_not_a_verdict() {
    let kiln = kiln_with(&[RETRY]);
    // A port nothing listens on any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        format!(
            "[agent]\nbackend = \"openai\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\nmodel = \"judge\"\ntimeout = \"5s\"\n"
        ),
    )
    .unwrap();
    let out = kiln.run(&["session", "eval", RETRY, "--judge", "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["results"][0]["verdict"], "pass", "{v}");
    assert_eq!(v["results"][1]["verdict"], "error", "{v}");
    assert_eq!(v["results"][1]["judge"]["verdict"], "error");
    let reason = v["results"][1]["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("127.0.0.1:{port}")), "{reason}");
    assert_eq!(v["summary"]["error"], 1);
    // Recorded as an error beside the checks, so the next run's `was` says so.
    let text = session_text(&kiln, RETRY);
    assert!(text.contains("> [!eval] error\n> judge: error "), "{text}");
}

#[test]
fn a_replays_id_names_its_phase_even_for_a_long_title() {
    let kiln = kiln_with(&[RETRY]);
    let ids: Vec<String> = ["3", "2"]
        .iter()
        .map(|phase| {
            let out = kiln.run(&[
                "session",
                "replay",
                RETRY,
                "--phase",
                phase,
                "--agent-cmd",
                "cat >/dev/null; echo done",
            ]);
            assert_eq!(out.code, 0, "{}", out.stderr);
            out.stdout.trim().to_owned()
        })
        .collect();
    // Cut at 48 characters of the title, the phase is still there.
    assert!(
        ids[0].ends_with("-replay-of-phase-3-of-add-a-retry-to-the-upload-c"),
        "{ids:?}"
    );
    assert!(
        ids[1].ends_with("-replay-of-phase-2-of-add-a-retry-to-the-upload-c"),
        "{ids:?}"
    );
}

#[test]
fn all_finds_expect_callouts_written_in_any_case() {
    // Callout kinds are read in any case, so the quick look for files
    // with an `[!expect]` must not pass over `[!Expect]`.
    let kiln = TestKiln::empty();
    let text = std::fs::read_to_string(fixtures().join(format!("eval/{TRIAGE}.md"))).unwrap();
    assert!(text.contains("[!expect]"));
    kiln.write(
        &format!("{TRIAGE}.md"),
        &text.replace("[!expect]", "[!Expect]"),
    );
    let out = kiln.run(&["session", "eval", "--all", "--no-record"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("2 cases: 1 passed, 1 failed, 0 errors"),
        "{}",
        out.stderr
    );
}
