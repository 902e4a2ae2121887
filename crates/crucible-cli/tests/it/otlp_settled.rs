//! `--to otlp` sends a span only once it is settled (review of issue 23,
//! F10): an engine that keeps the first copy of a span (Phoenix) must
//! never get an open phase or a running session's root, and a session
//! exported after each step of its recording ends up exactly as a
//! one-shot export of the finished session.

use std::collections::BTreeMap;

use prost::Message;

use crate::kiln::{Output, TestKiln};
use crate::otlp_receiver::Receiver;

fn cru(kiln: &TestKiln, session: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = kiln.command();
    cmd.args(args)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_HEADERS")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_RESOURCE_ATTRIBUTES")
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "2000");
    if let Some(s) = session {
        cmd.env("CRU_SESSION", s);
    }
    let out = kiln.run_cmd(&mut cmd);
    assert_ne!(out.code, 2, "{args:?}: {}", out.stderr);
    out
}

/// Every span received, by id, encoded: one id sent twice with another
/// content fails the test.
fn by_id(rx: &Receiver) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut seen: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for s in rx.spans() {
        let bytes = s.encode_to_vec();
        if let Some(before) = seen.insert(s.span_id.clone(), bytes.clone()) {
            assert_eq!(before, bytes, "span `{}` sent twice, changed", s.name);
        }
    }
    seen
}

#[test]
fn a_session_grown_step_by_step_sends_each_span_once_and_ends_as_one_export() {
    let kiln = TestKiln::empty();
    let rx = Receiver::start();
    let export = |url: &str, how: &str| {
        let out = cru(
            &kiln,
            None,
            &["session", "export", "--to", "otlp", how, "--endpoint", url],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stderr
    };
    let start = cru(
        &kiln,
        None,
        &[
            "session",
            "start",
            "--title",
            "Live growing session",
            "--agent",
            "coder@1.0",
            "--prompt",
            "grow",
        ],
    );
    assert_eq!(start.code, 0, "{}", start.stderr);
    let id = start.stdout.trim().to_owned();
    let log = |args: &[&str]| {
        let mut all = vec!["session", "log"];
        all.extend_from_slice(args);
        let out = cru(&kiln, Some(&id), &all);
        assert_eq!(out.code, 0, "{}", out.stderr);
    };
    log(&["phase", "One", "--agent", "coder@1.0"]);
    log(&["tool", "bash", "ls", "--result", "3 files"]);
    // One open phase, a running session: nothing is settled.
    let first = export(&rx.url, "--since-last");
    assert!(
        first.contains("held back: 1 open phase of 1 running session"),
        "{first}"
    );
    assert!(rx.spans().is_empty());
    log(&[
        "tool",
        "bash",
        "make",
        "--result",
        "boom",
        "--exit-code",
        "2",
    ]);
    log(&["error", "make failed", "--resolution", "fixed the Makefile"]);
    log(&["phase", "Two", "--agent", "coder@1.0"]);
    // Phase One is closed now: it goes, with its failed call and its error.
    export(&rx.url, "--since-last");
    let names: Vec<String> = rx.spans().iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["One", "execute_tool bash", "execute_tool bash"]);
    assert_eq!(rx.spans()[0].status.as_ref().map(|s| s.code), Some(2));
    log(&["decision", "Use make"]);
    let quiet = export(&rx.url, "--since-last");
    assert!(quiet.starts_with("exported 0 sessions"), "{quiet}");
    log(&["tool", "bash", "make", "--result", "ok"]);
    let end = cru(&kiln, Some(&id), &["session", "end"]);
    assert_eq!(end.code, 0, "{}", end.stderr);
    export(&rx.url, "--since-last");
    let again = export(&rx.url, "--since-last");
    assert!(
        again.contains("1 skipped (sent before, unchanged)"),
        "{again}"
    );
    let grown = by_id(&rx);
    // The finished session at once, elsewhere: the same spans.
    let whole = Receiver::start();
    export(&whole.url, "--all");
    assert_eq!(grown, by_id(&whole));
    assert_eq!(grown.len(), 6, "root, two phases, three calls");
}
