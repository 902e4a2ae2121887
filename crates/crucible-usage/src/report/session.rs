//! The session view: one row per session, its first and last request.
//!
//! `--since`/`--until` keep the sessions whose last request falls on a day
//! within them (local days, as everywhere). A session with no token at all
//! is left out, as ccusage leaves it out. Rows are listed by last activity.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::dates::{local_date_ms, utc_millis};
use super::json::usage_fields;
use super::tally::{Totals, Usage};
use super::{Order, PriceFn, ReportOptions, agent_name, priced_lines};
use crate::SessionUsage;

/// One session's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub session_id: String,
    /// The session's file, relative to the sessions directory.
    pub path: String,
    pub title: Option<String>,
    /// Its project (the git root of its `cwd`), when it recorded one.
    pub project: Option<String>,
    /// The agent of its first line (its first phase), by name (`claude-code`).
    pub agent: Option<String>,
    /// First and last request, milliseconds since the epoch.
    pub first_ms: i64,
    pub last_ms: i64,
    pub usage: Usage,
}

/// The session view: rows by last activity, and their sum.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReport {
    pub rows: Vec<SessionRow>,
    pub totals: Totals,
}

/// One row per session that spent tokens.
pub fn session(
    sessions: &[SessionUsage],
    price: &PriceFn<'_>,
    opts: &ReportOptions,
) -> SessionReport {
    let mut rows: Vec<Option<SessionRow>> = vec![None; sessions.len()];
    for priced in priced_lines(sessions, price) {
        let line = priced.line;
        let row = rows[priced.session].get_or_insert_with(|| {
            let s = &sessions[priced.session];
            SessionRow {
                session_id: s.session_id.clone(),
                path: s.path.clone(),
                title: s.title.clone(),
                project: s.project.clone(),
                agent: line.agent.as_deref().map(|a| agent_name(a).to_owned()),
                first_ms: line.first_ms,
                last_ms: line.last_ms,
                usage: Usage::default(),
            }
        });
        row.first_ms = row.first_ms.min(line.first_ms);
        row.last_ms = row.last_ms.max(line.last_ms);
        row.usage.add_line(line, priced.cost);
    }
    let mut rows: Vec<SessionRow> = rows
        .into_iter()
        .flatten()
        .filter(|r| r.usage.total_tokens() > 0)
        .filter(|r| opts.admits(local_date_ms(r.last_ms, &opts.time_zone)))
        .collect();
    rows.sort_by(|a, b| (a.last_ms, &a.session_id).cmp(&(b.last_ms, &b.session_id)));
    if opts.order == Order::Desc {
        rows.reverse();
    }
    let totals = Totals::of(rows.iter().map(|r| &r.usage));
    SessionReport { rows, totals }
}

impl Serialize for SessionReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        // ccusage 20's unified view calls the array `session`, its Claude
        // view and older versions `sessions`: both are written.
        map.serialize_entry("session", &self.rows)?;
        map.serialize_entry("sessions", &self.rows)?;
        map.serialize_entry("totals", &self.totals)?;
        map.end()
    }
}

impl Serialize for SessionRow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let last = utc_millis(self.last_ms);
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("period", &self.session_id)?;
        map.serialize_entry("sessionId", &self.session_id)?;
        map.serialize_entry("agent", &self.agent)?;
        map.serialize_entry("metadata", &LastActivity(&last))?;
        map.serialize_entry("projectPath", &self.project)?;
        map.serialize_entry("firstActivity", &utc_millis(self.first_ms))?;
        map.serialize_entry("lastActivity", &last)?;
        usage_fields(&mut map, &self.usage)?;
        map.serialize_entry("path", &self.path)?;
        if let Some(title) = &self.title {
            map.serialize_entry("title", title)?;
        }
        map.end()
    }
}

struct LastActivity<'a>(&'a str);

impl Serialize for LastActivity<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("lastActivity", self.0)?;
        map.end()
    }
}
