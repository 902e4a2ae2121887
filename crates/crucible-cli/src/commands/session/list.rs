//! `cru session list [filters] [--limit N] [--format table|json|toon]`.

use std::io::{IsTerminal, Write};

use clap::Args;
use crucible_index::{DuplicateIds, SessionRecord, query};

use super::query::{DataFormat, FilterArgs, visit_index, warn_duplicates};
use crate::context::Context;
use crate::error::Outcome;
use crate::render::output::list::{ListAnswer, SessionRow};
use crate::render::output::{self, DuplicateId, SkippedFile};
use crate::render::{Align, push_padded, table_cell};

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

/// What each thread of the visit gathers: the matching rows and their ids
/// (an id two listed rows share is warned of), and how many sessions were
/// read.
#[derive(Default)]
struct Found {
    rows: Vec<SessionRecord>,
    ids: DuplicateIds,
    sessions: usize,
}

pub fn run(ctx: &Context, args: &ListArgs) -> anyhow::Result<Outcome> {
    let filter = args.filters.filter()?;
    let visited = visit_index(
        ctx,
        &filter,
        &Found::default,
        &|found: &mut Found, facts, decode| {
            found.sessions += 1;
            if filter.matches(facts)
                && let Ok(r) = decode()
            {
                found.ids.add(&r.id, &r.path);
                found.rows.push(r);
            }
        },
    )?;
    let mut all = Found::default();
    for f in visited.states {
        all.rows.extend(f.rows);
        all.ids.merge(f.ids);
        all.sessions += f.sessions;
    }
    let duplicates = all.ids.finish();
    warn_duplicates(ctx, &duplicates)?;
    let rows = query::sort_newest_first(all.rows, args.limit);
    let answer = || ListAnswer {
        sessions: rows.iter().map(SessionRow::from).collect(),
        skipped: visited.skipped.iter().map(SkippedFile::from).collect(),
        duplicates: duplicates.iter().cloned().map(DuplicateId::from).collect(),
    };
    match args.format {
        DataFormat::Json => output::print_json(&answer())?,
        DataFormat::Toon => output::print_toon(&answer())?,
        DataFormat::Table => {
            let mut out = anstream::stdout().lock();
            table(&mut out, &rows)?;
            out.flush()?;
        }
    }
    Ok(Outcome::from_files(all.sessions, visited.skipped.len()))
}

fn table(out: &mut impl Write, rows: &[SessionRecord]) -> std::io::Result<()> {
    let width = terminal_size::terminal_size().map(|(w, _)| usize::from(w.0));
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|r| {
            [
                table_cell(&r.id),
                r.status.as_str().to_owned(),
                table_cell(&r.started),
                table_cell(&r.participants.join(", ")),
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
    let columns = |c: [&str; 4]| {
        let mut line = String::new();
        for (i, (cell, width)) in c.iter().zip(w).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            push_padded(&mut line, cell, width, Align::Left);
        }
        line
    };
    let mut head = columns(["id", "status", "started", "participants"]);
    if title_room >= 10 {
        head.push_str("  title");
    }
    writeln!(out, "{bold}{}{bold:#}", head.trim_end())?;
    for (r, c) in rows.iter().zip(&cells) {
        let mut line = columns([&c[0], &c[1], &c[2], &c[3]]);
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
