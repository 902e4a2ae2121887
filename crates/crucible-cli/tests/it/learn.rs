//! `cru session learn` on the fixtures: which cases each export writes,
//! the trainers' line checks, filters, redaction, and bad files.

use crucible_learn::Schema;
use crucible_learn::check::check_line;
use serde_json::Value;

use crate::kiln::TestKiln;

/// `kind session phase case_id` per JSONL line.
fn cases(jsonl: &str) -> String {
    jsonl
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let m = &v["metadata"];
            format!(
                "{} {} {} {}",
                m["kind"].as_str().unwrap(),
                m["session_id"].as_str().unwrap(),
                m["phase_id"].as_str().unwrap(),
                m["case_id"].as_str().unwrap()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn jsonl_exports_the_expected_cases_in_every_schema() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "learn", "--export", "jsonl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(cases(&out.stdout), @"
    puzzle 2025-12-05-feature-impl phase-2 puz-7bb802497d33b0ff
    correction 2025-12-05-feature-impl phase-2 cor-1ba683727935ec07
    puzzle 2025-12-10-fix-flaky-test phase-1 puz-5bcc839d202f6168
    correction 2025-12-10-fix-flaky-test phase-3 cor-ccfae0498847e7bf
    puzzle 2025-12-11-refactor-store phase-2 puz-718ec6b8e981a231
    puzzle 2025-12-12-long-migration phase-5 puz-ebb8deb6e68f90bb
    puzzle 2025-12-13-config-loader phase-2 puz-a8bc1392c3e75248
    correction 2025-12-13-config-loader phase-3 cor-3d10194366cf1e21
    ");
    insta::assert_snapshot!(out.stderr, @"8 cases (5 puzzles, 3 corrections) from 9 sessions; 2 left out (open puzzles have no answer to train on; a DPO pair needs both sides)");
    for (schema, name) in [
        (Schema::Sft, "sft"),
        (Schema::Dpo, "dpo"),
        (Schema::ShareGpt, "sharegpt"),
    ] {
        let out = kiln.run(&["session", "learn", "--export", "jsonl", "--schema", name]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stdout.is_empty());
        for line in out.stdout.lines() {
            check_line(schema, line).unwrap_or_else(|e| panic!("{name}: {e}\n{line}"));
        }
    }
    // The same export twice: the same bytes (stable ids, stable order).
    let again = kiln.run(&["session", "learn", "--export", "jsonl"]);
    assert_eq!(again.stdout, out_sft(&kiln));
}

fn out_sft(kiln: &TestKiln) -> String {
    kiln.run(&["session", "learn", "--all", "--export", "jsonl"])
        .stdout
}

#[test]
fn a_correction_teaches_the_users_words_and_the_corrected_behaviour() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "learn",
        "2025-12-13-config",
        "--type",
        "correction",
        "--export",
        "jsonl",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let m = v["messages"].as_array().unwrap();
    let n = m.len();
    assert_eq!(m[n - 2]["role"], "user");
    assert_eq!(
        m[n - 2]["content"],
        "Make the unknown-key error name the line"
    );
    assert_eq!(m[n - 1]["role"], "assistant");
    assert_eq!(m[n - 1]["content"], "done in the loader.");
    assert_eq!(v["metadata"]["agent"], "coder@1.4");
    assert_eq!(v["metadata"]["model"], "claude-sonnet-4-20250514");
}

#[test]
fn markdown_and_puzzle_exports() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session", "learn", "--status", "failed", "--export", "markdown",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    # Learning cases

    Puzzles (from `[!error]` callouts) and corrections (from `[!user]` interventions), exported by `cru session learn`.

    ## Open puzzle `puz-7f2d54171e7c3df2`: Build

    session `2025-11-28-ci-failure` · phase-1 (Build) · @release-bot@2.0 · #ops · gpt-4o · session failed · 2025-11-28T17:02:11Z

    **Task:** Release build fails on the runner

    **What the agent did:**

    - `bash cargo build --release` → ✗ linker `cc` not found
    - `bash apt-get install -y gcc` → ✗ permission denied

    **What went wrong:**

    > The runner image has no C toolchain and the bot cannot install one.

    **Open:** no resolution was logged.

    ## Correction `cor-357db2b12def2cdf`: Build

    session `2025-11-28-ci-failure` · phase-1 (Build) · @release-bot@2.0 · #ops · gpt-4o · session failed · 2025-11-28T17:02:11Z

    **Task:** Release build fails on the runner

    **What the agent did:**

    - `bash cargo build --release` → ✗ linker `cc` not found
    - `bash apt-get install -y gcc` → ✗ permission denied

    > [error] The runner image has no C toolchain and the bot cannot install one.

    **The user said:**

    > stop, I'll fix the image myself
    ");
    let out = kiln.run(&["session", "learn", "--export", "puzzle", "--type", "puzzle"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout.matches("### Puzzle `puz-").count(), 6);
    assert_eq!(
        out.stdout
            .matches("<details><summary>Answer</summary>")
            .count(),
        5
    );
    assert!(out.stdout.contains("_Open: no answer was logged._"));
}

