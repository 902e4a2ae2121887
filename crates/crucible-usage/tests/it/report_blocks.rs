//! 5-hour billing blocks on hand-made lines.

use crucible_usage::report::{BlockOptions, LimitStatus, TokenLimit, blocks};
use crucible_usage::{BlocksReport, Order};

use crate::report_support::{line, ms, opts, price, session, span};

/// (start, end, is_gap, total tokens) of each block.
fn shape(r: &BlocksReport) -> Vec<(i64, i64, bool, u64)> {
    r.blocks
        .iter()
        .map(|b| (b.start_ms, b.end_ms, b.is_gap, b.usage.total_tokens()))
        .collect()
}

fn day() -> Vec<crucible_usage::SessionUsage> {
    vec![
        session(
            "a",
            vec![
                line("2025-03-01T09:05:00Z", "m", 100, 0),
                line("2025-03-01T10:30:00Z", "m", 100, 0),
                // The hour 13:00 is before 09:00 + 5h: still the first block.
                line("2025-03-01T13:50:00Z", "m", 100, 0),
            ],
        ),
        session(
            "b",
            vec![
                // 14:00 is the first block's end: a new block, no gap.
                line("2025-03-01T14:10:00Z", "n", 10, 0),
                // 6h50m after the last request: a gap, then a block at 21:00.
                line("2025-03-01T21:00:00Z", "n", 1_000, 0),
                span(
                    "2025-03-01T21:10:00Z",
                    "2025-03-01T21:30:00Z",
                    "n",
                    3,
                    2_000,
                ),
            ],
        ),
    ]
}

#[test]
fn blocks_start_at_the_hour_and_a_long_pause_leaves_a_gap() {
    let r = blocks(
        &day(),
        &price,
        &opts("UTC", "2025-03-05T00:00:00Z"),
        &BlockOptions::default(),
    );
    assert_eq!(
        shape(&r),
        [
            (
                ms("2025-03-01T09:00:00Z"),
                ms("2025-03-01T14:00:00Z"),
                false,
                300
            ),
            (
                ms("2025-03-01T14:00:00Z"),
                ms("2025-03-01T19:00:00Z"),
                false,
                10
            ),
            (
                ms("2025-03-01T19:10:00Z"),
                ms("2025-03-01T21:00:00Z"),
                true,
                0
            ),
            (
                ms("2025-03-01T21:00:00Z"),
                ms("2025-03-02T02:00:00Z"),
                false,
                3_000
            ),
        ]
    );
    let first = &r.blocks[0];
    assert_eq!(first.requests, 3);
    assert_eq!(first.first_ms, Some(ms("2025-03-01T09:05:00Z")));
    assert_eq!(first.last_ms, Some(ms("2025-03-01T13:50:00Z")));
    assert!(r.blocks.iter().all(|b| !b.is_active), "all long past");
    assert!(
        r.blocks
            .iter()
            .all(|b| b.burn_rate.is_none() && b.projection.is_none())
    );
    assert_eq!(r.totals.total_tokens(), 3_310);
}

#[test]
fn the_open_block_at_now_is_active_with_its_burn_rate_and_projection() {
    let o = opts("UTC", "2025-03-01T22:30:00Z");
    let r = blocks(&day(), &price, &o, &BlockOptions::default());
    let last = r.blocks.last().unwrap();
    assert!(last.is_active);
    assert!(r.blocks[..3].iter().all(|b| !b.is_active));
    // 3,000 tokens between 21:00 and 21:30: 100 a minute, $0.006 an hour.
    let rate = last.burn_rate.unwrap();
    assert!((rate.tokens_per_minute - 100.0).abs() < 1e-9);
    assert!((rate.tokens_per_minute_for_indicator - 100.0).abs() < 1e-9);
    assert!((rate.cost_per_hour - 0.006).abs() < 1e-12);
    // 210 minutes to 02:00 at that pace.
    let p = last.projection.unwrap();
    assert_eq!((p.remaining_minutes, p.total_tokens), (210, 24_000));
    assert!((p.total_cost - 0.024).abs() < 1e-12);
}

#[test]
fn a_block_is_no_longer_active_past_its_end_or_after_a_long_pause() {
    let past_end = opts("UTC", "2025-03-02T02:00:00Z");
    let r = blocks(&day(), &price, &past_end, &BlockOptions::default());
    assert!(r.blocks.iter().all(|b| !b.is_active));
    // A lone request at 09:00 and "now" at 13:59: within the block, active.
    let lone = [session("s", vec![line("2025-03-01T09:00:00Z", "m", 1, 0)])];
    let r = blocks(
        &lone,
        &price,
        &opts("UTC", "2025-03-01T13:59:00Z"),
        &BlockOptions::default(),
    );
    assert!(r.blocks[0].is_active);
    // One request gives no span of time: no rate, so no projection.
    assert!(r.blocks[0].burn_rate.is_none() && r.blocks[0].projection.is_none());
}

