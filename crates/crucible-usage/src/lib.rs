//! Tokens by kind, what they cost, and the views ccusage users know.
//!
//! Sessions say what they spent as [`crucible_core::UsageLine`]s (per phase,
//! model and UTC hour; `SessionLog::usage_lines` is the one attribution
//! rule). This crate prices them ([`pricing`]: LiteLLM's price list, shipped
//! as data, with overrides) and adds them up into reports ([`report`]:
//! daily, weekly, monthly, per session, and 5-hour billing blocks) whose
//! JSON uses ccusage's key names. It reads no file and no clock: callers
//! pass the lines, the price table and "now".

pub mod pricing;
pub mod report;

use crucible_core::UsageLine;

/// How a line's cost is found, as ccusage's `--mode` chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CostMode {
    /// The cost the source wrote when it wrote one, else computed.
    #[default]
    Auto,
    /// Always computed from tokens and the price table.
    Calculate,
    /// Only the cost the source wrote (0 where it wrote none).
    Display,
}

/// A cost in US dollars, and whether every token in it had a price.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    pub usd: f64,
    /// Tokens no price was found for (their model is not in the table, or
    /// their kind is unknown). A report shows these as unpriced, never as $0.
    pub unpriced_tokens: u64,
}

impl Cost {
    pub fn add(&mut self, o: Self) {
        self.usd += o.usd;
        self.unpriced_tokens += o.unpriced_tokens;
    }
}

/// The lines of one session, with what reports say of the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionUsage {
    pub session_id: String,
    /// The file, relative to the sessions directory.
    pub path: String,
    pub title: Option<String>,
    /// The git root of the session's `cwd`, else the `cwd` (see
    /// `crucible_core::project`); `None` when the session recorded none.
    pub project: Option<String>,
    /// The session's start, milliseconds since the epoch.
    pub started_ms: i64,
    pub lines: Vec<UsageLine>,
}

pub use report::{
    BlockOptions, BlocksReport, DateBoundError, Order, Period, PeriodReport, PriceFn,
    ReportOptions, SessionReport, TokenLimit, parse_date_bound,
};
