//! The flags every usage view takes.

use clap::{Args, ValueEnum};
use crucible_usage::CostMode;
use crucible_usage::report::{Order, ReportOptions, TokenLimit, parse_date_bound};
use jiff::Timestamp;
use jiff::civil::Weekday;
use jiff::tz::TimeZone;

use crate::commands::session::query::FilterArgs;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Print ccusage's JSON (its key names, so its scripts read it).
    #[arg(long, short = 'j')]
    pub json: bool,
    /// A row per model under each row.
    #[arg(long, short = 'b')]
    pub breakdown: bool,
    /// Only days on or after DATE (YYYY-MM-DD, YYYYMMDD, or 7d, 2w, 3m back from today).
    #[arg(long, short = 's', value_name = "DATE")]
    pub since: Option<String>,
    /// Only days on or before DATE (same forms as --since).
    #[arg(long, short = 'u', value_name = "DATE")]
    pub until: Option<String>,
    /// The time zone days are counted in (IANA name); the system's by default.
    #[arg(long, short = 'z', value_name = "ZONE")]
    pub timezone: Option<String>,
    /// Take this time (RFC 3339) as now: for the active block, and for 7d.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// How cost is found: the cost the transcript wrote when it wrote one
    /// (auto), always from tokens and prices (calculate), or only the
    /// written cost (display).
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    pub mode: Mode,
    /// Oldest first (asc) or newest first (desc).
    #[arg(long, value_enum, default_value_t = OrderArg::Asc)]
    pub order: OrderArg,
    /// The first day of a week, for `weekly`.
    #[arg(long, value_enum, default_value_t = WeekStart::Sunday)]
    pub start_of_week: WeekStart,
    /// Only sessions whose project is DIR or below it, by agent, and so on.
    #[command(flatten)]
    pub filters: UsageFilters,
}

/// The session filters that make sense for usage (dates are --since/--until
/// on days, above).
#[derive(Debug, Args, Clone, Default)]
pub struct UsageFilters {
    /// Only the tokens credited to this agent (name or name@version): its
    /// phases' usage, not the rest of the sessions it took part in.
    #[arg(long)]
    pub agent: Option<String>,
    /// Only the tokens credited to this channel (its phases').
    #[arg(long)]
    pub channel: Option<String>,
    /// Only sessions whose project (the git root of their working
    /// directory, else the directory) is DIR or below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<std::path::PathBuf>,
}

impl UsageFilters {
    pub fn filter(&self) -> Result<crucible_index::Filter, CliError> {
        FilterArgs {
            agent: self.agent.clone(),
            channel: self.channel.clone(),
            project: self.project.clone(),
            ..FilterArgs::default()
        }
        .filter()
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Mode {
    Auto,
    Calculate,
    Display,
}

impl From<Mode> for CostMode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Auto => CostMode::Auto,
            Mode::Calculate => CostMode::Calculate,
            Mode::Display => CostMode::Display,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OrderArg {
    Asc,
    Desc,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WeekStart {
    Sunday,
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
}

impl From<WeekStart> for Weekday {
    fn from(w: WeekStart) -> Self {
        match w {
            WeekStart::Sunday => Weekday::Sunday,
            WeekStart::Monday => Weekday::Monday,
            WeekStart::Tuesday => Weekday::Tuesday,
            WeekStart::Wednesday => Weekday::Wednesday,
            WeekStart::Thursday => Weekday::Thursday,
            WeekStart::Friday => Weekday::Friday,
            WeekStart::Saturday => Weekday::Saturday,
        }
    }
}

impl ViewArgs {
    /// The report's options: the zone, "now", the date bounds.
    pub fn report_options(&self) -> Result<ReportOptions, CliError> {
        let time_zone = match &self.timezone {
            Some(name) => TimeZone::get(name).map_err(|e| {
                CliError::usage(format!("--timezone {name}: {e}"))
                    .with_hint("an IANA name such as UTC, Europe/Paris or America/New_York")
            })?,
            None => super::zone::system(),
        };
        let now = match &self.now {
            Some(t) => t.parse::<Timestamp>().map_err(|e| {
                CliError::usage(format!(
                    "--now {t}: {e} (expected an RFC 3339 time such as 2025-10-02T14:00:00Z)"
                ))
            })?,
            None => Timestamp::now(),
        };
        let mut opts = ReportOptions::new(time_zone, now);
        let bound = |v: &Option<String>, flag: &str| {
            v.as_deref()
                .map(|s| {
                    parse_date_bound(s, now, &opts.time_zone)
                        .map_err(|e| CliError::usage(format!("--{flag}: {e}")))
                })
                .transpose()
        };
        opts.since = bound(&self.since, "since")?;
        opts.until = bound(&self.until, "until")?;
        if let (Some(since), Some(until)) = (opts.since, opts.until)
            && since > until
        {
            return Err(CliError::usage(format!(
                "--since {since} is after --until {until}: no day is between them"
            )));
        }
        opts.order = match self.order {
            OrderArg::Asc => Order::Asc,
            OrderArg::Desc => Order::Desc,
        };
        opts.week_start = self.start_of_week.into();
        Ok(opts)
    }
}

#[derive(Debug, Args)]
pub struct BlocksArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// Only the active block.
    #[arg(long, short = 'a')]
    pub active: bool,
    /// Only blocks of the last three days, and the active one.
    #[arg(long, short = 'r')]
    pub recent: bool,
    /// Compare the active block's projection with this many tokens (or
    /// `max`: the largest block so far).
    #[arg(long, short = 't', value_name = "N|max")]
    pub token_limit: Option<String>,
}

impl BlocksArgs {
    pub fn token_limit(&self) -> Result<Option<TokenLimit>, CliError> {
        self.token_limit
            .as_deref()
            .map(|s| {
                s.parse::<TokenLimit>()
                    .map_err(|e| CliError::usage(format!("--token-limit: {e}")))
            })
            .transpose()
    }
}
