//! Export and import are each other's inverse as far as each format can
//! hold a session (the table in `docs/interop.md`): import(export(s)) for
//! every native fixture, and export(import(file)) for every foreign one.

use std::path::{Path, PathBuf};

use crucible_core::{SessionLog, SessionStatus, Task};
use crucible_interop::{EXPORT_FORMATS, Exported, Format, export, find_sources, import};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn native_sessions() -> Vec<(PathBuf, SessionLog)> {
    let mut out = Vec::new();
    let mut stack = vec![fixtures().join("sessions")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                let bytes = std::fs::read(&p).unwrap();
                let log = crucible_parser::parse_session(&p, &bytes).unwrap();
                out.push((p, log));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 9, "{} fixtures", out.len());
    out
}

/// Writes an export where its format's files live and imports it back.
fn through(log: &SessionLog, format: Format, dir: &Path) -> SessionLog {
    let exported = export(log, &crucible_core::SessionData::default(), format).unwrap();
    let path = match exported {
        Exported::File(bytes) => {
            let name = match format {
                Format::ConnectOnion => "agent.yaml",
                Format::Codeloops => "session.jsonl",
                Format::ClaudeCode => "transcript.jsonl",
                _ => "messages.json",
            };
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        }
        Exported::Folder { name, files } => {
            let p = dir.join(name);
            std::fs::create_dir_all(&p).unwrap();
            let mut written = Vec::new();
            for (f, bytes) in files {
                std::fs::write(p.join(&f), bytes).unwrap();
                written.push(p.join(f));
            }
            // A Codex rollout is one file in its day's folder.
            if format == Format::Codex {
                written.remove(0)
            } else {
                p
            }
        }
    };
    // Found by content, as a user's file would be.
    assert_eq!(
        find_sources(&path, None).sources,
        [(path.clone(), format)],
        "{}",
        path.display()
    );
    let imp = import(&path, format).unwrap();
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    imp.log
}

/// (tool, args, failed) of every call.
fn calls(log: &SessionLog) -> Vec<(String, String, bool)> {
    log.tool_calls()
        .map(|c| (c.tool.clone(), c.args.clone(), c.failed))
        .collect()
}

fn tasks(log: &SessionLog) -> Vec<Task> {
    log.tasks().map(<[Task]>::to_vec).unwrap_or_default()
}

fn phase_tokens(log: &SessionLog) -> Vec<Option<u64>> {
    log.phases().map(|(_, p)| p.meta.tokens).collect()
}

/// Asserts what `format` holds is the same in `a` and `b`.
fn assert_kept(format: Format, a: &SessionLog, b: &SessionLog, what: &str) {
    let ctx = format!("{what} through {}", format.as_str());
    assert_eq!(a.phase_count(), b.phase_count(), "phases: {ctx}");
    match format {
        Format::ConnectOnion => {
            assert_eq!(calls(a), calls(b), "tool calls: {ctx}");
            assert_eq!(
                a.frontmatter.tokens_used, b.frontmatter.tokens_used,
                "tokens: {ctx}"
            );
            assert_eq!(phase_tokens(a), phase_tokens(b), "phase tokens: {ctx}");
            assert_eq!(a.system_prompt(), b.system_prompt(), "system prompt: {ctx}");
        }
        Format::Codeloops => {
            assert_eq!(a.frontmatter.status, b.frontmatter.status, "status: {ctx}");
            assert_eq!(a.frontmatter.model, b.frontmatter.model, "model: {ctx}");
        }
        Format::AgentDir => {
            assert_eq!(calls(a), calls(b), "tool calls: {ctx}");
            assert_eq!(tasks(a), tasks(b), "tasks: {ctx}");
            assert_eq!(a.system_prompt(), b.system_prompt(), "system prompt: {ctx}");
            assert_eq!(
                a.frontmatter.started.unix_ms() / 1000,
                b.frontmatter.started.unix_ms() / 1000,
                "started: {ctx}"
            );
        }
        Format::OpenAiMessages => {
            assert_eq!(calls(a), calls(b), "tool calls: {ctx}");
            assert_eq!(a.system_prompt(), b.system_prompt(), "system prompt: {ctx}");
        }
        Format::Codex | Format::ClaudeCode => {
            assert_eq!(calls(a), calls(b), "tool calls: {ctx}");
            assert_eq!(
                a.frontmatter.tokens_used, b.frontmatter.tokens_used,
                "tokens: {ctx}"
            );
            if format == Format::Codex {
                assert_eq!(a.frontmatter.model, b.frontmatter.model, "model: {ctx}");
            }
            // (An untitled session comes back titled by its first prompt.)
            if format == Format::ClaudeCode && a.title().is_some() {
                assert_eq!(a.title(), b.title(), "title: {ctx}");
            }
        }
        Format::Gemini | Format::Copilot | Format::OpenCode => unreachable!("not written"),
    }
}

