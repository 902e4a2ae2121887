//! `cru session resume` with an agent: what the file holds after a run
//! stops, after the agent fails, and when the agent logs into its session.

use serde_json::Value;

use crate::kiln::{Output, TestKiln, serve_one};

const PAUSED: &str = "2025-12-10-fix-flaky-test";

fn paused_file(kiln: &TestKiln) -> std::path::PathBuf {
    kiln.sessions().join(format!("{PAUSED}.md"))
}

fn frontmatter_value(text: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {key} in\n{text}"))
        .to_owned()
}

/// The session's row as `list --format json` gives it.
fn list_row(kiln: &TestKiln) -> Value {
    let out = kiln.run(&["session", "list", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    // The rows are `sessions[]` of one object (older: a bare array).
    v.get("sessions")
        .unwrap_or(&v)
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == PAUSED)
        .cloned()
        .unwrap()
}

/// An agent that keeps each prompt it is given (`prompt-N.md`) and answers
/// `Run N: ...`, N counting its runs.
fn counting_agent(seen: &std::path::Path) -> String {
    format!(
        "n=$(cat {0}/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > {0}/n; \
         cat > {0}/prompt-$n.md; echo \"Run $n: step $n of the fix is done.\"",
        seen.display()
    )
}

#[test]
fn three_resumes_each_see_the_runs_before_them() {
    let kiln = TestKiln::with_fixtures();
    let seen = kiln.root.path().join("seen");
    std::fs::create_dir(&seen).unwrap();
    let agent = counting_agent(&seen);
    for run in 1..=3 {
        let out = kiln.run(&["session", "resume", PAUSED, "--agent-cmd", &agent]);
        assert_eq!(out.code, 0, "run {run}: {}", out.stderr);
        assert_eq!(
            out.stdout,
            format!("Run {run}: step {run} of the fix is done.\n")
        );
        let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
        // Stopped: paused again, after the phase this run recorded (the
        // fixture has 4 phases, so run 1 is phase-5).
        assert_eq!(frontmatter_value(&text, "status"), "paused");
        assert_eq!(
            frontmatter_value(&text, "resume_point"),
            format!("phase-{}", 4 + run)
        );
        assert!(
            out.stderr.contains(&format!("at phase-{}", 4 + run)),
            "{}",
            out.stderr
        );
    }
    let third = std::fs::read_to_string(seen.join("prompt-3.md")).unwrap();
    assert!(
        third.contains("Run 1: step 1 of the fix is done."),
        "{third}"
    );
    assert!(
        third.contains("Run 2: step 2 of the fix is done."),
        "{third}"
    );
    assert!(third.contains("Resumed from phase-5"), "{third}");
    let text = kiln.run(&["session", "resume", PAUSED, "--format", "text"]);
    assert!(
        text.stdout.contains("phase-5 Resumed from phase-3"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("phase-6 Resumed from phase-5"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("phase-7 Resumed from phase-6"),
        "{}",
        text.stdout
    );
    let check = kiln.run(&["session", "validate", PAUSED]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

/// Runs `resume` with `agent` and checks that it failed with `reason` on
/// stderr and left the file, its journal and its index row as they were.
fn fails_and_changes_nothing(
    kiln: &TestKiln,
    out: &Output,
    reason: &str,
    before: &[u8],
    row: &Value,
) {
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains(reason), "{}", out.stderr);
    assert!(out.stderr.contains("is unchanged"), "{}", out.stderr);
    assert_eq!(std::fs::read(paused_file(kiln)).unwrap(), before);
    let litter: Vec<_> = std::fs::read_dir(kiln.sessions())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(PAUSED) && n != &format!("{PAUSED}.md"))
        .collect();
    assert!(litter.is_empty(), "{litter:?}");
    assert_eq!(&list_row(kiln), row);
}

#[test]
fn an_agent_that_fails_before_answering_leaves_the_session_byte_for_byte() {
    let kiln = TestKiln::with_fixtures();
    let before = std::fs::read(paused_file(&kiln)).unwrap();
    let row = list_row(&kiln);
    assert_eq!(row["status"], "paused");
    for (agent, reason) in [
        ("no-such-agent-program-x7", "not found"),
        ("cat >/dev/null; exit 3", "exit code 3"),
        ("cat >/dev/null; echo '   '", "printed no reply"),
    ] {
        let out = kiln.run(&["session", "resume", PAUSED, "--agent-cmd", agent]);
        fails_and_changes_nothing(&kiln, &out, reason, &before, &row);
    }
    // An agent that does not answer in time is stopped.
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[agent]\ntimeout = \"1s\"\n",
    )
    .unwrap();
    let out = kiln.run(&["session", "resume", PAUSED, "--agent-cmd", "sleep 20"]);
    fails_and_changes_nothing(&kiln, &out, "gave no reply within 1 s", &before, &row);
}

#[test]
fn an_endpoint_that_fails_or_is_not_there_leaves_the_session_byte_for_byte() {
    let kiln = TestKiln::with_fixtures();
    let before = std::fs::read(paused_file(&kiln)).unwrap();
    let row = list_row(&kiln);
    let configure = |url: &str| {
        std::fs::write(
            kiln.root.path().join(".crucible/config.toml"),
            format!("[agent]\nbase_url = \"{url}\"\nmodel = \"m\"\ntimeout = \"20s\"\n"),
        )
        .unwrap();
    };
    let (url, server) = serve_one(
        500,
        r#"{"error":{"message":"the model is overloaded"}}"#.into(),
    );
    configure(&url);
    let out = kiln.run(&["session", "resume", PAUSED]);
    server.join().unwrap();
    fails_and_changes_nothing(
        &kiln,
        &out,
        "HTTP 500: the model is overloaded",
        &before,
        &row,
    );

    // A port nothing listens on: the connection is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    configure(&url);
    let out = kiln.run(&["session", "resume", PAUSED]);
    fails_and_changes_nothing(&kiln, &out, &url, &before, &row);
}

#[test]
fn a_failure_after_some_output_keeps_it_with_the_reason_and_pauses() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "resume",
        PAUSED,
        "--agent-cmd",
        "cat >/dev/null; echo 'I moved the allocation under'; echo 'stream cut' >&2; exit 1",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("stream cut"), "{}", out.stderr);
    assert!(out.stderr.contains("paused at phase-3"), "{}", out.stderr);
    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    let resumed = &text[text.find("## Resumed from phase-3").unwrap()..];
    assert!(
        resumed.contains("> [!reply] @debugger@0.3\n> I moved the allocation under\n"),
        "{resumed}"
    );
    assert!(
        resumed.contains("> [!error]\n> agent backend failed: agent command"),
        "{resumed}"
    );
    // Paused at the last phase that ended well: the one it resumed from.
    assert_eq!(frontmatter_value(&text, "status"), "paused");
    assert_eq!(frontmatter_value(&text, "resume_point"), "phase-3");
    let check = kiln.run(&["session", "validate", PAUSED]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

#[test]
fn the_agent_logs_into_its_own_session_and_the_model_is_recorded() {
    let kiln = TestKiln::with_fixtures();
    let seen = kiln.root.path().join("seen");
    std::fs::create_dir(&seen).unwrap();
    let cru = assert_cmd::cargo::cargo_bin("cru");
    // Run from elsewhere, as an agent in its own working directory would.
    let agent = format!(
        "cd / && cat >/dev/null; \
         echo \"$CRU_SESSION|$CRU_SESSION_FILE|$CRU_DIR|$CRU_MODEL\" > {seen}/env; \
         {cru} session log decision 'Allocate ids under the directory lock.' || exit 9; \
         echo 'Done: ids are allocated under the lock.'",
        seen = seen.display(),
        cru = cru.display()
    );
    let out = kiln.run(&[
        "session",
        "resume",
        PAUSED,
        "--agent-cmd",
        &agent,
        "--model",
        "local-llama-3",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let env = std::fs::read_to_string(seen.join("env")).unwrap();
    let sessions = kiln.sessions();
    assert_eq!(
        env.trim(),
        format!(
            "{PAUSED}|{}|{}|local-llama-3",
            sessions.join(format!("{PAUSED}.md")).display(),
            sessions.display()
        )
    );
    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    assert_eq!(
        text.matches("Allocate ids under the directory lock.")
            .count(),
        1,
        "{text}"
    );
    let resumed = &text[text.find("## Resumed from phase-3").unwrap()..];
    assert!(
        resumed.contains(
            "> [!decision]\n> Allocate ids under the directory lock.\n\n\
             > [!reply] @debugger@0.3\n> Done: ids are allocated under the lock.\n"
        ),
        "{resumed}"
    );
    assert!(resumed.contains("model=local-llama-3"), "{resumed}");
    let check = kiln.run(&["session", "validate", PAUSED]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

#[test]
fn a_session_the_agent_ends_itself_stays_ended() {
    let kiln = TestKiln::with_fixtures();
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let agent = format!(
        "cat >/dev/null; {} session end --status completed --summary 'Fixed.' || exit 9; \
         echo 'All done, session ended.'",
        cru.display()
    );
    let out = kiln.run(&["session", "resume", PAUSED, "--agent-cmd", &agent]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("The agent ended"), "{}", out.stderr);
    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    assert_eq!(frontmatter_value(&text, "status"), "completed");
    // The reply after the end is shown, not written after the summary.
    assert_eq!(out.stdout, "All done, session ended.\n");
    assert!(!text.contains("All done, session ended."), "{text}");
    assert!(text.ends_with("## Summary\n\nFixed.\n"), "{text}");
    let check = kiln.run(&["session", "validate", PAUSED]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}
