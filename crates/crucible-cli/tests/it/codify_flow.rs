//! Issue 17, codify: sessions recorded with `cru session start/log` and
//! real agents' sessions imported, then codified as a user would: resumed
//! runs, data flow from shell commands and every importer's tools, merging
//! only runs of one task, refining that cannot lose provenance, validating
//! that rejects documents that are no workflow, and the JSON.

use std::path::Path;

use serde_json::Value;

use crate::kiln::{Output, TestKiln, fixtures};

fn ok(out: Output) -> Output {
    assert_eq!(
        out.code, 0,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    out
}

/// `cru session log ...` into session `id`.
fn log(kiln: &TestKiln, id: &str, args: &[&str]) {
    let mut all = vec!["session", "log"];
    all.extend_from_slice(args);
    ok(kiln.run_cmd(kiln.command().args(&all).env("CRU_SESSION", id)));
}

/// The issue's example: a phase runs the tests into out.txt, the next
/// reads it and edits the parser, the third searches the parser.
fn record_parser_fix(kiln: &TestKiln, title: &str) -> String {
    let id = ok(kiln.run(&["session", "start", "--title", title, "--agent", "coder@1.0"]))
        .stdout
        .trim()
        .to_owned();
    log(kiln, &id, &["phase", "Run tests", "--agent", "coder@1.0"]);
    log(
        kiln,
        &id,
        &["tool", "bash", "sh -c 'cargo test 2> out.txt'"],
    );
    log(kiln, &id, &["phase", "Fix", "--agent", "coder@1.0"]);
    log(kiln, &id, &["tool", "bash", "cat out.txt"]);
    log(
        kiln,
        &id,
        &["tool", "bash", "sed -i 's/unwrap()/?/' src/parser.rs"],
    );
    log(kiln, &id, &["phase", "Check", "--agent", "coder@1.0"]);
    log(
        kiln,
        &id,
        &["tool", "bash", "grep -n 'fn parse' src/parser.rs"],
    );
    id
}

fn codify_json(kiln: &TestKiln, ids: &[&str]) -> Value {
    let mut args = vec!["session", "codify", "--format", "json"];
    args.extend_from_slice(ids);
    let out = ok(kiln.run(&args));
    serde_json::from_str(&out.stdout).unwrap()
}

fn step_names(v: &Value) -> Vec<String> {
    v["workflow"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

fn edges(v: &Value) -> Vec<(String, String, String)> {
    v["graph"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["kind"], "data");
            let s = |k: &str| e[k].as_str().unwrap().to_owned();
            (s("from"), s("to"), s("name"))
        })
        .collect()
}

/// Imports `path` into the kiln; returns the new session's id.
fn import(kiln: &TestKiln, path: &Path) -> String {
    let before: Vec<_> = std::fs::read_dir(kiln.sessions())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    ok(kiln.run(&["session", "import", path.to_str().unwrap()]));
    let new: Vec<String> = std::fs::read_dir(kiln.sessions())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| !before.contains(n))
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    new[0].trim_end_matches(".md").to_owned()
}

#[test]
fn shell_commands_of_a_recorded_session_give_the_data_flow() {
    let kiln = TestKiln::empty();
    let id = record_parser_fix(&kiln, "Fix the parser");
    let v = codify_json(&kiln, &[&id]);
    assert_eq!(v["version"], 1);
    assert_eq!(step_names(&v), ["Run tests", "Fix", "Check"]);
    let e = |a: &str, b: &str, n: &str| (a.to_owned(), b.to_owned(), n.to_owned());
    assert_eq!(
        edges(&v),
        [
            e("Run tests", "Fix", "out.txt"),
            e("Fix", "Check", "src/parser.rs@v2")
        ]
    );
}

