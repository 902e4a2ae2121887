//! `cru session resume`: the context, the choice of session, and continuing
//! with a real agent program (and an HTTP endpoint on 127.0.0.1).

use std::collections::HashSet;
use std::io::Write;

use serde_json::Value;

use crate::kiln::{TestKiln, serve_one_completion};

const PAUSED: &str = "2025-12-10-fix-flaky-test";

fn paused_file(kiln: &TestKiln) -> std::path::PathBuf {
    kiln.sessions().join(format!("{PAUSED}.md"))
}

#[test]
fn shows_the_context_by_prefix_in_any_case_and_changes_nothing() {
    let kiln = TestKiln::with_fixtures();
    let before = std::fs::read(paused_file(&kiln)).unwrap();
    let out = kiln.run(&["session", "resume", "2025-12-10-FIX"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    Session 2025-12-10-fix-flaky-test: Fix the flaky store test
    Status: paused
    Context: 3 phase(s), about 585 tokens of a 32000 budget

    Done:
      phase-1 Reproduce @orchestrator@1.0 #dev — 3 tool calls (1 failed), 1 decision, 1 error
      phase-2 Find the race @orchestrator@1.0 #dev — 2 subagents
        phase-3 Narrow it down @debugger@0.3 #dev — 2 tool calls, 1 user intervention

    Decisions:
      - [phase-1] Keep the 200-run loop as the reproduction; it fails within a minute.

    Open tasks:
      - [~] 2: Find the race (in_progress, high)
      - [ ] 3: Fix and prove with 1000 runs (pending, medium)

    Subagents:
      - [phase-2] @debugger@0.3 (embed): Every failure is an id collision under parallel test threads.
      - [phase-2] @linter@2.1 (inline): Static checks are clean.

    Last error [phase-1]: Two processes allocated `2025-12-10-session` in the same second.
      resolution: traced to a check-then-create race; see the next phase.

    Stops at: phase-3 Narrow it down @debugger@0.3 #dev
      last: [!decision_needed] Should ids be allocated under the directory lock as well?
    (1 later phase(s) in the file are after the resume point and not in the context)
    ");
    assert!(
        out.stderr.contains("No agent backend is configured"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--agent-cmd"), "{}", out.stderr);
    assert_eq!(std::fs::read(paused_file(&kiln)).unwrap(), before);
}

#[test]
fn messages_are_a_valid_chat_completions_array() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "resume", PAUSED, "--format", "messages"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let messages: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You are a careful Rust engineer.")
    );
    let mut open: HashSet<String> = HashSet::new();
    let mut tool_calls = 0;
    for m in &messages {
        let role = m["role"].as_str().unwrap();
        assert!(["system", "user", "assistant", "tool"].contains(&role));
        if role == "tool" {
            assert!(open.remove(m["tool_call_id"].as_str().unwrap()));
            continue;
        }
        assert!(open.is_empty(), "unanswered tool calls before {m}");
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            tool_calls += 1;
            let args = c["function"]["arguments"].as_str().unwrap();
            serde_json::from_str::<Value>(args).unwrap();
            open.insert(c["id"].as_str().unwrap().to_owned());
        }
    }
    assert!(open.is_empty());
    // Phases 1 to 3 (the resume point); not phase 4.
    assert_eq!(tool_calls, 5);
    let text = out.stdout;
    assert!(text.contains("Don't just add a retry loop, I want the real fix"));
    assert!(!text.contains("1000-run proof needs the CI machine"));
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Resume at phase-3")
    );
}

#[test]
fn prompt_and_json_formats() {
    let kiln = TestKiln::with_fixtures();
    let prompt = kiln.run(&["session", "resume", PAUSED, "--format", "prompt"]);
    assert_eq!(prompt.code, 0);
    assert!(
        prompt
            .stdout
            .starts_with("# Resuming session `2025-12-10-fix-flaky-test`")
    );
    assert!(prompt.stdout.contains("## System prompt"));
    assert!(
        prompt
            .stdout
            .contains("> [!decision]\n> Keep the 200-run loop")
    );
    let json = kiln.run(&["session", "resume", PAUSED, "--format", "json"]);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["session"]["id"], PAUSED);
    assert_eq!(v["session"]["status"], "paused");
    assert_eq!(v["phases"][2]["id"], "phase-3");
    assert_eq!(v["phases"][2]["agent"], "debugger@0.3");
    assert_eq!(
        v["decisions"][0]["text"],
        "Keep the 200-run loop as the reproduction; it fails within a minute."
    );
    assert_eq!(v["tasks"][1]["status"], "in_progress");
    assert_eq!(v["resume_at"], "phase-3");
    assert_eq!(v["phases"].as_array().unwrap().len(), 3);
    assert_eq!(v["phases_after_resume_point"], 1);
    assert_eq!(v["over_budget"], false);
}