#[test]
fn every_native_fixture_survives_every_export_format() {
    for (path, log) in native_sessions() {
        for format in EXPORT_FORMATS {
            let dir = tempfile::tempdir().unwrap();
            let back = through(&log, format, dir.path());
            assert_kept(format, &log, &back, &path.display().to_string());
        }
    }
}

#[test]
fn every_status_survives_codeloops() {
    let (_, mut log) = native_sessions().remove(0);
    for status in SessionStatus::ALL {
        log.frontmatter.status = status;
        log.frontmatter.resume_point = None;
        let dir = tempfile::tempdir().unwrap();
        let back = through(&log, Format::Codeloops, dir.path());
        assert_eq!(back.frontmatter.status, status);
    }
}

#[test]
fn every_foreign_fixture_survives_its_own_format() {
    let mut seen = Vec::new();
    for (src, format) in find_sources(&fixtures().join("foreign"), None).sources {
        if !EXPORT_FORMATS.contains(&format) {
            continue;
        }
        let first = import(&src, format).unwrap().log;
        let dir = tempfile::tempdir().unwrap();
        let back = through(&first, format, dir.path());
        assert_kept(format, &first, &back, &src.display().to_string());
        // And again: a second trip changes nothing more.
        let dir2 = tempfile::tempdir().unwrap();
        let again = through(&back, format, dir2.path());
        let text =
            |log: &SessionLog| match export(log, &crucible_core::SessionData::default(), format)
                .unwrap()
            {
                Exported::File(b) => String::from_utf8(b).unwrap(),
                Exported::Folder { files, .. } => files
                    .into_iter()
                    .map(|(n, b)| format!("{n}:\n{}", String::from_utf8(b).unwrap()))
                    .collect(),
            };
        similar_asserts_free_eq(&text(&back), &text(&again), &src);
        seen.push(format);
    }
    for f in EXPORT_FORMATS {
        assert!(seen.contains(&f), "no foreign fixture of {}", f.as_str());
    }
}

#[test]
fn connectonion_export_keeps_the_seed_layout_and_eval_fields() {
    let src = fixtures().join("foreign/connectonion/.co/sessions/oo.yaml");
    let log = import(&src, Format::ConnectOnion).unwrap().log;
    let Exported::File(bytes) = export(
        &log,
        &crucible_core::SessionData::default(),
        Format::ConnectOnion,
    )
    .unwrap() else {
        panic!("a file")
    };
    let text = String::from_utf8(bytes).unwrap();
    // Turn summaries first, messages keyed by turn at the end.
    let turns = text.find("\nturns:\n").unwrap();
    let messages = text.find("\nmessages:\n").unwrap();
    assert!(turns < messages, "{text}");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let original: serde_yaml::Value =
        serde_yaml::from_slice(&std::fs::read(&src).unwrap()).unwrap();
    for key in ["name", "created", "total_tokens", "system_prompt"] {
        assert_eq!(doc[key], original[key], "{key}");
    }
    let (a, b) = (
        doc["turns"].as_sequence().unwrap(),
        original["turns"].as_sequence().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        for key in [
            "turn",
            "input",
            "model",
            "duration_ms",
            "tokens",
            "timestamp",
            "expected",
            "passed",
        ] {
            assert_eq!(x[key], y[key], "turn {:?} {key}", y["turn"]);
        }
    }
    assert_eq!(
        doc["messages"][1][0]["content"],
        original["messages"][1][0]["content"]
    );
}

