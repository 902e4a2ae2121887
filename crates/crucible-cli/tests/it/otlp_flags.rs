//! `--to otlp`'s flags, variables and selection as a new user meets them
//! (review of issue 23, F1, F4, F7, F8, F9, F15, F23, F28): flags override
//! variables, bad settings and flags that do nothing are usage errors
//! before anything is sent, skipped files are counted, the sent-record's
//! troubles are explained.

use crate::kiln::TestKiln;
use crate::otlp::{export, export_env};
use crate::otlp_receiver::Receiver;

const ONE: &str = "2025-12-11-write-tests";

#[test]
fn a_flag_header_replaces_the_variables_and_the_path_goes_before_the_query() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    let url = format!("{}/api?key=1", rx.url);
    let out = export_env(
        &kiln,
        &url,
        &[ONE, "--header", "Authorization=Bearer flag"],
        &[("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20env")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let got = &rx.received()[0];
    let auth: Vec<&str> = got
        .headers
        .iter()
        .filter(|(k, _)| k == "authorization")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(auth, ["Bearer flag"]);
    assert_eq!(got.path, "/api/v1/traces?key=1");
}

#[test]
fn bad_settings_and_flags_that_do_nothing_are_usage_errors_before_anything_is_sent() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    let usage = |url: &str, extra: &[&str], env: &[(&str, &str)]| {
        let out = export_env(&kiln, url, extra, env);
        assert_eq!(out.code, 2, "{extra:?}: {}", out.stderr);
        out.stderr
    };
    assert!(usage("localhost:6006", &[ONE], &[]).contains("not an http:// or https:// URL"));
    let e = usage(
        &rx.url,
        &["--since-last", "--header", "X-Bad Header=v"],
        &[],
    );
    assert!(e.contains("not a header name"), "{e}");
    let e = usage(
        &rx.url,
        &[ONE],
        &[("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "br")],
    );
    assert!(
        e.contains("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION `br`"),
        "{e}"
    );
    let e = usage(&rx.url, &[ONE, "-o", "x.out"], &[]);
    assert!(e.contains("-o/--output does not go with --to otlp"), "{e}");
    assert!(usage(&rx.url, &[ONE, "--redact"], &[]).contains("--redact does not go"));
    let e = usage(&rx.url, &["--all", "--since-last"], &[]);
    assert!(e.contains("cannot be used with"), "{e}");
    let e = usage(&rx.url, &[ONE, "--status", "failed"], &[]);
    assert!(e.contains("do not go with sessions named"), "{e}");
    assert!(rx.received().is_empty());
    // An empty variable is an unset one.
    let out = export_env(
        &kiln,
        &rx.url,
        &[ONE, ONE],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", "")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // A session named twice is sent once.
    assert!(
        out.stderr.starts_with("exported 1 session (7 spans)"),
        "{}",
        out.stderr
    );
}

#[test]
fn files_left_out_are_counted_and_a_named_unreadable_session_is_an_error() {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        "broken.md",
        "---\ntype: session\nsession_id: 2025-12-20-broken\nstarted: notadate\nstatus: completed\n---\n\n## A\n",
    );
    let one = std::fs::read_to_string(kiln.sessions().join(format!("{ONE}.md"))).unwrap();
    kiln.write("zz-copy.md", &one.replace("→ 48 lines", "→ 999 lines"));
    let rx = Receiver::start();
    let out = export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 skipped (unreadable); 1 skipped (id of another file)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("session id `{ONE}` is used by 2 files")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("zz-copy.md left out"), "{}", out.stderr);
    let spans = rx.spans();
    let outputs: Vec<&str> = spans
        .iter()
        .filter_map(|s| crate::otlp::attr_str(s, "output.value"))
        .filter(|v| v.contains("lines"))
        .collect();
    assert!(!outputs.iter().any(|v| v.contains("999")), "{outputs:?}");
    let broken = kiln.sessions().join("broken.md");
    let named = export(&kiln, &rx.url, &[broken.to_str().unwrap()]);
    assert_eq!(named.code, 1, "{}", named.stderr);
    assert!(
        named
            .stderr
            .contains("error: 1 of the sessions named could not be read"),
        "{}",
        named.stderr
    );
}

#[test]
fn a_damaged_record_is_explained_and_does_not_block_sessions_named() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    kiln.write(".otlp-sent.json", "{\"http://x\": {\"a\": ");
    let since = export(&kiln, &rx.url, &["--since-last"]);
    assert_eq!(since.code, 1, "{}", since.stderr);
    assert!(
        since.stderr.contains("the record can be deleted"),
        "{}",
        since.stderr
    );
    let named = export(&kiln, &rx.url, &[ONE]);
    assert_eq!(named.code, 0, "{}", named.stderr);
    assert!(
        named.stderr.contains("it is written anew"),
        "{}",
        named.stderr
    );
    // Written anew: `--since-last` works again, and knows what was sent.
    let since = export(&kiln, &rx.url, &["--since-last"]);
    assert_eq!(since.code, 0, "{}", since.stderr);
    assert!(
        since.stderr.starts_with("exported 7 sessions"),
        "{}",
        since.stderr
    );
}

#[test]
fn a_record_that_cannot_be_written_does_not_hide_what_was_sent() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    // A folder where the record goes: neither read nor written.
    std::fs::create_dir_all(kiln.sessions().join(".otlp-sent.json")).unwrap();
    let out = export(&kiln, &rx.url, &[ONE]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let sent = out.stderr.find("exported 1 session (7 spans)");
    let error = out.stderr.find("cannot write the OTLP sent-record");
    assert!(
        sent.is_some() && error.is_some() && sent < error,
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("reached the endpoint"),
        "{}",
        out.stderr
    );
}
