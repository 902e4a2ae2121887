//! `cru session codify` and `cru workflow validate/show/refine/edit` on real
//! files, with real agent programs and editors (small scripts).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kiln::{TestKiln, fixtures};

fn workflows() -> PathBuf {
    fixtures().join("workflows")
}

/// A script file in the kiln, run with `sh`.
fn script(kiln: &TestKiln, name: &str, body: &str) -> String {
    let p = kiln.root.path().join(name);
    std::fs::write(&p, body).unwrap();
    format!("sh {}", p.display())
}

#[test]
fn validate_reports_every_problem_with_line_and_column() {
    let kiln = TestKiln::empty();
    let dir = workflows();
    let out = kiln.run(&["workflow", "validate", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout, @r"
    [FIXTURES]/workflows/cycle.md:3:1: error: cycle: Draft → Review → Revise → Draft
    [FIXTURES]/workflows/cycle.md:11:43: error: no step is named `Publish`
    [FIXTURES]/workflows/malformed-toon.md:7:12: error: expected `]` after the row count
    [FIXTURES]/workflows/malformed-toon.md:17:1: error: execution row has an empty `status`
    [FIXTURES]/workflows/malformed-toon.md:18:1: error: status `exploded` is not one of success, failed, skipped, timeout
    [FIXTURES]/workflows/malformed-toon.md:18:1: warning: `duration_ms` is `fast`, not a whole number
    [FIXTURES]/workflows/malformed-toon.md:18:1: warning: execution row's phase `Cleen` matches no step
    [FIXTURES]/workflows/malformed-toon.md:22:1: error: `clean_rows` is `List` here but `Table` on line 12
    ");
    insta::assert_snapshot!(out.stderr, @"8 workflows checked: 6 valid, 2 invalid (6 errors, 2 warnings)");
    let samples = dir.join("samples");
    let out = kiln.run(&["workflow", "validate", samples.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let out = kiln.run(&["workflow", "validate", "no/such/file.md"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("no/such/file.md: error: no/such/file.md: cannot read"),
        "{}",
        out.stdout
    );
}

#[test]
fn show_in_three_formats() {
    let kiln = TestKiln::empty();
    let file = workflows().join("parallel-merge.md");
    let f = file.to_str().unwrap();
    let out = kiln.run(&["workflow", "show", f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    Review a pull request — 4 steps, 4 edges, 0 runs
      1. Fetch Diff @fetcher
           in:  pr_url::URL
           out: diff::Patch
      2. Lint @linter #checks
           in:  diff
           out: lint_report::Markdown
      3. Test @tester #checks
           in:  diff
           out: test_report::JUnit
      4. Summarize @reviewer #review
           in:  lint_report, test_report
           out: review::Markdown
    Inputs: pr_url
    ");
    let out = kiln.run(&["workflow", "show", f, "--format", "mermaid"]);
    assert!(out.stdout.starts_with("flowchart TD\n"));
    assert!(
        out.stdout.contains("  s1 -->|\"lint_report\"| s3\n"),
        "{}",
        out.stdout
    );
    let out = kiln.run(&["workflow", "show", f, "--format", "json"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["graph"]["order"],
        serde_json::json!(["Fetch Diff", "Lint", "Test", "Summarize"])
    );
    assert_eq!(v["workflow"]["steps"][3]["name"], "Summarize");
    // A cyclic workflow is still shown, in document order, problems on
    // stderr, and exit 1: it is invalid.
    let out = kiln.run(&[
        "workflow",
        "show",
        workflows().join("cycle.md").to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("(the graph has a cycle"));
    assert!(
        out.stderr
            .contains("cycle: Draft → Review → Revise → Draft")
    );
}

fn codify_to_file(kiln: &TestKiln, id: &str) -> (PathBuf, crate::kiln::Output) {
    let out_file = kiln.root.path().join(format!("{id}.workflow.md"));
    let out = kiln.run(&[
        "session",
        "codify",
        id,
        "--output",
        out_file.to_str().unwrap(),
    ]);
    (out_file, out)
}

#[test]
fn every_fixture_session_codifies_to_a_workflow_that_validates() {
    let kiln = TestKiln::with_fixtures();
    let ids = [
        "2025-12-10-fix-flaky-test",
        "2025-12-10-investigate-ci",
        "2025-12-11-refactor-store",
        "2025-12-11-write-tests",
        "2025-12-12-long-migration",
        "2025-12-12-start-docs",
        "2025-12-13-config-loader",
        "2025-11-28-ci-failure",
        "2025-12-05-feature-impl",
    ];
    for id in ids {
        let (file, out) = codify_to_file(&kiln, id);
        assert_eq!(out.code, 0, "{id}: {}", out.stderr);
        let check = kiln.run(&["workflow", "validate", file.to_str().unwrap()]);
        assert_eq!(check.code, 0, "{id}: {}{}", check.stdout, check.stderr);
        assert_eq!(check.stdout, "", "{id}");
    }
}

#[test]
fn codify_writes_the_data_flow_and_refuses_to_clobber() {
    let kiln = TestKiln::with_fixtures();
    let (file, out) = codify_to_file(&kiln, "2025-12-13-config");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("docs/config-schema.md::Markdown → src/config.rs::Rust"),
        "{text}"
    );
    let again = kiln.run(&[
        "session",
        "codify",
        "2025-12-13-config",
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("exists already"), "{}", again.stderr);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    let forced = kiln.run(&[
        "session",
        "codify",
        "2025-12-13-config",
        "--output",
        file.to_str().unwrap(),
        "--force",
        "--format",
        "mermaid",
    ]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .starts_with("flowchart TD")
    );
}

#[test]
fn codify_without_an_id_takes_the_newest_session() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "codify"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("codifying 2025-12-13-config-loader (the most recently started session)"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.starts_with("---\ntype: workflow\n"));
    let empty = TestKiln::empty();
    let out = empty.run(&["session", "codify"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no sessions in"), "{}", out.stderr);
}

#[test]
fn codify_merges_sessions_of_one_task() {
    let kiln = TestKiln::with_fixtures();
    let text = std::fs::read_to_string(kiln.sessions().join("2025-12-13-config-loader.md"))
        .unwrap()
        .replace("2025-12-13-config-loader", "2025-12-14-config-loader-again")
        .replace("2025-12-13T", "2025-12-14T");
    kiln.write("2025-12-14-config-loader-again.md", &text);
    let out = kiln.run(&[
        "session",
        "codify",
        "2025-12-14-config-loader-again",
        "2025-12-13-config-loader",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["workflow"]["steps"].as_array().unwrap().len(), 3);
    assert_eq!(v["workflow"]["steps"][0]["totals"]["runs"], 2);
    // Oldest first, whatever the order named.
    let rows = &v["workflow"]["steps"][0]["runs"];
    assert_eq!(rows[0]["session"], "2025-12-13-config-loader");
}

/// A refinement that keeps every step and row: the codified workflow of
/// `2025-12-13-config-loader` with a step renamed and a condition added.
fn refined(kiln: &TestKiln) -> String {
    let original = kiln.run(&["session", "codify", "2025-12-13-config"]).stdout;
    let refined = original
        .replace("## Write the schema @", "## Design Schema @")
        .replacen(
            "docs/config-schema.md::Markdown → src/config.rs::Rust\n",
            "docs/config-schema.md::Markdown → src/config.rs::Rust\nIf the build fails → proceed to Test the loader\n",
            1,
        );
    assert_ne!(refined, original);
    format!("Sure, here it is:\n\n```markdown\n{refined}```\n")
}

#[test]
fn refine_uses_a_valid_reply_and_keeps_the_extraction_otherwise() {
    let kiln = TestKiln::with_fixtures();
    let good = script(
        &kiln,
        "good-agent.sh",
        &format!(
            "cat > {}/prompt.txt\ncat <<'EOF'\n{}EOF\n",
            kiln.root.path().display(),
            refined(&kiln)
        ),
    );
    let out = kiln.run(&[
        "session",
        "codify",
        "2025-12-13-config",
        "--refine",
        "--agent-cmd",
        &good,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("## Design Schema @"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("If the build fails → proceed to Test the loader")
    );
    let prompt = std::fs::read_to_string(kiln.root.path().join("prompt.txt")).unwrap();
    assert!(prompt.contains("## The session it was codified from"));
    assert!(prompt.contains("## The workflow to refine"));
    assert!(prompt.contains("WriteTheSchema,architect@2.0"));

    let garbage = script(
        &kiln,
        "bad-agent.sh",
        "cat >/dev/null\necho '## Loop @x'\necho 'a -> b'\necho '## Back @y'\necho 'b -> a'\n",
    );
    let out = kiln.run(&[
        "session",
        "codify",
        "2025-12-13-config",
        "--refine",
        "--agent-cmd",
        &garbage,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("the refined workflow is not used"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("(reply):1:1: error: cycle: Loop → Back → Loop"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("keeping the auto-extracted workflow"));
    assert!(
        out.stdout
            .contains("## Write the schema @architect@2.0 #dev")
    );

    let failing = script(
        &kiln,
        "failing-agent.sh",
        "echo 'quota exceeded' >&2; exit 2\n",
    );
    let out = kiln.run(&[
        "session",
        "codify",
        "2025-12-13-config",
        "--refine",
        "--agent-cmd",
        &failing,
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("quota exceeded"), "{}", out.stderr);
}

#[test]
fn workflow_refine_rewrites_the_file_only_with_a_valid_reply() {
    let kiln = TestKiln::empty();
    let file = kiln.root.path().join("wf.md");
    std::fs::copy(workflows().join("linear.md"), &file).unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    let garbage = script(&kiln, "bad.sh", "cat >/dev/null; echo 'no steps here'\n");
    let out = kiln.run(&[
        "workflow",
        "refine",
        file.to_str().unwrap(),
        "--agent-cmd",
        &garbage,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let reply = before.replace("## Publish @release-bot", "## Add Dependency @release-bot");
    let good = script(
        &kiln,
        "good.sh",
        &format!("cat >/dev/null\ncat <<'EOF'\n```markdown\n{reply}```\nEOF\n"),
    );
    let out = kiln.run(&[
        "workflow",
        "refine",
        file.to_str().unwrap(),
        "--agent-cmd",
        &good,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("## Add Dependency @release-bot #release !")
    );
    // An invalid workflow is not sent at all.
    let cyc = kiln.root.path().join("cycle.md");
    std::fs::copy(workflows().join("cycle.md"), &cyc).unwrap();
    let out = kiln.run(&[
        "workflow",
        "refine",
        cyc.to_str().unwrap(),
        "--agent-cmd",
        &good,
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("is not a valid workflow"),
        "{}",
        out.stderr
    );
}

/// An "editor" that breaks the file the first time and, seeing cru's error
/// comment the second time, writes a valid workflow.
fn two_pass_editor(kiln: &TestKiln) -> String {
    let state = kiln.root.path().join("edited-once");
    let seen = kiln.root.path().join("seen-second.md");
    script(
        kiln,
        "editor.sh",
        &format!(
            "if [ ! -f {state} ]; then\n  touch {state}\n  printf '## A @x\\nIf odd → proceed to Nowhere\\n' > \"$1\"\nelse\n  cp \"$1\" {seen}\n  printf '# Fixed\\n\\n## A @x\\na → b\\n' > \"$1\"\nfi\n",
            state = state.display(),
            seen = seen.display()
        ),
    )
}

#[test]
fn interactive_review_reopens_with_the_errors_until_valid() {
    let kiln = TestKiln::with_fixtures();
    let editor = two_pass_editor(&kiln);
    let out_file = kiln.root.path().join("reviewed.md");
    let out = kiln.run_cmd(
        kiln.command()
            .args([
                "session",
                "codify",
                "2025-12-13-config",
                "--interactive",
                "--output",
            ])
            .arg(&out_file)
            .env("EDITOR", &editor)
            .env_remove("VISUAL"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "# Fixed\n\n## A @x\na → b\n"
    );
    let second = std::fs::read_to_string(kiln.root.path().join("seen-second.md")).unwrap();
    assert!(
        second.starts_with("<!-- cru: this workflow is not valid yet."),
        "{second}"
    );
    assert!(
        second.contains("line 5, column 21: no step is named `Nowhere`"),
        "{second}"
    );
}

#[test]
fn workflow_edit_saves_only_a_valid_file() {
    let kiln = TestKiln::empty();
    let file = kiln.root.path().join("wf.md");
    std::fs::copy(workflows().join("linear.md"), &file).unwrap();
    let editor = two_pass_editor(&kiln);
    let out = kiln.run_cmd(
        kiln.command()
            .args(["workflow", "edit"])
            .arg(&file)
            .env("EDITOR", &editor)
            .env_remove("VISUAL"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# Fixed\n\n## A @x\na → b\n"
    );
    // An editor that leaves an invalid file as it is: an error, nothing saved.
    std::fs::copy(workflows().join("cycle.md"), &file).unwrap();
    let out = kiln.run_cmd(
        kiln.command()
            .args(["workflow", "edit"])
            .arg(&file)
            .env("EDITOR", "true")
            .env_remove("VISUAL"),
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("still not valid"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        std::fs::read_to_string(workflows().join("cycle.md")).unwrap()
    );
}

#[test]
fn the_sample_session_codifies_to_a_valid_workflow() {
    let kiln = TestKiln::with_fixtures();
    let (file, out) = codify_to_file(&kiln, "2025-12-05-feature-impl");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let check = kiln.run(&["workflow", "validate", file.to_str().unwrap()]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let text = std::fs::read_to_string(Path::new(&file)).unwrap();
    assert!(
        text.contains("## Research Phase @orchestrator #dev"),
        "{text}"
    );
}
