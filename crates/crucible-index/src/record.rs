//! Index records: one per session, one per phase, one per file that failed to parse.

use serde::{Deserialize, Serialize};

use crucible_core::{AgentRef, Counts, SessionStatus, SessionSummary, Timestamp, UsageLine};

use crate::toon::{self, Cell};

/// Identifies a file's version cheaply: a save through cru or an editor's
/// atomic save gives a new inode; any write changes mtime or size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub ino: u64,
    pub mtime_ns: u64,
    pub size: u64,
    /// The inode's change time: unlike the mtime, no tool can set it back
    /// (`cp -p`, `touch -d`, `rsync -t` can), so an edit that keeps size and
    /// mtime still shows. 0 means "look again": see [`FileStamp::of`].
    pub ctime_ns: u64,
}

/// Timestamps are kept by the kernel at a coarse tick (a few milliseconds):
/// a file written again within the tick in which it was indexed keeps its
/// stamp. A stamp taken this close to the file's last change is not trusted.
pub const RACY_NS: u64 = 100_000_000;

/// A time as nanoseconds since 1970 (0 before it).
pub fn unix_ns(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl FileStamp {
    /// The stamp of a file as it is now. If the file changed less than
    /// [`RACY_NS`] ago, its `ctime_ns` is recorded as 0, so the next
    /// freshness check reads it again instead of trusting a stamp that a
    /// write within the same tick would not change (git's "racily clean").
    pub fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| {
            u64::try_from(s).unwrap_or(0) * 1_000_000_000 + u64::try_from(n).unwrap_or(0)
        };
        Self::taken_now(
            meta.ino(),
            ns(meta.mtime(), meta.mtime_nsec()),
            meta.len(),
            ns(meta.ctime(), meta.ctime_nsec()),
        )
    }

    /// A stamp from `stat` fields, with the racy rule of [`FileStamp::of`].
    pub fn taken_now(ino: u64, mtime_ns: u64, size: u64, ctime_ns: u64) -> Self {
        let now = unix_ns(std::time::SystemTime::now());
        let racy = now.saturating_sub(mtime_ns.max(ctime_ns)) < RACY_NS;
        Self {
            ino,
            mtime_ns,
            size,
            ctime_ns: if racy { 0 } else { ctime_ns },
        }
    }

    /// A stamp from its index cells.
    pub fn from_cells(
        ino: &str,
        mtime_ns: &str,
        size: &str,
        ctime_ns: &str,
    ) -> Result<Self, String> {
        Ok(Self {
            ino: count(ino)?,
            mtime_ns: count(mtime_ns)?,
            size: count(size)?,
            ctime_ns: count(ctime_ns)?,
        })
    }

    /// Whether a file with stamp `now` is the file this stamp was taken of,
    /// unchanged.
    pub fn matches(&self, now: &FileStamp) -> bool {
        self.ctime_ns != 0
            && self.ino == now.ino
            && self.mtime_ns == now.mtime_ns
            && self.size == now.size
            && self.ctime_ns == now.ctime_ns
    }
}

/// What the index knows about one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// Relative to the sessions directory, `/`-separated.
    pub path: String,
    pub id: String,
    pub status: SessionStatus,
    pub started: String,
    pub ended: Option<String>,
    pub duration_ms: Option<u64>,
    pub title: Option<String>,
    pub channel: Option<String>,
    pub model: Option<String>,
    /// `name@version` of each participant.
    pub participants: Vec<String>,
    /// Agents of phases that are not participants.
    pub agents: Vec<String>,
    pub tokens_used: Option<u64>,
    pub phases: u64,
    #[serde(flatten)]
    pub counts: Counts,
    pub resume_point: Option<String>,
    pub parent: Option<String>,
    /// The git root of the session's working directory, else the directory
    /// ([`crucible_core::Frontmatter::project`]).
    pub project: Option<String>,
    /// The session's usage, merged over phases
    /// ([`crucible_core::without_phases`]).
    pub usage: Vec<UsageLine>,
    /// The session had a journal when indexed: it is live, and read afresh.
    pub live: bool,
    #[serde(flatten)]
    pub stamp: FileStamp,
}

