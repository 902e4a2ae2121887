//! `cru session export --to otlp` against a receiver written here
//! (otlp_receiver.rs): the mapping on the shipped fixtures, both encodings,
//! gzip, retries on 429 and 503, a hung engine, an engine that is down and
//! the resend that follows, ids stable across exports, and token sums on
//! imported Claude Code sessions.

use std::collections::BTreeSet;

use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;

use crate::kiln::{Output, TestKiln, fixtures};
use crate::otlp_receiver::{Receiver, Reply};

pub fn export(kiln: &TestKiln, url: &str, extra: &[&str]) -> Output {
    export_env(kiln, url, extra, &[])
}

/// [`export`] with variables set.
pub fn export_env(kiln: &TestKiln, url: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec!["session", "export", "--to", "otlp", "--endpoint", url];
    args.extend_from_slice(extra);
    let mut cmd = kiln.command();
    cmd.args(&args)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_HEADERS")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_EXPORTER_OTLP_COMPRESSION")
        .env_remove("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "2000");
    for (k, v) in env {
        cmd.env(k, v);
    }
    kiln.run_cmd(&mut cmd)
}

pub fn attr<'a>(span: &'a Span, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

pub fn attr_str<'a>(span: &'a Span, key: &str) -> Option<&'a str> {
    match attr(span, key) {
        Some(Value::StringValue(s)) => Some(s),
        _ => None,
    }
}

pub fn attr_int(span: &Span, key: &str) -> Option<i64> {
    match attr(span, key) {
        Some(Value::IntValue(n)) => Some(*n),
        _ => None,
    }
}

fn ids(spans: &[Span]) -> BTreeSet<(Vec<u8>, Vec<u8>)> {
    spans
        .iter()
        .map(|s| (s.trace_id.clone(), s.span_id.clone()))
        .collect()
}

fn session_of<'a>(spans: &'a [Span], id: &str) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|s| attr_str(s, "session.id") == Some(id))
        .collect()
}

