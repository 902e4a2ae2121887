//! The rollup as the usage lines the calendar views take
//! (`crucible_usage::report::period_report`), merged by local day: a view
//! adds up days, so a line per day, model and cost written or not gives it
//! the same rows as a line per hour, with a twentieth of the lines to price
//! and to place in their day (at 100,000 sessions, 115,000 rows of the
//! rollup become about 5,000 lines).
//!
//! Names (models, agents) are numbers here ([`Names`]): the rows of a day
//! are matched by comparing those, and no name is copied per row.

use std::collections::HashMap;

use crucible_core::{Tokens, UsageLine};

use super::{NANOS_PER_USD, Rollup, VecMap};

/// Model and agent names, each once, numbered in order of first use.
#[derive(Debug, Default, Clone)]
pub(crate) struct Names {
    pub(crate) list: Vec<String>,
    /// FNV: a row looks up half a dozen short names.
    ids: HashMap<String, u32, crate::path_set::FastBuild>,
}

impl Names {
    pub(crate) fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.list.len()).expect("fewer than 2³² names");
        self.list.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    pub(crate) fn find(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }
}

/// The figures of one rollup row, as the day merger takes them.
pub(crate) struct RowFigures<'r> {
    pub hour: i64,
    pub model: Option<u32>,
    pub recorded: bool,
    pub first_ms: i64,
    pub requests: u64,
    pub tokens: Tokens,
    pub untyped: u64,
    pub nanos: i128,
    pub above: &'r [(u64, Tokens)],
    /// The row's agents (those credited with at least a line).
    pub agents: &'r [u32],
}

/// The rows of one local day, model and cost written or not, summed.
struct DayLine {
    model: Option<u32>,
    recorded: bool,
    hour: i64,
    first_ms: i64,
    requests: u64,
    tokens: Tokens,
    untyped: u64,
    nanos: i128,
    above: VecMap<u64, Tokens>,
}

impl DayLine {
    /// Adds a row. Saturating, as the views add lines: a sum of
    /// non-negative numbers capped at the top is the same in any order.
    fn add(&mut self, r: &RowFigures<'_>) {
        if r.first_ms < self.first_ms {
            (self.hour, self.first_ms) = (r.hour, r.first_ms);
        }
        self.requests = self.requests.saturating_add(r.requests);
        self.tokens.add(r.tokens);
        self.untyped = self.untyped.saturating_add(r.untyped);
        // Each row's is under 2¹⁰⁰ (`rollup::nanos`): no overflow here.
        self.nanos += r.nanos;
        for (threshold, t) in r.above {
            self.above
                .get_or_insert_by(|k| k.cmp(threshold), || *threshold)
                .add(*t);
        }
    }

    fn line(self, names: &[String]) -> UsageLine {
        #[allow(clippy::cast_precision_loss)]
        let written = self.nanos as f64 / NANOS_PER_USD;
        UsageLine {
            model: self.model.map(|m| names[m as usize].clone()),
            hour: self.hour,
            first_ms: self.first_ms,
            last_ms: self.first_ms,
            requests: self.requests,
            tokens: self.tokens,
            untyped: self.untyped,
            recorded: self.recorded,
            recorded_cost_usd: if self.recorded { written } else { 0.0 },
            above: self.above.into_iter().collect(),
            ..UsageLine::default()
        }
    }
}

/// The lines of one local day, from rows `rows` (counted from the first
/// row a [`DayMerger`] was given).
pub(crate) struct DayGroup {
    pub(crate) rows: std::ops::Range<usize>,
    lines: Vec<DayLine>,
    /// Each agent of the day once: its name, and the hour and first
    /// request of a row it is in.
    agents: Vec<(u32, i64, i64)>,
}

impl DayGroup {
    fn at(row: usize) -> Self {
        Self {
            rows: row..row,
            lines: Vec::new(),
            agents: Vec::new(),
        }
    }
}

/// Merges rows into lines, a day at a time. Rows come in order of hour (a
/// day's rows together); were a day to come back later, its rows would
/// make a group of their own, whose lines the views add to the same day.
pub(crate) struct DayMerger<'d> {
    /// The local day of an hour (any instant in it); `None` when the zone's
    /// offset there is not a whole number of hours.
    day: &'d dyn Fn(i64) -> Option<i64>,
    hour: Option<(i64, i64)>,
    today: Option<i64>,
    group: DayGroup,
    added: usize,
    done: Vec<DayGroup>,
}

impl<'d> DayMerger<'d> {
    pub(crate) fn new(day: &'d dyn Fn(i64) -> Option<i64>) -> Self {
        Self {
            day,
            hour: None,
            today: None,
            group: DayGroup::at(0),
            added: 0,
            done: Vec::new(),
        }
    }