#[test]
fn a_small_budget_trims_and_warns_when_decisions_do_not_fit() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "resume",
        PAUSED,
        "--format",
        "json",
        "--max-tokens",
        "540",
    ]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["over_budget"], false);
    assert!(v["estimated_tokens"].as_u64().unwrap() <= 540);
    // The oldest phase's tool calls went; the phase resumed at is whole.
    assert_eq!(v["phases"][0]["detail"], "trimmed");
    assert_eq!(v["phases"][0]["left_out"]["tool_calls"], 3);
    assert_eq!(v["phases"][2]["detail"], "full");
    let out = kiln.run(&[
        "session",
        "resume",
        PAUSED,
        "--format",
        "prompt",
        "--max-tokens",
        "10",
    ]);
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("over its budget"), "{}", out.stderr);
    assert!(
        out.stdout
            .contains("Keep the 200-run loop as the reproduction")
    );
}

#[test]
fn an_agent_command_continues_the_session_in_the_same_file() {
    let kiln = TestKiln::with_fixtures();
    let seen = kiln.root.path().join("seen");
    std::fs::create_dir(&seen).unwrap();
    let cmd = format!(
        "cat > {0}/prompt.md; cp \"$CRU_MESSAGES_FILE\" {0}/messages.json; echo 'The lock is not needed: create_new settles it.'",
        seen.display()
    );
    let out = kiln.run(&["session", "resume", "2025-12-10-fix", "--agent-cmd", &cmd]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "The lock is not needed: create_new settles it.\n"
    );
    // The agent got the prompt on stdin and the messages in the file.
    let prompt = std::fs::read_to_string(seen.join("prompt.md")).unwrap();
    assert!(prompt.contains("Resume at phase-3: Narrow it down"));
    let messages: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(seen.join("messages.json")).unwrap())
            .unwrap();
    assert_eq!(messages[0]["role"], "system");

    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    // The run stopped: paused again, after the phase it recorded.
    assert!(text.contains("status: paused"), "{text}");
    assert!(text.contains("resume_point: phase-5"), "{text}");
    let resumed = &text[text.find("## Resumed from phase-3").unwrap()..];
    assert!(
        resumed.starts_with("## Resumed from phase-3 @debugger@0.3 #dev\n<!-- phase: started="),
        "{resumed}"
    );
    assert!(
        resumed.ends_with(
            "> [!reply] @debugger@0.3\n\
             > The lock is not needed: create_new settles it.\n"
        ),
        "{resumed}"
    );
    let check = kiln.run(&["session", "validate", PAUSED]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    // The index sees it paused, as the file says.
    let list = kiln.run(&["session", "list", "--status", "paused", "--format", "json"]);
    assert!(list.stdout.contains(PAUSED), "{}", list.stdout);
}

#[test]
fn a_failing_agent_is_an_error_that_shows_its_stderr_and_changes_nothing() {
    let kiln = TestKiln::with_fixtures();
    let before = std::fs::read(paused_file(&kiln)).unwrap();
    let out = kiln.run(&[
        "session",
        "resume",
        PAUSED,
        "--agent-cmd",
        "cat >/dev/null; echo 'rate limited, try later' >&2; exit 4",
    ]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("exit code 4"), "{}", out.stderr);
    assert!(
        out.stderr.contains("rate limited, try later"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read(paused_file(&kiln)).unwrap(),
        before,
        "a resume that failed before the agent answered leaves the session as it was"
    );
}

#[test]
fn without_an_id_it_lists_resumable_sessions_and_exits_2_off_a_terminal() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "resume"]);
    assert_eq!(out.code, 2);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "Sessions to resume (paused first, newest first):");
    assert!(
        lines[1].contains("2025-12-10-fix-flaky-test  paused"),
        "{}",
        out.stdout
    );
    assert!(
        lines[2].contains("2025-12-12-start-docs  active"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("completed"));
    assert_eq!(lines.last().unwrap(), &"Name one: cru session resume <id>");
}

