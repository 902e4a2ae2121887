use crate::kiln::{TestKiln, fixtures};

#[test]
fn show_text_renders_header_phases_callouts_and_embeds() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "show", "2025-12-10-FIX"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r#"
    Fix the flaky store test
      id           2025-12-10-fix-flaky-test
      status       paused
      started      2025-12-10T09:15:00Z
      channel      dev
      participants orchestrator@1.0, debugger@0.3
      model        claude-sonnet-4-20250514
      tokens       9,120
      cost         $0.1840
      subagents    2025-12-10-investigate-ci  debugger@0.3  claude-haiku-4-20250514  2,210 tokens
      resume at    phase-3 (Narrow it down)
      ticket       CRU-142
      labels       ["flaky","ci"]
      file         [KILN]/.crucible/sessions/2025-12-10-fix-flaky-test.md

    CI fails about one run in twenty on `store::tests::concurrent_create`.

    system prompt
      You are a careful Rust engineer. Reproduce before you fix.
      Never weaken a test to make it pass.

    Tasks
      [x] Reproduce the failure locally (high)
      [~] Find the race (high)
      [ ] Fix and prove with 1000 runs (medium)

    phase-1  Reproduce @orchestrator@1.0 #dev
      started 2025-12-10T09:15:00Z · 9m 0s · 2,300 tokens · claude-sonnet-4-20250514
      tool calls
        • bash cargo test -p crucible-core concurrent_create → 1 passed
        ✗ bash for i in $(seq 200); do cargo test -q concurrent_create || break; done → failed on run 37: id collision
        • read crates/crucible-core/src/store/allocate.rs → 61 lines

      │ ERROR
      │ Two processes allocated `2025-12-10-session` in the same second.
      │ Resolution: traced to a check-then-create race; see the next phase.

      │ DECISION
      │ Keep the 200-run loop as the reproduction; it fails within a minute.

    phase-2  Find the race @orchestrator@1.0 #dev
      started 2025-12-10T09:24:00Z · 21m 0s · 4,610 tokens

      │ SUBAGENT @debugger@0.3 (claude-haiku-4-20250514) · embed → 2025-12-10-investigate-ci
      │ Asked to read the CI logs of the last 20 failures.
      │ Summary: Every failure is an id collision under parallel test threads.
      │ Read the CI logs of the flaky test (2025-12-10-investigate-ci, completed, 2,210 tokens)
      │
      │   phase-1  Collect logs @debugger@0.3 #dev
      │     tool calls
      │       • bash gh run list --workflow ci --status failure -L 20 → 20 runs
      │       • bash gh run view 8812 --log-failed → id collision: 2025-12-10-session
      │
      │     │ DECISION
      │     │ All 20 failures share one signature; no need to read further.

      │ SUBAGENT @linter@2.1 (gpt-4o-mini) · inline
      │   **Tool calls:**
      │   - `clippy --all-targets` → 0 warnings
      │   Nothing suspicious outside allocate.rs.
      │ Summary: Static checks are clean.

      phase-3  Narrow it down @debugger@0.3 #dev
        tool calls
          • grep -n "exists()" crates/crucible-core/src/store/ → 2 matches
          • edit crates/crucible-core/src/store/allocate.rs → replaced exists()+create with create_new

        │ USER
        │ "Don't just add a retry loop, I want the real fix" - agreed: use create-new
        │ semantics so the file system settles the race.

        │ DECISION_NEEDED
        │ Should ids be allocated under the directory lock as well?

    phase-4  Prove it @orchestrator@1.0 #ci

      │ NOTE
      │ Paused here: the 1000-run proof needs the CI machine.

    Notes
      The race only shows with more than one test thread.
    "#);
}

#[test]
fn show_markdown_is_the_canonical_file() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "show",
        "2025-12-11-refactor-store",
        "--format",
        "markdown",
    ]);
    assert_eq!(out.code, 0);
    let file =
        std::fs::read_to_string(kiln.sessions().join("2025-12-11-refactor-store.md")).unwrap();
    assert_eq!(out.stdout, file);
}