/// What the index knows about one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseRecord {
    pub path: String,
    pub phase: u64,
    pub name: String,
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub level: u64,
    pub started: Option<String>,
    pub duration_ms: Option<u64>,
    pub tokens: Option<u64>,
    #[serde(flatten)]
    pub counts: Counts,
    /// The phase's usage lines (agent and channel are the row's).
    pub usage: Vec<UsageLine>,
}

/// A markdown file that is not a session (a note of a vault, an empty file
/// an editor just made), with its stamp: it is looked at again when it
/// changes, in case it became a session in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub path: String,
    #[serde(flatten)]
    pub stamp: FileStamp,
}

pub const NOTE_FIELDS: &[&str] = &["path", "ino", "mtime_ns", "size", "ctime_ns"];

impl Note {
    pub fn write_row(&self, out: &mut String) {
        toon::write_row(
            out,
            &[
                Cell::Str(&self.path),
                Cell::Num(self.stamp.ino),
                Cell::Num(self.stamp.mtime_ns),
                Cell::Num(self.stamp.size),
                Cell::Num(self.stamp.ctime_ns),
            ],
        );
    }

    /// Reads a row whose cells are in [`NOTE_FIELDS`] order.
    pub fn from_cells(cells: &[&str]) -> Result<Self, String> {
        let &[path, ino, mtime_ns, size, ctime_ns] = cells else {
            return Err(wrong_width(NOTE_FIELDS, cells));
        };
        Ok(Self {
            path: confined(required(path, "path")?)?,
            stamp: FileStamp::from_cells(ino, mtime_ns, size, ctime_ns)?,
        })
    }
}

/// A file that says it is a session and cannot be read as one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub path: String,
    pub line: u64,
    pub message: String,
    #[serde(flatten)]
    pub stamp: FileStamp,
}

/// The columns of the sessions table. The ones a query looks at first come
/// first (status, live, mtime), so rejected rows are split only that far.
pub const SESSION_FIELDS: &[&str] = &[
    "path",
    "id",
    "status",
    "live",
    "mtime_ns",
    "ino",
    "size",
    "ctime_ns",
    "started",
    "ended",
    "duration_ms",
    "title",
    "channel",
    "model",
    "participants",
    "agents",
    "tokens_used",
    "phases",
    "tool_calls",
    "failed_tool_calls",
    "decisions",
    "errors",
    "user_interventions",
    "subagents",
    "resume_point",
    "parent",
    "project",
    "usage",
];

/// The columns of the base file's sessions table: all but `usage`, which
/// the usage file holds (`.index-usage.toon`, see [`USAGE_FIELDS`]).
pub const BASE_SESSION_FIELDS: &[&str] = SESSION_FIELDS.split_at(SESSION_FIELDS.len() - 1).0;

/// The columns of the usage file's table: one row per row of the base
/// file's sessions table, in the same order.
pub const USAGE_FIELDS: &[&str] = &["path", "usage"];

/// Where `usage` is among [`SESSION_FIELDS`].
pub const USAGE_COLUMN: usize = SESSION_FIELDS.len() - 1;

/// How many leading cells decide whether a row is read further.
pub const SESSION_PREFIX: usize = 8;

pub const PHASE_FIELDS: &[&str] = &[
    "path",
    "phase",
    "name",
    "agent",
    "channel",
    "level",
    "started",
    "duration_ms",
    "tokens",
    "tool_calls",
    "failed_tool_calls",
    "decisions",
    "errors",
    "user_interventions",
    "subagents",
    "usage",
];

pub const PROBLEM_FIELDS: &[&str] = &[
    "path", "line", "message", "ino", "mtime_ns", "size", "ctime_ns",
];

