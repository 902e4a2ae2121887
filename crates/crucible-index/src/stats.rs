//! Aggregations for `cru session stats`.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crucible_core::{SessionStatus, Timestamp};

use crate::query::Filter;
use crate::record::{PhaseRecord, SessionRecord};

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

#[derive(Default)]
struct Acc {
    sessions: HashSet<String>,
    tokens: u64,
    durations: Vec<u64>,
    failed: u64,
    ended: u64,
    errors: u64,
    users: u64,
}

impl Acc {
    fn session(&mut self, r: &SessionRecord) {
        if !self.sessions.insert(r.path.clone()) {
            return;
        }
        self.tokens += r.tokens_used.unwrap_or(0);
        self.durations.extend(r.duration_ms);
        self.ended += u64::from(matches!(
            r.status,
            SessionStatus::Completed | SessionStatus::Failed
        ));
        self.failed += u64::from(r.status == SessionStatus::Failed);
        self.errors += r.counts.errors;
        self.users += r.counts.user_interventions;
    }

    fn row(self, group: String) -> StatsRow {
        let n = self.durations.len() as u64;
        StatsRow {
            group,
            sessions: self.sessions.len() as u64,
            tokens: self.tokens,
            avg_duration_ms: (n > 0).then(|| self.durations.iter().sum::<u64>() / n),
            min_duration_ms: self.durations.iter().min().copied(),
            max_duration_ms: self.durations.iter().max().copied(),
            failed: self.failed,
            ended: self.ended,
            failure_rate: (self.ended > 0).then(|| self.failed as f64 / self.ended as f64),
            errors: self.errors,
            user_interventions: self.users,
        }
    }
}

fn keys(r: &SessionRecord, by: GroupBy) -> Vec<String> {
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
        GroupBy::Channel => vec![r.channel.clone().unwrap_or_else(none)],
        GroupBy::Status => vec![r.status.as_str().to_owned()],
        GroupBy::Model => vec![r.model.clone().unwrap_or_else(none)],
        GroupBy::Day => vec![
            r.started
                .parse::<Timestamp>()
                .map_or_else(|_| none(), |t| t.utc_day()),
        ],
        GroupBy::Phase => unreachable!("phases are grouped from phase records"),
    }
}

/// The rows of `stats`, sorted by group, and the total over every matching session.
pub fn stats(
    sessions: &[SessionRecord],
    phases: &[PhaseRecord],
    filter: &Filter,
    by: GroupBy,
) -> (Vec<StatsRow>, StatsRow) {
    let matching: Vec<&SessionRecord> = sessions.iter().filter(|r| filter.matches(r)).collect();
    let mut total = Acc::default();
    for r in &matching {
        total.session(r);
    }
    let mut groups: BTreeMap<String, Acc> = BTreeMap::new();
    if by == GroupBy::Phase {
        let by_path: std::collections::HashMap<&str, &SessionRecord> =
            matching.iter().map(|r| (r.path.as_str(), *r)).collect();
        for p in phases {
            let Some(r) = by_path.get(p.path.as_str()) else {
                continue;
            };
            let acc = groups.entry(p.name.clone()).or_default();
            if acc.sessions.insert(r.path.clone()) {
                acc.ended += u64::from(matches!(
                    r.status,
                    SessionStatus::Completed | SessionStatus::Failed
                ));
                acc.failed += u64::from(r.status == SessionStatus::Failed);
            }
            acc.tokens += p.tokens.unwrap_or(0);
            acc.durations.extend(p.duration_ms);
            acc.errors += p.counts.errors;
            acc.users += p.counts.user_interventions;
        }
    } else {
        for r in &matching {
            for k in keys(r, by) {
                groups.entry(k).or_default().session(r);
            }
        }
    }
    (
        groups.into_iter().map(|(k, a)| a.row(k)).collect(),
        total.row("total".into()),
    )
}