#[test]
fn show_json_is_the_parsed_session() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "show", "2025-11-28", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["session"]["id"], "2025-11-28-ci-failure");
    assert_eq!(
        v["session"]["frontmatter"]["session_id"],
        "2025-11-28-ci-failure"
    );
    assert_eq!(v["session"]["frontmatter"]["status"], "failed");
    let phase = &v["session"]["sections"][0];
    assert_eq!(phase["kind"], "phase");
    assert_eq!(phase["agent"], "release-bot@2.0");
    assert_eq!(phase["blocks"][0]["calls"][0]["failed"], true);
    assert_eq!(
        phase["blocks"][2]["user"]["quote"],
        "stop, I'll fix the image myself"
    );
}

#[test]
fn show_reads_a_path_outside_the_sessions_directory() {
    let kiln = TestKiln::empty();
    let sample = fixtures().join("sessions/feature-implementation-session.md");
    let out = kiln.run(&["session", "show", sample.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("Feature Implementation: Workflow Sessions\n")
    );
    assert_eq!(out.stdout.matches("phase-").count(), 4);
    assert_eq!(out.stdout.matches("│ SUBAGENT").count(), 2);
}

#[test]
fn missing_and_ambiguous_sessions_are_errors_with_hints() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "show", "nope"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @r#"
    error: no session matches `nope` in [KILN]/.crucible/sessions
    hint: pass a path to the file, or --dir for another sessions directory
    "#);
    let out = kiln.run(&["session", "show", "2025-12-1"]);
    assert_eq!(out.code, 2, "an ambiguous name is wrong usage");
    insta::assert_snapshot!(out.stderr, @"
    error: `2025-12-1` matches 7 sessions: 2025-12-10-fix-flaky-test, 2025-12-10-investigate-ci, 2025-12-11-refactor-store, 2025-12-11-write-tests, 2025-12-12-long-migration, 2025-12-12-start-docs, 2025-12-13-config-loader
    hint: type more of the id
    ");
    let out = kiln.run(&["session", "show", "no/such/session.md"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @"error: no/such/session.md: no such file");
    let out = kiln.run(&["session", "show", ".crucible/sessions"]);
    assert_eq!(
        out.code, 2,
        "a folder where a file is asked for is wrong usage"
    );
    insta::assert_snapshot!(out.stderr, @r"
    error: .crucible/sessions: a directory, not a session file
    hint: name one session file; `cru session validate` takes directories
    ");
}

#[test]
fn an_invalid_file_is_an_error_naming_file_and_line() {
    let kiln = TestKiln::empty();
    let bad = fixtures().join("invalid/unknown-status.md");
    let out = kiln.run(&["session", "show", bad.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @"error: [FIXTURES]/invalid/unknown-status.md:5: status `done` is not one of active, paused, completed, failed");
}

fn embedding(id: &str, child: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n\
         ## Work @a #dev\n\n> [!subagent] @b\n> mode: embed\n> ![[{child}]]\n"
    )
}

#[test]
fn a_cycle_of_embeds_is_shown_once_with_a_note() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-12-01-a.md",
        &embedding("2025-12-01-a", "2025-12-01-b"),
    );
    kiln.write(
        "2025-12-01-b.md",
        &embedding("2025-12-01-b", "2025-12-01-a"),
    );
    let out = kiln.run(&["session", "show", "2025-12-01-a"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r#"
    2025-12-01-a
      id           2025-12-01-a
      status       completed
      started      2025-12-01T10:00:00Z
      file         [KILN]/.crucible/sessions/2025-12-01-a.md

    phase-1  Work @a #dev

      │ SUBAGENT @b · embed → 2025-12-01-b
      │ 2025-12-01-b (2025-12-01-b, completed)
      │
      │   phase-1  Work @a #dev
      │
      │     │ SUBAGENT @b · embed → 2025-12-01-a
      │     │ ↻ 2025-12-01-a is already shown above (embed cycle); not repeated
    "#);
}

#[test]
fn a_missing_embed_is_noted_not_fatal() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-12-01-a.md",
        &embedding("2025-12-01-a", "2025-12-01-gone"),
    );
    let out = kiln.run(&["session", "show", "2025-12-01-a"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .contains("(embedded session not shown: no session matches `2025-12-01-gone`"),
        "{}",
        out.stdout
    );
}

#[test]
fn colour_only_when_asked_for_and_never_with_no_color() {
    let kiln = TestKiln::with_fixtures();
    let plain = kiln.run(&["session", "show", "2025-11-28"]);
    assert!(!plain.stdout.contains('\u{1b}'));
    let forced = kiln.run_cmd(
        kiln.command()
            .args(["session", "show", "2025-11-28"])
            .env("CLICOLOR_FORCE", "1"),
    );
    assert!(forced.stdout.contains("\u{1b}["), "{}", forced.stdout);
    let no_color = kiln.run_cmd(
        kiln.command()
            .args(["session", "show", "2025-11-28"])
            .env("CLICOLOR_FORCE", "1")
            .env("NO_COLOR", "1"),
    );
    assert_eq!(no_color.stdout, plain.stdout);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let kiln = TestKiln::with_fixtures();
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let out = kiln.run_cmd(
        assert_cmd::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "'{}' session show 2025-12-12-long | head -n 1",
                cru.display()
            ))
            .current_dir(kiln.root.path())
            .env("HOME", kiln.root.path()),
    );
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "Migrate orders to the new schema\n");
    assert_eq!(out.stderr, "");
}

