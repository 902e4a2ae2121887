//! The daily, weekly and monthly views.
//!
//! A line goes to the local day of its first request; the days within
//! `--since`/`--until` are kept, then grouped into weeks (from the chosen
//! first weekday) or months. As in ccusage, the bounds apply to days, so a
//! week at the edge of the range holds only the days inside it.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Date;
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::dates::{local_date_ms, week_start};
use super::json::usage_fields;
use super::tally::{Totals, Usage};
use super::{Order, PriceFn, ReportOptions, agent_name, priced_lines};
use crate::SessionUsage;

/// The span a row of a calendar view covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    Day,
    Week,
    Month,
}

impl Period {
    /// The key of the rows' array (`daily`, `weekly`, `monthly`).
    pub fn rows_key(self) -> &'static str {
        match self {
            Self::Day => "daily",
            Self::Week => "weekly",
            Self::Month => "monthly",
        }
    }

    /// The name ccusage before version 20 gave a row's period (`date`,
    /// `week`, `month`); ccusage 20 calls it `period`. cru writes both.
    pub fn old_key(self) -> &'static str {
        match self {
            Self::Day => "date",
            Self::Week => "week",
            Self::Month => "month",
        }
    }

    /// The first day of the period holding `date`.
    fn start(self, date: Date, opts: &ReportOptions) -> Date {
        match self {
            Self::Day => date,
            Self::Week => week_start(date, opts.week_start),
            Self::Month => date.first_of_month(),
        }
    }

    /// `2025-10-02` for a day or a week (its first day), `2025-10` for a month.
    fn label(self, start: Date) -> String {
        match self {
            Self::Day | Self::Week => start.to_string(),
            Self::Month => format!("{:04}-{:02}", start.year(), start.month()),
        }
    }
}

/// One day, week or month.
#[derive(Debug, Clone, PartialEq)]
pub struct PeriodRow {
    /// Its first day.
    pub start: Date,
    /// As the JSON writes it: `2025-10-02`, or `2025-10` for a month.
    pub label: String,
    /// The agents whose lines are in it, by name (`claude-code`), sorted.
    pub agents: Vec<String>,
    pub usage: Usage,
}

/// A calendar view: its rows in the asked order, and their sum.
#[derive(Debug, Clone, PartialEq)]
pub struct PeriodReport {
    pub period: Period,
    pub rows: Vec<PeriodRow>,
    pub totals: Totals,
}

/// Tokens and cost by local day.
pub fn daily(sessions: &[SessionUsage], price: &PriceFn<'_>, opts: &ReportOptions) -> PeriodReport {
    period_report(sessions, price, opts, Period::Day)
}

/// By week, weeks starting on `opts.week_start`.
pub fn weekly(
    sessions: &[SessionUsage],
    price: &PriceFn<'_>,
    opts: &ReportOptions,
) -> PeriodReport {
    period_report(sessions, price, opts, Period::Week)
}

/// By calendar month.
pub fn monthly(
    sessions: &[SessionUsage],
    price: &PriceFn<'_>,
    opts: &ReportOptions,
) -> PeriodReport {
    period_report(sessions, price, opts, Period::Month)
}

/// The view for `period`.
pub fn period_report(
    sessions: &[SessionUsage],
    price: &PriceFn<'_>,
    opts: &ReportOptions,
    period: Period,
) -> PeriodReport {
    let mut rows: BTreeMap<Date, (BTreeSet<String>, Usage)> = BTreeMap::new();
    for priced in priced_lines(sessions, price) {
        let day = local_date_ms(priced.line.first_ms, &opts.time_zone);
        if !opts.admits(day) {
            continue;
        }
        let (agents, usage) = rows.entry(period.start(day, opts)).or_default();
        if let Some(agent) = priced.line.agent.as_deref().map(agent_name)
            && !agents.contains(agent)
        {
            agents.insert(agent.to_owned());
        }
        usage.add_line(priced.line, priced.cost);
    }
    let mut rows: Vec<PeriodRow> = rows
        .into_iter()
        .map(|(start, (agents, usage))| PeriodRow {
            start,
            label: period.label(start),
            agents: agents.into_iter().collect(),
            usage,
        })
        .collect();
    if opts.order == Order::Desc {
        rows.reverse();
    }
    let totals = Totals::of(rows.iter().map(|r| &r.usage));
    PeriodReport {
        period,
        rows,
        totals,
    }
}

impl Serialize for PeriodReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        let rows: Vec<RowJson<'_>> = self
            .rows
            .iter()
            .map(|row| RowJson {
                period: self.period,
                row,
            })
            .collect();
        map.serialize_entry(self.period.rows_key(), &rows)?;
        map.serialize_entry("totals", &self.totals)?;
        map.end()
    }
}

struct RowJson<'a> {
    period: Period,
    row: &'a PeriodRow,
}

impl Serialize for RowJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("period", &self.row.label)?;
        map.serialize_entry(self.period.old_key(), &self.row.label)?;
        // ccusage 20 names the agent of a row that sums every agent `all`
        // and lists those it found under `metadata.agents`.
        map.serialize_entry("agent", "all")?;
        map.serialize_entry("metadata", &Metadata(&self.row.agents))?;
        usage_fields(&mut map, &self.row.usage)?;
        map.end()
    }
}

struct Metadata<'a>(&'a [String]);

impl Serialize for Metadata<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("agents", self.0)?;
        map.end()
    }
}
