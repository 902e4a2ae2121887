//! The daily, weekly and monthly views on hand-made lines.

use crucible_usage::report::{daily, monthly, parse_date_bound, weekly};
use crucible_usage::{Order, PeriodReport};
use jiff::civil::{Date, Weekday};

use crate::report_support::{line, opts, price, session, tz};

fn labels(r: &PeriodReport) -> Vec<(&str, u64)> {
    r.rows
        .iter()
        .map(|row| (row.label.as_str(), row.usage.total_tokens()))
        .collect()
}

fn date(s: &str) -> Date {
    s.parse().expect("a test date")
}

#[test]
fn a_day_is_the_local_day_of_the_first_request() {
    // 14:30 UTC is 23:30 in Tokyo; 15:30 UTC is already the next day there.
    let sessions = [session(
        "s",
        vec![
            line("2025-01-01T14:30:00Z", "m", 10, 0),
            line("2025-01-01T15:30:00Z", "m", 20, 0),
        ],
    )];
    let utc = daily(&sessions, &price, &opts("UTC", "2025-02-01T00:00:00Z"));
    assert_eq!(labels(&utc), [("2025-01-01", 30)]);
    let tokyo = daily(
        &sessions,
        &price,
        &opts("Asia/Tokyo", "2025-02-01T00:00:00Z"),
    );
    assert_eq!(labels(&tokyo), [("2025-01-01", 10), ("2025-01-02", 20)]);
    // Five hours behind UTC, 03:00 UTC is still the evening before.
    let early = [session("s", vec![line("2025-01-02T03:00:00Z", "m", 5, 0)])];
    let ny = daily(
        &early,
        &price,
        &opts("America/New_York", "2025-02-01T00:00:00Z"),
    );
    assert_eq!(labels(&ny), [("2025-01-01", 5)]);
}

#[test]
fn weeks_start_on_sunday_unless_told() {
    // 2025-08-09 is a Saturday, 08-10 a Sunday, 08-11 a Monday.
    let sessions = [session(
        "s",
        vec![
            line("2025-08-09T12:00:00Z", "m", 1, 0),
            line("2025-08-10T12:00:00Z", "m", 2, 0),
            line("2025-08-11T12:00:00Z", "m", 4, 0),
        ],
    )];
    let mut o = opts("UTC", "2025-09-01T00:00:00Z");
    let sunday = weekly(&sessions, &price, &o);
    assert_eq!(labels(&sunday), [("2025-08-03", 1), ("2025-08-10", 6)]);
    o.week_start = Weekday::Monday;
    let monday = weekly(&sessions, &price, &o);
    assert_eq!(labels(&monday), [("2025-08-04", 3), ("2025-08-11", 4)]);
}

#[test]
fn months_follow_the_local_calendar() {
    // 2025-02-01T02:00Z is still January 31st in Los Angeles.
    let sessions = [session(
        "s",
        vec![
            line("2025-01-31T12:00:00Z", "m", 1, 0),
            line("2025-02-01T02:00:00Z", "m", 2, 0),
            line("2025-02-01T12:00:00Z", "m", 4, 0),
        ],
    )];
    let utc = monthly(&sessions, &price, &opts("UTC", "2025-03-01T00:00:00Z"));
    assert_eq!(labels(&utc), [("2025-01", 1), ("2025-02", 6)]);
    let la = monthly(
        &sessions,
        &price,
        &opts("America/Los_Angeles", "2025-03-01T00:00:00Z"),
    );
    assert_eq!(labels(&la), [("2025-01", 3), ("2025-02", 4)]);
}

#[test]
fn since_and_until_keep_whole_local_days_inclusive() {
    let sessions = [session(
        "s",
        (1..=9)
            .map(|d| line(&format!("2025-03-0{d}T12:00:00Z"), "m", d, 0))
            .collect(),
    )];
    let mut o = opts("UTC", "2025-03-09T18:00:00Z");
    o.since = Some(date("2025-03-03"));
    o.until = Some(date("2025-03-05"));
    let r = daily(&sessions, &price, &o);
    assert_eq!(
        labels(&r),
        [("2025-03-03", 3), ("2025-03-04", 4), ("2025-03-05", 5)]
    );
    assert_eq!(r.totals.total_tokens(), 12, "totals are of the rows shown");
    // A week at the range's edge holds only the days inside the range.
    let w = weekly(&sessions, &price, &o);
    assert_eq!(labels(&w), [("2025-03-02", 12)]);
}

#[test]
fn relative_bounds_count_back_from_today() {
    let sessions = [session(
        "s",
        (1..=9)
            .map(|d| line(&format!("2025-03-0{d}T12:00:00Z"), "m", d, 0))
            .collect(),
    )];
    let mut o = opts("UTC", "2025-03-09T18:00:00Z");
    o.since = Some(parse_date_bound("2d", o.now, &o.time_zone).expect("a span"));
    assert_eq!(
        labels(&daily(&sessions, &price, &o)),
        [("2025-03-07", 7), ("2025-03-08", 8), ("2025-03-09", 9)]
    );
    o.since = Some(parse_date_bound("1w", o.now, &tz("UTC")).expect("a span"));
    assert_eq!(daily(&sessions, &price, &o).rows.len(), 8);
}

#[test]
fn rows_go_newest_first_when_asked() {
    let sessions = [session(
        "s",
        vec![
            line("2025-03-02T12:00:00Z", "m", 2, 0),
            line("2025-03-01T12:00:00Z", "m", 1, 0),
        ],
    )];
    let mut o = opts("UTC", "2025-04-01T00:00:00Z");
    assert_eq!(
        labels(&daily(&sessions, &price, &o)),
        [("2025-03-01", 1), ("2025-03-02", 2)]
    );
    o.order = Order::Desc;
    assert_eq!(
        labels(&daily(&sessions, &price, &o)),
        [("2025-03-02", 2), ("2025-03-01", 1)]
    );
}

#[test]
fn a_row_lists_models_by_first_use_and_breaks_them_down_by_cost() {
    let mut cheap_late = line("2025-03-01T15:00:00Z", "cheap", 1, 0);
    cheap_late.agent = Some("codex@0.5".into());
    let sessions = [
        session(
            "a",
            vec![
                line("2025-03-01T10:00:00Z", "cheap", 100, 0),
                line("2025-03-01T11:00:00Z", "dear", 5_000, 0),
            ],
        ),
        session("b", vec![cheap_late]),
    ];
    let r = daily(&sessions, &price, &opts("UTC", "2025-04-01T00:00:00Z"));
    let row = &r.rows[0];
    assert_eq!(
        row.usage.models_used().collect::<Vec<_>>(),
        ["cheap", "dear"]
    );
    let by_cost: Vec<&str> = row
        .usage
        .breakdowns()
        .iter()
        .map(|m| m.model.as_str())
        .collect();
    assert_eq!(by_cost, ["dear", "cheap"]);
    assert_eq!(
        row.usage.models[0].tokens.input, 101,
        "both sessions' lines"
    );
    assert_eq!(row.agents, ["claude-code", "codex"]);
    let sum: f64 = row.usage.models.iter().map(|m| m.cost.usd()).sum();
    assert!((sum - row.usage.cost.usd()).abs() < 1e-12);
    assert!((r.totals.cost.usd() - 5_101.0 / 1e6).abs() < 1e-12);
}