/// Lists are kept in one cell, space-separated (names never contain spaces).
fn join(v: &[String]) -> Option<String> {
    (!v.is_empty()).then(|| v.join(" "))
}

fn split_list(s: Option<std::borrow::Cow<'_, str>>) -> Vec<String> {
    s.map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

impl SessionRecord {
    pub fn from_summary(path: String, s: &SessionSummary, stamp: FileStamp, live: bool) -> Self {
        let fm = &s.frontmatter;
        // Strings made directly, not by `to_string`: the formatter was a
        // visible part of a rebuild, which makes a record per session.
        let participants: Vec<String> = fm.participants.iter().map(AgentRef::text).collect();
        let mut agents: Vec<String> = Vec::new();
        let mut agent = String::new();
        for a in s.phases.iter().filter_map(|p| p.agent.as_ref()) {
            agent.clear();
            a.push_to(&mut agent);
            if !participants.contains(&agent) && !agents.contains(&agent) {
                agents.push(agent.clone());
            }
        }
        let usage = crucible_core::without_phases(&s.usage_lines());
        Self {
            path,
            id: fm.session_id.as_str().to_owned(),
            status: fm.status,
            started: fm.started.as_str().to_owned(),
            ended: fm.ended.as_ref().map(|t| t.as_str().to_owned()),
            duration_ms: fm.duration_ms().and_then(|d| u64::try_from(d).ok()),
            title: s.title.clone(),
            channel: fm.channel.clone(),
            model: fm.model.clone(),
            participants,
            agents,
            // What the figures add up to, as every report counts them (a
            // `tokens_used` edited by hand says otherwise; `validate` names
            // it): the frontmatter's only when there are no figures.
            tokens_used: if usage.is_empty() {
                fm.tokens_used
            } else {
                Some(crucible_core::lines_total(&usage))
            },
            phases: s.phases.len() as u64,
            counts: s.totals,
            resume_point: fm.resume_point.map(|p| p.to_string()),
            parent: fm.parent.as_ref().map(|p| p.as_str().to_owned()),
            project: fm.project().map(str::to_owned),
            usage,
            live,
            stamp,
        }
    }

    /// When the session started, in milliseconds (0 if the text cannot be read).
    pub fn started_ms(&self) -> i64 {
        Timestamp::parse_unix_ms(&self.started).unwrap_or(0)
    }

    /// Every agent of the session: participants, then other phase agents.
    pub fn all_agents(&self) -> impl Iterator<Item = &str> {
        self.participants
            .iter()
            .chain(&self.agents)
            .map(String::as_str)
    }

    /// Writes the row with every column of [`SESSION_FIELDS`] (the delta's
    /// form: small, and one row per path there).
    pub fn write_row(&self, out: &mut String) {
        let usage = crate::usage_cell::encode(&self.usage);
        self.write_cells(out, Some(usage_cell(&usage)));
    }

    /// Writes the base file's row (every column but `usage`, see
    /// [`BASE_SESSION_FIELDS`]) to `out`, and the usage file's row
    /// (`path,usage`, see [`USAGE_FIELDS`]) to `usage_out`: the usage cells
    /// are most of the bytes, and `list` never reads them.
    pub fn write_split_rows(&self, out: &mut String, usage_out: &mut String) {
        self.write_cells(out, None);
        let usage = crate::usage_cell::encode(&self.usage);
        toon::write_row(usage_out, &[Cell::Str(&self.path), usage_cell(&usage)]);
    }

    /// The row's cells, with the `usage` cell last when given.
    fn write_cells(&self, out: &mut String, usage: Option<Cell<'_>>) {
        let participants = join(&self.participants);
        let agents = join(&self.agents);
        let usage = usage.as_slice();
        toon::write_row_parts(
            out,
            &[
                &[
                    Cell::Str(&self.path),
                    Cell::Str(&self.id),
                    Cell::Str(self.status.as_str()),
                    Cell::Num(u64::from(self.live)),
                    Cell::Num(self.stamp.mtime_ns),
                    Cell::Num(self.stamp.ino),
                    Cell::Num(self.stamp.size),
                    Cell::Num(self.stamp.ctime_ns),
                    Cell::Str(&self.started),
                    self.ended.as_deref().into(),
                    self.duration_ms.into(),
                    self.title.as_deref().into(),
                    self.channel.as_deref().into(),
                    self.model.as_deref().into(),
                    participants.as_deref().into(),
                    agents.as_deref().into(),
                    self.tokens_used.into(),
                    Cell::Num(self.phases),
                ],
                &count_cells(&self.counts),
                &[
                    self.resume_point.as_deref().into(),
                    self.parent.as_deref().into(),
                    self.project.as_deref().into(),
                ],
                usage,
            ],
        );
    }

    /// Reads a row whose cells are in [`SESSION_FIELDS`] order (see [`Columns`]).
    pub fn from_cells(cells: &[&str]) -> Result<Self, String> {
        let &[
            path,
            id,
            status,
            live,
            mtime_ns,
            ino,
            size,
            ctime_ns,
            started,
            ended,
            duration_ms,
            title,
            channel,
            model,
            participants,
            agents,
            tokens_used,
            phases,
            tool_calls,
            failed,
            decisions,
            errors,
            users,
            subagents,
            resume_point,
            parent,
            project,
            usage,
        ] = cells
        else {
            return Err(wrong_width(SESSION_FIELDS, cells));
        };
        Ok(Self {
            path: confined(required(path, "path")?)?,
            id: required(id, "id")?,
            status: required(status, "status")?
                .parse()
                .map_err(|e| format!("{e}"))?,
            started: required(started, "started")?,
            ended: text(ended)?,
            duration_ms: toon::number(duration_ms)?,
            title: text(title)?,
            channel: text(channel)?,
            model: text(model)?,
            participants: split_list(toon::text(participants)?),
            agents: split_list(toon::text(agents)?),
            tokens_used: toon::number(tokens_used)?,
            phases: count(phases)?,
            counts: counts([tool_calls, failed, decisions, errors, users, subagents])?,
            resume_point: text(resume_point)?,
            parent: text(parent)?,
            project: text(project)?,
            usage: usage_lines(usage)?,
            live: count(live)? != 0,
            stamp: FileStamp::from_cells(ino, mtime_ns, size, ctime_ns)?,
        })
    }
}

/// A path from an index row, if it stays inside the sessions directory:
/// relative, `/`-separated, no `.` or `..` or empty component, nothing
/// hidden. The index is derived data anyone can edit; a row naming
/// `/dev/zero` or `../../secrets.md` makes the index corrupt (and rebuilt),
/// never a path cru reads.
pub fn confined<S: AsRef<str>>(path: S) -> Result<S, String> {
    let p = path.as_ref();
    // One pass over the bytes: every row of every query comes through here.
    let bytes = p.as_bytes();
    let mut bad = bytes.is_empty();
    let mut start = 0;
    for i in 0..=bytes.len() {
        if i < bytes.len() && bytes[i] != b'/' {
            bad |= bytes[i] == 0;
            continue;
        }
        let part = &bytes[start..i];
        bad |= part.is_empty() || part[0] == b'.';
        start = i + 1;
    }
    if bad {
        return Err(format!(
            "path `{}` is not a relative path inside the sessions directory",
            p.escape_debug()
        ));
    }
    Ok(path)
}

/// The usage cell of a row: null when there is no line.
fn usage_cell(encoded: &str) -> Cell<'_> {
    if encoded.is_empty() {
        Cell::Null
    } else {
        Cell::Str(encoded)
    }
}

