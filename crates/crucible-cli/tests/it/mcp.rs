//! `cru mcp`: the real binary spoken to over stdio as an MCP client would,
//! one JSON-RPC message a line; each tool's answer checked against the
//! CLI command it stands for, on a copy of the fixtures.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::kiln::TestKiln;

/// The `initialize` request (id 1) a client opens a session with.
pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}}})
}

/// The notification that follows the answer to [`initialize`].
pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// The lines `from` gives, on a channel, read by a thread of their own (so
/// that a test can wait for one with a timeout).
pub fn line_channel(from: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

/// How long any one answer may take (a debug build on a busy 2-core machine).
const PATIENCE: Duration = Duration::from_secs(60);

/// A `cru mcp` process, initialized.
pub struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
    /// Notifications seen while waiting for answers.
    pub notifications: Vec<Value>,
    /// The answer to `initialize`.
    pub init: Value,
}

impl Client {
    pub fn start(kiln: &TestKiln, extra: &[&str]) -> Self {
        let mut client = Self::spawn(kiln, extra);
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cru-test", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "cru", "{init}");
        client.init = init;
        client.send_raw(&initialized().to_string());
        client
    }

    /// A `cru mcp` process, not yet initialized.
    pub fn spawn(kiln: &TestKiln, extra: &[&str]) -> Self {
        let mut child = kiln
            .std_command()
            .arg("mcp")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let lines = line_channel(stdout);
        Self {
            child,
            stdin,
            lines,
            next_id: 0,
            notifications: Vec::new(),
            init: Value::Null,
        }
    }

    pub fn send_raw(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits for its response (the whole JSON-RPC message).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        msg["params"] = params;
        self.send_raw(&msg.to_string());
        self.wait_for(|m| m["id"] == id)
    }