#[test]
fn codeloops_export_keeps_outcome_prompt_and_iterations() {
    for src in std::fs::read_dir(fixtures().join("foreign/codeloops"))
        .unwrap()
        .flatten()
    {
        let src = src.path();
        let log = import(&src, Format::Codeloops).unwrap().log;
        let Exported::File(bytes) = export(
            &log,
            &crucible_core::SessionData::default(),
            Format::Codeloops,
        )
        .unwrap() else {
            panic!("a file")
        };
        let lines = |text: &str| -> Vec<serde_json::Value> {
            text.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        };
        let ours = lines(&String::from_utf8(bytes).unwrap());
        let theirs = lines(&std::fs::read_to_string(&src).unwrap());
        let kinds = |v: &[serde_json::Value]| -> Vec<String> {
            v.iter()
                .map(|l| l["type"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(kinds(&ours), kinds(&theirs), "{}", src.display());
        for key in ["prompt", "working_dir", "actor_model", "max_iterations"] {
            assert_eq!(ours[0][key], theirs[0][key], "{} {key}", src.display());
        }
        // Agents are kept as codeloops wrote them (`Claude Code`), though
        // cru's participants are their slugs (`claude-code`).
        for key in ["actor_agent", "critic_agent"] {
            assert_eq!(ours[0][key], theirs[0][key], "{} {key}", src.display());
        }
        for (a, b) in ours
            .iter()
            .zip(&theirs)
            .filter(|(_, b)| b["type"] == "iteration")
        {
            for key in [
                "iteration_number",
                "actor_exit_code",
                "actor_duration_secs",
                "git_files_changed",
                "timestamp",
            ] {
                assert_eq!(a[key], b[key], "{} {key}", src.display());
            }
            let verdict = |v: &serde_json::Value| {
                v["critic_decision"]
                    .as_str()
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_owned()
            };
            assert_eq!(verdict(a), verdict(b), "{}", src.display());
        }
        if let (Some(a), Some(b)) = (ours.last(), theirs.last())
            && b["type"] == "session_end"
        {
            assert_eq!(a["outcome"], b["outcome"], "{}", src.display());
        }
    }
}

/// Equal texts, or a failure that shows the first line that differs.
fn similar_asserts_free_eq(a: &str, b: &str, src: &Path) {
    if a == b {
        return;
    }
    let at = a.lines().zip(b.lines()).position(|(x, y)| x != y);
    panic!(
        "{} is not stable after one trip; first difference at line {at:?}:\n{:?}\n{:?}",
        src.display(),
        at.and_then(|i| a.lines().nth(i)),
        at.and_then(|i| b.lines().nth(i)),
    );
}

/// Generated sessions through every format: the table holds for them too.
mod generated {
    use super::*;
    use crucible_core::{
        Block, Callout, Frontmatter, Phase, PhaseId, Section, SessionId, TaskStatus, ToolCall,
    };
    use proptest::prelude::*;

    fn tool_call() -> impl Strategy<Value = ToolCall> {
        (
            // Shell tools carry their command line under `command`.
            prop_oneof!["bash|run|shell", "[a-z][a-z_]{0,9}"],
            // Arguments as people write them: paths, quotes, JSON-looking
            // text, parentheses, commas, colons, non-ASCII.
            "[-#a-zA-Z0-9./_\"'(),:{}=é→ ]{0,30}",
            proptest::option::of("[a-zA-Z0-9 .:,-]{1,30}"),
            any::<bool>(),
        )
            .prop_map(|(tool, args, summary, failed)| {
                let mut c = ToolCall::new(tool, args.trim());
                c.summary = summary
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty());
                c.failed = failed;
                c
            })
    }

    fn phase() -> impl Strategy<Value = Phase> {
        (
            "[A-Z][a-z]{1,8}( [a-z]{1,8}){0,3}",
            proptest::option::of("[a-z]{1,8}( [a-z0-9?]{1,8}){0,4}"),
            proptest::collection::vec(tool_call(), 0..5),
            proptest::option::of("[A-Z][a-z ,.]{0,40}"),
            proptest::option::of(1u64..50_000),
            any::<bool>(),
        )
            .prop_map(|(name, user, calls, reply, tokens, decision)| {
                let mut p = Phase::new(name, Some("coder".parse().unwrap()), Some("dev".into()));
                if let Some(u) = user {
                    p.blocks.push(Block::Callout(Callout::user(u.trim(), None)));
                }
                if decision {
                    p.blocks
                        .push(Block::Callout(Callout::decision("Keep it small.")));
                }
                if !calls.is_empty() {
                    p.blocks.push(Block::ToolCalls { calls });
                }
                if let Some(r) = reply.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()) {
                    p.blocks.push(Block::Callout(Callout::reply(
                        Some(&"coder".parse().unwrap()),
                        &r,
                    )));
                }
                p.meta.tokens = tokens;
                p
            })
    }

    fn task() -> impl Strategy<Value = Task> {
        (
            "[1-9][0-9]{0,2}",
            "[A-Z][a-z ]{0,20}",
            0..3usize,
            proptest::option::of("(high|low)"),
        )
            .prop_map(|(id, content, status, priority)| Task {
                id,
                content: content.trim().to_owned(),
                status: [
                    TaskStatus::Pending,
                    TaskStatus::InProgress,
                    TaskStatus::Completed,
                ][status],
                priority,
                extra: serde_json::Map::new(),
            })
    }

    fn session() -> impl Strategy<Value = SessionLog> {
        (
            proptest::collection::vec(phase(), 1..6),
            proptest::collection::vec(task(), 0..4),
            0..4usize,
            proptest::option::of(1u64..1_000_000),
            proptest::option::of("[A-Z][a-z .]{0,40}"),
            0i64..2_000_000_000,
        )
            .prop_map(|(phases, tasks, status, tokens, system, secs)| {
                let mut fm = Frontmatter::new(
                    SessionId::new("2025-01-01-generated").unwrap(),
                    crucible_core::Timestamp::from_unix_ms(secs * 1000),
                );
                fm.status = SessionStatus::ALL[status];
                fm.tokens_used = tokens;
                fm.model = Some("model-x".into());
                if fm.status == SessionStatus::Paused {
                    fm.resume_point = Some(PhaseId::from_index(phases.len() - 1));
                }
                let mut log = SessionLog::new(fm);
                if let Some(sp) = system
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                {
                    log.preamble.push(Block::SystemPrompt { text: sp });
                }
                if !tasks.is_empty() {
                    log.preamble.push(Block::Tasks { tasks });
                }
                log.sections = phases.into_iter().map(Section::Phase).collect();
                log
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn every_format_keeps_what_it_holds(log in session()) {
            for format in EXPORT_FORMATS {
                let dir = tempfile::tempdir().unwrap();
                let back = through(&log, format, dir.path());
                assert_kept(format, &log, &back, "a generated session");
            }
        }
    }
}

/// Damaged input never panics an importer: bytes made of the formats' own
/// pieces (braces, quotes, keys, newlines, YAML markers), in every format.
mod damaged {
    use super::*;
    use proptest::prelude::*;

    /// The formats' own pieces, and two bytes that are no UTF-8.
    const PIECES: &[&[u8]] = &[
        b"{\"type\":\"",
        b"session_start\",",
        b"\"sessionId\":\"s\",",
        b"\"message\":{\"content\":[",
        b"{\"type\":\"tool_use\",\"id\":\"x\",\"input\":",
        b"\"role\":\"user\",\"content\":",
        b"\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{",
        b"turns:\n  - input: ",
        b"messages:\n  1:\n    - role: ",
        b"name: n\n",
        b"}]},",
        b"\n",
        &[0xff, 0xfe],
    ];

    fn pieces() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                PIECES.len() as u32 => proptest::sample::select(PIECES).prop_map(<[u8]>::to_vec),
                1 => "[ -~]{0,12}".prop_map(String::into_bytes),
            ],
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn importers_never_panic(bytes in pieces()) {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("input");
            std::fs::write(&file, &bytes).unwrap();
            let folder = dir.path().join("2025-01-01-10-00-00");
            std::fs::create_dir(&folder).unwrap();
            std::fs::write(folder.join("agent.log"), &bytes).unwrap();
            std::fs::write(folder.join("todos.json"), &bytes).unwrap();
            for format in [
                Format::OpenAiMessages,
                Format::Codeloops,
                Format::ConnectOnion,
                Format::ClaudeCode,
                Format::Codex,
                Format::Gemini,
                Format::Copilot,
            ] {
                let _ = import(&file, format);
            }
            let _ = import(&folder, Format::AgentDir);
            let _ = find_sources(dir.path(), None).sources;
        }
    }
}

/// A source file's records as JSON values: what "the same file up to key
/// order and whitespace" compares.
fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        // A damaged line (a crash's partial last line) is a warning on
        // import and is not written back.
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The session as stored: written as markdown and parsed back, so what the
/// export reads is what a user's session file holds.
fn stored(imp: &crucible_interop::Imported) -> SessionLog {
    let text = crucible_parser::write_session(&imp.log);
    crucible_parser::parse_session(Path::new("s.md"), text.as_bytes()).unwrap()
}

#[test]
fn codeloops_files_come_back_line_for_line() {
    let dir = fixtures().join("foreign/codeloops");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    for src in files {
        // Up to key order and whitespace.
        assert_exact_round_trip(&src, Format::Codeloops, "jsonl", json_lines);
    }
}

/// A YAML file as JSON: what "the same file up to key order, comments and
/// layout" compares.
fn yaml_value(bytes: &[u8]) -> serde_json::Value {
    let y: serde_yaml::Value = serde_yaml::from_slice(bytes).unwrap();
    serde_json::to_value(y).unwrap()
}

#[test]
fn connectonion_session_files_come_back_key_for_key() {
    let files = [
        fixtures().join("real/connectonion/generated-0.5/.co/sessions/calc.yaml"),
        fixtures().join("real/connectonion/failing-tool-0.5/.co/sessions/divider.yaml"),
        fixtures().join("foreign/connectonion/.co/sessions/oo.yaml"),
        fixtures().join("foreign/connectonion/.co/sessions/gmail_agent.yaml"),
    ];
    for src in files {
        // Up to key order, comments and layout.
        assert_exact_round_trip(&src, Format::ConnectOnion, "yaml", yaml_value);
    }
}

/// A message list up to the normalisation `docs/interop.md` lists for
/// OpenAI messages: content given as text parts is their text joined by
/// newlines, `content: null` is no content, `developer` is `system`.
fn normalised_messages(messages: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    messages
        .into_iter()
        .map(|mut m| {
            let obj = m.as_object_mut().unwrap();
            if obj.get("role").and_then(|r| r.as_str()) == Some("developer") {
                obj.insert("role".into(), "system".into());
            }
            match obj.get("content") {
                Some(serde_json::Value::Null) => {
                    obj.remove("content");
                }
                Some(serde_json::Value::Array(parts)) => {
                    let text: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                    let text = text.join("\n");
                    obj.insert("content".into(), text.into());
                }
                _ => {}
            }
            m
        })
        .collect()
}

#[test]
fn openai_message_files_come_back_message_for_message() {
    let dir = fixtures().join("foreign/openai");
    for name in ["refactor-chat.json", "support.jsonl"] {
        let src = dir.join(name);
        let imp = import(&src, Format::OpenAiMessages).unwrap();
        let Exported::File(bytes) =
            export(&stored(&imp), &imp.data, Format::OpenAiMessages).unwrap()
        else {
            panic!("one file")
        };
        let ours: Vec<serde_json::Value> = serde_json::from_slice(&bytes).unwrap();
        let source = std::fs::read(&src).unwrap();
        let theirs: Vec<serde_json::Value> = match serde_json::from_slice(&source) {
            Ok(serde_json::Value::Array(a)) => a,
            _ => json_lines(&source),
        };
        assert_eq!(
            normalised_messages(ours),
            normalised_messages(theirs),
            "{name}"
        );
        let tmp = tempfile::tempdir().unwrap();
        let again_path = tmp.path().join("again.json");
        std::fs::write(&again_path, &bytes).unwrap();
        // A message file has no time of its own: its mtime is the start.
        let mtime = std::fs::metadata(&src).unwrap().modified().unwrap();
        std::fs::File::options()
            .write(true)
            .open(&again_path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let again = import(&again_path, Format::OpenAiMessages).unwrap();
        assert_eq!(
            crucible_parser::write_session(&again.log),
            crucible_parser::write_session(&imp.log),
            "{name}"
        );
        assert_eq!(again.data, imp.data, "{name}");
    }
}

#[test]
fn agent_folders_come_back_file_for_file() {
    let src = fixtures().join("foreign/agent-dir/.agent/sessions/2024-12-19-14-30-45");
    let imp = import(&src, Format::AgentDir).unwrap();
    let Exported::Folder { name, files } =
        export(&stored(&imp), &imp.data, Format::AgentDir).unwrap()
    else {
        panic!("agent-dir is a folder")
    };
    assert_eq!(name, "2024-12-19-14-30-45");
    let file = |n: &str| files.iter().find(|(f, _)| f == n).unwrap().1.clone();
    let ours: Vec<serde_json::Value> = serde_json::from_slice(&file("agent.log")).unwrap();
    let theirs: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(src.join("agent.log")).unwrap()).unwrap();
    assert_eq!(normalised_messages(ours), normalised_messages(theirs));
    // Todos up to their ids, which are text in cru (`1` is `"1"`).
    let todos = |bytes: &[u8]| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        for t in v["todos"].as_array_mut().unwrap() {
            t["id"] = serde_json::Value::String(t["id"].to_string().trim_matches('"').to_owned());
        }
        v
    };
    assert_eq!(
        todos(&file("todos.json")),
        todos(&std::fs::read(src.join("todos.json")).unwrap())
    );
}

/// `export(import(f)) = f` as `normal` sees the bytes, and
/// `import(export(s)) = s`: the session and its sidecar.
fn assert_exact_round_trip<T: PartialEq + std::fmt::Debug>(
    src: &Path,
    format: Format,
    ext: &str,
    normal: impl Fn(&[u8]) -> T,
) {
    let imp = import(src, format).unwrap();
    let mismatches = imp.data.check(&stored(&imp));
    assert!(mismatches.is_empty(), "{mismatches:?}");
    let Exported::File(bytes) = export(&stored(&imp), &imp.data, format).unwrap() else {
        panic!("{format:?} is one file")
    };
    assert_eq!(
        normal(&bytes),
        normal(&std::fs::read(src).unwrap()),
        "{}",
        src.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let again_path = tmp.path().join(format!("again.{ext}"));
    std::fs::write(&again_path, &bytes).unwrap();
    let again = import(&again_path, format).unwrap();
    assert_eq!(
        crucible_parser::write_session(&again.log),
        crucible_parser::write_session(&imp.log),
        "{}",
        src.display()
    );
    assert_eq!(again.data, imp.data, "{}", src.display());
}
