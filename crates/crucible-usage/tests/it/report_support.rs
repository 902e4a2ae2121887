//! Hand-made usage lines and sessions for the report tests.

use crucible_core::{Tokens, UsageLine};
use crucible_usage::{Cost, ReportOptions, SessionUsage};
use jiff::Timestamp;
use jiff::tz::TimeZone;

pub fn ms(at: &str) -> i64 {
    at.parse::<Timestamp>()
        .expect("a test time")
        .as_millisecond()
}

/// One request at `at` by `model`: `input` in, `output` out.
pub fn line(at: &str, model: &str, input: u64, output: u64) -> UsageLine {
    let t = ms(at);
    UsageLine {
        agent: Some("claude-code@2.0.1".into()),
        model: Some(model.into()),
        hour: t.div_euclid(3_600_000) * 3_600,
        first_ms: t,
        last_ms: t,
        requests: 1,
        tokens: Tokens {
            input,
            output,
            ..Tokens::default()
        },
        ..UsageLine::default()
    }
}

/// Requests from `first` to `last` within one UTC hour, as one line.
pub fn span(first: &str, last: &str, model: &str, requests: u64, input: u64) -> UsageLine {
    let mut l = line(first, model, input, 0);
    l.last_ms = ms(last);
    l.requests = requests;
    l
}

pub fn session(id: &str, lines: Vec<UsageLine>) -> SessionUsage {
    SessionUsage {
        session_id: id.into(),
        path: format!("{id}.md"),
        title: None,
        project: Some("/home/me/app".into()),
        started_ms: lines.first().map_or(0, |l| l.first_ms),
        lines,
    }
}

/// A stub price: a dollar per million tokens, untyped ones unpriced.
pub fn price(l: &UsageLine) -> Cost {
    Cost::from_usd(l.tokens.total() as f64 / 1e6, l.untyped)
}

pub fn tz(name: &str) -> TimeZone {
    TimeZone::get(name).expect("the system's time zone database has it")
}

/// Options in `zone`, with "now" at `now`.
pub fn opts(zone: &str, now: &str) -> ReportOptions {
    ReportOptions::new(tz(zone), now.parse().expect("a test time"))
}
