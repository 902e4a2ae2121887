//! The importers on the foreign fixtures, as a library.

mod bad_times;
mod linear;
mod real;
mod repeated_requests;
mod roundtrip;
mod tiers_on_imports;

use std::path::{Path, PathBuf};

use crucible_core::{Block, CalloutKind, Section, SessionId};
use crucible_interop::{Format, Provenance, detect, find_sources, fnv_hex, import, link_children};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/foreign")
}

#[test]
fn detects_by_content_and_finds_sources_in_folders() {
    let found = find_sources(&root(), None).sources;
    let kinds: Vec<(String, Format)> = found
        .iter()
        .map(|(p, f)| (p.file_name().unwrap().to_string_lossy().into_owned(), *f))
        .collect();
    assert_eq!(
        kinds,
        [
            ("2024-12-18-16-45-12".to_owned(), Format::AgentDir),
            ("2024-12-19-10-15-22".to_owned(), Format::AgentDir),
            ("2024-12-19-14-30-45".to_owned(), Format::AgentDir),
            (
                "7f3c2a10-5b1e-4c8e-9d2a-0c4e5f6a7b8c.jsonl".to_owned(),
                Format::ClaudeCode
            ),
            (
                "c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46.jsonl".to_owned(),
                Format::ClaudeCode
            ),
            (
                "2025-01-27T15-30-45Z_a3f2c1.jsonl".to_owned(),
                Format::Codeloops
            ),
            (
                "2025-01-28T09-12-03Z_77be01.jsonl".to_owned(),
                Format::Codeloops
            ),
            (
                "2025-01-29T18-00-00Z_c0ffee.jsonl".to_owned(),
                Format::Codeloops
            ),
            (
                "rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl".to_owned(),
                Format::Codex
            ),
            (
                "count_the_todo_comments.yaml".to_owned(),
                Format::ConnectOnion
            ),
            ("gmail_agent.yaml".to_owned(), Format::ConnectOnion),
            ("oo.yaml".to_owned(), Format::ConnectOnion),
            ("refactor-chat.json".to_owned(), Format::OpenAiMessages),
            ("support.jsonl".to_owned(), Format::OpenAiMessages),
        ]
    );
    assert_eq!(
        detect(&root().join("../sessions/2025-12-13-config-loader.md")),
        None
    );
}

#[test]
fn an_agent_folder_becomes_phases_calls_and_tasks() {
    let dir = foreign("agent-dir/.agent/sessions/2024-12-19-14-30-45");
    let imp = import(&dir, Format::AgentDir).unwrap();
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    let log = &imp.log;
    assert_eq!(log.frontmatter.started.as_str(), "2024-12-19T14:30:45Z");
    assert_eq!(log.title(), Some("Add a --verbose flag to the CLI"));
    assert_eq!(
        log.system_prompt(),
        Some("You are a coding agent. Use the tools to read and change files.")
    );
    assert_eq!(log.tasks().unwrap().len(), 3);
    assert_eq!(log.tasks().unwrap()[0].id, "1");
    assert_eq!(log.phase_count(), 2);
    let calls: Vec<_> = log.tool_calls().collect();
    assert_eq!(calls.len(), 5);
    assert_eq!(calls[0].tool, "read_file");
    assert_eq!(calls[0].args, "src/cli.go");
    assert!(calls[1].failed);
    let users = log
        .callouts()
        .filter(|c| c.kind() == CalloutKind::User)
        .count();
    assert_eq!(users, 2);
    let p = Provenance::of(&{
        let mut l = log.clone();
        imp.provenance.store(&mut l);
        l
    })
    .unwrap();
    assert_eq!(p, imp.provenance);
    assert_eq!(p.id.as_deref(), Some("2024-12-19-14-30-45"));
}