const SESSION_WITH_SECRETS: &str = "---
type: session
session_id: 2025-12-20-deploy
started: 2025-12-20T10:00:00Z
status: completed
---

# Deploy with credentials

## Deploy @ops@1 #prod

**Tool calls:**
- `bash curl -H \"Authorization: Bearer abcdefghijklmnop1234567890\" https://api.example.com` → 401
- `bash export OPENAI_API_KEY=sk-proj-AAAAbbbbCCCCddddEEEEffff0000` → ok
- `bash aws s3 ls --key AKIAZZZZYYYYXXXXWWWW` → ✗ denied with ghp_0123456789abcdefghijklmnopqrstuvwxyz

> [!error]
> Slack webhook rejected token xoxb-999999999999-QWERTYUIOPAS
> Resolution: use the new secret=\"correct horse battery staple\" from the vault.

> [!user]
> \"the db is postgres://admin:Tr0ub4dor@db.internal/app, use that\" - done.
";

const PLANTED: &[&str] = &[
    "abcdefghijklmnop1234567890",
    "sk-proj-AAAAbbbbCCCCddddEEEEffff0000",
    "AKIAZZZZYYYYXXXXWWWW",
    "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
    "xoxb-999999999999-QWERTYUIOPAS",
    "correct horse battery staple",
    "Tr0ub4dor",
];

