//! Aggregations for `cru session stats`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crucible_core::{SessionStatus, Tokens, UsageLine};

use crate::query::Filter;
use crate::record::{Facts, PhaseRecord, SessionRecord};

/// What sessions are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// Each agent (participant or phase agent) by name, without its version;
    /// a session counts once for each of its agents.
    Agent,
    Channel,
    Status,
    Model,
    /// The UTC day tokens were spent; a session counts on the day it
    /// started and each day it spent tokens.
    Day,
    /// The UTC week, from Sunday (as `usage weekly`).
    Week,
    Month,
    /// Phases by name; figures are the phases' own (tokens, duration, errors).
    Phase,
    /// The git root of the session's working directory, else the directory.
    Project,
    /// Each session by id.
    Session,
}

impl GroupBy {
    /// Every grouping, in the order `--help` lists them.
    pub const ALL: [GroupBy; 10] = [
        GroupBy::Agent,
        GroupBy::Channel,
        GroupBy::Status,
        GroupBy::Model,
        GroupBy::Day,
        GroupBy::Week,
        GroupBy::Month,
        GroupBy::Phase,
        GroupBy::Project,
        GroupBy::Session,
    ];

    /// The name a user types (`--group-by day`).
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Agent => "agent",
            GroupBy::Channel => "channel",
            GroupBy::Status => "status",
            GroupBy::Model => "model",
            GroupBy::Day => "day",
            GroupBy::Week => "week",
            GroupBy::Month => "month",
            GroupBy::Phase => "phase",
            GroupBy::Project => "project",
            GroupBy::Session => "session",
        }
    }

    /// The grouping a name stands for.
    pub fn from_name(name: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.name() == name)
    }

    /// What the grouping counts, in a line for `--help`.
    pub fn about(self) -> Option<&'static str> {
        match self {
            GroupBy::Agent => {
                Some("Each agent by name; tokens go to the agent of the phase that spent them")
            }
            GroupBy::Day => {
                Some("The UTC day tokens were spent (`cru usage daily` for other zones)")
            }
            GroupBy::Week => Some("The UTC week tokens were spent, from Sunday"),
            GroupBy::Month => Some("The UTC month tokens were spent"),
            GroupBy::Phase => {
                Some("Phases by name, with the phases' own tokens, durations and errors")
            }
            GroupBy::Project => Some("The git root of the session's working directory"),
            GroupBy::Model => Some("The model that spent the tokens"),
            GroupBy::Channel | GroupBy::Status | GroupBy::Session => None,
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StatsRow {
    pub group: String,
    pub sessions: u64,
    /// Every token credited to the group: the four kinds and `untyped`.
    pub tokens: u64,
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    /// Tokens of unknown kind (files that wrote one number).
    pub untyped: u64,
    /// The group's usage by model (and cost written or not), for pricing.
    #[serde(skip)]
    pub usage: Vec<UsageLine>,
    pub avg_duration_ms: Option<u64>,
    pub min_duration_ms: Option<u64>,
    pub max_duration_ms: Option<u64>,
    /// Sessions that ended `failed`.
    pub failed: u64,
    /// Sessions that ended (`completed` or `failed`).
    pub ended: u64,
    /// `failed / ended`; `None` when nothing in the group has ended.
    pub failure_rate: Option<f64>,
    pub errors: u64,
    pub user_interventions: u64,
}

/// Count, sum, min and max of durations: what the table shows, in O(1) space.
#[derive(Debug, Clone, Copy)]
struct Durations {
    count: u64,
    sum: u64,
    min: u64,
    max: u64,
}

impl Default for Durations {
    fn default() -> Self {
        Self {
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

impl Durations {
    fn merge(&mut self, o: Self) {
        self.count += o.count;
        self.sum = self.sum.saturating_add(o.sum);
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    fn add(&mut self, d: Option<u64>) {
        if let Some(d) = d {
            self.count += 1;
            self.sum = self.sum.saturating_add(d);
            self.min = self.min.min(d);
            self.max = self.max.max(d);
        }
    }
}

/// A group's tokens: the kinds, and lines merged by model for pricing.
#[derive(Debug, Default, Clone)]
struct UsageAcc {
    tokens: Tokens,
    untyped: u64,
    /// One line per (model, cost written or not), in the order first seen;
    /// sorted by that key when the row is made. A group has a handful, so a
    /// scan finds one without the key's `String` being copied for every
    /// line added (over a million at 100,000 sessions).
    by_model: Vec<UsageLine>,
}

impl UsageAcc {
    fn add(&mut self, l: &UsageLine) {
        self.tokens.add(l.tokens);
        self.untyped = self.untyped.saturating_add(l.untyped);
        let same = |m: &&mut UsageLine| m.recorded == l.recorded && m.model == l.model;
        if let Some(m) = self.by_model.iter_mut().find(same) {
            m.merge(l);
        } else {
            let mut m = l.clone();
            m.phase = None;
            m.agent = None;
            m.channel = None;
            self.by_model.push(m);
        }
    }

    fn merge(&mut self, o: &Self) {
        for l in &o.by_model {
            self.add(l);
        }
    }

    /// The lines by (model, cost written or not).
    fn into_lines(mut self) -> Vec<UsageLine> {
        self.by_model
            .sort_by(|a, b| (&a.model, a.recorded).cmp(&(&b.model, b.recorded)));
        self.by_model
    }
}

#[derive(Debug, Default, Clone)]
struct Acc {
    sessions: u64,
    usage: UsageAcc,
    durations: Durations,
    failed: u64,
    ended: u64,
    errors: u64,
    users: u64,
}

impl Acc {
    /// Each session once per group: the caller dedupes the group keys.
    /// Tokens are added by line ([`UsageAcc::add`]), not here.
    fn session(&mut self, r: &Facts<'_>) {
        self.sessions += 1;
        self.durations.add(r.duration_ms);
        self.ended(r.status);
        self.errors += r.errors;
        self.users += r.user_interventions;
    }

    fn merge(&mut self, o: &Self) {
        self.sessions += o.sessions;
        self.usage.merge(&o.usage);
        self.durations.merge(o.durations);
        self.failed += o.failed;
        self.ended += o.ended;
        self.errors += o.errors;
        self.users += o.users;
    }

    fn ended(&mut self, status: SessionStatus) {
        self.ended += u64::from(matches!(
            status,
            SessionStatus::Completed | SessionStatus::Failed
        ));
        self.failed += u64::from(status == SessionStatus::Failed);
    }

    fn row(self, group: String) -> StatsRow {
        let d = self.durations;
        let t = self.usage.tokens;
        StatsRow {
            group,
            sessions: self.sessions,
            tokens: t.total().saturating_add(self.usage.untyped),
            input: t.input,
            output: t.output,
            cache_creation: t.cache_creation,
            cache_read: t.cache_read,
            untyped: self.usage.untyped,
            usage: self.usage.into_lines(),
            avg_duration_ms: (d.count > 0).then(|| d.sum / d.count),
            min_duration_ms: (d.count > 0).then_some(d.min),
            max_duration_ms: (d.count > 0).then_some(d.max),
            failed: self.failed,
            ended: self.ended,
            failure_rate: (self.ended > 0).then(|| self.failed as f64 / self.ended as f64),
            errors: self.errors,
            user_interventions: self.users,
        }
    }
}

/// The group of what names none (a line without agent, model, ...).
pub(crate) const NONE: &str = "(none)";

fn agent_name(a: &str) -> &str {
    a.split_once('@').map_or(a, |(n, _)| n)
}

/// The UTC day (`2025-10-02`), week (its Sunday, `2025-09-28`) or month
/// (`2025-10`) holding an instant (ms), as `usage daily|weekly|monthly
/// --timezone UTC` label them.
pub fn period_label(ms: i64, by: GroupBy) -> String {
    let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
        return NONE.to_owned();
    };
    let day = t.to_zoned(jiff::tz::TimeZone::UTC).date();
    match by {
        GroupBy::Week => {
            crucible_core::calendar::week_start(day, jiff::civil::Weekday::Sunday).to_string()
        }
        GroupBy::Month => format!("{:04}-{:02}", day.year(), day.month()),
        _ => day.to_string(),
    }
}

/// Accumulates `stats` over sessions given one at a time, so a caller can
/// feed it rows straight from the index file.
#[derive(Debug)]
pub struct Aggregator {
    by: GroupBy,
    total: Acc,
    /// By name, FNV-hashed: a session is added to a dozen groups at
    /// 100,000 sessions.
    groups: HashMap<String, Acc, crate::path_set::FastBuild>,
    /// For phase grouping: the matching sessions' statuses and lines, by path.
    statuses: HashMap<String, (SessionStatus, Vec<UsageLine>)>,
    /// Rows whose usage cell could not be read.
    unreadable: Vec<String>,
}

impl Aggregator {
    pub fn new(by: GroupBy) -> Self {
        Self {
            by,
            total: Acc::default(),
            groups: HashMap::default(),
            statuses: HashMap::new(),
            unreadable: Vec::new(),
        }
    }

    /// The group a session belongs to by its own facts (for the line-less
    /// groupings, the only one; for the others, one of its groups).
    /// Borrowed from the row where it names them (a copy per agent per
    /// session was a visible part of stats at 100,000 sessions).
    fn session_keys<'r>(&self, r: &'r Facts<'_>) -> Vec<Cow<'r, str>> {
        own_groups(self.by, r)
    }
}

/// The groups of `by` a session falls in by its own facts (for the
/// line-less groupings, its only one).
pub(crate) fn own_groups<'r>(by: GroupBy, r: &'r Facts<'_>) -> Vec<Cow<'r, str>> {
    let named = |v: Option<&'r str>| Cow::Borrowed(v.unwrap_or(NONE));
    match by {
        GroupBy::Agent => r
            .all_agents()
            .map(|a| Cow::Borrowed(agent_name(a)))
            .collect(),
        GroupBy::Channel => vec![named(r.channel.as_deref())],
        GroupBy::Status => vec![Cow::Borrowed(r.status.as_str())],
        GroupBy::Model => vec![named(r.model.as_deref())],
        GroupBy::Day | GroupBy::Week | GroupBy::Month => {
            vec![Cow::Owned(period_label(r.started_ms(), by))]
        }
        GroupBy::Project => vec![named(r.project.as_deref())],
        GroupBy::Session => vec![Cow::Borrowed(&*r.id)],
        GroupBy::Phase => Vec::new(),
    }
}

impl Aggregator {
    /// The group a line's tokens go to; `None`: the session's own group.
    /// Borrowed where the line names it: a session has a dozen lines or
    /// more, and `stats` adds up over a million at 100,000 sessions.
    fn line_key<'l>(&self, l: &'l UsageLine) -> Option<Cow<'l, str>> {
        line_group(self.by, l)
    }
}

/// The group of `by` a line's tokens go to; `None` for the groupings
/// whose tokens go by the session's own facts (status, project, ...).
pub fn line_group(by: GroupBy, l: &UsageLine) -> Option<Cow<'_, str>> {
    match by {
        GroupBy::Agent => Some(Cow::Borrowed(l.agent.as_deref().map_or(NONE, agent_name))),
        GroupBy::Channel => Some(Cow::Borrowed(l.channel.as_deref().unwrap_or(NONE))),
        GroupBy::Model => Some(Cow::Borrowed(l.model.as_deref().unwrap_or(NONE))),
        GroupBy::Day | GroupBy::Week | GroupBy::Month => {
            Some(Cow::Owned(period_label(l.first_ms, by)))
        }
        GroupBy::Status | GroupBy::Project | GroupBy::Session | GroupBy::Phase => None,
    }
}

/// The week or month label (as [`period_label`] gives them) of a UTC day
/// labelled `2025-10-02`; the day itself for the other groupings; `(none)`
/// stays `(none)`.
pub fn period_of_day(day: &str, by: GroupBy) -> String {
    let Ok(date) = day.parse::<jiff::civil::Date>() else {
        return day.to_owned();
    };
    match by {
        GroupBy::Week => {
            crucible_core::calendar::week_start(date, jiff::civil::Weekday::Sunday).to_string()
        }
        GroupBy::Month => format!("{:04}-{:02}", date.year(), date.month()),
        _ => day.to_owned(),
    }
}

impl Aggregator {
    /// The group named `key`, made when new.
    fn group(&mut self, key: &str) -> &mut Acc {
        if !self.groups.contains_key(key) {
            self.groups.insert(key.to_owned(), Acc::default());
        }
        self.groups.get_mut(key).expect("inserted above")
    }

    /// Adds a session that passed the filter. A session counts in every
    /// group its own facts or its tokens fall in; its tokens are split by
    /// line, so the groups' tokens add up to the total.
    pub fn add(&mut self, r: &Facts<'_>) {
        let lines = match r.usage() {
            Ok(l) => l,
            Err(e) => {
                self.unreadable.push(format!("{}: {e}", r.path));
                Cow::Owned(Vec::new())
            }
        };
        self.total.session(r);
        for l in lines.iter() {
            self.total.usage.add(l);
        }
        if self.by == GroupBy::Phase {
            self.statuses
                .insert(r.path.to_string(), (r.status, lines.into_owned()));
            return;
        }
        let session_keys = self.session_keys(r);
        let own = session_keys.first().map_or(NONE, AsRef::as_ref);
        let line_keys: Vec<Cow<'_, str>> = lines
            .iter()
            .map(|l| self.line_key(l).unwrap_or(Cow::Borrowed(own)))
            .collect();
        let mut keys: Vec<&str> = session_keys.iter().map(AsRef::as_ref).collect();
        keys.extend(line_keys.iter().map(AsRef::as_ref));
        self.count_session(r, keys);
        for (l, k) in lines.iter().zip(&line_keys) {
            self.group(k).usage.add(l);
        }
    }

    /// Adds a session's own figures (not its tokens) to the total and to
    /// every group its own facts or its lines fall in: `line_keys` are the
    /// groups of its lines (each at least once). With
    /// [`Aggregator::add_group_line`] for the tokens, what [`Aggregator::add`]
    /// does for a session whose lines are summed elsewhere (the rollup's
    /// table, [`crate::stats_rollup`]). Not for phase grouping.
    pub fn add_session<'k>(&mut self, r: &Facts<'_>, line_keys: impl Iterator<Item = &'k str>) {
        self.total.session(r);
        let session_keys = self.session_keys(r);
        let mut keys: Vec<&str> = session_keys.iter().map(AsRef::as_ref).collect();
        // Each key shortened to the local keys' lifetime.
        keys.extend(line_keys.map(|k| -> &str { k }));
        self.count_session(r, keys);
    }

    /// Counts a session once in each of `keys` (its groups, maybe twice).
    fn count_session(&mut self, r: &Facts<'_>, mut keys: Vec<&str>) {
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() {
            keys.push(NONE);
        }
        for k in keys {
            // One lookup for a group already there (nearly always).
            if let Some(acc) = self.groups.get_mut(k) {
                acc.session(r);
            } else {
                let mut acc = Acc::default();
                acc.session(r);
                self.groups.insert(k.to_owned(), acc);
            }
        }
    }

    /// Adds tokens (lines summed elsewhere) to group `group` and the total.
    pub fn add_group_line(&mut self, group: &str, line: &UsageLine) {
        self.total.usage.add(line);
        self.group(group).usage.add(line);
    }

    /// Adds what another aggregator (of other sessions) gathered.
    pub fn merge(&mut self, other: Self) {
        self.total.merge(&other.total);
        for (k, acc) in other.groups {
            self.groups.entry(k).or_default().merge(&acc);
        }
        self.statuses.extend(other.statuses);
        self.unreadable.extend(other.unreadable);
    }

    /// Rows whose usage could not be read (a damaged index), as messages.
    pub fn unreadable(&self) -> &[String] {
        &self.unreadable
    }

    /// The rows, sorted by group, and the total. `phases` is used when
    /// grouping by phase.
    pub fn finish(mut self, phases: &[PhaseRecord]) -> (Vec<StatsRow>, StatsRow) {
        if self.by == GroupBy::Phase {
            self.phase_groups(phases);
        }
        let mut rows: Vec<StatsRow> = self.groups.into_iter().map(|(k, a)| a.row(k)).collect();
        rows.sort_by(|a, b| a.group.cmp(&b.group));
        (rows, self.total.row("total".into()))
    }

    /// Phases by name, each with its own figures; a session whose tokens
    /// are not in any phase (only its frontmatter has them) puts them under
    /// `(no phase)`, so the groups still add up.
    fn phase_groups(&mut self, phases: &[PhaseRecord]) {
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        let mut in_phases: HashSet<&str> = HashSet::new();
        for p in phases {
            let Some((status, _)) = self.statuses.get(p.path.as_str()) else {
                continue;
            };
            let acc = self.groups.entry(p.name.clone()).or_default();
            if seen.insert((p.name.as_str(), p.path.as_str())) {
                acc.sessions += 1;
                acc.ended(*status);
            }
            for l in &p.usage {
                acc.usage.add(l);
            }
            if !p.usage.is_empty() {
                in_phases.insert(p.path.as_str());
            }
            acc.durations.add(p.duration_ms);
            acc.errors += p.counts.errors;
            acc.users += p.counts.user_interventions;
        }
        for (path, (status, lines)) in &self.statuses {
            if in_phases.contains(path.as_str()) || lines.is_empty() {
                continue;
            }
            let acc = self.groups.entry("(no phase)".to_owned()).or_default();
            acc.sessions += 1;
            acc.ended(*status);
            for l in lines {
                acc.usage.add(l);
            }
        }
    }
}

/// The rows of `stats`, sorted by group, and the total over every matching session.
pub fn stats(
    sessions: &[SessionRecord],
    phases: &[PhaseRecord],
    filter: &Filter,
    by: GroupBy,
) -> (Vec<StatsRow>, StatsRow) {
    let mut agg = Aggregator::new(by);
    for r in sessions {
        let facts = Facts::of(r);
        if filter.matches(&facts) {
            agg.add(&facts);
        }
    }
    agg.finish(phases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_and_months_are_labelled_as_the_usage_views_label_them() {
        // Thursday 2025-10-02, 14:00 UTC.
        let ms = 1_759_413_600_000;
        assert_eq!(period_label(ms, GroupBy::Day), "2025-10-02");
        assert_eq!(period_label(ms, GroupBy::Week), "2025-09-28");
        assert_eq!(period_label(ms, GroupBy::Month), "2025-10");
    }
}
