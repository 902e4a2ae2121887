//! Every importer's reader runs in time linear in its input: a source 10
//! times as long costs at most 15 times the time (a quadratic step would
//! cost 100).

use std::path::{Path, PathBuf};

use crucible_interop::{Format, import};

#[path = "../../../crucible-core/tests/support/linear_time.rs"]
mod linear_time;
use linear_time::assert_linear;

/// A source file (or folder) in a temporary directory that lives as long as
/// the value.
struct Source {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn source(rel: &str, files: &[(&str, String)]) -> Source {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(rel);
    for (name, text) in files {
        let file = if name.is_empty() {
            path.clone()
        } else {
            path.join(name)
        };
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
    Source { _dir: dir, path }
}

/// Imports `path` as `format` and checks that the whole source was read.
fn assert_imports(path: &Path, format: Format, turns: usize) {
    let imported = import(path, format).unwrap_or_else(|e| panic!("{format:?}: {e}"));
    let calls = imported.log.summary().totals.tool_calls;
    assert!(
        calls as usize >= turns,
        "{format:?}: {calls} tool calls of {turns}"
    );
}

/// Times the import of `make(n)` sources. Starting at 1,000 turns keeps both
/// sizes well beyond the processor's caches: an import holds every line's
/// JSON at once, and a small source that fits in cache while the large one
/// does not made a linear reader look 15x.
fn timed(format: Format, rel: &'static str, make: fn(usize) -> Vec<(&'static str, String)>) {
    let input = |n: usize| (n, source(rel, &make(n)));
    let (n, small) = input(3);
    assert_imports(&small.path, format, n);
    assert_linear(&format!("{format:?}"), 1_000, input, |(n, s)| {
        assert_imports(&s.path, format, *n);
    });
}

fn at(i: usize) -> String {
    format!("2025-08-14T09:{:02}:{:02}.000Z", i / 60 % 60, i % 60)
}

#[test]
fn claude_code_jsonl() {
    timed(
        Format::ClaudeCode,
        "7f3c2a10-5b1e-4c8e-9d2a-0c4e5f6a7b8c.jsonl",
        |n| {
            let common = r#""isSidechain":false,"cwd":"/home/me/app","sessionId":"7f3c2a10-5b1e-4c8e-9d2a-0c4e5f6a7b8c","version":"1.0.80""#;
            let mut text =
                String::from("{\"type\":\"summary\",\"summary\":\"Long\",\"leafUuid\":\"x\"}\n");
            let mut parent = "null".to_owned();
            for i in 0..n {
                let t = at(i);
                text.push_str(&format!(
                "{{\"parentUuid\":{parent},{common},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"step {i}\"}},\"uuid\":\"u{i}a\",\"timestamp\":\"{t}\"}}\n\
                 {{\"parentUuid\":\"u{i}a\",{common},\"message\":{{\"id\":\"msg_{i}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\",\"name\":\"Bash\",\"input\":{{\"command\":\"ls {i}\"}}}}],\"usage\":{{\"input_tokens\":10,\"output_tokens\":5}}}},\"type\":\"assistant\",\"uuid\":\"u{i}b\",\"timestamp\":\"{t}\"}}\n\
                 {{\"parentUuid\":\"u{i}b\",{common},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"toolu_{i}\",\"type\":\"tool_result\",\"content\":\"file {i}\"}}]}},\"uuid\":\"u{i}c\",\"timestamp\":\"{t}\"}}\n"
            ));
                parent = format!("\"u{i}c\"");
            }
            vec![("", text)]
        },
    );
}

#[test]
fn codex_jsonl() {
    timed(
        Format::Codex,
        "rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl",
        codex_text,
    );
}

fn codex_text(n: usize) -> Vec<(&'static str, String)> {
    let mut text = String::from(
        "{\"timestamp\":\"2025-09-02T10:04:11.201Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b\",\"timestamp\":\"2025-09-02T10:04:11.190Z\",\"cwd\":\"/home/me/webapp\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.30.0\"}}\n\
             {\"timestamp\":\"2025-09-02T10:04:12.000Z\",\"type\":\"turn_context\",\"payload\":{\"cwd\":\"/home/me/webapp\",\"model\":\"gpt-5-codex\"}}\n",
    );
    for i in 0..n {
        let t = at(i);
        text.push_str(&format!(
                "{{\"timestamp\":\"{t}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":\"step {i}\"}}]}}}}\n\
                 {{\"timestamp\":\"{t}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{{\\\"command\\\":[\\\"ls\\\"]}}\",\"call_id\":\"call_{i}\"}}}}\n\
                 {{\"timestamp\":\"{t}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"call_{i}\",\"output\":\"{{\\\"output\\\":\\\"ok\\\",\\\"metadata\\\":{{\\\"exit_code\\\":0}}}}\"}}}}\n\
                 {{\"timestamp\":\"{t}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"done {i}\"}}]}}}}\n"
            ));
    }
    vec![("", text)]
}

#[test]
fn codeloops_jsonl() {
    timed(
        Format::Codeloops,
        "2025-01-27T15-30-45Z_a3f2c1.jsonl",
        |n| {
            let mut text = String::from(
                "{\"type\":\"session_start\",\"timestamp\":\"2025-01-27T15:30:45Z\",\"prompt\":\"Long\",\"working_dir\":\"/w\",\"actor_agent\":\"Claude Code\",\"critic_agent\":\"Claude Code\",\"actor_model\":\"opus\",\"critic_model\":null,\"max_iterations\":null}\n",
            );
            for i in 1..=n {
                text.push_str(&format!(
                "{{\"type\":\"iteration\",\"iteration_number\":{i},\"actor_output\":\"did {i}\",\"actor_stderr\":\"\",\"actor_exit_code\":0,\"actor_duration_secs\":1.0,\"git_diff\":\"diff --git a/f{i} b/f{i}\\n\",\"git_files_changed\":1,\"critic_decision\":\"CONTINUE\",\"feedback\":\"more\",\"timestamp\":\"2025-01-27T15:31:00Z\"}}\n"
            ));
            }
            text.push_str("{\"type\":\"session_end\",\"outcome\":\"success\",\"iterations\":1,\"summary\":\"done\",\"confidence\":0.9,\"duration_secs\":9.0,\"timestamp\":\"2025-01-27T16:00:00Z\"}\n");
            vec![("", text)]
        },
    );
}

#[test]
fn connectonion_yaml() {
    timed(Format::ConnectOnion, ".co/sessions/agent.yaml", |n| {
        let mut text = String::from("name: agent\ntimestamp: 2024-11-27 11:39:58\n\nturns:\n");
        for i in 0..n {
            text.push_str(&format!(
                "  - input: \"step {i}\"\n    model: \"gemini-2.5-pro\"\n    duration_ms: 100\n    tokens: 10\n    cost: 0.01\n    tools_called: [get_emails]\n    result: \"done {i}\"\n"
            ));
        }
        vec![("", text)]
    });
}

fn chat(n: usize) -> String {
    let mut items = vec![r#"{"role": "system", "content": "You code."}"#.to_owned()];
    for i in 0..n {
        items.push(format!(r#"{{"role": "user", "content": "step {i}"}}"#));
        items.push(format!(
            r#"{{"role": "assistant", "content": null, "tool_calls": [{{"id": "c{i}", "type": "function", "function": {{"name": "read_file", "arguments": "{{\"path\": \"f{i}\"}}"}}}}]}}"#
        ));
        items.push(format!(
            r#"{{"role": "tool", "tool_call_id": "c{i}", "content": "text {i}"}}"#
        ));
        items.push(format!(r#"{{"role": "assistant", "content": "done {i}"}}"#));
    }
    format!("[\n{}\n]\n", items.join(",\n"))
}

#[test]
fn openai_messages() {
    timed(Format::OpenAiMessages, "chat.json", |n| vec![("", chat(n))]);
}

#[test]
fn agent_dir() {
    timed(
        Format::AgentDir,
        ".agent/sessions/2024-12-19-14-30-45",
        |n| {
            let todos: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"id": {i}, "content": "task {i}", "status": "pending", "priority": "low"}}"#))
            .collect();
            vec![
                ("agent.log", chat(n)),
                (
                    "todos.json",
                    format!("{{\"todos\": [{}]}}", todos.join(",\n")),
                ),
            ]
        },
    );
}

/// Telling a file's format costs time linear in its nesting depth: a small
/// file of deeply nested JSON once went through a YAML parser whose time
/// grows with the square of the depth (93 s for 400 KB).
#[test]
fn detection_is_linear_in_nesting_depth() {
    let input = |depth: usize| {
        let text = format!(
            "{{\"type\":\"user\",\"message\":{{\"content\":{}{}}}}}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        source("deep.jsonl", &[("", text)])
    };
    assert_linear("detect on nested JSON", 1_000, input, |s| {
        let _ = crucible_interop::detect(&s.path);
    });
}

/// One prompt answered with many calls, each after some words: every call
/// lands in the same phase, in a list of its own, and finding its index in
/// the phase (for the sidecar) once passed over the whole phase each time.
#[test]
fn one_phase_of_many_calls() {
    fn make(n: usize) -> Vec<(&'static str, String)> {
        let mut lines = vec![r#"{"role":"user","content":"Fix it all"}"#.to_owned()];
        for i in 0..n {
            lines.push(format!(
                r#"{{"role":"assistant","content":"Step {i}.","tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"bash","arguments":"{{\"command\":\"ls {i}\"}}"}}}}]}}"#
            ));
            lines.push(format!(
                r#"{{"role":"tool","tool_call_id":"c{i}","content":"out {i}"}}"#
            ));
        }
        vec![("", lines.join("\n") + "\n")]
    }
    timed(Format::OpenAiMessages, "chat.jsonl", make);
}