#[test]
fn a_resumed_run_continues_the_step_it_resumed() {
    let kiln = TestKiln::empty();
    let id = record_parser_fix(&kiln, "Fix the parser");
    ok(kiln.run(&["session", "pause", &id]));
    for reply in ["first", "second"] {
        let agent = format!("cat >/dev/null; echo {reply}");
        ok(kiln.run(&["session", "resume", &id, "--agent-cmd", &agent]));
        // Paused again, as a person leaving the agent would.
        let _ = kiln.run(&["session", "pause", &id]);
    }
    let file = std::fs::read_to_string(kiln.sessions().join(format!("{id}.md"))).unwrap();
    assert_eq!(file.matches("## Resumed from phase-").count(), 2, "{file}");
    let v = codify_json(&kiln, &[&id]);
    assert_eq!(step_names(&v), ["Run tests", "Fix", "Check"]);
    let check = &v["workflow"]["steps"][2];
    assert_eq!(check["runs"].as_array().unwrap().len(), 1);
    assert_eq!(check["runs"][0]["session"], id.as_str());
    assert_eq!(check["runs"][0]["phases"], "phase-3 phase-4 phase-5");
    // The markdown keeps where the resumed runs came from, and validates.
    let md = ok(kiln.run(&["session", "codify", &id])).stdout;
    assert!(
        md.contains("- Resumed: phase-4 (`Resumed from phase-3`) continued this step"),
        "{md}"
    );
    let wf = kiln.root.path().join("wf.md");
    std::fs::write(&wf, &md).unwrap();
    ok(kiln.run(&["workflow", "validate", wf.to_str().unwrap()]));
}

#[test]
fn a_resumed_imported_session_has_no_step_of_its_own_for_the_resume() {
    let kiln = TestKiln::empty();
    let id = import(&kiln, &fixtures().join("real/connectonion/failing-tool"));
    let before = step_names(&codify_json(&kiln, &[&id]));
    ok(kiln.run(&[
        "session",
        "resume",
        &id,
        "--agent-cmd",
        "cat >/dev/null; echo 'use 6 / 3'",
    ]));
    let after = codify_json(&kiln, &[&id]);
    assert_eq!(step_names(&after), before);
    let runs = &after["workflow"]["steps"][1]["runs"][0];
    assert_eq!(runs["phases"], "phase-2 phase-3", "{after:#}");
}