/// The usage lines of a cell.
pub fn usage_lines(cell: &str) -> Result<Vec<UsageLine>, String> {
    crate::usage_cell::decode(toon::text(cell)?.as_deref().unwrap_or(""))
}

fn text(cell: &str) -> Result<Option<String>, String> {
    Ok(toon::text(cell)?.map(std::borrow::Cow::into_owned))
}

fn required(cell: &str, name: &str) -> Result<String, String> {
    text(cell)?.ok_or_else(|| format!("`{name}` is null"))
}

fn wrong_width(fields: &[&str], cells: &[&str]) -> String {
    format!("expected {} cells, found {}", fields.len(), cells.len())
}

/// The six count cells of a row, in `Counts` order.
fn count_cells(c: &Counts) -> [Cell<'static>; 6] {
    [
        Cell::Num(c.tool_calls),
        Cell::Num(c.failed_tool_calls),
        Cell::Num(c.decisions),
        Cell::Num(c.errors),
        Cell::Num(c.user_interventions),
        Cell::Num(c.subagents),
    ]
}

/// The six count cells, in `Counts` order.
fn counts(c: [&str; 6]) -> Result<Counts, String> {
    Ok(Counts {
        tool_calls: count(c[0])?,
        failed_tool_calls: count(c[1])?,
        decisions: count(c[2])?,
        errors: count(c[3])?,
        user_interventions: count(c[4])?,
        subagents: count(c[5])?,
    })
}

