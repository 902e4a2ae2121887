//! Aggregations for `cru session stats`.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crucible_core::{SessionStatus, Timestamp};

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
    /// The UTC day the session started.
    Day,
    /// Phases by name; figures are the phases' own (tokens, duration, errors).
    Phase,
}

impl GroupBy {
    /// Every grouping, in the order `--help` lists them.
    pub const ALL: [GroupBy; 6] = [
        GroupBy::Agent,
        GroupBy::Channel,
        GroupBy::Status,
        GroupBy::Model,
        GroupBy::Day,
        GroupBy::Phase,
    ];

    /// The name a user types (`--group-by day`).
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Agent => "agent",
            GroupBy::Channel => "channel",
            GroupBy::Status => "status",
            GroupBy::Model => "model",
            GroupBy::Day => "day",
            GroupBy::Phase => "phase",
        }
    }

    /// The grouping a name stands for.
    pub fn from_name(name: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.name() == name)
    }

    /// What the grouping counts, in a line for `--help`.
    pub fn about(self) -> Option<&'static str> {
        match self {
            GroupBy::Agent => Some(
                "Each agent by name (participants and phase agents); a session counts for each",
            ),
            GroupBy::Day => Some("The UTC day a session started"),
            GroupBy::Phase => {
                Some("Phases by name, with the phases' own tokens, durations and errors")
            }
            GroupBy::Channel | GroupBy::Status | GroupBy::Model => None,
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StatsRow {
    pub group: String,
    pub sessions: u64,
    pub tokens: u64,
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

#[derive(Debug, Default, Clone, Copy)]
struct Acc {
    sessions: u64,
    tokens: u64,
    durations: Durations,
    failed: u64,
    ended: u64,
    errors: u64,
    users: u64,
}

impl Acc {
    /// Each session once per group: the caller dedupes the group keys.
    fn session(&mut self, r: &Facts<'_>) {
        self.sessions += 1;
        self.tokens += r.tokens_used.unwrap_or(0);
        self.durations.add(r.duration_ms);
        self.ended(r.status);
        self.errors += r.errors;
        self.users += r.user_interventions;
    }

    fn merge(&mut self, o: Self) {
        self.sessions += o.sessions;
        self.tokens += o.tokens;
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
        StatsRow {
            group,
            sessions: self.sessions,
            tokens: self.tokens,
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

fn keys(r: &Facts<'_>, by: GroupBy) -> Vec<String> {
    let none = || "(none)".to_owned();
    match by {
        GroupBy::Agent => {
            let mut names: Vec<String> = r
                .all_agents()
                .map(|a| a.split_once('@').map_or(a, |(n, _)| n).to_owned())
                .collect();
            names.sort();
            names.dedup();
            if names.is_empty() {
                vec![none()]
            } else {
                names
            }
        }
        GroupBy::Channel => vec![r.channel.as_deref().map_or_else(none, str::to_owned)],
        GroupBy::Status => vec![r.status.as_str().to_owned()],
        GroupBy::Model => vec![r.model.as_deref().map_or_else(none, str::to_owned)],
        GroupBy::Day => vec![
            r.started
                .parse::<Timestamp>()
                .map_or_else(|_| none(), |t| t.utc_day()),
        ],
        GroupBy::Phase => unreachable!("phases are grouped from phase records"),
    }
}

/// Accumulates `stats` over sessions given one at a time, so a caller can
/// feed it rows straight from the index file.
#[derive(Debug, Default)]
pub struct Aggregator {
    by: Option<GroupBy>,
    total: Acc,
    groups: HashMap<String, Acc>,
    /// For phase grouping: the matching sessions' statuses, by path.
    statuses: HashMap<String, SessionStatus>,
}

impl Aggregator {
    pub fn new(by: GroupBy) -> Self {
        Self {
            by: Some(by),
            ..Self::default()
        }
    }

    /// Adds a session that passed the filter.
    pub fn add(&mut self, r: &Facts<'_>) {
        self.total.session(r);
        match self.by {
            Some(GroupBy::Phase) => {
                self.statuses.insert(r.path.to_string(), r.status);
            }
            Some(GroupBy::Agent) => {
                // Names without versions, each once: no allocation per row
                // beyond this small list.
                let mut names: Vec<&str> = Vec::with_capacity(4);
                for a in r.all_agents() {
                    let name = a.split_once('@').map_or(a, |(n, _)| n);
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                if names.is_empty() {
                    names.push("(none)");
                }
                for n in names {
                    match self.groups.get_mut(n) {
                        Some(acc) => acc.session(r),
                        None => self.groups.entry(n.to_owned()).or_default().session(r),
                    }
                }
            }
            Some(by) => {
                for k in keys(r, by) {
                    self.groups.entry(k).or_default().session(r);
                }
            }
            None => {}
        }
    }

    /// Adds what another aggregator (of other sessions) gathered.
    pub fn merge(&mut self, other: Self) {
        self.total.merge(other.total);
        for (k, acc) in other.groups {
            self.groups.entry(k).or_default().merge(acc);
        }
        self.statuses.extend(other.statuses);
    }

    /// The rows, sorted by group, and the total. `phases` is used when
    /// grouping by phase.
    pub fn finish(mut self, phases: &[PhaseRecord]) -> (Vec<StatsRow>, StatsRow) {
        if self.by == Some(GroupBy::Phase) {
            let mut seen: HashSet<(&str, &str)> = HashSet::new();
            for p in phases {
                let Some(status) = self.statuses.get(p.path.as_str()) else {
                    continue;
                };
                let acc = self.groups.entry(p.name.clone()).or_default();
                if seen.insert((p.name.as_str(), p.path.as_str())) {
                    acc.sessions += 1;
                    acc.ended(*status);
                }
                acc.tokens += p.tokens.unwrap_or(0);
                acc.durations.add(p.duration_ms);
                acc.errors += p.counts.errors;
                acc.users += p.counts.user_interventions;
            }
        }
        let mut rows: Vec<StatsRow> = self.groups.into_iter().map(|(k, a)| a.row(k)).collect();
        rows.sort_by(|a, b| a.group.cmp(&b.group));
        (rows, self.total.row("total".into()))
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
