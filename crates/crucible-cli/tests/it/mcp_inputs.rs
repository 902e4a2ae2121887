//! How `cru mcp` takes what a model sends: fields that do not belong to
//! the event refused (F4), empty filters as not given (F22), failures in
//! the tool's words, not the CLI's flags (F3), `--http localhost:PORT`
//! (F10), and a server whose client hung up exits at once (F21) (review of
//! issue 24).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::kiln::TestKiln;
use crate::mcp::Client;

#[test]
fn record_refuses_fields_its_event_does_not_take() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let id = "2025-12-12-long-migration";
    for (args, stray) in [
        (
            json!({"event": "decision", "session": id, "text": "t", "title": "ignored?"}),
            "`title`",
        ),
        (
            json!({"event": "start", "title": "x", "session": id}),
            "`session`",
        ),
        (
            json!({"event": "pause", "session": id, "summary": "s"}),
            "`summary`",
        ),
    ] {
        let msg = c.request("tools/call", json!({"name": "record", "arguments": args}));
        assert_eq!(msg["error"]["code"], -32602, "{msg}");
        let text = msg["error"]["message"].as_str().unwrap();
        assert!(text.contains(stray), "{text}");
    }
    // A null is as good as not given.
    let ok = c.structured(
        "record",
        json!({"event": "decision", "session": id, "text": "t", "title": null, "reopen": true}),
    );
    assert_eq!(ok["event"], "decision");
}

#[test]
fn empty_filters_are_not_given_and_bad_ones_are_named_as_the_tool_names_them() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let all = c.structured("list_sessions", json!({}));
    let empty = c.structured(
        "list_sessions",
        json!({"agent": "", "status": "", "since": "", "channel": " ", "model": ""}),
    );
    assert_eq!(empty["sessions"], all["sessions"]);
    assert!(c.structured("session_stats", json!({"group_by": ""}))["groups"].is_array());
    let bad = c.call("list_sessions", json!({"since": "yesterdayish"}));
    let text = bad["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("since: "), "{text}");
    let bad = c.call("list_sessions", json!({"status": "done"}));
    let text = bad["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("status: status"), "{text}");
}

#[test]
fn an_ended_session_says_how_to_reopen_it_in_the_tools_words() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let id = "2025-12-13-config-loader";
    let log = c.call(
        "record",
        json!({"event": "decision", "session": id, "text": "d"}),
    );
    let end = c.call("record", json!({"event": "end", "session": id}));
    for result in [log, end] {
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("`reopen: true`"), "{text}");
        assert!(
            !text.contains("--reopen") && !text.contains("cru session"),
            "{text}"
        );
    }
}

#[test]
fn http_takes_localhost_and_serves_another_loopback_address_it_was_given() {
    let kiln = TestKiln::with_fixtures();
    for addr in ["localhost:0", "127.0.0.2:0"] {
        let mut child = kiln
            .std_command()
            .args(["mcp", "--http", addr])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut said = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut said)
            .unwrap();
        let authority = said
            .split("http://")
            .nth(1)
            .and_then(|u| u.split('/').next())
            .unwrap_or_else(|| panic!("{addr}: {said}"))
            .to_owned();
        let body = crate::mcp::initialize().to_string();
        let mut stream = std::net::TcpStream::connect(&authority).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut status = String::new();
        BufReader::new(stream).read_line(&mut status).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert!(status.contains(" 200 "), "{addr}: {status}");
    }
    let out = kiln.run(&["mcp", "--http", "localhost"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("localhost:PORT"), "{}", out.stderr);
}

#[test]
fn the_server_exits_when_its_client_hangs_up_mid_call() {
    let kiln = TestKiln::with_fixtures();
    // A query of 800,000 words: tens of seconds of searching.
    let query: Vec<String> = (0..800_000).map(|i| format!("w{i}x")).collect();
    let query = query.join(" ");
    let (mut child, stdin) = serve_lines(
        &kiln,
        Stdio::null(),
        &[json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "search_sessions", "arguments": {"query": query}}})],
    );
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let hung_up = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        // The SDK waits up to 5 s for answers in flight, then the server
        // must go, whatever is still working.
        if hung_up.elapsed() > Duration::from_secs(8) {
            let _ = child.kill();
            panic!("cru mcp still runs 8 s after its stdin closed");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn calls_leave_no_chatter_on_stderr() {
    let kiln = TestKiln::with_fixtures();
    let (mut child, stdin) = serve_lines(
        &kiln,
        Stdio::piped(),
        &[
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "no_such_tool", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "codify_session",
                              "arguments": {"id": "2025-12-10-fix-flaky-test"}}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                   "params": {"name": "learning_cases", "arguments": {}}}),
        ],
    );
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    // The answers to initialize and the three calls.
    let mut answered = 0;
    while answered < 4 {
        line.clear();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "no answer");
        answered += usize::from(line.contains("\"id\":"));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("WARN"), "{stderr}");
    assert!(!stderr.contains("written to"), "{stderr}");
}

/// `cru mcp` with its stdout piped, sent `initialize`, `initialized` and
/// `calls`, its stdin left open (the test says when the client hangs up).
fn serve_lines(
    kiln: &TestKiln,
    stderr: Stdio,
    calls: &[serde_json::Value],
) -> (std::process::Child, std::process::ChildStdin) {
    let mut child = kiln
        .std_command()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let opening = [crate::mcp::initialize(), crate::mcp::initialized()];
    for msg in opening.iter().chain(calls) {
        writeln!(stdin, "{msg}").unwrap();
    }
    stdin.flush().unwrap();
    (child, stdin)
}