#[test]
fn a_session_is_one_trace_of_phases_tools_subagents_and_callouts() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    let out = export(&kiln, &rx.url, &["2025-12-10-fix-flaky-test"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    let traces: BTreeSet<_> = spans.iter().map(|s| s.trace_id.clone()).collect();
    assert_eq!(traces.len(), 1);
    let root = &spans[0];
    assert_eq!(root.name, "invoke_agent orchestrator");
    assert!(root.parent_span_id.is_empty());
    assert_eq!(
        attr_str(root, "gen_ai.operation.name"),
        Some("invoke_agent")
    );
    assert_eq!(attr_str(root, "openinference.span.kind"), Some("AGENT"));
    assert_eq!(
        attr_str(root, "gen_ai.conversation.id"),
        Some("2025-12-10-fix-flaky-test")
    );
    // 2025-12-10T09:15:00Z, the frontmatter's start.
    assert_eq!(root.start_time_unix_nano, 1_765_358_100_000_000_000);
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    insta::assert_debug_snapshot!(names, @r#"
    [
        "invoke_agent orchestrator",
        "Reproduce",
        "execute_tool bash",
        "execute_tool bash",
        "execute_tool read",
        "Find the race",
        "invoke_agent linter",
        "Narrow it down",
        "execute_tool grep",
        "execute_tool edit",
        "Prove it",
    ]
    "#);
    // The failed loop is in error, and so is its phase.
    assert_eq!(spans[3].status.as_ref().map(|s| s.code), Some(2));
    assert_eq!(spans[1].status.as_ref().map(|s| s.code), Some(2));
    assert_eq!(attr_str(&spans[3], "gen_ai.tool.name"), Some("bash"));
    // Callouts are events of their phase.
    let events: Vec<&str> = spans[1].events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(events, ["error", "decision"]);
    // The nested phase hangs under its parent; the embedded subagent is a
    // trace of its own, linked to its root span.
    assert_eq!(spans[7].parent_span_id, spans[5].span_id);
    let link = &spans[5].links[0];
    assert_ne!(link.trace_id, root.trace_id);
    // Phase metadata's tokens= (kind unknown) are the phase's.
    assert_eq!(attr_int(&spans[1], "llm.token_count.total"), Some(2300));
    // The embedded child, exported too, is the trace the link points at.
    let child = export(&kiln, &rx.url, &["2025-12-10-investigate-ci"]);
    assert_eq!(child.code, 0, "{}", child.stderr);
    let child_root = rx
        .spans()
        .into_iter()
        .find(|s| s.trace_id == link.trace_id)
        .unwrap();
    assert_eq!(child_root.span_id, link.span_id);
    assert!(child_root.parent_span_id.is_empty());
}

#[test]
fn protobuf_and_json_carry_the_same_spans_with_the_same_ids_every_time() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    let header = ["--header", "Authorization=Basic dGVhbTpzZWNyZXQ="];
    let pb = export(&kiln, &rx.url, &[&["--all"][..], &header[..]].concat());
    assert_eq!(pb.code, 0, "{}", pb.stderr);
    insta::assert_snapshot!(pb.stderr.replace(&rx.url, "[URL]"), @"exported 8 sessions (106 spans) to [URL]/v1/traces in 1 request; held back: 1 open phase of 1 running session (sent when they close)");
    let json = export(&kiln, &rx.url, &["--all", "--protocol", "http/json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let got = rx.received();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].content_type, "application/x-protobuf");
    assert_eq!(got[0].content_encoding.as_deref(), Some("gzip"));
    assert!(got[0].headers.contains(&(
        "authorization".to_owned(),
        "Basic dGVhbTpzZWNyZXQ=".to_owned()
    )));
    assert_eq!(got[1].content_type, "application/json");
    let spans = |i: usize| -> Vec<Span> { got[i].spans() };
    assert_eq!(spans(0).len(), 106);
    assert_eq!(spans(0), spans(1));
    json_is_otlp_json(&got[1].body);
    // A third export: the same ids, so an engine keying on them stores nothing twice.
    let again = export(&kiln, &rx.url, &["--all"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let third: Vec<Span> = rx.received()[2].spans();
    assert_eq!(ids(&third), ids(&spans(0)));
    assert_eq!(ids(&third).len(), 106, "span ids are unique");
}

/// What the OTLP specification asks of OTLP/JSON beyond plain protobuf
/// JSON: ids as hex (not base64), camelCase keys, 64-bit integers as
/// strings, enums as numbers.
fn json_is_otlp_json(body: &[u8]) {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap();
    let rs = &v["resourceSpans"][0];
    assert_eq!(rs["resource"]["attributes"][0]["key"], "service.name");
    let span = &rs["scopeSpans"][0]["spans"][0];
    let hex = |s: &serde_json::Value, n: usize| {
        let s = s.as_str().unwrap();
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    };
    assert!(hex(&span["traceId"], 32), "{span}");
    assert!(hex(&span["spanId"], 16), "{span}");
    assert!(span["startTimeUnixNano"].is_string(), "{span}");
    assert!(span["kind"].is_number(), "{span}");
    let phase = &rs["scopeSpans"][0]["spans"][1];
    assert!(hex(&phase["parentSpanId"], 16), "{phase}");
    let ints: Vec<&serde_json::Value> = rs["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["attributes"].as_array().unwrap())
        .filter_map(|a| a["value"].get("intValue"))
        .collect();
    assert!(
        !ints.is_empty() && ints.iter().all(|i| i.is_string()),
        "{ints:?}"
    );
}

#[test]
fn retries_on_429_and_503_then_succeeds() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    rx.script(&[Reply::Status(429, Some(0)), Reply::Status(503, None)]);
    let out = export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let got = rx.received();
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].body, got[2].body);
    // A 400 is not retried: the same body would be refused again.
    rx.script(&[Reply::Status(400, None)]);
    let out = export(&kiln, &rx.url, &["2025-12-11-refactor-store"]);
    assert_eq!(out.code, 1);
    assert_eq!(rx.received().len(), 4);
    assert!(out.stderr.contains("HTTP 400"), "{}", out.stderr);
}

#[test]
fn a_hung_engine_hits_the_timeout_and_a_later_run_sends_what_was_not_sent() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    rx.script(&[Reply::Hang, Reply::Hang]);
    let mut cmd = kiln.command();
    cmd.args([
        "session",
        "export",
        "--to",
        "otlp",
        "--since-last",
        "--retries",
        "1",
    ])
    .args(["--endpoint", &rx.url])
    .env("OTEL_EXPORTER_OTLP_TIMEOUT", "300");
    let started = std::time::Instant::now();
    let out = kiln.run_cmd(&mut cmd);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(
        out.stderr.contains("no answer within 300 ms (attempts: 2)"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("8 sessions not sent"), "{}", out.stderr);
    let again = export(&kiln, &rx.url, &["--since-last"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.starts_with("exported 8 sessions"),
        "{}",
        again.stderr
    );
}

#[test]
fn an_engine_that_is_down_gets_everything_once_it_is_up() {
    let kiln = TestKiln::with_fixtures();
    // A port nobody listens on, then a receiver on it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let down = export(&kiln, &url, &["--since-last", "--retries", "1"]);
    assert_eq!(down.code, 1);
    let stderr = down.stderr.replace(&url, "[URL]");
    assert!(stderr.contains("cannot connect"), "{stderr}");
    assert!(stderr.contains("2025-12-10-fix-flaky-test"), "{stderr}");
    assert!(stderr.contains("--since-last` sends them"), "{stderr}");
    let rx = Receiver::on(std::net::TcpListener::bind(url.trim_start_matches("http://")).unwrap());
    let up = export(&kiln, &url, &["--since-last"]);
    assert_eq!(up.code, 0, "{}", up.stderr);
    assert_eq!(rx.spans().len(), 106);
    // Nothing changed since: nothing is sent.
    let quiet = export(&kiln, &url, &["--since-last"]);
    assert_eq!(quiet.code, 0, "{}", quiet.stderr);
    assert!(
        quiet.stderr.contains("8 skipped (sent before, unchanged)"),
        "{}",
        quiet.stderr
    );
    assert_eq!(rx.received().len(), 1);
    // A session whose sent phase changes is sent again, alone, with a
    // warning: an engine keeping the first copy keeps the old phase.
    let path = kiln.sessions().join("2025-12-11-write-tests.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("→ 48 lines", "→ 49 lines")).unwrap();
    let changed = export(&kiln, &url, &["--since-last"]);
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    assert!(
        changed.stderr.starts_with("exported 1 session "),
        "{}",
        changed.stderr
    );
    assert!(
        changed
            .stderr
            .contains("1 session changed since it was sent to"),
        "{}",
        changed.stderr
    );
}

#[test]
fn secrets_are_redacted_unless_asked_not_to() {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        "secret.md",
        "---\ntype: session\nsession_id: secret\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n## Deploy @ops\n\n**Tool calls:**\n- `curl -H \"Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\" https://x` → ok\n",
    );
    let rx = Receiver::start();
    let out = export(&kiln, &rx.url, &["secret"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    let args = attr_str(&spans[2], "input.value").unwrap();
    assert!(args.contains("[REDACTED"), "{args}");
    assert!(!args.contains("abcdefghijklmnop"), "{args}");
    let out = export(&kiln, &rx.url, &["secret", "--no-redact"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    assert!(
        attr_str(&spans[5], "input.value")
            .unwrap()
            .contains("abcdefghijklmnop")
    );
}

#[test]
fn imported_claude_code_sessions_carry_their_tokens_on_chat_spans() {
    let kiln = TestKiln::empty();
    let src = fixtures().join("real/claude-code/spotter");
    let import = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    let rx = Receiver::start();
    let out = export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    let chats: Vec<&Span> = spans
        .iter()
        .filter(|s| attr_str(s, "gen_ai.operation.name") == Some("chat"))
        .collect();
    assert!(!chats.is_empty());
    let sum: i64 = spans
        .iter()
        .filter_map(|s| attr_int(s, "llm.token_count.total"))
        .sum();
    let stats = kiln.run(&["session", "stats", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stats.stdout).unwrap();
    assert_eq!(
        sum,
        v["total"]["tokens"].as_i64().unwrap(),
        "{}",
        stats.stdout
    );
    for s in &chats {
        assert!(s.start_time_unix_nano <= s.end_time_unix_nano);
        let session = attr_str(s, "session.id").unwrap();
        assert!(!session_of(&spans, session).is_empty());
    }
    // cru writes the protobuf itself; JSON goes through opentelemetry-proto's
    // types: on real sessions the two say the same.
    let json = export(&kiln, &rx.url, &["--all", "--protocol", "http/json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    assert_eq!(rx.received()[1].spans(), spans);
}