#[test]
fn damaged_and_empty_folders_still_import() {
    let corrupt = import(
        &foreign("agent-dir/.agent/sessions/2024-12-19-10-15-22"),
        Format::AgentDir,
    )
    .unwrap();
    assert_eq!(corrupt.warnings.len(), 1);
    assert!(
        corrupt.warnings[0]
            .to_string()
            .contains("todos.json:1: not JSON")
    );
    assert!(corrupt.log.tasks().is_none());
    assert_eq!(corrupt.log.phase_count(), 1);
    let empty = import(
        &foreign("agent-dir/.agent/sessions/2024-12-18-16-45-12"),
        Format::AgentDir,
    )
    .unwrap();
    assert_eq!(empty.log.phase_count(), 0);
    assert_eq!(empty.log.title(), Some("Agent session 2024-12-18-16-45-12"));
}

fn import_rel(rel: &str) -> crucible_interop::Imported {
    import(&foreign(rel), Format::OpenAiMessages).unwrap()
}

#[test]
fn message_files_in_both_layouts() {
    let chat = import_rel("openai/refactor-chat.json");
    assert_eq!(chat.log.system_prompt(), Some("Be concise."));
    assert_eq!(
        chat.log.title(),
        Some("Rename `calc` to `compute` everywhere in lib/")
    );
    let calls: Vec<_> = chat.log.tool_calls().collect();
    assert_eq!(calls[0].args, "grep -rl calc lib/");
    assert_eq!(
        calls[0].summary.as_deref(),
        Some("lib/math.py ⏎ lib/report.py")
    );
    let jsonl = import_rel("openai/support.jsonl");
    assert_eq!(jsonl.warnings.len(), 1);
    assert_eq!(jsonl.warnings[0].line, Some(6));
    let Section::Phase(p) = &jsonl.log.sections[0] else {
        panic!()
    };
    assert!(matches!(&p.blocks[0], Block::Callout(c) if c.kind() == CalloutKind::User));
}

/// The same folder twice gives the same hashes: a re-import can tell.
#[test]
fn hashes_are_stable() {
    let dir = foreign("agent-dir/.agent/sessions/2024-12-19-14-30-45");
    let a = import(&dir, Format::AgentDir).unwrap().provenance;
    let b = import(&dir, Format::AgentDir).unwrap().provenance;
    assert_eq!(a, b);
}

fn foreign(rel: &str) -> PathBuf {
    root().join(rel)
}

#[test]
fn codeloops_sessions_with_their_outcomes() {
    let done = import(
        &foreign("codeloops/2025-01-27T15-30-45Z_a3f2c1.jsonl"),
        Format::Codeloops,
    )
    .unwrap();
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    let log = &done.log;
    assert_eq!(
        log.frontmatter.status,
        crucible_core::SessionStatus::Completed
    );
    assert_eq!(
        log.frontmatter.ended.as_ref().unwrap().as_str(),
        "2025-01-27T15:32:14Z"
    );
    assert_eq!(log.frontmatter.model.as_deref(), Some("sonnet"));
    assert_eq!(log.phase_count(), 2);
    let kinds: Vec<String> = log.callouts().map(|c| c.kind.clone()).collect();
    assert_eq!(kinds, ["user", "reply", "critic", "reply", "decision"]);
    let Section::Plain(summary) = log.sections.last().unwrap() else {
        panic!("a summary section")
    };
    assert_eq!(summary.title, "Summary");
    assert_eq!(
        log.frontmatter
            .extra
            .get("confidence")
            .and_then(crucible_core::yaml::Value::as_f64),
        Some(0.95)
    );

    let capped = import(
        &foreign("codeloops/2025-01-28T09-12-03Z_77be01.jsonl"),
        Format::Codeloops,
    )
    .unwrap();
    assert_eq!(
        capped.log.frontmatter.status,
        crucible_core::SessionStatus::Failed
    );
    let failed: Vec<bool> = capped.log.tool_calls().map(|c| c.failed).collect();
    assert_eq!(failed, [true, false, false, false, false, false]);
    let error = capped
        .log
        .callouts()
        .find(|c| c.kind() == CalloutKind::Error)
        .unwrap();
    assert!(
        error
            .error_parts()
            .resolution
            .unwrap()
            .contains("validator = \"0.16\"")
    );

    // No session_end, and a partial last line: active, with a warning.
    let running = import(
        &foreign("codeloops/2025-01-29T18-00-00Z_c0ffee.jsonl"),
        Format::Codeloops,
    )
    .unwrap();
    assert_eq!(
        running.log.frontmatter.status,
        crucible_core::SessionStatus::Active
    );
    assert_eq!(running.log.phase_count(), 1);
    assert_eq!(running.warnings.len(), 1);
    assert_eq!(running.warnings[0].line, Some(3));
}

