//! Each view's JSON: ccusage's keys, old and new, and cru's additions.

use crucible_usage::SessionUsage;
use crucible_usage::report::{BlockOptions, TokenLimit, blocks, daily, monthly, session, weekly};
use serde::Serialize;

use crate::report_support::{line, opts, price, session as usage_of, span};

fn sample() -> Vec<SessionUsage> {
    let mut cached = line("2025-10-02T14:00:03Z", "claude-opus-4-1-20250805", 952, 173);
    cached.tokens.cache_creation = 5_500;
    cached.tokens.cache_read = 10_700;
    let mut old = line("2025-10-03T09:00:00Z", "claude-sonnet-4-5-20250929", 0, 0);
    old.untyped = 500;
    old.requests = 0;
    let mut a = usage_of(
        "c41d9e7b",
        vec![
            cached,
            span(
                "2025-10-02T14:01:00Z",
                "2025-10-02T14:01:20Z",
                "claude-sonnet-4-5-20250929",
                2,
                3_120,
            ),
        ],
    );
    a.title = Some("Fix the login form".into());
    vec![a, usage_of("7f3c2a10", vec![old])]
}

fn json(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("a report serializes")
}

#[test]
fn calendar_views_write_period_and_the_old_key() {
    let o = opts("UTC", "2025-10-03T10:00:00Z");
    let d = daily(&sample(), &price, &o);
    insta::assert_snapshot!("daily", json(&d));
    let v: serde_json::Value = serde_json::from_str(&json(&d)).unwrap();
    for row in v["daily"].as_array().unwrap() {
        assert_eq!(row["period"], row["date"]);
    }
    assert_eq!(v["totals"]["totalTokens"], 17_325 + 3_120 + 500);
    let w: serde_json::Value = serde_json::to_value(weekly(&sample(), &price, &o)).unwrap();
    assert_eq!(w["weekly"][0]["week"], "2025-09-28");
    assert_eq!(w["weekly"][0]["period"], "2025-09-28");
    let m: serde_json::Value = serde_json::to_value(monthly(&sample(), &price, &o)).unwrap();
    assert_eq!(m["monthly"][0]["month"], "2025-10");
    assert_eq!(m["monthly"][0]["unpricedTokens"], 500);
}

#[test]
fn session_view_json() {
    let r = session(&sample(), &price, &opts("UTC", "2025-10-03T10:00:00Z"));
    insta::assert_snapshot!("session", json(&r));
}

#[test]
fn blocks_view_json() {
    let limit = BlockOptions {
        token_limit: Some(TokenLimit::Tokens(30_000)),
        ..BlockOptions::default()
    };
    let r = blocks(
        &sample(),
        &price,
        &opts("UTC", "2025-10-03T10:00:00Z"),
        &limit,
    );
    insta::assert_snapshot!("blocks", json(&r));
}

#[test]
fn reasoning_is_written_only_when_some_output_was_reasoning() {
    let o = opts("UTC", "2025-10-03T10:00:00Z");
    let plain: serde_json::Value = serde_json::to_value(daily(&sample(), &price, &o)).unwrap();
    assert!(plain["daily"][0].get("reasoningOutputTokens").is_none());
    let mut thought = line("2025-10-02T14:00:03Z", "gpt-5-codex", 100, 40);
    thought.tokens.reasoning = 30;
    let d: serde_json::Value =
        serde_json::to_value(daily(&[usage_of("r1", vec![thought])], &price, &o)).unwrap();
    let row = &d["daily"][0];
    // Part of outputTokens, as in ccusage's Codex view: the total is unchanged.
    assert_eq!(row["outputTokens"], 40);
    assert_eq!(row["reasoningOutputTokens"], 30);
    assert_eq!(row["totalTokens"], 140);
    assert_eq!(row["modelBreakdowns"][0]["reasoningOutputTokens"], 30);
    assert_eq!(d["totals"]["reasoningOutputTokens"], 30);
}
