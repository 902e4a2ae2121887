//! An import of a transcript whose session the hooks recorded: one
//! session, the import filling in what the hooks did not see and keeping
//! what only they saw (docs/recording.md, "One session, not two").

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use super::hook::{fixtures, payload, run};

/// The events of the fixtures' session, in the order Claude Code sends them.
const REPLAY: [&str; 10] = [
    "session-start.json",
    "user-prompt-submit.json",
    "pre-tool-use.json",
    "post-tool-use.json",
    "post-tool-use-failure.json",
    "pre-compact.json",
    "subagent-stop.json",
    "notification.json",
    "stop.json",
    "session-end.json",
];

fn cru(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("cru").unwrap();
    c.arg("--dir").arg(dir).env_remove("CRU_SESSIONS_DIR");
    c
}

fn import(dir: &Path, source: &Path) -> String {
    let out = cru(dir)
        .args(["session", "import"])
        .arg(source)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
}

/// The session files of `dir`: (path, text), parents first.
fn sessions(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    files.sort_by_key(|(_, t)| t.contains("\nparent: "));
    files
}

fn id_of(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.strip_prefix("session_id: "))
        .unwrap()
}

/// Every child names a parent that lists it (no orphaned link).
fn assert_linked(files: &[(PathBuf, String)]) {
    for (_, child) in files.iter().filter(|(_, t)| t.contains("\nparent: ")) {
        let parent = child
            .lines()
            .find_map(|l| l.strip_prefix("parent: "))
            .unwrap();
        let (_, p) = files
            .iter()
            .find(|(_, t)| id_of(t) == parent)
            .unwrap_or_else(|| panic!("no parent {parent}"));
        let id = id_of(child);
        assert!(p.contains(&format!("session: {id}")), "{id} not in {p}");
        assert!(p.contains(&format!("[[{id}]]")), "{id} not linked in {p}");
    }
}

fn validate(dir: &Path) {
    cru(dir).args(["session", "validate"]).assert().success();
}

#[test]
fn an_import_after_the_hooks_keeps_what_only_the_hooks_saw() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let src = tmp.path().join("projects/-home-dev-shop");
    std::fs::create_dir_all(&src).unwrap();
    let transcript = src.join("9d2c4b1e-5f6a-4c7d-8e9f-0a1b2c3d4e5f.jsonl");
    std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
    for name in REPLAY {
        run(&dir, &state, payload(name, &transcript, None, None));
    }
    let said = import(&dir, &transcript);
    assert!(said.contains("0 created, 1 updated"), "{said}");
    let files = sessions(&dir);
    assert_eq!(files.len(), 2, "the session and its subagent: {files:?}");
    let parent = &files[0].1;
    for kept in [
        "\nstatus: completed\n",
        "\nended: ",
        "`Read /home/dev/shop/src/cart.rs` → ✗ File does not exist.",
        "`compact manual keep the test names` → context compacted",
        "> [!subagent] @Explore",
        // Filled in by the import: the replies the hooks never see.
        "> The total was rounded before the discount",
        "  hooks: true\n",
    ] {
        assert!(parent.contains(kept), "{kept:?} lost:\n{parent}");
    }
    assert_eq!(
        parent.matches("`Bash cargo test checkout`").count(),
        1,
        "the call both saw, once:\n{parent}"
    );
    assert_linked(&files);
    validate(&dir);

    // The transcript grows with a turn the hooks did not see: the next
    // import adds it and still keeps what only the hooks saw.
    let mut more = std::fs::read_to_string(&transcript).unwrap();
    more.push_str(concat!(
        r#"{"type":"user","sessionId":"9d2c4b1e-5f6a-4c7d-8e9f-0a1b2c3d4e5f","uuid":"u9","#,
        r#""parentUuid":"a3","timestamp":"2026-03-02T10:05:00.000Z","cwd":"/home/dev/shop","#,
        r#""message":{"role":"user","content":"And the refund test?"}}"#,
        "\n"
    ));
    std::fs::write(&transcript, more).unwrap();
    let said = import(&dir, &transcript);
    assert!(said.contains("0 created, 1 updated"), "{said}");
    let files = sessions(&dir);
    assert_eq!(files.len(), 2, "{files:?}");
    let parent = &files[0].1;
    assert!(parent.contains("And the refund test?"), "{parent}");
    for kept in [
        "\nstatus: completed\n",
        "✗ File does not exist.",
        "`compact manual",
        "[!subagent]",
    ] {
        assert!(parent.contains(kept), "{kept:?} lost again:\n{parent}");
    }
    assert_linked(&files);
    validate(&dir);
}