#[test]
fn connectonion_sessions_in_both_designs() {
    let new = import(
        &foreign("connectonion/.co/sessions/oo.yaml"),
        Format::ConnectOnion,
    )
    .unwrap();
    let log = &new.log;
    assert!(new.warnings.is_empty(), "{:?}", new.warnings);
    assert_eq!(log.frontmatter.started.as_str(), "2025-12-03T10:12:44Z");
    assert_eq!(log.frontmatter.tokens_used, Some(33500));
    assert_eq!(log.phase_count(), 3);
    let Section::Phase(p) = &log.sections[2] else {
        panic!()
    };
    assert_eq!(p.meta.tokens, Some(8500));
    assert_eq!(p.meta.model.as_deref(), Some("co/gemini-2.5-pro"));
    // The eval fields are the callouts `cru session eval` reads.
    assert_eq!(
        callouts_of(p)[..3],
        [
            (
                "user".to_owned(),
                String::new(),
                vec!["\"run the tests\"".to_owned()]
            ),
            (
                "expect".to_owned(),
                String::new(),
                vec!["result: All tests pass".to_owned()]
            ),
            (
                "eval".to_owned(),
                "failed".to_owned(),
                vec![
                    "by: connectonion (recorded in the source)".to_owned(),
                    "at: 2025-12-03T10:18:00Z".to_owned(),
                ]
            ),
        ][..]
    );
    assert!(p.meta.extra.is_empty());
    assert!(log.tool_calls().last().unwrap().failed);

    let old = import(
        &foreign("connectonion/.co/sessions/gmail_agent.yaml"),
        Format::ConnectOnion,
    )
    .unwrap();
    assert_eq!(old.log.frontmatter.started.as_str(), "2024-11-27T11:39:58Z");
    let Section::Phase(p) = &old.log.sections[0] else {
        panic!()
    };
    let expect = callouts_of(p)
        .into_iter()
        .find(|c| c.0 == "expect")
        .unwrap();
    assert_eq!(expect.2, ["tools: get_emails", "result: shows email list"]);
    let calls: Vec<_> = old.log.tool_calls().collect();
    assert_eq!(calls[0].tool, "get_emails");
    assert_eq!(
        calls[0].summary.as_deref(),
        Some("3 emails: from Ana, Bo, Cy")
    );
    assert_eq!(calls[1].tool, "send_email");
}

