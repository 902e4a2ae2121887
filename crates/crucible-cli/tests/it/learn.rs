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

    ## Open puzzle `puz-d6d08f846c0a5c2f`: Build

    session `2025-11-28-ci-failure` · phase-1 (Build) · @release-bot@2.0 · #ops · gpt-4o · session failed · 2025-11-28T17:02:11Z

    **Task:** Release build fails on the runner: stop, I'll fix the image myself

    **What the agent did:**

    - `bash cargo build --release` → ✗ linker `cc` not found
    - `bash apt-get install -y gcc` → ✗ permission denied

    **What went wrong:**

    > The runner image has no C toolchain and the bot cannot install one.

    **Open:** no resolution was logged.

    ## Correction `cor-fb8b1ff98d7a59be`: Build

    session `2025-11-28-ci-failure` · phase-1 (Build) · @release-bot@2.0 · #ops · gpt-4o · session failed · 2025-11-28T17:02:11Z

    **Task:** Release build fails on the runner: stop, I'll fix the image myself

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