#[test]
fn nothing_after_now_is_in_a_block() {
    // `--now` before the data: nothing has happened yet.
    let before = opts("UTC", "2025-02-01T12:00:00Z");
    let r = blocks(&day(), &price, &before, &BlockOptions::default());
    assert!(r.blocks.is_empty());
    // `--now` at 14:15: the block from 14:00 holds the 14:10 request, and
    // the evening's are left out, not counted in it and projected again on
    // top.
    let r = blocks(
        &day(),
        &price,
        &opts("UTC", "2025-03-01T14:15:00Z"),
        &BlockOptions::default(),
    );
    let last = r.blocks.last().unwrap();
    assert!(last.is_active);
    assert_eq!(r.totals.total_tokens(), 310);
    assert!(r.blocks.iter().all(|b| !b.is_gap));
    // At 21:00 exactly, the 21:00 line counts and the later ones do not.
    let r = blocks(
        &day(),
        &price,
        &opts("UTC", "2025-03-01T21:00:00Z"),
        &BlockOptions::default(),
    );
    assert_eq!(r.totals.total_tokens(), 1_310);
}

#[test]
fn the_projection_is_held_to_a_token_limit() {
    let o = opts("UTC", "2025-03-01T22:30:00Z");
    let with = |limit| BlockOptions {
        token_limit: Some(limit),
        ..BlockOptions::default()
    };
    let r = blocks(&day(), &price, &o, &with(TokenLimit::Tokens(25_000)));
    let s = r.blocks.last().unwrap().limit.unwrap();
    assert_eq!(
        (s.limit, s.projected, s.status),
        (25_000, 24_000, LimitStatus::Warning)
    );
    // `max`: the largest finished block (300 tokens), even with --active.
    let max = BlockOptions {
        active_only: true,
        ..with(TokenLimit::Max)
    };
    let r = blocks(&day(), &price, &o, &max);
    assert_eq!(r.blocks.len(), 1);
    let s = r.blocks[0].limit.unwrap();
    assert_eq!((s.limit, s.status), (300, LimitStatus::Exceeds));
    assert!((s.percent_used - 8_000.0).abs() < 1e-9);
    // Finished blocks get no status.
    let r = blocks(&day(), &price, &o, &with(TokenLimit::Tokens(1)));
    assert!(r.blocks[..3].iter().all(|b| b.limit.is_none()));
}

#[test]
fn recent_active_dates_and_order_narrow_the_list() {
    let mut sessions = day();
    sessions.push(session(
        "old",
        vec![line("2025-02-01T09:00:00Z", "m", 7, 0)],
    ));
    let o = opts("UTC", "2025-03-01T22:30:00Z");
    let all = blocks(&sessions, &price, &o, &BlockOptions::default());
    assert_eq!(all.blocks.len(), 6, "the old block, a gap, then the day's");
    let recent = BlockOptions {
        recent: true,
        ..BlockOptions::default()
    };
    assert_eq!(blocks(&sessions, &price, &o, &recent).blocks.len(), 4);
    let mut dated = o.clone();
    dated.until = Some("2025-02-28".parse().unwrap());
    dated.order = Order::Desc;
    let r = blocks(&sessions, &price, &dated, &BlockOptions::default());
    assert_eq!(
        shape(&r).iter().map(|s| s.2).collect::<Vec<_>>(),
        [true, false]
    );
    assert_eq!(r.blocks[1].start_ms, ms("2025-02-01T09:00:00Z"));
}

#[test]
fn longer_blocks_when_asked() {
    let eight = BlockOptions {
        hours: 8,
        ..BlockOptions::default()
    };
    let r = blocks(&day(), &price, &opts("UTC", "2025-03-05T00:00:00Z"), &eight);
    // 09:00 + 8h reaches past 14:10; 21:00 is within 8h of 14:10: no gap.
    assert_eq!(
        shape(&r),
        [
            (
                ms("2025-03-01T09:00:00Z"),
                ms("2025-03-01T17:00:00Z"),
                false,
                310
            ),
            (
                ms("2025-03-01T21:00:00Z"),
                ms("2025-03-02T05:00:00Z"),
                false,
                3_000
            ),
        ]
    );
}