/// A real session (fixtures/real/claude-code/spotter) with a subagent
/// whose transcript is in its `subagents/` folder and one whose
/// transcript is not written (yet): after the hooks and an import, one
/// child for the first (not two), the second still linked, the session
/// still completed.
#[test]
fn a_real_session_imported_after_its_hooks_keeps_every_child_linked() {
    let real =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/claude-code/spotter");
    let sid = "258c7280-ae70-4798-800f-63464d01a85d";
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let src = tmp.path().join("projects/-home-USER-projects-spotter");
    std::fs::create_dir_all(src.join(sid).join("subagents")).unwrap();
    let transcript = src.join(format!("{sid}.jsonl"));
    std::fs::copy(real.join(format!("{sid}.jsonl")), &transcript).unwrap();
    for agent in ["agent-a881341.jsonl", "agent-acompact-fffbd0.jsonl"] {
        let rel = Path::new(sid).join("subagents").join(agent);
        std::fs::copy(real.join(&rel), src.join(&rel)).unwrap();
    }
    let event = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&payload(name, &transcript, Some(sid), None)).unwrap();
        v["cwd"] = "/home/USER/projects/spotter-worktrees/spotter-gqc".into();
        edit(&mut v);
        run(&dir, &state, serde_json::to_vec(&v).unwrap());
    };
    let none = |_: &mut serde_json::Value| {};
    event("session-start.json", &none);
    event("user-prompt-submit.json", &|v| {
        v["prompt"] = "Implement spotter-gqc".into();
    });
    for (agent, path) in [
        (
            "a881341",
            src.join(sid).join("subagents/agent-a881341.jsonl"),
        ),
        (
            "a0f0f0f",
            src.join(sid).join("subagents/agent-a0f0f0f.jsonl"),
        ),
    ] {
        event("subagent-stop.json", &|v| {
            v["agent_id"] = agent.into();
            v["agent_transcript_path"] = path.to_str().unwrap().into();
        });
    }
    event("session-end.json", &none);
    let before = sessions(&dir);
    assert_eq!(before.len(), 3, "the session and two children");
    let said = import(&dir, &transcript);
    assert!(said.contains("0 skipped"), "{said}");
    let files = sessions(&dir);
    let parent = &files[0].1;
    assert_eq!(id_of(parent), id_of(&before[0].1), "the same session");
    assert!(parent.contains("\nstatus: completed\n"), "{parent}");
    let children = |agent: &str| {
        files
            .iter()
            .filter(|(_, t)| t.contains(&format!("\n  id: {agent}\n")))
            .count()
    };
    assert_eq!(children("a881341"), 1, "matched, not doubled");
    assert_eq!(children("a0f0f0f"), 1, "the hooks' child is kept");
    assert_linked(&files);
    validate(&dir);
}

/// A session the hooks make is named from its first prompt, as an import
/// names it (not `claude-code-session-N`): made at that prompt, with the
/// model `SessionStart` said; the import of its transcript finds it.
#[test]
fn a_hook_session_is_named_from_its_first_prompt_and_the_import_finds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let transcript = super::hook::fixture_transcript(tmp.path());
    run(
        &dir,
        &state,
        payload("session-start.json", &transcript, None, None),
    );
    assert!(sessions(&dir).is_empty(), "nothing to name it by yet");
    run(
        &dir,
        &state,
        payload("user-prompt-submit.json", &transcript, None, None),
    );
    let files = sessions(&dir);
    assert_eq!(files.len(), 1);
    let (path, text) = &files[0];
    let id = id_of(text).to_owned();
    assert!(
        id.ends_with("-why-does-the-checkout-test-fail-fix-it"),
        "{id}"
    );
    assert!(
        text.contains("\ntitle: Why does the checkout test fail? Fix it.\n"),
        "{text}"
    );
    assert!(
        text.contains("\nmodel: claude-sonnet-4-5-20250929\n"),
        "{text}"
    );
    let said = import(&dir, &transcript);
    assert!(said.contains("0 created, 1 updated"), "{said}");
    let after = sessions(&dir);
    assert_eq!(after.len(), 1);
    assert_eq!((&after[0].0, id_of(&after[0].1)), (path, id.as_str()));
}

/// `claude --resume` writes a new transcript (a new session id) that
/// repeats the earlier one's lines, with their `uuid`s, here under the new
/// session id: the hooks of the resumed session find the earlier one by
/// those `uuid`s and go on in its cru session (one session, not two).
#[test]
fn a_resumed_session_whose_copied_lines_carry_the_new_id_goes_on_in_the_earlier_one() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/spotter/tool_heavy.jsonl");
    let (a, b) = (
        "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
        "bbbbbbbb-0000-4000-8000-000000000002",
    );
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let src = tmp.path().join("projects/-home-USER-projects-spotter");
    std::fs::create_dir_all(&src).unwrap();
    let (ta, tb) = (
        src.join(format!("{a}.jsonl")),
        src.join(format!("{b}.jsonl")),
    );
    let lines = std::fs::read_to_string(&real).unwrap();
    std::fs::write(&ta, &lines).unwrap();
    std::fs::write(&tb, lines.replace(a, b)).unwrap();
    super::hook::replay_resumed(&dir, &state, (a, &ta), (b, &tb), "RESUMED PROMPT");
    let files = sessions(&dir);
    assert_eq!(files.len(), 1, "linked, not duplicated: {files:?}");
    let text = std::fs::read_to_string(&files[0].0).unwrap()
        + &std::fs::read_to_string(files[0].0.with_file_name(format!(
            ".{}.journal",
            files[0].0.file_name().unwrap().to_string_lossy()
        )))
        .unwrap_or_default();
    assert!(
        text.contains("RESUMED PROMPT") && text.contains("start phoenix"),
        "{text}"
    );
}