    /// The next message `want` takes; others that are notifications are kept.
    pub fn wait_for(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!("no answer within {PATIENCE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("cru mcp exited"),
            };
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            if want(&msg) {
                return msg;
            }
            if msg.get("id").is_none() {
                self.notifications.push(msg);
            }
        }
    }

    /// Sends a line as it is and returns the next message the server
    /// writes, whatever it is.
    pub fn answer(&mut self, line: &str) -> Value {
        self.send_raw(line);
        self.wait_for(|_| true)
    }

    /// `tools/call`: the result (an error result included).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let mut params = json!({"name": tool});
        params["arguments"] = arguments;
        let msg = self.request("tools/call", params);
        assert!(msg.get("error").is_none(), "{tool}: {msg}");
        msg["result"].clone()
    }

    /// A call that must succeed: its structured content.
    pub fn structured(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_ne!(result["isError"], true, "{tool}: {result}");
        result["structuredContent"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cli_json(kiln: &TestKiln, args: &[&str]) -> Value {
    let out = kiln.run(args);
    assert!(out.code == 0 || out.code == 3, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// Paths in answers name the kiln; the CLI's output has them as `[KILN]`.
fn unkiln(kiln: &TestKiln, v: &Value) -> Value {
    let text = v
        .to_string()
        .replace(&kiln.root.path().display().to_string(), "[KILN]");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn tools_are_listed_with_schemas_and_read_only_hides_record() {
    let kiln = TestKiln::with_fixtures();
    let names = |c: &mut Client| {
        let listed = c.request("tools/list", json!({}));
        let tools = listed["result"]["tools"].as_array().unwrap().clone();
        for t in &tools {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        }
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let all = names(&mut Client::start(&kiln, &[]));
    for tool in [
        "list_sessions",
        "show_session",
        "session_stats",
        "search_sessions",
        "resume_context",
        "record",
        "codify_session",
        "learning_cases",
    ] {
        assert!(all.iter().any(|n| n == tool), "{tool} missing from {all:?}");
    }
    let mut read_only = Client::start(&kiln, &["--read-only"]);
    let some = names(&mut read_only);
    assert_eq!(some.len(), all.len() - 1, "{some:?}");
    assert!(!some.iter().any(|n| n == "record"));
    let refused = read_only.request(
        "tools/call",
        json!({"name": "record", "arguments": {"event": "start"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        kiln.run(&["session", "list", "--format", "json"])
            .stdout
            .matches("\"id\"")
            .count()
            > 0
    );
}

#[test]
fn reading_tools_answer_as_the_cli_does() {
    let kiln = TestKiln::with_fixtures();
    // Past the racy window of the files just copied (100 ms): a search built
    // within it keeps them out of the committed index and scores them in
    // an index in RAM beside it, whose statistics differ, so a later search
    // that finds them settled gives other scores (the same hits). Both
    // searches here must see one state.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut c = Client::start(&kiln, &[]);
    let id = "2025-12-10-fix-flaky-test";
    let same = |c: &mut Client, tool: &str, args: Value, cli: &[&str]| {
        let mut got = unkiln(&kiln, &c.structured(tool, args));
        if tool == "list_sessions" {
            // The tool's own count of what its limit left out.
            let got = got.as_object_mut().unwrap();
            assert!(got.remove("total").unwrap().is_u64(), "{got:?}");
            assert!(got.remove("truncated").unwrap().is_boolean(), "{got:?}");
        }
        assert_eq!(got, cli_json(&kiln, cli), "{tool}");
    };
    same(
        &mut c,
        "list_sessions",
        json!({}),
        &["session", "list", "--format", "json"],
    );
    same(
        &mut c,
        "list_sessions",
        json!({"status": "paused", "limit": 2}),
        &[
            "session", "list", "--status", "paused", "--limit", "2", "--format", "json",
        ],
    );
    same(
        &mut c,
        "session_stats",
        json!({"group_by": "channel"}),
        &[
            "session",
            "stats",
            "--group-by",
            "channel",
            "--format",
            "json",
        ],
    );
    same(
        &mut c,
        "search_sessions",
        json!({"query": "flaky"}),
        &["session", "search", "flaky", "--format", "json"],
    );
    same(
        &mut c,
        "codify_session",
        json!({"id": id}),
        &["session", "codify", id, "--format", "json"],
    );
    let mut resumed = c.structured("resume_context", json!({"id": id, "max_tokens": 500}));
    let prompt = resumed.as_object_mut().unwrap().remove("prompt").unwrap();
    let cli = cli_json(
        &kiln,
        &[
            "session",
            "resume",
            id,
            "--format",
            "json",
            "--max-tokens",
            "500",
        ],
    );
    assert_eq!(resumed, cli);
    let cli_prompt = kiln.run(&[
        "session",
        "resume",
        id,
        "--format",
        "prompt",
        "--max-tokens",
        "500",
    ]);
    assert_eq!(prompt.as_str().unwrap(), cli_prompt.stdout);
}

#[test]
fn show_session_gives_the_markdown_or_a_phase_range() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let id = "2025-12-10-fix-flaky-test";
    let whole = c.structured("show_session", json!({"id": id}));
    let cli = kiln.run(&["session", "show", id, "--format", "markdown"]);
    assert_eq!(whole["markdown"].as_str().unwrap(), cli.stdout);
    assert_eq!(whole["id"], id);
    let one = c.structured("show_session", json!({"id": id, "phases": "2"}));
    let cli_two = kiln.run(&[
        "session",
        "show",
        &format!("{id}#phase-2"),
        "--format",
        "markdown",
    ]);
    assert_eq!(one["markdown"].as_str().unwrap(), cli_two.stdout);
    let range = c.structured("show_session", json!({"id": id, "phases": "2-3"}));
    let text = range["markdown"].as_str().unwrap();
    assert!(text.starts_with(&cli_two.stdout), "{text}");
    assert_eq!(range["phases"], json!([2, 3]));
    let past = c.call("show_session", json!({"id": id, "phases": "2-99"}));
    assert_eq!(past["isError"], true, "{past}");
    assert!(
        past["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("phase-99"),
        "{past}"
    );
}

#[test]
fn learning_cases_are_the_cli_export() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let id = "2025-12-10-fix-flaky-test";
    let got = c.structured("learning_cases", json!({"id": id}));
    let out = kiln.run(&["session", "learn", id, "--export", "jsonl"]);
    let cli: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!cli.is_empty(), "{}", out.stderr);
    assert_eq!(got["cases"], Value::Array(cli));
}

#[test]
fn an_unknown_id_or_an_ambiguous_prefix_is_a_tool_error_naming_ids() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let typo = c.call("show_session", json!({"id": "2025-12-10-fix-flakey-test"}));
    assert_eq!(typo["isError"], true, "{typo}");
    let text = typo["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("no session"), "{text}");
    assert!(text.contains("- 2025-12-10-fix-flaky-test\n"), "{text}");
    let ambiguous = c.call("resume_context", json!({"id": "2025-12-1"}));
    assert_eq!(ambiguous["isError"], true, "{ambiguous}");
    let text = ambiguous["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("matches"), "{text}");
    assert!(text.contains("- 2025-12-11-write-tests\n"), "{text}");
}

#[test]
fn bad_requests_get_protocol_errors_and_the_server_goes_on() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let unknown = c.request("tools/call", json!({"name": "drop_table", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("list_sessions")
    );
    let misspelt = c.request(
        "tools/call",
        json!({"name": "list_sessions", "arguments": {"state": "paused"}}),
    );
    assert_eq!(misspelt["error"]["code"], -32602, "{misspelt}");
    assert!(
        misspelt["error"]["message"]
            .as_str()
            .unwrap()
            .contains("state")
    );
    let wrong_type = c.request(
        "tools/call",
        json!({"name": "list_sessions", "arguments": {"limit": "ten"}}),
    );
    assert_eq!(wrong_type["error"]["code"], -32602, "{wrong_type}");
}

#[test]
fn every_broken_line_is_answered_with_its_id_and_the_server_goes_on() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let before = c.structured("list_sessions", json!({"limit": 1}))["total"].clone();
    let shapeless = c.answer(r#"{"jsonrpc": "2.0", "id": 76, "method": 5}"#);
    assert_eq!(shapeless["error"]["code"], -32600, "{shapeless}");
    assert_eq!(shapeless["id"], 76, "{shapeless}");
    let cut = c.answer("{\"jsonrpc\": \"2.0\", \"id\": 77, \"method\": ");
    assert_eq!(
        (cut["error"]["code"].clone(), cut["id"].clone()),
        (json!(-32700), json!(77))
    );
    let prose = c.answer("not json at all");
    assert_eq!(prose["error"]["code"], -32700, "{prose}");
    // JSON-RPC: `null` when the id cannot be read.
    assert_eq!(prose.get("id"), Some(&Value::Null), "{prose}");
    // A batch's members are answered one by one, each by its id.
    c.send_raw(r#"[{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": 6}]"#);
    let mut members = [c.wait_for(|_| true), c.wait_for(|_| true)];
    members.sort_by_key(|m| m["id"].as_i64());
    assert_eq!(members[0]["result"], json!({}), "{members:?}");
    assert_eq!(members[1]["error"]["code"], -32600, "{members:?}");
    // 20 MB on one line, past the 16 MiB limit, its id last (as the
    // TypeScript SDK writes it): answered, not dropped.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"name\":\"record\",\"arguments\":{{\"event\":\"start\",\"title\":\"{}\"}}}},\"id\":\"big-1\"}}",
        "a".repeat(20 << 20)
    );
    let oversized = c.answer(&huge);
    assert_eq!(oversized["id"], "big-1", "{oversized}");
    assert_eq!(oversized["error"]["code"], -32600, "{oversized}");
    let message = oversized["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("20971") && message.contains("16 MiB"),
        "{message}"
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":80,"method":"tools/call","params":{{"name":"list_sessions","arguments":{{"status":{}1{}}}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let deep = c.answer(&deep);
    assert_eq!(
        (deep["error"]["code"].clone(), deep["id"].clone()),
        (json!(-32700), json!(80))
    );
    assert!(
        deep["error"]["message"]
            .as_str()
            .unwrap()
            .contains("303 levels deep"),
        "{deep}"
    );
    let unknown = c.answer(r#"{"jsonrpc": "2.0", "id": 81, "method": "sessions/drop"}"#);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let message = unknown["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`sessions/drop`") && message.contains("tools/call"),
        "{message}"
    );
    // A notification nobody knows gets no answer: the next line out is the
    // answer to the ping after it.
    c.send_raw(r#"{"jsonrpc": "2.0", "method": "notifications/whatever"}"#);
    let pong = c.answer(r#"{"jsonrpc": "2.0", "id": 82, "method": "ping"}"#);
    assert_eq!(pong["id"], 82, "{pong}");
    // Nothing was recorded from the oversized line, and the server still serves.
    let listed = c.structured("list_sessions", json!({"limit": 1}));
    assert_eq!(listed["total"], before, "{listed}");
}

#[test]
fn a_misshapen_request_is_told_what_is_wrong_with_it() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let cases = [
        // The SDK reads these as unknown methods ("method not found").
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sessions","arguments":[1]}}"#,
            -32602,
            "`tools/call`: invalid params",
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#,
            -32602,
            "`params` is missing",
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"url":"cru://session/x"}}"#,
            -32602,
            "uri",
        ),
        (
            r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#,
            -32600,
            "must be \"2.0\", not \"1.0\"",
        ),
        (r#"{"id":5,"method":"ping"}"#, -32600, "not missing"),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":[1]}"#,
            -32602,
            "`params` must be an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            -32600,
            "`id` must be a string or a whole number",
        ),
        (r#""ping""#, -32600, "a message is a JSON object"),
    ];
    for (line, code, words) in cases {
        let answer = c.answer(line);
        assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{line}: {message}");
        let id: Value = serde_json::from_str::<Value>(line).unwrap()["id"].clone();
        if id.is_number() {
            assert_eq!(answer["id"], id, "{line}: {answer}");
        }
    }
}

#[test]
fn before_initialize_a_stray_message_is_set_aside_and_a_bad_initialize_told_why() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::spawn(&kiln, &[]);
    // A notification or an answer first used to end the server.
    c.send_raw(&initialized().to_string());
    c.send_raw(r#"{"jsonrpc":"2.0","id":"x","result":{}}"#);
    let bad = c.answer(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#);
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let message = bad["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`initialize`") && message.contains("clientInfo"),
        "{message}"
    );
    let unknown = c.answer(r#"{"jsonrpc":"2.0","id":2,"method":"prompts/list"}"#);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resources/read")
    );
    let pong = c.answer(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(pong["result"], json!({}), "{pong}");
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "cru-test", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "cru", "{init}");
    c.send_raw(&initialized().to_string());
    let listed = c.structured("list_sessions", json!({"limit": 1}));
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 1);
}

#[test]
fn a_line_of_too_many_values_is_refused_before_it_is_parsed() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    // 4 MB, well under the line limit, but 2 million values: parsed, they
    // took the server to gigabytes.
    let zeros = vec!["0"; 2_000_000].join(",");
    let line = format!(
        r#"{{"jsonrpc":"2.0","method":"ping","params":{{"_meta":{{"z":[{zeros}]}}}},"id":9}}"#
    );
    let answer = c.answer(&line);
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(9), json!(-32600))
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("more than 100000 JSON values"),
        "{message}"
    );
}

#[test]
fn record_writes_a_session_the_cli_reads_back() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let started = c.structured(
        "record",
        json!({"event": "start", "title": "Fix the upload test", "agent": "coder@1.0",
               "prompt": "make test_upload pass"}),
    );
    let id = started["session"].as_str().unwrap().to_owned();
    let events = [
        json!({"event": "phase", "name": "Reproduce", "agent": "coder@1.0"}),
        json!({"event": "tool", "tool": "bash", "args": "cargo test upload",
               "result": "1 failed", "exit_code": 101}),
        json!({"event": "decision", "text": "retry with backoff, not a longer timeout"}),
        json!({"event": "error", "text": "times out after 5 s", "resolution": "gives up early"}),
        json!({"event": "user", "quote": "-", "interpretation": "a dash is text here"}),
        json!({"event": "pause"}),
    ];
    for mut e in events {
        e["session"] = json!(id);
        let answer = c.structured("record", e.clone());
        assert_eq!(answer["session"], id.as_str(), "{e}");
    }
    let shown = cli_json(&kiln, &["session", "show", &id, "--format", "json"]);
    let text = serde_json::to_string(&shown).unwrap();
    for part in [
        "Reproduce",
        "cargo test upload",
        "retry with backoff",
        "times out after 5 s",
        "a dash is text here",
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    assert_eq!(shown["session"]["status"], "paused", "{shown}");
    let ended = c.structured(
        "record",
        json!({"event": "end", "session": id, "status": "completed", "summary": "done"}),
    );
    assert_eq!(ended["event"], "end");
    let again = c.call("record", json!({"event": "end", "session": id}));
    assert_eq!(again["isError"], true, "{again}");
    assert!(
        again["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("already ended")
    );
    let no_name = c.call("record", json!({"event": "phase", "session": id}));
    assert_eq!(no_name["isError"], true, "{no_name}");
    let typo = c.call(
        "record",
        json!({"event": "decision", "session": "2025-12-10-fix-flakey-test", "text": "x"}),
    );
    assert_eq!(typo["isError"], true, "{typo}");
    let text = typo["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("- 2025-12-10-fix-flaky-test\n"), "{text}");
}

#[test]
fn sessions_are_resources_and_their_list_changes_with_them() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &["--poll", "1"]);
    let listed = c.request("resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().unwrap().clone();
    let uri = "cru://session/2025-12-10-fix-flaky-test";
    assert!(resources.iter().any(|r| r["uri"] == uri), "{listed}");
    let read = c.request("resources/read", json!({"uri": uri}));
    let cli = kiln.run(&[
        "session",
        "show",
        "2025-12-10-fix-flaky-test",
        "--format",
        "markdown",
    ]);
    assert_eq!(
        read["result"]["contents"][0]["text"].as_str().unwrap(),
        cli.stdout
    );
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");
    let workflow = c.request(
        "resources/read",
        json!({"uri": "cru://workflow/2025-12-10-fix-flaky-test"}),
    );
    assert!(
        workflow["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("type: workflow"),
        "{workflow}"
    );
    let missing = c.request(
        "resources/read",
        json!({"uri": "cru://session/no-such-session"}),
    );
    assert!(missing.get("error").is_some(), "{missing}");
    kiln.run(&["session", "start", "--title", "A new one"]);
    let changed = c.wait_for(|m| m["method"] == "notifications/resources/list_changed");
    assert!(changed.get("id").is_none(), "{changed}");
}

/// `cru mcp --http 127.0.0.1:0` started, with the URL it says it serves
/// (on stderr, once it listens).
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    pub fn start(kiln: &TestKiln) -> Self {
        let mut child = kiln
            .std_command()
            .args(["mcp", "--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.split(" at ").nth(1) {
                    let _ = tx.send(url.split_whitespace().next().unwrap_or("").to_owned());
                }
            }
        });
        let url = rx
            .recv_timeout(PATIENCE)
            .expect("cru mcp --http never said where it listens");
        Self { child, url }
    }

    /// One POST of `body` with these extra headers: the status code.
    pub fn post(&self, body: &str, headers: &[(&str, &str)]) -> u16 {
        let rest = self.url.strip_prefix("http://").unwrap();
        let (authority, path) = rest.split_once('/').unwrap();
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let host = headers
            .iter()
            .find(|(k, _)| *k == "Host")
            .map_or(authority, |(_, v)| v);
        let mut request = format!(
            "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (k, v) in headers.iter().filter(|(k, _)| *k != "Host") {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).unwrap();
        let mut status = String::new();
        BufReader::new(stream).read_line(&mut status).unwrap();
        status.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_http_a_foreign_origin_is_forbidden_and_a_local_one_served() {
    let kiln = TestKiln::with_fixtures();
    let server = HttpServer::start(&kiln);
    let init = initialize().to_string();
    assert_eq!(
        server.post(&init, &[("Origin", "https://evil.example")]),
        403
    );
    assert_eq!(server.post(&init, &[("Host", "evil.example")]), 403);
    assert_eq!(
        server.post(&init, &[("Origin", "http://localhost:3000")]),
        200
    );
    assert_eq!(server.post(&init, &[]), 200);
}

#[test]
fn http_refuses_a_non_loopback_address_unless_allowed() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["mcp", "--http", "0.0.0.0:0"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("--allow-remote"), "{}", out.stderr);
}