fn count(cell: &str) -> Result<u64, String> {
    Ok(toon::number(cell)?.unwrap_or(0))
}

/// A phase row's cells, borrowed from a record or a summary: the one place
/// the phases table's cell order is written.
struct PhaseRow<'a> {
    path: &'a str,
    phase: u64,
    name: &'a str,
    agent: Option<&'a str>,
    channel: Option<&'a str>,
    level: u64,
    started: Option<&'a str>,
    duration_ms: Option<u64>,
    tokens: Option<u64>,
    counts: &'a Counts,
    /// Already encoded ([`crate::usage_cell::encode`]).
    usage: &'a str,
}

impl PhaseRow<'_> {
    /// `path` is already a cell ([`toon::encode_cell`]).
    fn write(&self, out: &mut String) {
        toon::write_row_parts(
            out,
            &[
                &[
                    Cell::Encoded(self.path),
                    Cell::Num(self.phase),
                    Cell::Str(self.name),
                    self.agent.into(),
                    self.channel.into(),
                    Cell::Num(self.level),
                    self.started.into(),
                    self.duration_ms.into(),
                    self.tokens.into(),
                ],
                &count_cells(self.counts),
                &[usage_cell(self.usage)],
            ],
        );
    }
}

impl PhaseRecord {
    pub fn from_summary(path: &str, s: &SessionSummary) -> Vec<Self> {
        let mut usage = phase_usage(s);
        s.phases
            .iter()
            .enumerate()
            .map(|(i, p)| Self {
                path: path.to_owned(),
                phase: i as u64 + 1,
                name: p.name.clone(),
                agent: p.agent.as_ref().map(ToString::to_string),
                channel: p.channel.clone(),
                level: u64::from(p.level),
                started: p.started.as_ref().map(ToString::to_string),
                duration_ms: p.duration_ms,
                tokens: p.tokens,
                counts: p.counts,
                usage: std::mem::take(&mut usage[i]),
            })
            .collect()
    }

    /// The rows of `s`'s phases, written straight from the summary: what
    /// [`PhaseRecord::from_summary`] then [`PhaseRecord::write_row`] would
    /// write, without a record (five strings) per phase. Returns the count.
    pub fn write_summary_rows(path: &str, s: &SessionSummary, out: &mut String) -> usize {
        if s.phases.is_empty() {
            return 0;
        }
        // The path is on every row: checked and escaped once.
        let mut path_cell = String::with_capacity(path.len() + 2);
        toon::encode_cell(&mut path_cell, path);
        let mut agent = String::new();
        let usage = phase_usage(s);
        for (i, p) in s.phases.iter().enumerate() {
            let usage = crate::usage_cell::encode(&usage[i]);
            agent.clear();
            if let Some(a) = &p.agent {
                a.push_to(&mut agent);
            }
            PhaseRow {
                path: &path_cell,
                phase: i as u64 + 1,
                name: &p.name,
                agent: p.agent.is_some().then_some(agent.as_str()),
                channel: p.channel.as_deref(),
                level: u64::from(p.level),
                started: p.started.as_ref().map(Timestamp::as_str),
                duration_ms: p.duration_ms,
                tokens: p.tokens,
                counts: &p.counts,
                usage: &usage,
            }
            .write(out);
        }
        s.phases.len()
    }

