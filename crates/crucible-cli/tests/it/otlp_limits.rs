//! `--to otlp` against engines with limits and failures (review of issue
//! 23, F2, F3, F6, F21): long values cut, a too-large batch split until
//! the one session too large fails alone, sending stopped after a failure
//! that would recur, partial successes in OTLP/JSON, hints by status.

use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;

use crate::kiln::TestKiln;
use crate::otlp::{export, export_env};
use crate::otlp_receiver::{Receiver, Reply};

/// A completed session with one tool call whose result is `len` bytes.
fn big_session(kiln: &TestKiln, len: usize) {
    let result = "x".repeat(len);
    kiln.write(
        "2026-11-01-big.md",
        &format!(
            "---\ntype: session\nsession_id: 2026-11-01-big\nstarted: 2026-11-01T10:00:00Z\nstatus: completed\n---\n\n## Dump @ops\n\n> [!note]\n> {result}\n"
        ),
    );
}

/// The text of the first callout of `span`.
fn callout_text(span: &Span) -> String {
    let v = span.events[0]
        .attributes
        .iter()
        .find(|kv| kv.key == "cru.callout.text")
        .and_then(|kv| kv.value.as_ref()?.value.as_ref());
    match v {
        Some(Value::StringValue(s)) => s.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn long_values_are_cut_with_their_original_length() {
    let kiln = TestKiln::empty();
    big_session(&kiln, 200_000);
    let rx = Receiver::start();
    let out = export(&kiln, &rx.url, &["2026-11-01-big"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let phase = &rx.spans()[1];
    let text = callout_text(phase);
    assert_eq!(text.chars().count(), 64 * 1024);
    assert!(text.ends_with('…'));
    let len = phase.events[0]
        .attributes
        .iter()
        .find(|kv| kv.key == "cru.original_length.cru.callout.text")
        .and_then(|kv| kv.value.as_ref()?.value.as_ref());
    assert_eq!(len, Some(&Value::IntValue(200_000)));
    // The limit as OpenTelemetry SDKs read it.
    let out = export_env(
        &kiln,
        &rx.url,
        &["2026-11-01-big"],
        &[("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "10")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(callout_text(&rx.received()[1].spans()[1]), "xxxxxxxxx…");
}

#[test]
fn a_batch_too_large_is_split_and_only_the_session_too_large_fails() {
    let kiln = TestKiln::with_fixtures();
    big_session(&kiln, 3_000_000);
    let rx = Receiver::start();
    rx.refuse_over(1_000_000);
    let limit = [("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "5000000")];
    let out = export_env(&kiln, &rx.url, &["--since-last"], &limit);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let err = out.stderr.replace(&rx.url, "[URL]");
    assert!(err.contains("exported 8 sessions (106 spans)"), "{err}");
    assert!(
        err.contains("error: 1 session not sent: 1 ([URL]/v1/traces: HTTP 413"),
        "{err}"
    );
    assert!(err.contains("2026-11-01-big"), "{err}");
    assert!(err.contains("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"), "{err}");
    // Cut at the default limit, it goes.
    let out = export(&kiln, &rx.url, &["--since-last"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("exported 1 session "),
        "{}",
        out.stderr
    );
}

#[test]
fn an_engine_that_is_down_is_not_tried_again_for_every_batch() {
    let kiln = TestKiln::empty();
    let one = std::fs::read_to_string(
        crate::kiln::fixtures().join("sessions/2025-12-10-fix-flaky-test.md"),
    )
    .unwrap();
    // 200 sessions of 11 spans: two batches.
    for i in 0..200 {
        let id = format!("2025-12-10-copy-{i:03}");
        kiln.write(
            &format!("{id}.md"),
            &one.replace("2025-12-10-fix-flaky-test", &id),
        );
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let out = export(&kiln, &url, &["--all", "--retries", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let err = out.stderr.replace(&url, "[URL]");
    assert!(
        err.contains("error: 200 sessions not sent: 186 ([URL]/v1/traces: cannot connect"),
        "{err}"
    );
    assert!(
        err.contains("; 14 not tried after that: 2025-12-10-copy-186, 2025-12-10-copy-187, 2025-12-10-copy-188 and 11 more"),
        "{err}"
    );
    assert!(err.contains("once the endpoint answers"), "{err}");
    assert!(err.len() < 1_000, "named compactly: {err}");
}

#[test]
fn credentials_refused_get_a_hint_about_credentials() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    rx.script(&[Reply::Status(401, None)]);
    let out = export(&kiln, &rx.url, &["2025-12-11-write-tests"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("refused the credentials"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("once the endpoint answers"),
        "{}",
        out.stderr
    );
    rx.script(&[Reply::Status(400, None)]);
    let out = export(&kiln, &rx.url, &["2025-12-11-write-tests"]);
    assert!(out.stderr.contains("fails the same way"), "{}", out.stderr);
}

#[test]
fn a_json_partial_success_warns_and_leaves_the_session_to_the_next_run() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    rx.script(&[Reply::Json(
        200,
        r#"{"partialSuccess":{"rejectedSpans":"3","errorMessage":"too old"}}"#,
    )]);
    let json = [
        "2025-12-11-write-tests",
        "--since-last",
        "--protocol",
        "http/json",
    ];
    let out = export(&kiln, &rx.url, &json);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("dropped 3 spans"), "{}", out.stderr);
    assert!(out.stderr.contains("too old"), "{}", out.stderr);
    assert!(out.stderr.contains("1 partly dropped"), "{}", out.stderr);
    let again = export(&kiln, &rx.url, &json);
    assert!(
        again.stderr.starts_with("exported 1 session "),
        "{}",
        again.stderr
    );
}