    /// Adds a row; `None` when its hour has no whole-hour offset.
    /// Adds every row of a rollup kept in memory, its names numbered in
    /// `names`. `None` when a row is not exact.
    pub(crate) fn add_rollup(&mut self, rollup: &Rollup, names: &mut Names) -> Option<()> {
        let mut agents = Vec::new();
        for (key, sums) in &rollup.rows {
            if !sums.exact {
                return None;
            }
            agents.clear();
            agents.extend(sums.agents.keys().flatten().map(|a| names.id(a)));
            let above: Vec<(u64, Tokens)> = sums.above.iter().map(|(t, a)| (*t, *a)).collect();
            self.add(&RowFigures {
                hour: key.hour,
                model: key.model.as_deref().map(|m| names.id(m)),
                recorded: key.recorded,
                first_ms: sums.first_ms,
                requests: sums.requests,
                tokens: sums.tokens,
                untyped: sums.untyped,
                nanos: sums.recorded_nanos,
                above: &above,
                agents: &agents,
            })?;
        }
        Some(())
    }

    pub(crate) fn add(&mut self, r: &RowFigures<'_>) -> Option<()> {
        let d = match self.hour {
            Some((hour, d)) if hour == r.hour => d,
            _ => {
                let d = (self.day)(r.hour)?;
                self.hour = Some((r.hour, d));
                d
            }
        };
        if self.today != Some(d) {
            self.flush();
            self.today = Some(d);
        }
        self.added += 1;
        self.group.rows.end = self.added;
        let lines = &mut self.group.lines;
        let found = lines
            .iter()
            .position(|l| l.model == r.model && l.recorded == r.recorded);
        let i = found.unwrap_or_else(|| {
            lines.push(DayLine {
                model: r.model,
                recorded: r.recorded,
                hour: r.hour,
                first_ms: r.first_ms,
                requests: 0,
                tokens: Tokens::default(),
                untyped: 0,
                nanos: 0,
                above: VecMap::default(),
            });
            lines.len() - 1
        });
        lines[i].add(r);
        for &agent in r.agents {
            if !self.group.agents.iter().any(|a| a.0 == agent) {
                self.group.agents.push((agent, r.hour, r.first_ms));
            }
        }
        Some(())
    }

    fn flush(&mut self) {
        let next = DayGroup::at(self.added);
        let group = std::mem::replace(&mut self.group, next);
        if !group.rows.is_empty() {
            self.done.push(group);
        }
    }

    /// The groups, a day each (in the order the rows came).
    pub(crate) fn finish(mut self) -> Vec<DayGroup> {
        self.flush();
        self.done
    }
}

/// The groups' lines: one per agent and day (no tokens), then one per day,
/// model and cost written or not.
pub(crate) fn group_lines(groups: Vec<DayGroup>, names: &[String]) -> Vec<UsageLine> {
    let mut out = Vec::new();
    let mut lines = Vec::new();
    for g in groups {
        out.extend(
            g.agents
                .into_iter()
                .map(|(agent, hour, first_ms)| UsageLine {
                    agent: Some(names[agent as usize].clone()),
                    hour,
                    first_ms,
                    last_ms: first_ms,
                    ..UsageLine::default()
                }),
        );
        lines.extend(g.lines);
    }
    out.extend(lines.into_iter().map(|l| l.line(names)));
    out
}

impl Rollup {
    /// The rollup as the usage lines the calendar views take: one per local
    /// day (`day` of a first request, in the view's zone), model and cost
    /// written or not, with the sums of its rows and no agent; and one
    /// without tokens or model for each agent of a day (the views list a
    /// day's agents from its lines). The views then give the sessions' own
    /// rows, tokens, models and agents; costs within float rounding (prices
    /// are linear in the tokens), and a written cost as its nano-dollar sum.
    ///
    /// `day` must give one day for every instant of a UTC hour (a zone
    /// whose offset is a whole number of hours): it is asked once an hour.
    /// Not for the session and block views, which need each session's and
    /// each request's own times. `None` when a row is not exact.
    pub fn lines(&self, day: &dyn Fn(i64) -> i64) -> Option<Vec<UsageLine>> {
        let day = |ms: i64| Some(day(ms));
        let day_of_hour = |hour: i64| day(hour.saturating_mul(1_000));
        let mut merger = DayMerger::new(&day_of_hour);
        let mut names = Names::default();
        merger.add_rollup(self, &mut names)?;
        Some(group_lines(merger.finish(), &names.list))
    }
}
