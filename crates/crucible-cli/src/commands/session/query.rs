//! What the data commands (`list`, `stats`, `index`) share: the filters,
//! the output formats, and reading the index with its notices on stderr.

use std::io::Write;

use clap::{Args, ValueEnum};
use crucible_core::SessionStatus;
use crucible_index::{Decode, DuplicateIds, Facts, Filter, SessionIndex, query};

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::progress;

/// The filters `list`, `stats` (and later `learn`) share.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Only sessions with this status.
    #[arg(long, value_parser = parse_status)]
    pub status: Option<SessionStatus>,
    /// Only sessions where this agent took part (name or name@version).
    #[arg(long)]
    pub agent: Option<String>,
    /// Only sessions in this channel.
    #[arg(long)]
    pub channel: Option<String>,
    /// Only sessions with this primary model.
    #[arg(long)]
    pub model: Option<String>,
    /// Only sessions started on or after this date or time (a timestamp,
    /// YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days
    /// are UTC).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only sessions started on or before this date (or before this time);
    /// the same forms as --since.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Only sessions whose project (the git root of their working
    /// directory, else the directory) is DIR or below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<std::path::PathBuf>,
}

fn parse_status(s: &str) -> Result<SessionStatus, String> {
    s.parse().map_err(|e| format!("{e}"))
}

impl FilterArgs {
    pub fn filter(&self) -> Result<Filter, CliError> {
        let bound = |v: &Option<String>, end: bool, flag: &str| {
            v.as_deref()
                .map(|s| parse_bound(s, end).map_err(|e| CliError::usage(format!("--{flag}: {e}"))))
                .transpose()
        };
        Ok(Filter {
            status: self.status,
            agent: self.agent.clone(),
            channel: self.channel.clone(),
            model: self.model.clone(),
            since_ms: bound(&self.since, false, "since")?,
            until_ms: bound(&self.until, true, "until")?,
            project: self.project_dir()?,
        })
    }

    /// `--project` as an absolute path (a relative one is taken from the
    /// working directory), resolved through links when it exists here, as
    /// sessions record their project (`crucible_core::project::project_of`).
    pub fn project_dir(&self) -> Result<Option<String>, CliError> {
        let Some(dir) = &self.project else {
            return Ok(None);
        };
        let abs = std::path::absolute(dir)
            .map_err(|e| CliError::usage(format!("--project {}: {e}", dir.display())))?;
        let real = std::fs::canonicalize(&abs).unwrap_or(abs);
        Ok(Some(real.to_string_lossy().into_owned()))
    }
}

/// A `--since`/`--until` value: a timestamp or date as the session format
/// writes them, else one of the forms `cru usage` takes (`YYYYMMDD`, `7d`,
/// `2w`, `3m`), read as that UTC day, as a date in a session file is.
pub(crate) fn parse_bound(s: &str, end_of_day: bool) -> Result<i64, String> {
    query::parse_bound(s, end_of_day).or_else(|iso_error| {
        let day = crucible_usage::report::parse_date_bound(
            s,
            jiff::Timestamp::now(),
            &jiff::tz::TimeZone::UTC,
        )
        .map_err(|e| match e {
            // A value that looks like a timestamp gets the timestamp's error.
            _ if s.contains(['-', ':']) => iso_error,
            crucible_usage::report::DateBoundError::Unrecognised { .. } => format!(
                "`{s}` is not a date or time: expected a timestamp (YYYY-MM-DDTHH:MM[:SS] with \
                 Z or an offset), YYYY-MM-DD, YYYYMMDD, or a span back from today such as \
                 7d, 2w or 3m"
            ),
            _ => e.to_string(),
        })?;
        query::parse_bound(&day.to_string(), end_of_day)
    })
}

/// How data commands print.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DataFormat {
    /// Aligned columns for people.
    Table,
    Json,
    /// TOON, the index's own format.
    Toon,
}

/// What a visit of the index found besides each thread's state: the
/// files it could not read (each named on stderr already).
pub struct Visited<S> {
    pub states: Vec<S>,
    pub skipped: Vec<crucible_index::Problem>,
}

/// The threads' states, for callers that need nothing else.
impl<S> IntoIterator for Visited<S> {
    type Item = S;
    type IntoIter = std::vec::IntoIter<S>;

    fn into_iter(self) -> Self::IntoIter {
        self.states.into_iter()
    }
}

/// Whether a visit reads the sessions' usage cells ([`Facts::usage`]):
/// they are most of the index, and only the token and cost views need them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageCells {
    Read,
    /// `Facts::usage` is then an error, and decoded records have no usage.
    Skip,
}