#[test]
fn static_completions_are_generated() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["completions", "bash", "--static"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("_cru()"));
    assert!(out.stdout.contains("validate"));
}

#[test]
fn show_a_phase_prints_the_header_and_that_phase_only() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "show", "2025-12-10-FIX#phase-3"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r#"
    Fix the flaky store test
      id           2025-12-10-fix-flaky-test
      status       paused
      started      2025-12-10T09:15:00Z
      channel      dev
      participants orchestrator@1.0, debugger@0.3
      model        claude-sonnet-4-20250514
      tokens       9,120
      cost         $0.1840
      subagents    2025-12-10-investigate-ci  debugger@0.3  claude-haiku-4-20250514  2,210 tokens
      resume at    phase-3 (Narrow it down)
      ticket       CRU-142
      labels       ["flaky","ci"]
      file         [KILN]/.crucible/sessions/2025-12-10-fix-flaky-test.md

      phase-3  Narrow it down @debugger@0.3 #dev
        tool calls
          • grep -n "exists()" crates/crucible-core/src/store/ → 2 matches
          • edit crates/crucible-core/src/store/allocate.rs → replaced exists()+create with create_new

        │ USER
        │ "Don't just add a retry loop, I want the real fix" - agreed: use create-new
        │ semantics so the file system settles the race.

        │ DECISION_NEEDED
        │ Should ids be allocated under the directory lock as well?
    "#);
}

#[test]
fn show_a_phase_as_markdown_is_its_canonical_text_without_frontmatter() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "show",
        "2025-12-10-fix-flaky-test#phase-3",
        "--format",
        "markdown",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r#"
    ### Narrow it down @debugger@0.3 #dev

    **Tool calls:**
    - `grep -n "exists()" crates/crucible-core/src/store/` → 2 matches
    - `edit crates/crucible-core/src/store/allocate.rs` → replaced exists()+create with create_new

    > [!user]
    > "Don't just add a retry loop, I want the real fix" - agreed: use create-new
    > semantics so the file system settles the race.

    > [!decision_needed]
    > Should ids be allocated under the directory lock as well?
    "#);
}

