//! The session view on hand-made sessions.

use crucible_usage::Order;
use crucible_usage::report::session;

use crate::report_support::{line, ms, opts, price, session as usage_of};

#[test]
fn one_row_per_session_with_its_first_and_last_request() {
    let sessions = [
        usage_of(
            "early",
            vec![
                line("2025-03-01T10:00:00Z", "m", 10, 1),
                line("2025-03-02T09:30:00Z", "m", 20, 2),
            ],
        ),
        usage_of("late", vec![line("2025-03-05T08:00:00Z", "n", 5, 0)]),
    ];
    let r = session(&sessions, &price, &opts("UTC", "2025-04-01T00:00:00Z"));
    let ids: Vec<&str> = r.rows.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, ["early", "late"], "by last activity, oldest first");
    let early = &r.rows[0];
    assert_eq!(early.first_ms, ms("2025-03-01T10:00:00Z"));
    assert_eq!(early.last_ms, ms("2025-03-02T09:30:00Z"));
    assert_eq!(early.usage.total_tokens(), 33);
    assert_eq!(early.agent.as_deref(), Some("claude-code"));
    assert_eq!(r.totals.total_tokens(), 38);
}

#[test]
fn bounds_apply_to_the_local_day_of_the_last_request() {
    let sessions = [
        // Ends 2025-03-03 01:00 UTC: still March 2nd in New York.
        usage_of(
            "spans",
            vec![
                line("2025-02-27T12:00:00Z", "m", 1, 0),
                line("2025-03-03T01:00:00Z", "m", 1, 0),
            ],
        ),
        usage_of("after", vec![line("2025-03-04T12:00:00Z", "m", 1, 0)]),
    ];
    let mut o = opts("UTC", "2025-04-01T00:00:00Z");
    o.since = Some("2025-03-01".parse().unwrap());
    o.until = Some("2025-03-03".parse().unwrap());
    let utc: Vec<String> = session(&sessions, &price, &o)
        .rows
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(utc, ["spans"]);
    o.until = Some("2025-03-02".parse().unwrap());
    assert!(session(&sessions, &price, &o).rows.is_empty());
    o.time_zone = crate::report_support::tz("America/New_York");
    assert_eq!(session(&sessions, &price, &o).rows.len(), 1);
}

#[test]
fn sessions_without_tokens_are_left_out_and_order_can_turn() {
    let mut empty = line("2025-03-01T10:00:00Z", "m", 0, 0);
    empty.requests = 0;
    let sessions = [
        usage_of("nothing", vec![empty]),
        usage_of("none", vec![]),
        usage_of("a", vec![line("2025-03-01T10:00:00Z", "m", 1, 0)]),
        usage_of("b", vec![line("2025-03-02T10:00:00Z", "m", 1, 0)]),
    ];
    let mut o = opts("UTC", "2025-04-01T00:00:00Z");
    o.order = Order::Desc;
    let ids: Vec<String> = session(&sessions, &price, &o)
        .rows
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(ids, ["b", "a"]);
}

#[test]
fn untyped_tokens_of_old_files_count_but_stay_unpriced() {
    let mut old = line("2025-03-01T10:00:00Z", "m", 0, 0);
    old.untyped = 1_234;
    old.requests = 0;
    let r = session(
        &[usage_of("old", vec![old])],
        &price,
        &opts("UTC", "2025-04-01T00:00:00Z"),
    );
    let row = &r.rows[0];
    assert_eq!(row.usage.total_tokens(), 1_234);
    assert_eq!(row.usage.cost.unpriced_tokens, 1_234);
    assert_eq!(r.totals.cost.unpriced_tokens, 1_234);
}