    pub fn write_row(&self, out: &mut String) {
        let usage = crate::usage_cell::encode(&self.usage);
        let mut path = String::with_capacity(self.path.len() + 2);
        toon::encode_cell(&mut path, &self.path);
        PhaseRow {
            path: &path,
            phase: self.phase,
            name: &self.name,
            agent: self.agent.as_deref(),
            channel: self.channel.as_deref(),
            level: self.level,
            started: self.started.as_deref(),
            duration_ms: self.duration_ms,
            tokens: self.tokens,
            counts: &self.counts,
            usage: &usage,
        }
        .write(out);
    }

    /// Reads a row whose cells are in [`PHASE_FIELDS`] order.
    pub fn from_cells(cells: &[&str]) -> Result<Self, String> {
        let &[
            path,
            phase,
            name,
            agent,
            channel,
            level,
            started,
            duration_ms,
            tokens,
            tool_calls,
            failed,
            decisions,
            errors,
            users,
            subagents,
            usage,
        ] = cells
        else {
            return Err(wrong_width(PHASE_FIELDS, cells));
        };
        Ok(Self {
            path: required(path, "path")?,
            phase: count(phase)?,
            name: text(name)?.unwrap_or_default(),
            agent: text(agent)?,
            channel: text(channel)?,
            level: count(level)?,
            started: text(started)?,
            duration_ms: toon::number(duration_ms)?,
            tokens: toon::number(tokens)?,
            counts: counts([tool_calls, failed, decisions, errors, users, subagents])?,
            usage: usage_lines(usage)?,
        })
    }
}

/// Each phase's usage lines (by index), with the agent and channel left to
/// the phase row.
fn phase_usage(s: &SessionSummary) -> Vec<Vec<UsageLine>> {
    let mut by_phase = vec![Vec::new(); s.phases.len()];
    for mut line in s.usage_lines() {
        let Some(n) = line.phase.take() else { continue };
        line.agent = None;
        line.channel = None;
        if let Some(v) = (n as usize)
            .checked_sub(1)
            .and_then(|i| by_phase.get_mut(i))
        {
            v.push(line);
        }
    }
    by_phase
}

impl Problem {
    pub fn write_row(&self, out: &mut String) {
        toon::write_row(
            out,
            &[
                Cell::Str(&self.path),
                Cell::Num(self.line),
                Cell::Str(&self.message),
                Cell::Num(self.stamp.ino),
                Cell::Num(self.stamp.mtime_ns),
                Cell::Num(self.stamp.size),
                Cell::Num(self.stamp.ctime_ns),
            ],
        );
    }

    /// Reads a row whose cells are in [`PROBLEM_FIELDS`] order.
    pub fn from_cells(cells: &[&str]) -> Result<Self, String> {
        let &[path, line, message, ino, mtime_ns, size, ctime_ns] = cells else {
            return Err(format!(
                "expected {} cells, found {}",
                PROBLEM_FIELDS.len(),
                cells.len()
            ));
        };
        Ok(Self {
            path: confined(required(path, "path")?)?,
            line: count(line)?,
            message: text(message)?.unwrap_or_default(),
            stamp: FileStamp::from_cells(ino, mtime_ns, size, ctime_ns)?,
        })
    }
}

/// Where each known field is in a table's rows. Files written by another
/// version, or by toon-format, may order columns differently or lack some;
/// rows are put into the known order, `null` where a column is missing.
#[derive(Debug)]
pub struct Columns {
    /// `None` when the table's fields are exactly the known ones, in order.
    positions: Option<Vec<Option<usize>>>,
}

