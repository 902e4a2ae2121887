//! `cru session stats [--group-by agent|channel|status|model|day|phase] [filters]`.

use std::io::Write;

use clap::{Args, ValueEnum};
use crucible_index::{GroupBy, SessionIndex, StatsRow};

use super::query::{DataFormat, FilterArgs, visit_index};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::{self, Align, duration, progress, push_padded, table_cell, thousands};

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// What to group sessions by.
    #[arg(long, value_enum, default_value_t = Group::Agent)]
    pub group_by: Group,
    #[command(flatten)]
    pub filters: FilterArgs,
    #[arg(long, value_enum, default_value_t = DataFormat::Table)]
    pub format: DataFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Group {
    /// Each agent by name (participants and phase agents); a session counts for each.
    Agent,
    Channel,
    Status,
    Model,
    /// The UTC day a session started.
    Day,
    /// Phases by name, with the phases' own tokens, durations and errors.
    Phase,
}

pub fn run(ctx: &Context, args: &StatsArgs) -> anyhow::Result<Outcome> {
    let filter = args.filters.filter()?;
    let by = match args.group_by {
        Group::Agent => GroupBy::Agent,
        Group::Channel => GroupBy::Channel,
        Group::Status => GroupBy::Status,
        Group::Model => GroupBy::Model,
        Group::Day => GroupBy::Day,
        Group::Phase => GroupBy::Phase,
    };
    let phases = if by == GroupBy::Phase {
        let bar = progress::bar("indexing sessions");
        let p = SessionIndex::new(&ctx.store)
            .phases(&|d, t| progress::update(&bar, d, t))
            .map_err(|e| CliError::new(e.to_string()))?;
        progress::finish(&bar);
        p
    } else {
        Vec::new()
    };
    let states = visit_index(
        ctx,
        &filter,
        &|| crucible_index::stats::Aggregator::new(by),
        &|agg: &mut crucible_index::stats::Aggregator, facts, _| {
            if filter.matches(facts) {
                agg.add(facts);
            }
        },
    )?;
    let mut agg = crucible_index::stats::Aggregator::new(by);
    for s in states {
        agg.merge(s);
    }
    let (rows, total) = agg.finish(&phases);
    match args.format {
        DataFormat::Json => {
            render::print_json(&serde_json::json!({"groups": rows, "total": total}))?
        }
        DataFormat::Toon => {
            render::print_toon(&serde_json::json!({"groups": rows, "total": [total]}))?
        }
        DataFormat::Table => {
            let mut out = anstream::stdout().lock();
            table(&mut out, &rows, &total)?;
            out.flush()?;
        }
    }
    Ok(Outcome::Success)
}

fn cells(r: &StatsRow) -> [String; 9] {
    let d = |v: Option<u64>| {
        v.map_or_else(
            || "-".to_owned(),
            |ms| duration(i64::try_from(ms).unwrap_or(i64::MAX)),
        )
    };
    [
        table_cell(&r.group),
        thousands(r.sessions),
        thousands(r.tokens),
        d(r.avg_duration_ms),
        d(r.min_duration_ms),
        d(r.max_duration_ms),
        r.failure_rate
            .map_or_else(|| "-".to_owned(), |f| format!("{:.1}%", f * 100.0)),
        thousands(r.errors),
        thousands(r.user_interventions),
    ]
}

fn table(out: &mut impl Write, rows: &[StatsRow], total: &StatsRow) -> std::io::Result<()> {
    let head = [
        "group", "sessions", "tokens", "avg", "min", "max", "failed", "errors", "user",
    ];
    let mut all: Vec<[String; 9]> = rows.iter().map(cells).collect();
    all.push(cells(total));
    let mut w = head.map(str::len);
    for r in &all {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |c: &[String]| {
        let mut s = String::new();
        push_padded(&mut s, &c[0], w[0], Align::Left);
        for (cell, &width) in c.iter().zip(&w).skip(1) {
            s.push_str("  ");
            push_padded(&mut s, cell, width, Align::Right);
        }
        s
    };
    let bold = anstyle::Style::new().bold();
    writeln!(out, "{bold}{}{bold:#}", line(&head.map(str::to_owned)))?;
    for (i, r) in all.iter().enumerate() {
        if i + 1 == all.len() {
            writeln!(out, "{bold}{}{bold:#}", line(r))?;
        } else {
            writeln!(out, "{}", line(r))?;
        }
    }
    Ok(())
}
