//! Which sessions `cru session export --all --to otlp` sends: those the
//! list filters take, as `cru session list` selects them, oldest first.

use crate::kiln::TestKiln;
use crate::otlp_receiver::Receiver;

/// The ids `cru session list` gives for `filter`, oldest first, less the
/// running sessions (whose root is held back until they end).
fn listed(kiln: &TestKiln, filter: &[&str]) -> Vec<String> {
    let mut args = vec!["session", "list", "--format", "json", "--limit", "1000"];
    args.extend_from_slice(filter);
    let out = kiln.run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let answer: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let mut rows: Vec<(String, String)> = answer["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] != "active")
        .map(|r| {
            (
                r["started"].as_str().unwrap().to_owned(),
                r["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    rows.sort();
    rows.into_iter().map(|(_, id)| id).collect()
}

#[test]
fn all_sends_what_the_filters_select_oldest_first() {
    let kiln = TestKiln::with_fixtures();
    for filter in [
        &["--status", "completed"][..],
        &["--status", "paused"],
        &["--since", "2025-12-11", "--until", "2025-12-12"],
        &["--since", "2100-01-01"],
        &[],
    ] {
        let rx = Receiver::start();
        let mut args = vec!["--all"];
        args.extend_from_slice(filter);
        let out = crate::otlp::export(&kiln, &rx.url, &args);
        assert_eq!(out.code, 0, "{filter:?}: {}", out.stderr);
        // Root spans come first in each session's part, sessions in order.
        let sent: Vec<String> = rx
            .spans()
            .iter()
            .filter(|s| s.parent_span_id.is_empty())
            .filter_map(|s| crate::otlp::attr_str(s, "session.id").map(str::to_owned))
            .collect();
        assert_eq!(sent, listed(&kiln, filter), "{filter:?}");
    }
}