#[test]
fn missing_ambiguous_and_corrupt_sessions_are_errors_that_touch_nothing() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "resume",
        "no-such-session",
        "--agent-cmd",
        "echo hi",
    ]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("no-such-session"), "{}", out.stderr);

    let out = kiln.run(&["session", "resume", "2025-12-1", "--agent-cmd", "echo hi"]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("ambiguous") || out.stderr.contains("matches"),
        "{}",
        out.stderr
    );

    let broken = "---\ntype: session\nsession_id: 2025-12-13-broken\nstarted: 2025-12-13T10:00:00Z\nstatus: pausd\n---\n";
    let path = kiln.write("2025-12-13-broken.md", broken);
    let out = kiln.run(&[
        "session",
        "resume",
        "2025-12-13-broken",
        "--agent-cmd",
        "echo hi",
    ]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("2025-12-13-broken.md:5"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
}

#[test]
fn an_ended_session_is_not_continued() {
    let kiln = TestKiln::with_fixtures();
    let path = kiln.sessions().join("2025-12-11-refactor-store.md");
    let before = std::fs::read(&path).unwrap();
    let out = kiln.run(&[
        "session",
        "resume",
        "2025-12-11-refactor",
        "--agent-cmd",
        "echo hi",
    ]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("has ended"), "{}", out.stderr);
    assert!(out.stderr.contains("--format prompt"), "{}", out.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn an_empty_session_is_resumable_with_the_configured_command() {
    let kiln = TestKiln::with_fixtures();
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[agent]\ncommand = \"cat >/dev/null; echo started\"\nname = \"helper@2\"\n",
    )
    .unwrap();
    let id = kiln
        .run(&["session", "start", "--title", "Nothing yet"])
        .stdout;
    let id = id.trim();
    let out = kiln.run(&["session", "resume", id]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "started\n");
    let text = std::fs::read_to_string(kiln.sessions().join(format!("{id}.md"))).unwrap();
    assert!(text.contains("## Resumed @helper@2"), "{text}");
    assert!(text.contains("> [!reply] @helper@2\n> started"), "{text}");
    assert!(text.contains("  - helper@2"), "{text}");
}

#[test]
fn an_openai_compatible_endpoint_from_config_records_reply_and_tokens() {
    let kiln = TestKiln::with_fixtures();
    let (url, server) = serve_one_completion("Next: run the 1000-run proof on CI.");
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        format!(
            "[agent]\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel = \"stub-model\"\n\
             api_key_env = \"CRU_TEST_KEY\"\ntimeout = \"20s\"\n"
        ),
    )
    .unwrap();
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "resume", PAUSED, "--once"])
            .env("CRU_TEST_KEY", "sk-not-shown"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Next: run the 1000-run proof on CI.\n");
    assert!(!out.stderr.contains("sk-not-shown"));
    let request: Value = serde_json::from_str(&server.join().unwrap()).unwrap();
    assert_eq!(request["model"], "stub-model");
    assert_eq!(request["messages"][0]["role"], "system");
    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    // The reply's 780 in a usage record: `tokens_used` becomes the total by
    // the attribution rule, the phases' 2300 + 4610 and the reply's 780
    // (what `stats` counted before the reply was 6910, not the 9120 the
    // fixture's frontmatter wrote).
    assert!(text.contains("tokens_used: 7690"), "{text}");
    // The model the endpoint says answered, not the one asked for, in a
    // usage record with the kinds the endpoint gave (700 prompt tokens,
    // 500 of them read from its cache).
    let resumed = &text[text.find("## Resumed from phase-3").unwrap()..];
    assert!(resumed.contains(" model=stub-1"), "{resumed}");
    let usage = resumed
        .lines()
        .find(|l| l.starts_with("<!-- usage:"))
        .unwrap_or_else(|| panic!("no usage line: {resumed}"));
    for kv in ["model=stub-1", "input=200", "output=80", "cache_read=500"] {
        assert!(usage.contains(kv), "{kv} in {usage}");
    }
    assert!(text.contains("> Next: run the 1000-run proof on CI."));
    // ... and the usage views count it under that model.
    let daily = kiln.run(&["usage", "daily", "--json"]);
    assert_eq!(daily.code, 0, "{}", daily.stderr);
    let daily: Value = serde_json::from_str(&daily.stdout).unwrap();
    let stub: Vec<&Value> = daily["daily"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["modelBreakdowns"].as_array().unwrap())
        .filter(|m| m["modelName"] == "stub-1")
        .collect();
    assert_eq!(stub.len(), 1, "{daily}");
    assert_eq!(
        [
            &stub[0]["inputTokens"],
            &stub[0]["outputTokens"],
            &stub[0]["cacheReadTokens"]
        ],
        [200, 80, 500]
    );

    // The key variable unset: a clear error before anything is recorded.
    let before = std::fs::read(paused_file(&kiln)).unwrap();
    let out = kiln.run(&["session", "resume", PAUSED]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("$CRU_TEST_KEY"), "{}", out.stderr);
    assert_eq!(std::fs::read(paused_file(&kiln)).unwrap(), before);
}