#[test]
fn claude_code_transcripts_count_usage_once_per_message() {
    let imp = import(
        &foreign("claude-code/projects/-home-me-myapp/7f3c2a10-5b1e-4c8e-9d2a-0c4e5f6a7b8c.jsonl"),
        Format::ClaudeCode,
    )
    .unwrap();
    let log = &imp.log;
    assert_eq!(log.title(), Some("Fix failing date parser test"));
    assert_eq!(
        log.frontmatter.model.as_deref(),
        Some("claude-sonnet-4-20250514")
    );
    // 4 messages, each usage once although msg_01A and msg_01C span two lines.
    assert_eq!(log.frontmatter.tokens_used, Some(4240 + 4475 + 4540));
    assert_eq!(
        imp.provenance.id.as_deref(),
        Some("7f3c2a10-5b1e-4c8e-9d2a-0c4e5f6a7b8c")
    );
    let calls: Vec<_> = log.tool_calls().collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0].args, "/home/me/myapp/tests/date_test.py");
    assert!(calls[1].failed);
    assert!(!calls[2].failed);
    // The side chain is a child session of its own, linked where it ran;
    // the synthetic reply is an error.
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    assert_eq!(imp.children.len(), 1);
    let child = &imp.children[0];
    assert_eq!(child.imported.log.frontmatter.tokens_used, Some(355 + 405));
    assert_eq!(child.imported.log.tool_calls().count(), 1);
    assert_eq!(child.link.anchor, Some((0, 2)));
    assert!(
        child
            .imported
            .provenance
            .path
            .ends_with("7f3c2a10-5b1e-4c8e-9d2a-0c4e5f6a7b8c.jsonl#s1")
    );
    assert_eq!(log.phase_count(), 2);
    assert_eq!(
        log.callouts()
            .filter(|c| c.kind() == CalloutKind::Error)
            .count(),
        1
    );
}

#[test]
fn claude_code_subagent_files_become_children_of_their_task_call() {
    let dir = foreign("claude-code/projects/-home-me-myapp");
    let main = dir.join("c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46.jsonl");
    let sub = dir.join("c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46/subagents/agent-a3f9c1e.jsonl");
    // A folder walk takes the subagent's file with its parent ...
    let found: Vec<_> = find_sources(&dir, None)
        .sources
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert!(found.contains(&main) && !found.contains(&sub), "{found:?}");
    // ... named on its own, it is a source of its own.
    assert_eq!(
        find_sources(&sub, None).sources,
        [(sub.clone(), Format::ClaudeCode)]
    );
    let imp = import(&main, Format::ClaudeCode).unwrap();
    assert_eq!(imp.log.title(), Some("Review the date parser"));
    assert_eq!(
        imp.log.frontmatter.tokens_used,
        Some(952 + 173 + 5500 + 10700)
    );
    let [child] = imp.children.as_slice() else {
        panic!("one child: {:?}", imp.children.len())
    };
    let c = &child.imported.log;
    assert_eq!(c.title(), Some("Review century-year handling"));
    assert_eq!(c.frontmatter.status.as_str(), "completed");
    assert_eq!(c.frontmatter.tokens_used, Some(3120 + 110));
    assert_eq!(c.frontmatter.participants[0].to_string(), "code-reviewer");
    assert_eq!(child.imported.provenance.id.as_deref(), Some("a3f9c1e"));
    // After the tool-call list that holds the Task call (user, reply, calls).
    assert_eq!(child.link.anchor, Some((0, 2)));
    assert_eq!(
        child.link.description.as_deref(),
        Some("Review century-year handling")
    );
    // The parent's source hash covers its subagents' files.
    let alone = fnv_hex(&std::fs::read(&main).unwrap());
    assert_ne!(imp.provenance.source_hash, alone);
}

#[test]
fn linking_children_writes_parent_entries_and_callouts() {
    let main =
        foreign("claude-code/projects/-home-me-myapp/c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46.jsonl");
    let imp = import(&main, Format::ClaudeCode).unwrap();
    let mut parent = imp.log.clone();
    parent.frontmatter.session_id = SessionId::new("parent").unwrap();
    let mut children: Vec<_> = imp
        .children
        .iter()
        .map(|c| {
            let mut l = c.imported.log.clone();
            l.frontmatter.session_id = SessionId::new("child").unwrap();
            (l, c.link.clone())
        })
        .collect();
    link_children(&mut parent, &mut children);
    assert_eq!(
        children[0].0.frontmatter.parent.as_ref().unwrap().as_str(),
        "parent"
    );
    assert_eq!(parent.frontmatter.subagents[0].session.as_str(), "child");
    assert_eq!(parent.frontmatter.subagents[0].tokens, Some(3230));
    let sub = parent
        .callouts()
        .find(|c| c.kind() == CalloutKind::Subagent)
        .unwrap()
        .subagent()
        .unwrap();
    assert_eq!(sub.target.unwrap().as_str(), "child");
    // The written session reads back the same.
    let text = crucible_parser::write_session(&parent);
    let back = crucible_parser::parse_session(Path::new("parent.md"), text.as_bytes()).unwrap();
    assert_eq!(back, parent);
}