#[test]
fn show_a_phase_as_json_is_the_section_full_show_prints() {
    let kiln = TestKiln::with_fixtures();
    let whole = kiln.run(&[
        "session",
        "show",
        "2025-12-10-fix-flaky-test",
        "--format",
        "json",
    ]);
    let whole: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
    let phases: Vec<&serde_json::Value> = whole["session"]["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "phase")
        .collect();
    assert_eq!(phases.len(), 4);
    for (i, expected) in phases.iter().enumerate() {
        let n = i + 1;
        let arg = format!("2025-12-10-fix-flaky-test#phase-{n}");
        let out = kiln.run(&["session", "show", &arg, "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["id"], "2025-12-10-fix-flaky-test");
        assert_eq!(v["phase"], arg.as_str());
        assert_eq!(v["number"], n);
        assert_eq!(v["path"], whole["path"]);
        assert_eq!(&v["section"], *expected, "phase-{n}");
    }
}

#[test]
fn show_a_phase_that_does_not_exist_says_which_do() {
    let kiln = TestKiln::with_fixtures();
    for (arg, expected) in [
        (
            "2025-12-10-fix-flaky-test#phase-5",
            "error: no phase-5: session 2025-12-10-fix-flaky-test has 4 phases (phase-1 to phase-4)\n",
        ),
        (
            "2025-12-10-fix-flaky-test#phase-0",
            "error: no phase-0 (phases count from 1): session 2025-12-10-fix-flaky-test has 4 phases (phase-1 to phase-4)\n",
        ),
        (
            "2025-12-10-fix-flaky-test#phase-x",
            "error: `phase-x` is not a phase (expected #phase-N, N a number from 1): session 2025-12-10-fix-flaky-test has 4 phases (phase-1 to phase-4)\n",
        ),
    ] {
        let out = kiln.run(&["session", "show", arg]);
        assert_eq!(out.code, 2, "{arg}: {}", out.stdout);
        assert_eq!(out.stderr, expected, "{arg}");
        assert_eq!(out.stdout, "", "{arg}");
    }
}

#[test]
fn show_a_phase_of_a_file_by_path() {
    let kiln = TestKiln::with_fixtures();
    let path = kiln.sessions().join("2025-12-10-fix-flaky-test.md");
    let arg = format!("{}#phase-2", path.display());
    let out = kiln.run(&["session", "show", &arg, "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["section"]["name"], "Find the race");
    // A file whose name holds `#phase-` is that file.
    let odd = kiln.write(
        "notes#phase-1.md",
        &std::fs::read_to_string(&path).unwrap().replace(
            "session_id: 2025-12-10-fix-flaky-test",
            "session_id: 2025-12-10-odd-name",
        ),
    );
    let out = kiln.run(&[
        "session",
        "show",
        &odd.display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["session"]["id"], "2025-12-10-odd-name");
}

/// What a search hit names is what `show` opens: for words of several
/// phases, each hit's phase, shown, holds the word, and its line is in it.
#[test]
fn every_search_hit_opens_with_show() {
    let kiln = TestKiln::with_fixtures();
    for word in ["create_new", "collision", "clippy", "flaky", "reproduce"] {
        let out = kiln.run(&[
            "session",
            "search",
            word,
            "--limit",
            "0",
            "--per-session",
            "50",
            "--format",
            "json",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let hits = v["hits"].as_array().unwrap();
        assert!(!hits.is_empty(), "{word}");
        for hit in hits {
            let phase = hit["phase"].as_str().unwrap();
            let shown = kiln.run(&["session", "show", phase, "--format", "markdown"]);
            assert_eq!(shown.code, 0, "{phase}: {}", shown.stderr);
            if phase.contains("#phase-") {
                assert!(
                    shown.stdout.to_lowercase().contains(word),
                    "{word}: {phase} does not hold it:\n{}",
                    shown.stdout
                );
            }
        }
    }
}

/// `--full` with one phase: the sidecar's records of that phase only, and
/// the text's full calls numbered as in the whole session.
#[test]
fn show_a_phase_full_keeps_that_phases_records() {
    let kiln = TestKiln::empty();
    let rollout = fixtures().join(
        "foreign/codex/sessions/2025/09/02/rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl",
    );
    let out = kiln.run(&["session", "import", rollout.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let whole = kiln.run(&["session", "show", &id, "--full", "--format", "json"]);
    let whole: serde_json::Value = serde_json::from_str(&whole.stdout).unwrap();
    let records = whole["data"].as_array().unwrap();
    for n in [1_u64, 2] {
        let arg = format!("{id}#phase-{n}");
        let out = kiln.run(&["session", "show", &arg, "--full", "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let expected: Vec<&serde_json::Value> =
            records.iter().filter(|r| r["phase"] == n - 1).collect();
        assert!(!expected.is_empty(), "phase-{n}");
        assert_eq!(
            v["data"].as_array().unwrap().iter().collect::<Vec<_>>(),
            expected
        );
        // The text of the phase with --full is the whole session's, cut to it.
        let text = kiln.run(&["session", "show", &arg, "--full"]);
        let all = kiln.run(&["session", "show", &id, "--full"]);
        let body = text
            .stdout
            .split_once(&format!("\n\nphase-{n}  "))
            .unwrap()
            .1;
        assert!(
            all.stdout.contains(body.trim_end()),
            "phase-{n}:\n{}",
            text.stdout
        );
    }
}