/// `inner`, a shell command line, run by `script` (util-linux, on every
/// Debian system) on a pseudo-terminal in `kiln`, with none of the
/// caller's cru settings; `None` (and a note) without `script`.
fn on_a_terminal(kiln: &TestKiln, inner: &str) -> Option<std::process::Command> {
    let script = std::path::Path::new("/usr/bin/script");
    if !script.exists() {
        eprintln!("skipped: no /usr/bin/script to give cru a terminal");
        return None;
    }
    let mut cmd = std::process::Command::new(script);
    cmd.args(["-qec", inner, "/dev/null"])
        .current_dir(kiln.root.path())
        .env("HOME", kiln.root.path().join("home"))
        .env_remove("CRU_SESSIONS_DIR")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME");
    Some(cmd)
}

/// The turn-by-turn loop needs a terminal: `script` (util-linux, on every
/// Debian system) gives the command a pseudo-terminal and types for us.
#[test]
fn on_a_terminal_it_goes_turn_by_turn_until_pause() {
    let kiln = TestKiln::with_fixtures();
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let inner = format!(
        "{} session resume {PAUSED} --agent-cmd 'cat >/dev/null; echo reply-from-agent'",
        cru.display()
    );
    let Some(mut on_a_terminal) = on_a_terminal(&kiln, &inner) else {
        return;
    };
    let mut child = on_a_terminal
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"please add the lock\n\n/pause\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("Type to reply; /pause or EOF"), "{shown}");
    assert!(
        shown.contains("Paused 2025-12-10-fix-flaky-test at phase-5"),
        "{shown}"
    );

    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    let resumed = &text[text.find("## Resumed from phase-3").unwrap()..];
    assert!(
        resumed.ends_with(
            "> [!reply] @debugger@0.3\n> reply-from-agent\n\n\
             > [!user]\n> \"please add the lock\"\n\n\
             > [!reply] @debugger@0.3\n> reply-from-agent\n"
        ),
        "{resumed}"
    );
    // Paused at the resumed phase (phase-5: after the four of the fixture).
    assert!(text.contains("status: paused"), "{text}");
    assert!(text.contains("resume_point: phase-5"), "{text}");
    assert_eq!(kiln.run(&["session", "validate", PAUSED]).code, 0);
}

/// EOF (Ctrl-D) on the terminal stops the run like `/pause`: paused after
/// the phase this run recorded.
#[test]
fn on_a_terminal_eof_pauses_after_the_run() {
    let kiln = TestKiln::with_fixtures();
    let cru = assert_cmd::cargo::cargo_bin("cru");
    // The typed line, then Ctrl-D (0x04) as a terminal sends it.
    let inner = format!(
        "printf 'one more thing\\n\\004' | {} session resume {PAUSED} \
         --agent-cmd 'cat >/dev/null; echo reply-from-agent'",
        cru.display()
    );
    let Some(mut on_a_terminal) = on_a_terminal(&kiln, &inner) else {
        return;
    };
    let out = on_a_terminal
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    assert!(text.contains("status: paused"), "{shown}\n{text}");
    assert!(text.contains("resume_point: phase-5"), "{shown}\n{text}");
}

/// The tool calls of `blocks`, by tool and whether each failed.
fn tool_calls_in(blocks: &[&crucible_core::Block]) -> Vec<(String, bool)> {
    blocks
        .iter()
        .filter_map(|b| match b {
            crucible_core::Block::ToolCalls { calls } => Some(calls),
            _ => None,
        })
        .flatten()
        .map(|c| (c.tool.clone(), c.failed))
        .collect()
}