/// Visits every session of the index on all cores (see
/// `SessionIndex::visit`), then prints what the user should know (one line
/// each) on stderr. Reads no usage cells (see [`visit_index_reading`]).
pub fn visit_index<S: Send>(
    ctx: &Context,
    filter: &Filter,
    init: &(dyn Fn() -> S + Sync),
    each: &(dyn Fn(&mut S, &crucible_index::Facts<'_>, &crucible_index::Decode<'_>) + Sync),
) -> anyhow::Result<Visited<S>> {
    visit_index_reading(ctx, UsageCells::Skip, filter, init, each)
}

/// [`visit_index`], reading the usage cells or not.
pub fn visit_index_reading<S: Send>(
    ctx: &Context,
    usage: UsageCells,
    filter: &Filter,
    init: &(dyn Fn() -> S + Sync),
    each: &(dyn Fn(&mut S, &crucible_index::Facts<'_>, &crucible_index::Decode<'_>) + Sync),
) -> anyhow::Result<Visited<S>> {
    let bar = progress::bar("indexing sessions");
    let index = match usage {
        UsageCells::Read => SessionIndex::new(&ctx.store),
        UsageCells::Skip => SessionIndex::new(&ctx.store).without_usage(),
    };
    let (opened, states) = index
        .visit(
            // Reading never changes a session: idle sessions are paused by
            // `cru session pause --idle`, not as a side effect of a listing.
            None,
            filter,
            &|done, total| progress::update(&bar, done, total),
            init,
            each,
        )
        .map_err(|e| CliError::new(e.to_string()))?;
    progress::finish(&bar);
    report(ctx, &opened)?;
    Ok(Visited {
        states,
        skipped: opened.index.problems,
    })
}

/// What [`tally_index`] found: the threads' tallies merged into one, the
/// ids more than one tallied file declares (warned of on stderr already),
/// the files that could not be read, and the command's outcome (how many
/// sessions were read, how many skipped).
pub struct Tallied<T> {
    pub tally: T,
    pub duplicates: Vec<crucible_index::Duplicate>,
    pub skipped: Vec<crucible_index::Problem>,
    pub outcome: Outcome,
}

/// One thread's share of a [`tally_index`].
struct Share<T> {
    tally: T,
    ids: DuplicateIds,
    sessions: usize,
}

/// Visits every session of the index (see [`visit_index`]) and tallies
/// those `filter` matches: `add` takes one into a thread's tally and says
/// whether it did (a row that cannot be decoded is not listed); the ids of
/// those it took are checked for duplicates, and the threads' tallies are
/// merged with `merge`. What `list` and `stats` share. Reads no usage
/// cells (see [`tally_index_reading`]).
pub fn tally_index<T: Send>(
    ctx: &Context,
    filter: &Filter,
    init: &(dyn Fn() -> T + Sync),
    add: &(dyn Fn(&mut T, &Facts<'_>, &Decode<'_>) -> bool + Sync),
    merge: impl FnMut(&mut T, T),
) -> anyhow::Result<Tallied<T>> {
    tally_index_reading(ctx, UsageCells::Skip, filter, init, add, merge)
}

/// Every session `filter` takes, as the index's records (in no order),
/// with what the reading skipped.
pub fn records(
    ctx: &Context,
    filter: &Filter,
) -> anyhow::Result<Tallied<Vec<crucible_index::SessionRecord>>> {
    // Gathered in blocks of a fixed size, then moved once into one vector
    // of the right size: a vector grown a record at a time copied each
    // record about twice more, on fresh pages, which was a third of `cru
    // site`'s second run at 100,000 sessions.
    const BLOCK: usize = 4096;
    type Blocks = Vec<Vec<crucible_index::SessionRecord>>;
    let found = tally_index(
        ctx,
        filter,
        &Blocks::new,
        &|blocks: &mut Blocks, _, decode| {
            let Ok(record) = decode() else {
                return false;
            };
            match blocks.last_mut() {
                Some(block) if block.len() < BLOCK => block.push(record),
                _ => {
                    let mut block = Vec::with_capacity(BLOCK);
                    block.push(record);
                    blocks.push(block);
                }
            }
            true
        },
        Vec::extend,
    )?;
    let mut records = Vec::with_capacity(found.tally.iter().map(Vec::len).sum());
    for block in found.tally {
        records.extend(block);
    }
    Ok(Tallied {
        tally: records,
        duplicates: found.duplicates,
        skipped: found.skipped,
        outcome: found.outcome,
    })
}