impl Columns {
    pub fn new(table: &toon::Table<'_>, known: &[&str]) -> Self {
        let same = table.fields.len() == known.len()
            && table.fields.iter().zip(known).all(|(a, b)| a == b);
        Self {
            positions: (!same).then(|| known.iter().map(|k| table.column(k)).collect()),
        }
    }

    /// Cells taken in the order they come.
    pub fn identity() -> Self {
        Self { positions: None }
    }

    /// True when the table's columns are the known ones, in order.
    pub fn is_identity(&self) -> bool {
        self.positions.is_none()
    }

    /// The cells of a row in the known order.
    pub fn order<'a>(&self, cells: &[&'a str], out: &mut Vec<&'a str>) {
        out.clear();
        match &self.positions {
            None => out.extend_from_slice(cells),
            Some(pos) => out.extend(
                pos.iter()
                    .map(|p| p.and_then(|p| cells.get(p).copied()).unwrap_or("null")),
            ),
        }
    }
}

/// The fields queries look at, borrowed from a row or a record: filtering
/// and aggregating 100,000 rows this way allocates almost nothing.
#[derive(Debug, Clone)]
pub struct Facts<'a> {
    pub path: std::borrow::Cow<'a, str>,
    pub id: std::borrow::Cow<'a, str>,
    pub status: SessionStatus,
    pub started: std::borrow::Cow<'a, str>,
    pub channel: Option<std::borrow::Cow<'a, str>>,
    pub model: Option<std::borrow::Cow<'a, str>>,
    pub participants: Option<std::borrow::Cow<'a, str>>,
    pub agents: Option<std::borrow::Cow<'a, str>>,
    pub tokens_used: Option<u64>,
    pub duration_ms: Option<u64>,
    pub errors: u64,
    pub user_interventions: u64,
    pub project: Option<std::borrow::Cow<'a, str>>,
    /// The usage cell, decoded only by the queries that need it
    /// ([`Facts::usage`]).
    pub usage: UsageCell<'a>,
}