#[test]
fn connectonion_eval_summaries_take_the_latest_runs_messages() {
    let imp = import(
        &foreign("connectonion/.co/evals/count_the_todo_comments.yaml"),
        Format::ConnectOnion,
    )
    .unwrap();
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    let log = &imp.log;
    assert_eq!(log.phase_count(), 2);
    // Run 2's messages: the calls with their results.
    let calls: Vec<_> = log.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].args, "git blame -L 88,88 src/parser.py");
    assert!(
        calls[0]
            .summary
            .as_deref()
            .unwrap()
            .starts_with("src/parser.py:12")
    );
    assert_eq!(log.frontmatter.tokens_used, Some(1856));
    assert_eq!(log.frontmatter.model.as_deref(), Some("gpt-4o-mini"));
    assert!(
        log.system_prompt()
            .unwrap()
            .starts_with("You are a code assistant")
    );
    let (_, first) = log.phases().next().unwrap();
    assert_eq!(first.meta.tokens, Some(812));
    assert_eq!(first.meta.duration_ms, Some(2310));
    let extra: Vec<(&str, &str)> = first
        .meta
        .extra
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(extra, [("history", "run 1: fail")]);
    let kinds: Vec<(String, String)> = callouts_of(first).into_iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(kinds[1], ("expect".to_owned(), String::new()));
    assert_eq!(kinds[2], ("eval".to_owned(), "passed".to_owned()));
    // An empty `evaluation: ''` is no verdict.
    let (_, second) = log.phases().nth(1).unwrap();
    assert!(!callouts_of(second).iter().any(|c| c.0 == "eval"));
}

#[test]
fn a_damaged_eval_run_file_falls_back_to_the_turn_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let src = foreign("connectonion/.co/evals/count_the_todo_comments.yaml");
    let summary = dir.path().join("count_the_todo_comments.yaml");
    std::fs::copy(&src, &summary).unwrap();
    std::fs::create_dir(dir.path().join("count_the_todo_comments")).unwrap();
    std::fs::write(
        dir.path().join("count_the_todo_comments/run_2.yaml"),
        "messages: '[{\"role\": \"user\"'\n",
    )
    .unwrap();
    let imp = import(&summary, Format::ConnectOnion).unwrap();
    assert_eq!(imp.warnings.len(), 1, "{:?}", imp.warnings);
    assert!(imp.warnings[0].message.contains("not a JSON array"));
    // From `tools_called`: the names and their arguments as written.
    let calls: Vec<_> = imp.log.tool_calls().collect();
    assert_eq!(calls[0].tool, "grep");
    assert_eq!(calls[0].args, "pattern='TODO', path='src/'");
}