#[test]
fn secrets_are_redacted_unless_asked_not_to() {
    let kiln = TestKiln::empty();
    kiln.write("2025-12-20-deploy.md", SESSION_WITH_SECRETS);
    for export in ["jsonl", "markdown", "puzzle"] {
        let out = kiln.run(&["session", "learn", "--export", export]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        for s in PLANTED {
            assert!(
                !out.stdout.contains(s),
                "{export} leaks {s}:\n{}",
                out.stdout
            );
        }
        assert!(out.stdout.contains("[REDACTED:"), "{export}");
    }
    let out = kiln.run(&["session", "learn", "--export", "jsonl", "--no-redact"]);
    for s in PLANTED {
        assert!(out.stdout.contains(s), "--no-redact lost {s}");
    }
}

#[test]
fn output_file_filters_and_skipped_files() {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        "broken.md",
        "---\ntype: session\nsession_id: broken\nstarted: 2025-01-01T00:00:00Z\nstatus: nope\n---\n",
    );
    let file = kiln.root.path().join("cases.jsonl");
    let out = kiln.run(&[
        "session",
        "learn",
        "--agent",
        "coder",
        "--export",
        "jsonl",
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 3, "a skipped file is exit 3: {}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("1 invalid files skipped"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("written to [KILN]/cases.jsonl"),
        "{}",
        out.stderr
    );
    let written = std::fs::read_to_string(&file).unwrap();
    insta::assert_snapshot!(cases(&written), @"
    puzzle 2025-12-05-feature-impl phase-2 puz-7bb802497d33b0ff
    correction 2025-12-05-feature-impl phase-2 cor-1ba683727935ec07
    puzzle 2025-12-13-config-loader phase-2 puz-a8bc1392c3e75248
    correction 2025-12-13-config-loader phase-3 cor-3d10194366cf1e21
    ");
    let out = kiln.run(&["session", "learn", "--export", "yaml"]);
    assert_eq!(out.code, 2);
}

/// The first JSONL line of `cru session learn ARGS... --export jsonl --schema S`.
fn first_line(kiln: &TestKiln, args: &[&str], schema: &str) -> Value {
    let mut all = vec!["session", "learn"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--export", "jsonl", "--schema", schema]);
    let out = kiln.run(&all);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = out.stdout.lines().next().unwrap_or_else(|| {
        panic!("no case: {}", out.stderr);
    });
    serde_json::from_str(line).unwrap()
}

#[test]
fn start_prompt_is_recorded_exactly_and_is_the_task_of_a_correction() {
    let kiln = TestKiln::empty();
    let prompt = "Make `cru list` fast.\n\n  Keep the output byte for byte.";
    let out = kiln.run(&[
        "session",
        "start",
        "--title",
        "Fast list",
        "--prompt",
        prompt,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let log = |args: &[&str]| {
        let mut all = vec!["session", "log", "--session", &id];
        all.extend_from_slice(args);
        let out = kiln.run(&all);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    };
    log(&["phase", "Profile", "--agent", "coder@1"]);
    log(&["tool", "bash", "cargo build --release", "--result", "ok"]);
    log(&["reply", "I will add a cache in front of the index."]);
    log(&["user", "no cache: read fewer files instead"]);
    log(&[
        "tool",
        "edit",
        "src/index.rs",
        "--result",
        "stat only changed files",
    ]);
    let md = kiln.run(&["session", "show", &id, "--format", "markdown"]);
    assert!(
        md.stdout.contains(&format!(
            "# Fast list\n\n```prompt\n{prompt}\n```\n\n## Profile"
        )),
        "{}",
        md.stdout
    );
    let pair = first_line(&kiln, &[&id], "dpo");
    let task = pair["prompt"][1]["content"].as_str().unwrap();
    assert!(
        task.starts_with("Task: Fast list: Make `cru list` fast. Keep the output byte for byte.\n"),
        "{task}"
    );
    assert!(
        !task.contains("no cache"),
        "the task is not the correction: {task}"
    );
    let rejected = pair["rejected"][0]["content"].as_str().unwrap();
    assert!(rejected.contains("I will add a cache"), "{rejected}");
    assert!(
        rejected.contains("`bash cargo build --release` → ok"),
        "{rejected}"
    );
    let chosen = pair["chosen"][0]["content"].as_str().unwrap();
    assert!(chosen.contains("`edit src/index.rs`"), "{chosen}");
    assert_eq!(pair["metadata"]["kind"], "correction");
}

#[test]
fn log_user_before_the_first_phase_records_the_prompt() {
    let kiln = TestKiln::empty();
    let id = kiln.run(&["session", "start"]).stdout.trim().to_owned();
    let out = kiln.run(&[
        "session",
        "log",
        "--session",
        &id,
        "user",
        "Port the parser to nom",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let md = kiln.run(&["session", "show", &id, "--format", "markdown"]);
    assert!(
        md.stdout.contains("```prompt\nPort the parser to nom\n```"),
        "{}",
        md.stdout
    );
    // Not an intervention in an implicit phase: nothing to correct yet.
    assert!(!md.stdout.contains("## Work"), "{}", md.stdout);
    assert!(!md.stdout.contains("[!user]"), "{}", md.stdout);
    let out = kiln.run(&["session", "learn", &id]);
    assert_eq!(
        out.code, 0,
        "nothing to learn is not an error: {}",
        out.stderr
    );
    assert!(out.stderr.contains("nothing to learn"), "{}", out.stderr);
}

/// Imports a real agent's files into a fresh kiln.
fn imported(paths: &[&str]) -> TestKiln {
    let kiln = TestKiln::empty();
    let mut args = vec!["session".to_owned(), "import".to_owned()];
    args.extend(paths.iter().map(|p| {
        crate::kiln::fixtures()
            .join("real")
            .join(p)
            .display()
            .to_string()
    }));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = kiln.run(&args);
    assert!(matches!(out.code, 0 | 3), "{}", out.stderr);
    kiln
}

#[test]
fn imported_corrections_take_the_first_real_user_message_as_task() {
    // Claude Code: the session opens with `/clear`, then the request; the
    // user's next turn corrects what the agent did in the first.
    let kiln = imported(&["claude-code/agentcmd/full/full-session-two.jsonl"]);
    let pair = first_line(&kiln, &["--type", "correction"], "dpo");
    let task = pair["prompt"][1]["content"].as_str().unwrap();
    assert!(
        task.starts_with("Task: please move the + button to it's own button to the right of the search in @apps/app/src/client/components/AppInnerSidebar.tsx\n"),
        "{task}"
    );
    assert!(
        !task.contains("/clear") && !task.contains("not the new session button"),
        "{task}"
    );
    let rejected = pair["rejected"][0]["content"].as_str().unwrap();
    assert!(rejected.contains("NewSessionButton.tsx"), "{rejected}");
    assert_eq!(pair["metadata"]["phase_id"], "phase-1");
    // Codex and Gemini CLI: the first user message is the prompt, never a case.
    for source in ["codex/ai-sessions", "gemini/ai-sessions"] {
        let kiln = imported(&[source]);
        let out = kiln.run(&["session", "learn", "--export", "jsonl"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stdout.is_empty(), "{source}: {}", out.stderr);
        for line in out.stdout.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let m = v["messages"].as_array().unwrap();
            let task = m[1]["content"].as_str().unwrap();
            let pomodoro = "Build a simple Pomodoro timer web app using HTML, CSS, and JavaScript.";
            assert!(
                task.starts_with(&format!("Task: {pomodoro}")),
                "{source}: {task}"
            );
            let words = m[m.len() - 2]["content"].as_str().unwrap();
            assert!(
                !words.starts_with(pomodoro),
                "{source}: the prompt made a case"
            );
        }
    }
}

#[test]
fn plain_continuations_make_no_case() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-12-21-go-on.md",
        "---\ntype: session\nsession_id: 2025-12-21-go-on\nstarted: 2025-12-21T10:00:00Z\nstatus: completed\n---\n\n\
         ## Fix it #main\n\n> [!user]\n> \"Fix the build\"\n\n**Tool calls:**\n- `bash make` → ✗ missing gcc\n\n\
         ## thanks, go on #main\n\n> [!user]\n> \"thanks, go on\"\n\n**Tool calls:**\n- `bash make` → ok\n\n\
         ## use clang instead #main\n\n> [!user]\n> \"use clang instead\"\n\n**Tool calls:**\n- `bash CC=clang make` → ok\n",
    );
    let out = kiln.run(&["session", "learn", "--export", "jsonl", "--schema", "dpo"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("1 case (0 puzzles, 1 correction) from 1 session"),
        "only `use clang instead` is a correction: {}",
        out.stderr
    );
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["metadata"]["phase"], "thanks, go on");
}

#[test]
fn learn_with_no_export_shows_readable_cases() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "learn", "2025-12-10-fix", "--type", "puzzle"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("### Puzzle `puz-"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("**What should the agent do next, and why?**")
    );
    let out = kiln.run(&["session", "learn", "2025-12-10-fix"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("# Learning cases\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn learn_exit_codes() {
    // 0: cases written; 0 with a message: nothing to learn; 3: a whole file
    // skipped (1 with --strict); 1: every file skipped; 2: wrong usage.
    let kiln = TestKiln::with_fixtures();
    assert_eq!(kiln.run(&["session", "learn"]).code, 0);
    let nothing = kiln.run(&["session", "learn", "2025-12-12-start-docs"]);
    assert_eq!(nothing.code, 0, "{}", nothing.stderr);
    assert!(
        nothing.stderr.contains("nothing to learn"),
        "{}",
        nothing.stderr
    );
    kiln.write(
        "broken.md",
        "---\ntype: session\nsession_id: broken\nstarted: 2025-01-01T00:00:00Z\nstatus: nope\n---\n",
    );
    assert_eq!(kiln.run(&["session", "learn"]).code, 3);
    assert_eq!(kiln.run(&["--strict", "session", "learn"]).code, 1);
    let only_bad = TestKiln::empty();
    only_bad.write(
        "broken.md",
        "---\ntype: session\nsession_id: broken\nstarted: 2025-01-01T00:00:00Z\nstatus: nope\n---\n",
    );
    assert_eq!(only_bad.run(&["session", "learn"]).code, 1);
    let usage = kiln.run(&["session", "learn", "--all", "2025-12-10-fix"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    assert_eq!(kiln.run(&["session", "learn", "no-such-session"]).code, 1);
}

/// Each `<!-- example: cru ARGS -->` of docs/learn-format.md with the text
/// of the fenced block after it and the block's info string.
fn doc_examples(doc: &str) -> Vec<(String, String, String)> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(cmd) = l
            .strip_prefix("<!-- example: cru ")
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            continue;
        };
        let open = lines[i + 1];
        let fence: String = open.chars().take_while(|&c| c == '`').collect();
        assert!(fence.len() >= 3, "no fenced block after `{l}`");
        let info = open[fence.len()..].trim().to_owned();
        let body: Vec<&str> = lines[i + 2..]
            .iter()
            .take_while(|b| **b != fence)
            .copied()
            .collect();
        out.push((cmd.to_owned(), info, body.join("\n") + "\n"));
    }
    out
}

#[test]
fn the_examples_in_learn_format_md_are_what_cru_writes() {
    let doc_path = crate::kiln::fixtures().join("../docs/learn-format.md");
    let doc = std::fs::read_to_string(doc_path).unwrap();
    let examples = doc_examples(&doc);
    assert_eq!(examples.len(), 6, "one per schema and format");
    let kiln = TestKiln::with_fixtures();
    let session = crate::kiln::fixtures().join("learn/2025-12-15-fast-list.md");
    kiln.write(
        "2025-12-15-fast-list.md",
        &std::fs::read_to_string(session).unwrap(),
    );
    for (cmd, info, shown) in examples {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let out = kiln.run(&args);
        assert_eq!(out.code, 0, "cru {cmd}: {}", out.stderr);
        if info == "json" {
            // Shown indented; written as one line.
            assert_eq!(out.stdout.lines().count(), 1, "cru {cmd}");
            let written: Value = serde_json::from_str(&out.stdout).unwrap();
            let shown: Value = serde_json::from_str(&shown).unwrap();
            assert_eq!(
                written, shown,
                "cru {cmd}: docs/learn-format.md is out of date"
            );
        } else {
            assert_eq!(
                out.stdout, shown,
                "cru {cmd}: docs/learn-format.md is out of date"
            );
        }
    }
}
