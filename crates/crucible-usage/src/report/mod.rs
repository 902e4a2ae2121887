//! The usage views ccusage users know: by day, week, month, session and
//! 5-hour billing block.
//!
//! Every view takes the sessions' [`UsageLine`]s, a pricing function (one
//! [`Cost`] per line) and [`ReportOptions`] (time zone, date bounds, order,
//! "now"), and returns a typed report whose `serde` form is ccusage's JSON:
//! ccusage 20's keys (`period`, `agent`, `metadata`) and the older ones
//! (`date`, `week`, `month`, `sessionId`) side by side, so that scripts
//! written for either read it unchanged. docs/usage.md has the rules.
//!
//! Nothing here reads a clock or the environment: the caller passes the
//! time zone and the current time.

mod blocks;
mod dates;
mod json;
mod period;
mod session;
mod tally;

pub use blocks::{
    Block, BlockOptions, BlocksReport, BurnRate, LimitStatus, Projection, TokenLimit,
    TokenLimitError, TokenLimitStatus, blocks,
};
pub use dates::{DateBoundError, parse_date_bound, week_start};
pub use period::{Period, PeriodReport, PeriodRow, daily, monthly, period_report, weekly};
pub use session::{SessionReport, SessionRow, session};
pub use tally::{ModelUsage, Totals, Usage};

use crucible_core::UsageLine;
use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;

use crate::{Cost, SessionUsage};

/// The pricing function every view takes: the cost of one line.
pub type PriceFn<'a> = dyn Fn(&UsageLine) -> Cost + 'a;

/// Which way rows are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Oldest first (ccusage's default).
    #[default]
    Asc,
    Desc,
}

/// What every view is asked with.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The zone whose calendar days the rows follow (`--timezone`).
    pub time_zone: TimeZone,
    /// Only days on or after this local date (`--since`).
    pub since: Option<Date>,
    /// Only days on or before this local date (`--until`).
    pub until: Option<Date>,
    pub order: Order,
    /// The first day of a week in the weekly view (ccusage's
    /// `--start-of-week`, Sunday unless told).
    pub week_start: Weekday,
    /// The current time: which block is active, and how far it may go.
    pub now: Timestamp,
}

impl ReportOptions {
    /// All days, oldest first, weeks from Sunday.
    pub fn new(time_zone: TimeZone, now: Timestamp) -> Self {
        Self {
            time_zone,
            since: None,
            until: None,
            order: Order::Asc,
            week_start: Weekday::Sunday,
            now,
        }
    }

    /// True when `date` is within `since..=until`.
    pub fn admits(&self, date: Date) -> bool {
        self.since.is_none_or(|s| date >= s) && self.until.is_none_or(|u| date <= u)
    }
}

/// A line with its session and its cost, priced once per report.
struct PricedLine<'a> {
    session: usize,
    line: &'a UsageLine,
    cost: Cost,
}

/// Every line of every session, priced, in the sessions' order. The
/// calendar and session views need no other order: a row keeps its models
/// in order of first use however its lines come (`Usage::add_line`). An
/// iterator, not a `Vec`: at 100,000 sessions there are over a million.
fn priced_lines<'a>(
    sessions: &'a [SessionUsage],
    price: &'a PriceFn<'_>,
) -> impl Iterator<Item = PricedLine<'a>> {
    sessions
        .iter()
        .enumerate()
        .flat_map(|(session, s)| s.lines.iter().map(move |line| (session, line)))
        .map(|(session, line)| PricedLine {
            session,
            line,
            cost: price(line),
        })
}

/// An agent as the views name it: `claude-code@2.0.1` → `claude-code`.
fn agent_name(agent: &str) -> &str {
    agent.split_once('@').map_or(agent, |(name, _)| name)
}
