//! `cru session list [filters] [--limit N] [--format table|json|toon]`.

use std::io::{IsTerminal, Write};

use clap::{Args, ValueEnum};
use crucible_core::SessionStatus;
use crucible_index::{Filter, SessionIndex, SessionRecord, query};

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::{self, progress};

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
    /// Only sessions started on or after this date or time.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only sessions started on or before this date (or before this time).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
}

fn parse_status(s: &str) -> Result<SessionStatus, String> {
    s.parse().map_err(|e| format!("{e}"))
}

impl FilterArgs {
    pub fn filter(&self) -> Result<Filter, CliError> {
        let bound = |v: &Option<String>, end: bool, flag: &str| {
            v.as_deref()
                .map(|s| {
                    query::parse_bound(s, end).map_err(|e| CliError::new(format!("--{flag}: {e}")))
                })
                .transpose()
        };
        Ok(Filter {
            status: self.status,
            agent: self.agent.clone(),
            channel: self.channel.clone(),
            model: self.model.clone(),
            since_ms: bound(&self.since, false, "since")?,
            until_ms: bound(&self.until, true, "until")?,
        })
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filters: FilterArgs,
    /// At most this many sessions (the newest).
    #[arg(long)]
    pub limit: Option<usize>,
    #[arg(long, value_enum, default_value_t = DataFormat::Table)]
    pub format: DataFormat,
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

/// Visits every session of the index on all cores (see
/// `SessionIndex::visit`), then prints what the user should know (one line
/// each) on stderr. Returns each thread's state.
pub fn visit_index<S: Send>(
    ctx: &Context,
    filter: &Filter,
    init: &(dyn Fn() -> S + Sync),
    each: &(dyn Fn(&mut S, &crucible_index::Facts<'_>, &crucible_index::Decode<'_>) + Sync),
) -> anyhow::Result<Vec<S>> {
    let bar = progress::bar("indexing sessions");
    let (opened, states) = SessionIndex::new(&ctx.store)
        .visit(
            Some(ctx.config.session.idle_timeout),
            filter,
            &|done, total| progress::update(&bar, done, total),
            init,
            each,
        )
        .map_err(|e| CliError::new(e.to_string()))?;
    progress::finish(&bar);
    report(ctx, &opened)?;
    Ok(states)
}

/// Opens the index with every record, printing what `visit_index` prints.
pub fn open_index(ctx: &Context) -> anyhow::Result<crucible_index::Opened> {
    let bar = progress::bar("indexing sessions");
    let opened = SessionIndex::new(&ctx.store)
        .open(Some(ctx.config.session.idle_timeout), &|done, total| {
            progress::update(&bar, done, total)
        })
        .map_err(|e| CliError::new(e.to_string()))?;
    progress::finish(&bar);
    report(ctx, &opened)?;
    Ok(opened)
}

/// Index warnings, idle sessions paused, unreadable files: one line each.
pub fn report(ctx: &Context, opened: &crucible_index::Opened) -> std::io::Result<()> {
    let mut err = anstream::stderr();
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
    if !opened.index.problems.is_empty() {
        writeln!(
            err,
            "warning: {} session file(s) could not be read; `cru session index --check` lists them",
            opened.index.problems.len()
        )?;
    }
    Ok(())
}

pub fn run(ctx: &Context, args: &ListArgs) -> anyhow::Result<Outcome> {
    let filter = args.filters.filter()?;
    let states = visit_index(
        ctx,
        &filter,
        &Vec::new,
        &|found: &mut Vec<SessionRecord>, facts, decode| {
            if filter.matches(facts)
                && let Ok(r) = decode()
            {
                found.push(r);
            }
        },
    )?;
    let matching = states.into_iter().flatten().collect();
    let rows = query::sort_newest_first(matching, args.limit);
    match args.format {
        DataFormat::Json => render::print_json(&rows)?,
        DataFormat::Toon => render::print_toon(&serde_json::json!({ "sessions": rows }))?,
        DataFormat::Table => {
            let mut out = anstream::stdout().lock();
            table(&mut out, &rows)?;
            out.flush()?;
        }
    }
    Ok(Outcome::Success)
}

fn table(out: &mut impl Write, rows: &[SessionRecord]) -> std::io::Result<()> {
    let width = terminal_size::terminal_size().map(|(w, _)| usize::from(w.0));
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|r| {
            [
                r.id.clone(),
                r.status.as_str().to_owned(),
                r.started.clone(),
                r.participants.join(", "),
            ]
        })
        .collect();
    let mut w = [2, 6, 7, 12];
    for c in &cells {
        for (i, cell) in c.iter().enumerate() {
            w[i] = w[i].max(cell.chars().count());
        }
    }
    let used: usize = w.iter().sum::<usize>() + 8;
    // The title only when a terminal is wide enough for it to be useful.
    let title_room = width
        .filter(|_| std::io::stdout().is_terminal())
        .map_or(0, |w| w.saturating_sub(used + 2));
    let bold = anstyle::Style::new().bold();
    let mut head = format!(
        "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}",
        "id",
        "status",
        "started",
        "participants",
        w0 = w[0],
        w1 = w[1],
        w2 = w[2],
        w3 = w[3]
    );
    if title_room >= 10 {
        head.push_str("  title");
    }
    writeln!(out, "{bold}{}{bold:#}", head.trim_end())?;
    for (r, c) in rows.iter().zip(&cells) {
        let mut line = format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}",
            c[0],
            c[1],
            c[2],
            c[3],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3]
        );
        if title_room >= 10 {
            let title: String = r
                .title
                .as_deref()
                .unwrap_or("")
                .chars()
                .take(title_room)
                .collect();
            line.push_str("  ");
            line.push_str(&title);
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