/// A session's agents on one line: its participants, then the agents of
/// phases that are not among them.
pub fn agents_of(r: &crucible_index::SessionRecord) -> String {
    r.participants
        .iter()
        .chain(&r.agents)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// [`tally_index`], reading the usage cells or not.
pub fn tally_index_reading<T: Send>(
    ctx: &Context,
    usage: UsageCells,
    filter: &Filter,
    init: &(dyn Fn() -> T + Sync),
    add: &(dyn Fn(&mut T, &Facts<'_>, &Decode<'_>) -> bool + Sync),
    mut merge: impl FnMut(&mut T, T),
) -> anyhow::Result<Tallied<T>> {
    let visited = visit_index_reading(
        ctx,
        usage,
        filter,
        &|| Share {
            tally: init(),
            ids: DuplicateIds::default(),
            sessions: 0,
        },
        &|share: &mut Share<T>, facts, decode| {
            share.sessions += 1;
            if filter.matches(facts) && add(&mut share.tally, facts, decode) {
                share.ids.add(&facts.id, &facts.path);
            }
        },
    )?;
    let mut tally = init();
    let mut ids = DuplicateIds::default();
    let mut sessions = 0;
    for share in visited.states {
        merge(&mut tally, share.tally);
        ids.merge(share.ids);
        sessions += share.sessions;
    }
    let duplicates = ids.finish();
    warn_duplicates(ctx, &duplicates)?;
    Ok(Tallied {
        tally,
        duplicates,
        outcome: Outcome::from_files(sessions, visited.skipped.len()),
        skipped: visited.skipped,
    })
}

/// A session as a batch command first needs it: its id and its file
/// (relative to the sessions directory).
pub struct SessionRow {
    pub id: String,
    pub path: String,
}

/// The sessions `filter` takes, oldest first (ties by id, then path): the
/// order batch commands (learn, export) go through them in; and how many
/// files the index could not read. From a visit of the index that decodes
/// no usage cell (a whole open did, a fifth of a second at 10,000
/// sessions, for a batch command that reads each file anyway).
pub fn oldest_first_rows(
    ctx: &Context,
    filter: &crucible_index::Filter,
) -> anyhow::Result<(Vec<SessionRow>, usize)> {
    // The rows are only pre-screened by the filter: each is asked.
    let visited = visit_index(ctx, filter, &Vec::new, &|rows, facts, _| {
        if filter.matches(facts) {
            rows.push((
                facts.started_ms(),
                facts.id.to_string(),
                facts.path.to_string(),
            ));
        }
    })?;
    let skipped = visited.skipped.len();
    let mut rows: Vec<(i64, String, String)> = visited.into_iter().flatten().collect();
    rows.sort_unstable();
    let rows = rows
        .into_iter()
        .map(|(_, id, path)| SessionRow { id, path })
        .collect();
    Ok((rows, skipped))
}

/// Opens the index with every record, printing what `visit_index` prints.
pub fn open_index(ctx: &Context) -> anyhow::Result<crucible_index::Opened> {
    let bar = progress::bar("indexing sessions");
    let opened = SessionIndex::new(&ctx.store)
        .open(None, &|done, total| progress::update(&bar, done, total))
        .map_err(|e| CliError::new(e.to_string()))?;
    progress::finish(&bar);
    report(ctx, &opened)?;
    Ok(opened)
}

/// Index warnings, idle sessions paused, files skipped (each by its path):
/// one line each.
pub fn report(ctx: &Context, opened: &crucible_index::Opened) -> std::io::Result<()> {
    let mut err = crate::render::held::stderr();
    for w in &opened.warnings {
        writeln!(err, "{w}")?;
    }
    for id in &opened.paused {
        writeln!(
            err,
            "paused {id}: idle longer than {}s",
            ctx.config.session.idle_timeout.as_secs()
        )?;
    }
    for p in &opened.index.problems {
        let path = ctx.store.dir().join(&p.path);
        let line = if p.line > 0 {
            format!(":{}", p.line)
        } else {
            String::new()
        };
        writeln!(
            err,
            "warning: skipped {}{line}: {}",
            path.display(),
            p.message
        )?;
    }
    if !opened.index.problems.is_empty() {
        writeln!(
            err,
            "warning: {} session file(s) could not be read and were skipped",
            opened.index.problems.len()
        )?;
    }
    Ok(())
}

/// Warns of every id declared by more than one file, naming the files:
/// the rows are all shown, but `show ID` and the rest refuse such an id.
pub fn warn_duplicates(ctx: &Context, dups: &[crucible_index::Duplicate]) -> std::io::Result<()> {
    let mut err = crate::render::held::stderr();
    for d in dups {
        let paths: Vec<String> = d
            .paths
            .iter()
            .map(|p| ctx.store.dir().join(p).display().to_string())
            .collect();
        writeln!(
            err,
            "warning: session id `{}` is used by {} files: {}; commands given this id refuse it (pass a path)",
            d.id,
            paths.len(),
            paths.join(", ")
        )?;
    }
    Ok(())
}
