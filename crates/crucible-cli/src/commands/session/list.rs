//! `cru session list [filters] [--limit N] [--format table|json|toon]`.

use std::io::{IsTerminal, Write};

use clap::Args;
use crucible_index::{SessionRecord, query};

use super::query::{DataFormat, FilterArgs, visit_index};
use crate::context::Context;
use crate::error::Outcome;
use crate::render::{self, Align, push_padded, table_cell};

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
        DataFormat::Json => render::print_json(&answer_rows(&rows))?,
        DataFormat::Toon => {
            render::print_toon(&serde_json::json!({ "sessions": answer_rows(&rows) }))?;
        }
        DataFormat::Table => {
            let mut out = anstream::stdout().lock();
            table(&mut out, &rows)?;
            out.flush()?;
        }
    }
    Ok(Outcome::Success)
}

/// The rows as the answer gives them: what the sessions say, without the
/// index's own file stamps (inode, size, times), which say how a row was
/// proved fresh and change with every copy of the directory.
fn answer_rows(rows: &[SessionRecord]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                for stamp in ["ino", "mtime_ns", "size", "ctime_ns"] {
                    o.remove(stamp);
                }
            }
            v
        })
        .collect()
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