/// A row's usage lines: the cell as read, or a record's lines.
#[derive(Debug, Clone)]
pub enum UsageCell<'a> {
    Cell(&'a str),
    Lines(&'a [UsageLine]),
    /// The query said it reads no usage (`SessionIndex::without_usage`):
    /// the usage file was not read, and asking is an error, not zero.
    NotRead,
}

impl<'a> Facts<'a> {
    /// From cells in [`SESSION_FIELDS`] order.
    pub fn from_cells(c: &[&'a str]) -> Result<Self, String> {
        if c.len() != SESSION_FIELDS.len() {
            return Err(format!(
                "expected {} cells, found {}",
                SESSION_FIELDS.len(),
                c.len()
            ));
        }
        let named = Self::named(c[0], c[1], c[2], c[USAGE_COLUMN])?;
        Ok(Self {
            started: toon::text(c[8])?.ok_or("`started` is null")?,
            channel: toon::text(c[12])?,
            model: toon::text(c[13])?,
            participants: toon::text(c[14])?,
            agents: toon::text(c[15])?,
            tokens_used: toon::number(c[16])?,
            duration_ms: toon::number(c[10])?,
            errors: count(c[21])?,
            user_interventions: count(c[22])?,
            project: toon::text(c[26])?,
            ..named
        })
    }

    /// From the first [`SESSION_PREFIX`] cells and the usage cell (a scan
    /// for [`crate::SessionIndex::ids_only`]): path, id and status; every
    /// other field empty.
    pub fn from_prefix(c: &[&'a str]) -> Result<Self, String> {
        let [path, id, status, .., usage] = c else {
            return Err(format!(
                "expected {} cells, found {}",
                SESSION_PREFIX + 1,
                c.len()
            ));
        };
        Self::named(path, id, status, usage)
    }

    /// A row's path, id, status and usage cell read; every other field
    /// empty (what [`Facts::from_prefix`] gives, and where
    /// [`Facts::from_cells`] starts).
    fn named(path: &'a str, id: &'a str, status: &'a str, usage: &'a str) -> Result<Self, String> {
        Ok(Self {
            path: confined(toon::text(path)?.ok_or("`path` is null")?)?,
            id: toon::text(id)?.ok_or("`id` is null")?,
            status: toon::text(status)?
                .ok_or("`status` is null")?
                .parse()
                .map_err(|e| format!("{e}"))?,
            started: std::borrow::Cow::Borrowed(""),
            channel: None,
            model: None,
            participants: None,
            agents: None,
            tokens_used: None,
            duration_ms: None,
            errors: 0,
            user_interventions: 0,
            project: None,
            usage: UsageCell::Cell(usage),
        })
    }

    pub fn of(r: &'a SessionRecord) -> Self {
        use std::borrow::Cow::Borrowed;
        let list = |v: &[String]| (!v.is_empty()).then(|| std::borrow::Cow::Owned(v.join(" ")));
        Self {
            path: Borrowed(&r.path),
            id: Borrowed(&r.id),
            status: r.status,
            started: Borrowed(&r.started),
            channel: r.channel.as_deref().map(Borrowed),
            model: r.model.as_deref().map(Borrowed),
            participants: list(&r.participants),
            agents: list(&r.agents),
            tokens_used: r.tokens_used,
            duration_ms: r.duration_ms,
            errors: r.counts.errors,
            user_interventions: r.counts.user_interventions,
            project: r.project.as_deref().map(Borrowed),
            usage: UsageCell::Lines(&r.usage),
        }
    }

    /// The session's usage lines (a cell is decoded here).
    pub fn usage(&self) -> Result<std::borrow::Cow<'a, [UsageLine]>, String> {
        match self.usage {
            UsageCell::Cell(c) => usage_lines(c).map(std::borrow::Cow::Owned),
            UsageCell::Lines(l) => Ok(std::borrow::Cow::Borrowed(l)),
            UsageCell::NotRead => Err("usage not read: the query said it reads none".into()),
        }
    }

    /// Every agent: participants, then other phase agents.
    pub fn all_agents(&self) -> impl Iterator<Item = &str> {
        // Written joined by single spaces (names hold none).
        self.participants
            .iter()
            .chain(self.agents.iter())
            .flat_map(|s| s.split(' '))
            .filter(|a| !a.is_empty())
    }

    pub fn started_ms(&self) -> i64 {
        Timestamp::parse_unix_ms(&self.started).unwrap_or(0)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fixture with several phases, summarized as if it lay at `path`.
    pub(crate) fn sample_summary(path: &str) -> crucible_core::SessionSummary {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/sessions/feature-implementation-session.md"
        ))
        .unwrap();
        crucible_parser::summarize(std::path::Path::new(path), &text).expect("fixture parses")
    }

    #[test]
    fn phase_rows_from_a_summary_are_the_records_rows() {
        let path = "2025-11/sample.md";
        let summary = sample_summary(path);
        assert!(summary.phases.len() > 1);
        let mut direct = String::new();
        let n = PhaseRecord::write_summary_rows(path, &summary, &mut direct);
        let mut via_records = String::new();
        for r in PhaseRecord::from_summary(path, &summary) {
            r.write_row(&mut via_records);
        }
        assert_eq!(n, summary.phases.len());
        assert_eq!(direct, via_records);
    }
}

#[cfg(test)]
mod confined_tests {
    use super::confined;

    #[test]
    fn only_relative_paths_inside_pass() {
        for ok in ["a.md", "2025-11/a.md", "x/y/z.md", "a..b.md", "é/ü.md"] {
            assert!(confined(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/a.md",
            "../a.md",
            "a/../b.md",
            "./a.md",
            "a//b.md",
            "a/",
            ".hidden.md",
            "x/.git/a.md",
            "a\0.md",
            "/dev/zero",
        ] {
            assert!(confined(bad).is_err(), "{bad:?}");
        }
    }
}