#[test]
fn codex_rollouts_count_the_user_once_and_take_the_last_totals() {
    let imp = import(
        &foreign("codex/sessions/2025/09/02/rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl"),
        Format::Codex,
    )
    .unwrap();
    let log = &imp.log;
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    assert_eq!(log.frontmatter.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(log.frontmatter.tokens_used, Some(12340));
    assert_eq!(
        imp.provenance.id.as_deref(),
        Some("5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b")
    );
    // Two user prompts, each once (not again from event_msg), no environment note.
    assert_eq!(log.phase_count(), 2);
    assert_eq!(
        log.callouts()
            .filter(|c| c.kind() == CalloutKind::User)
            .count(),
        2
    );
    let calls: Vec<_> = log.tool_calls().collect();
    assert_eq!(calls[0].args, "cat .github/workflows/ci.yml");
    assert_eq!(calls[1].summary.as_deref(), Some("v20.11.0"));
    assert!(
        calls[2]
            .args
            .contains("*** Update File: .github/workflows/ci.yml")
    );
}

/// (kind, title, body) of a phase's callouts.
fn callouts_of(p: &crucible_core::Phase) -> Vec<(String, String, Vec<String>)> {
    p.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Callout(c) => Some((c.kind.clone(), c.title.clone(), c.body.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn an_older_agent_file_beside_the_transcript_is_a_child_too() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-home-me-myapp");
    std::fs::create_dir_all(&project).unwrap();
    let main_name = "c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46.jsonl";
    std::fs::copy(
        foreign(&format!("claude-code/projects/-home-me-myapp/{main_name}")),
        project.join(main_name),
    )
    .unwrap();
    // The older layout: `agent-<id>.jsonl` beside the transcript, its lines
    // naming the parent's session.
    let sub = std::fs::read_to_string(foreign(
        "claude-code/projects/-home-me-myapp/c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46/subagents/agent-a3f9c1e.jsonl",
    ))
    .unwrap();
    std::fs::write(project.join("agent-a3f9c1e.jsonl"), &sub).unwrap();
    // Another session's agent file is not this one's.
    std::fs::write(
        project.join("agent-other.jsonl"),
        sub.replace("c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46", "0000-other"),
    )
    .unwrap();
    let found: Vec<_> = find_sources(dir.path(), None)
        .sources
        .into_iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // Its parent is here, so it comes with it; the other has none here.
    assert_eq!(found, ["agent-other.jsonl", main_name]);
    let imp = import(&project.join(main_name), Format::ClaudeCode).unwrap();
    assert_eq!(imp.children.len(), 1);
    let child = &imp.children[0];
    assert!(
        child
            .imported
            .provenance
            .path
            .ends_with("agent-a3f9c1e.jsonl")
    );
    assert_eq!(child.imported.log.frontmatter.tokens_used, Some(3230));
}

/// A transcript whose `cwd` is a folder of a git repository here gets the
/// repository's root as its `project`, and so does its subagent; one from
/// another machine keeps only its `cwd`.
#[test]
fn an_imported_session_s_project_is_the_git_root_of_its_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let cwd = repo.join("crates/app");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    let here = |rel: &str| {
        std::fs::read_to_string(foreign(&format!(
            "claude-code/projects/-home-me-myapp/{rel}"
        )))
        .unwrap()
        .replace(
            "\"cwd\":\"/home/me/myapp\"",
            &format!("\"cwd\":{:?}", cwd.to_str().unwrap()),
        )
    };
    let project = dir.path().join("projects/x");
    let main_name = "c41d9e7b-2f60-4a8b-b1e3-5d7f9a0c2e46";
    std::fs::create_dir_all(project.join(format!("{main_name}/subagents"))).unwrap();
    std::fs::write(
        project.join(format!("{main_name}.jsonl")),
        here(&format!("{main_name}.jsonl")),
    )
    .unwrap();
    let sub = format!("{main_name}/subagents/agent-a3f9c1e.jsonl");
    std::fs::write(project.join(&sub), here(&sub)).unwrap();

    let imp = import(
        &project.join(format!("{main_name}.jsonl")),
        Format::ClaudeCode,
    )
    .unwrap();
    let root = std::fs::canonicalize(&repo).unwrap();
    let fm = &imp.log.frontmatter;
    assert_eq!(fm.extra.get_str("cwd"), cwd.to_str());
    assert_eq!(fm.project(), root.to_str());
    let [child] = imp.children.as_slice() else {
        panic!("one child")
    };
    assert_eq!(child.imported.log.frontmatter.project(), root.to_str());

    let away = import(
        &foreign(&format!(
            "claude-code/projects/-home-me-myapp/{main_name}.jsonl"
        )),
        Format::ClaudeCode,
    )
    .unwrap();
    assert!(!away.log.frontmatter.extra.contains_key("project"));
    assert_eq!(away.log.frontmatter.project(), Some("/home/me/myapp"));
}