/// What each `[!user]` callout of `blocks` says.
fn user_quotes_in(blocks: &[&crucible_core::Block]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| match b {
            crucible_core::Block::Callout(c) if c.kind() == crucible_core::CalloutKind::User => {
                Some(c.user_parts().quote.unwrap_or_else(|| c.text()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn messages_round_trip_through_the_openai_messages_importer() {
    use crucible_core::{Block, CalloutKind, SessionStore};
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "resume", PAUSED, "--format", "messages"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let messages: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    let file = kiln.root.path().join("resume-messages.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let other = kiln.root.path().join("imported");
    let imported = kiln.run(&[
        "--dir",
        &other.to_string_lossy(),
        "session",
        "import",
        "--from",
        "openai-messages",
        &file.to_string_lossy(),
    ]);
    assert_eq!(imported.code, 0, "{}", imported.stderr);

    let codec = crucible_parser::MarkdownCodec;
    let original = SessionStore::new(kiln.sessions(), codec)
        .load(PAUSED)
        .unwrap()
        .1;
    let files = crucible_core::store::session_files(&other).unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    let back = SessionStore::new(&other, crucible_parser::MarkdownCodec)
        .load_path(&files[0])
        .unwrap();

    // The phases in the context (1 to 3): their tool calls, in order.
    let context_blocks: Vec<&Block> = original
        .phases()
        .take(3)
        .flat_map(|(_, p)| p.blocks.iter())
        .collect();
    let back_blocks: Vec<&Block> = back.phases().flat_map(|(_, p)| p.blocks.iter()).collect();
    assert_eq!(tool_calls_in(&back_blocks), tool_calls_in(&context_blocks));
    let args = |log: &crucible_core::SessionLog| -> Vec<String> {
        log.tool_calls().map(|c| c.args.clone()).collect()
    };
    let original_args: Vec<String> = args(&original).into_iter().take(5).collect();
    assert_eq!(args(&back), original_args);

    // Each user intervention comes back as a [!user] callout, in order.
    let original_quotes = user_quotes_in(&context_blocks);
    assert!(!original_quotes.is_empty());
    let back_quotes = user_quotes_in(&back_blocks);
    let mut rest = back_quotes.iter();
    for q in &original_quotes {
        assert!(
            rest.any(|b| b.contains(q.as_str())),
            "{q:?} not in {back_quotes:?}"
        );
    }

    // Each assistant text is one [!reply], word for word, in order.
    let assistant: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_str())
        .collect();
    let replies: Vec<String> = back
        .callouts()
        .filter(|c| c.kind() == CalloutKind::Other("reply".into()))
        .map(|c| c.text().trim().to_owned())
        .collect();
    assert_eq!(replies, assistant);
}

#[test]
fn exit_codes_follow_the_rule() {
    let kiln = TestKiln::with_fixtures();
    let code = |args: &[&str]| kiln.run(args).code;
    // 2: wrong usage, or a choice that cannot be asked for.
    assert_eq!(code(&["session", "resume"]), 2, "no id off a terminal");
    assert_eq!(
        code(&["session", "resume", "2025-12-1", "--agent-cmd", "echo hi"]),
        2
    );
    assert_eq!(code(&["session", "resume", PAUSED, "--format", "yaml"]), 2);
    // 1: failed.
    assert_eq!(code(&["session", "resume", "no-such-session"]), 1);
    assert_eq!(
        code(&[
            "session",
            "resume",
            "2025-12-11-refactor",
            "--agent-cmd",
            "echo hi"
        ]),
        1,
        "an ended session is not continued"
    );
    assert_eq!(
        code(&[
            "session",
            "resume",
            PAUSED,
            "--agent-cmd",
            "cat >/dev/null; exit 5"
        ]),
        1,
        "the agent failed"
    );
    // 0: done.
    assert_eq!(code(&["session", "resume", PAUSED, "--format", "json"]), 0);
    assert_eq!(
        code(&["session", "resume", PAUSED]),
        0,
        "the context, no backend"
    );
    assert_eq!(
        code(&[
            "session",
            "resume",
            PAUSED,
            "--agent-cmd",
            "cat >/dev/null; echo ok"
        ]),
        0
    );
}

/// A session file of `status` whose one phase says `text`.
fn session_saying(kiln: &TestKiln, id: &str, status: &str, text: &str) -> std::path::PathBuf {
    kiln.write(
        &format!("{id}.md"),
        &format!(
            "---\ntype: session\nsession_id: {id}\nstarted: 2026-01-02T10:00:00Z\n\
             status: {status}\nparticipants:\n  - helper@1.0\n---\n\n\
             ## Work @helper@1.0\n\n{text}\n"
        ),
    )
}

#[test]
fn query_resumes_the_best_paused_match_and_names_the_others() {
    let kiln = TestKiln::with_fixtures();
    session_saying(
        &kiln,
        "2026-01-02-quokka-best",
        "paused",
        "quokka quokka quokka, the quokka census.",
    );
    session_saying(
        &kiln,
        "2026-01-02-quokka-some",
        "paused",
        "One quokka, among many other words of a longer phase about animals.",
    );
    session_saying(
        &kiln,
        "2026-01-02-quokka-done",
        "completed",
        "quokka quokka quokka quokka quokka",
    );
    session_saying(
        &kiln,
        "2026-01-02-quokka-live",
        "active",
        "quokka quokka quokka quokka",
    );
    let out = kiln.run(&["session", "resume", "--query", "quokka", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cx: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        cx["session"]["id"], "2026-01-02-quokka-best",
        "{}",
        out.stdout
    );
    // Paused before active (the picker's order), the completed one never.
    insta::assert_snapshot!(out.stderr, @r#"
    warning: search index is missing: rebuilt
    resuming 2026-01-02-quokka-best (best match of `quokka`: [KILN]/.crucible/sessions/2026-01-02-quokka-best.md:12)
    2 other sessions also match: 2026-01-02-quokka-some, 2026-01-02-quokka-live (resume one with `cru session resume ID`)
    "#);
}

#[test]
fn query_names_five_others_and_counts_the_rest() {
    let kiln = TestKiln::empty();
    for i in 0..8 {
        let text = "wombat ".repeat(8 - i);
        session_saying(&kiln, &format!("2026-01-02-wombat-{i}"), "paused", &text);
    }
    let out = kiln.run(&[
        "session", "resume", "--query", "wombat", "--format", "prompt",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| !l.starts_with("warning:"))
        .collect();
    assert!(
        lines[0].starts_with("resuming 2026-01-02-wombat-0 "),
        "{}",
        out.stderr
    );
    assert!(
        lines[1].starts_with("7 other sessions also match: ") && lines[1].contains(" and 2 more "),
        "{}",
        out.stderr
    );
    assert_eq!(
        lines[1].matches("2026-01-02-wombat-").count(),
        5,
        "{}",
        out.stderr
    );
}

#[test]
fn query_falls_back_to_an_active_session_and_honours_a_status_filter() {
    let kiln = TestKiln::with_fixtures();
    // Only the active fixture says "Outline".
    let out = kiln.run(&[
        "session", "resume", "--query", "outline", "--format", "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cx: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(cx["session"]["id"], "2025-12-12-start-docs");
    let out = kiln.run(&["session", "resume", "--query", "outline status:paused"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("error: no paused or active session matches `outline status:paused`"),
        "{}",
        out.stderr
    );
    let out = kiln.run(&["session", "resume", "--query", "flaky status:completed"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("asks for status:completed; only paused or active sessions are resumed"),
        "{}",
        out.stderr
    );
}

#[test]
fn query_matching_nothing_is_an_error_and_changes_nothing() {
    let kiln = TestKiln::with_fixtures();
    let before = std::fs::read(paused_file(&kiln)).unwrap();
    let out = kiln.run(&[
        "session",
        "resume",
        "--query",
        "zyzzyva",
        "--agent-cmd",
        "echo hi",
    ]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(out.stdout, "");
    insta::assert_snapshot!(out.stderr, @r#"
    warning: search index is missing: rebuilt
    error: no paused or active session matches `zyzzyva` in [KILN]/.crucible/sessions
    hint: `cru session search QUERY --status paused` lists what matches; `cru session resume` lists what can be resumed
    "#);
    assert_eq!(std::fs::read(paused_file(&kiln)).unwrap(), before);
    // A bad query is refused as `search` refuses it; an id and a query do not go together.
    let out = kiln.run(&["session", "resume", "--query", "\"open"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("bad query at column 1"),
        "{}",
        out.stderr
    );
    let out = kiln.run(&["session", "resume", PAUSED, "--query", "flaky"]);
    assert_eq!(out.code, 2);
}

#[test]
fn query_continues_the_chosen_session_with_an_agent() {
    let kiln = TestKiln::with_fixtures();
    let other = session_saying(
        &kiln,
        "2026-01-02-race-notes",
        "paused",
        "Notes on another topic.",
    );
    let other_before = std::fs::read(&other).unwrap();
    let out = kiln.run(&[
        "session",
        "resume",
        "--query",
        "create_new",
        "--agent-cmd",
        "cat >/dev/null; echo 'Picked by search.'",
        "--once",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Picked by search.\n");
    let text = std::fs::read_to_string(paused_file(&kiln)).unwrap();
    assert!(text.contains("> Picked by search.\n"), "{text}");
    assert_eq!(std::fs::read(&other).unwrap(), other_before);
}