#[test]
fn imported_real_sessions_give_the_data_flow_of_their_tools() {
    let kiln = TestKiln::empty();
    // Claude Code: `Write /Users/chip/dev/ai-music/diverse_musical_ai.py`,
    // then `Bash python diverse_musical_ai.py` (the session's cwd).
    let claude = import(&kiln, &fixtures().join("real/claude-code/sniffly/-Users-chip-dev-ai-music/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"),
    );
    let v = codify_json(&kiln, &[&claude]);
    let names: Vec<String> = edges(&v).into_iter().map(|e| e.2).collect();
    assert!(
        names.contains(&"diverse_musical_ai.py".to_owned()),
        "{names:?}"
    );
    // Codex: `["bash", "-lc", "apply_patch <<'PATCH' ..."]` and `sed -n`
    // reads, from the sidecar's full arguments.
    let codex = import(&kiln, &fixtures().join("real/codex/agentcmd/full/rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"),
    );
    let v = codify_json(&kiln, &[&codex]);
    let names: Vec<String> = edges(&v).into_iter().map(|e| e.2).collect();
    assert!(
        names.contains(
            &"apps/spectora-labs/src/domain/teams/services/getTeamsWithStats.ts@v2".to_owned()
        ),
        "{names:?}"
    );
    // Codex exec's structured patch: `{"changes": [{"path", "kind": "add"}]}`.
    let pomodoro = import(
        &kiln,
        &fixtures().join("real/codex/ai-sessions/codex-pomodor-timer.jsonl"),
    );
    let v = codify_json(&kiln, &[&pomodoro]);
    let names: Vec<String> = edges(&v).into_iter().map(|e| e.2).collect();
    assert!(names.contains(&"styles.css".to_owned()), "{names:?}");
    // ConnectOnion: `write(path='hello.py', content='...')`.
    let co = import(
        &kiln,
        &fixtures().join("foreign/connectonion/.co/sessions/oo.yaml"),
    );
    let v = codify_json(&kiln, &[&co]);
    let outputs: Vec<&Value> = v["workflow"]["steps"][1]["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(outputs[0]["name"], "hello.py", "{v:#}");
    assert_eq!(outputs[0]["type"], "Python");
}

#[test]
fn only_runs_of_one_task_merge() {
    let kiln = TestKiln::empty();
    let a = record_parser_fix(&kiln, "Fix the parser");
    let b = record_parser_fix(&kiln, "Write the release notes");
    let out = ok(kiln.run(&["session", "codify", &a, &b]));
    assert!(
        out.stderr.contains("runs of 2 different tasks"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout.matches("type: workflow").count(), 2);
    assert!(
        out.stdout
            .contains(&format!("<!-- cru: workflow 2 of 2: {b} -->")),
        "{}",
        out.stdout
    );
    let v: Value = serde_json::from_str(
        &ok(kiln.run(&["session", "codify", &a, &b, "--format", "json"])).stdout,
    )
    .unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["workflows"].as_array().unwrap().len(), 2);
    // One file each in a directory; a file is wrong usage (exit 2).
    let dir = kiln.root.path().join("wf");
    ok(kiln.run(&["session", "codify", &a, &b, "-o", dir.to_str().unwrap()]));
    assert!(dir.join(format!("{a}.workflow.md")).is_file());
    assert!(dir.join(format!("{b}.workflow.md")).is_file());
    let file = dir.join(format!("{a}.workflow.md"));
    let out = kiln.run(&["session", "codify", &a, &b, "-o", file.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--merge"), "{}", out.stderr);
    // --merge: one workflow whatever the tasks.
    let v = codify_json(&kiln, &[&a, &b, "--merge"]);
    assert_eq!(
        v["workflow"]["source_sessions"].as_array().unwrap().len(),
        2
    );
    // Two runs of one task: one workflow, two runs per step.
    let c = record_parser_fix(&kiln, "Fix the parser (run 2)");
    let v = codify_json(&kiln, &[&a, &c]);
    assert_eq!(v["workflow"]["steps"][0]["totals"]["runs"], 2);
    assert_eq!(step_names(&v), ["Run tests", "Fix", "Check"]);
}

/// A scripted agent that answers with `reply` in a markdown block.
fn agent(kiln: &TestKiln, name: &str, reply: &str) -> String {
    let body = kiln.root.path().join(format!("{name}.reply"));
    std::fs::write(&body, format!("Here it is:\n\n```markdown\n{reply}```\n")).unwrap();
    format!("cat >/dev/null; cat {}", body.display())
}

#[test]
fn refine_cannot_lose_provenance() {
    let kiln = TestKiln::empty();
    let id = record_parser_fix(&kiln, "Fix the parser");
    let original = ok(kiln.run(&["session", "codify", &id])).stdout;
    let block_start = original.find("```session-toon").unwrap();
    let block_end = block_start + original[block_start..].find("```\n\n").unwrap() + 5;
    let no_block = format!("{}{}", &original[..block_start], &original[block_end..]);
    let check_at = original.find("## Check").unwrap();
    let no_step = original[..check_at].to_owned();
    let cases = [
        (
            "no-block",
            no_block.as_str(),
            "execution history of step `Run tests`",
        ),
        ("no-step", no_step.as_str(), "a step was dropped"),
        (
            "garbage",
            "I could not do that, sorry.\n",
            "no workflow frontmatter",
        ),
    ];
    for (name, reply, reason) in cases {
        let cmd = agent(&kiln, name, reply);
        let out = kiln.run(&["session", "codify", &id, "--refine", "--agent-cmd", &cmd]);
        assert_eq!(out.code, 1, "{name}: {}", out.stderr);
        assert!(out.stderr.contains(reason), "{name}: {}", out.stderr);
        assert_eq!(out.stdout, original, "{name}: the original is kept");
        let saved = kiln.root.path().join(format!("{id}.refine-rejected.md"));
        assert!(
            std::fs::read_to_string(&saved)
                .unwrap()
                .contains(reply.trim_end()),
            "{name}"
        );
    }
    // A good refinement: a clearer name and a type, every row kept.
    let good = original.replace("## Check @coder@1.0", "## Check the parser @coder@1.0");
    let cmd = agent(&kiln, "good", &good);
    let out = ok(kiln.run(&["session", "codify", &id, "--refine", "--agent-cmd", &cmd]));
    assert!(
        out.stdout.contains("## Check the parser @coder@1.0"),
        "{}",
        out.stdout
    );

    // `cru workflow refine` keeps the file and saves the reply beside it.
    let wf = kiln.root.path().join("fix.workflow.md");
    std::fs::write(&wf, &original).unwrap();
    let cmd = agent(&kiln, "drop", &no_step);
    let out = kiln.run(&[
        "workflow",
        "refine",
        wf.to_str().unwrap(),
        "--agent-cmd",
        &cmd,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&wf).unwrap(), original);
    assert!(kiln.root.path().join("fix.refine-rejected.md").is_file());
}

#[test]
fn validate_rejects_documents_that_are_no_workflow() {
    let kiln = TestKiln::empty();
    let readme = kiln.root.path().join("README.md");
    std::fs::write(
        &readme,
        "# cru\n\nA tool.\n\n## Install\n\nRun `cargo install`.\n",
    )
    .unwrap();
    let out = kiln.run(&["workflow", "validate", readme.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout, @"[KILN]/README.md:1:1: error: no workflow frontmatter (`type: workflow`) and no step: a workflow needs at least one step, a `## Name @agent` heading (or a heading with a data-flow line such as `input → output`)");
    let empty = kiln.root.path().join("empty.md");
    std::fs::write(
        &empty,
        "---\ntype: workflow\ntitle: T\n---\n\n# T\n\nNothing yet.\n",
    )
    .unwrap();
    let out = kiln.run(&["workflow", "validate", empty.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .starts_with("[KILN]/empty.md:5:1: error: the frontmatter is followed by no step"),
        "{}",
        out.stdout
    );
    // A session is no workflow either, though its phases read as steps.
    let id = record_parser_fix(&kiln, "Fix the parser");
    let session = kiln.sessions().join(format!("{id}.md"));
    let out = kiln.run(&["workflow", "validate", session.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("frontmatter says `type: session`"),
        "{}",
        out.stdout
    );
    let samples = fixtures().join("workflows/samples");
    ok(kiln.run(&["workflow", "validate", samples.to_str().unwrap()]));
    let out = kiln.run(&[
        "workflow",
        "validate",
        readme.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["files"][0]["valid"], false);
}

#[test]
fn json_and_exit_codes_of_codify_and_workflow_commands() {
    let kiln = TestKiln::empty();
    let id = record_parser_fix(&kiln, "Fix the parser");
    let wf = kiln.root.path().join("fix.md");
    ok(kiln.run(&["session", "codify", &id, "-o", wf.to_str().unwrap()]));
    let v: Value = serde_json::from_str(
        &ok(kiln.run(&["workflow", "show", wf.to_str().unwrap(), "--format", "json"])).stdout,
    )
    .unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["workflow"]["steps"][1]["name"], "Fix");
    assert_eq!(v["graph"]["edges"][0]["from"], "Run tests");
    assert_eq!(
        v["graph"]["order"],
        serde_json::json!(["Run tests", "Fix", "Check"])
    );
    assert_eq!(v["workflow"]["source_sessions"][0], id.as_str());
    // 1: failed (no such session, no such file, an invalid workflow, an existing output).
    assert_eq!(kiln.run(&["session", "codify", "no-such-session"]).code, 1);
    assert_eq!(kiln.run(&["workflow", "show", "no/such.md"]).code, 1);
    assert_eq!(kiln.run(&["workflow", "validate", "no/such.md"]).code, 1);
    assert_eq!(
        kiln.run(&["session", "codify", &id, "-o", wf.to_str().unwrap()])
            .code,
        1
    );
    // 2: wrong usage.
    assert_eq!(
        kiln.run(&["session", "codify", &id, "--format", "yaml"])
            .code,
        2
    );
    assert_eq!(kiln.run(&["workflow", "validate"]).code, 2);
}
