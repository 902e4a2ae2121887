//! `cru session stats [--group-by agent|channel|status|model|day|phase] [filters]`.

use std::io::Write;

use clap::{Args, ValueEnum};
use crucible_index::{DuplicateIds, GroupBy, SessionIndex, StatsRow};

use super::query::{DataFormat, FilterArgs, visit_index, warn_duplicates};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::stats::StatsAnswer;
use crate::render::output::{self, DuplicateId, SkippedFile};
use crate::render::table::{Align, Table};
use crate::render::{duration, progress, thousands};

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
    let visited = visit_index(
        ctx,
        &filter,
        &|| Tally {
            agg: crucible_index::stats::Aggregator::new(by),
            ids: DuplicateIds::default(),
            sessions: 0,
        },
        &|t: &mut Tally, facts, _| {
            t.sessions += 1;
            if filter.matches(facts) {
                t.agg.add(facts);
                t.ids.add(&facts.id, &facts.path);
            }
        },
    )?;
    let mut agg = crucible_index::stats::Aggregator::new(by);
    let mut ids = DuplicateIds::default();
    let mut sessions = 0;
    for t in visited.states {
        agg.merge(t.agg);
        ids.merge(t.ids);
        sessions += t.sessions;
    }
    let duplicates = ids.finish();
    warn_duplicates(ctx, &duplicates)?;
    let (rows, total) = agg.finish(&phases);
    let answer = || StatsAnswer {
        group_by: args.group_by.name(),
        groups: &rows,
        total: &total,
        skipped: visited.skipped.iter().map(SkippedFile::from).collect(),
        duplicates: duplicates.iter().cloned().map(DuplicateId::from).collect(),
    };
    match args.format {
        DataFormat::Json => output::print_json(&answer())?,
        DataFormat::Toon => output::print_toon(&answer())?,
        DataFormat::Table => {
            let mut out = anstream::stdout().lock();
            table(&mut out, &rows, &total)?;
            out.flush()?;
        }
    }
    Ok(Outcome::from_files(sessions, visited.skipped.len()))
}

/// What each thread of the visit gathers.
struct Tally {
    agg: crucible_index::stats::Aggregator,
    ids: DuplicateIds,
    sessions: usize,
}

impl Group {
    fn name(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Channel => "channel",
            Self::Status => "status",
            Self::Model => "model",
            Self::Day => "day",
            Self::Phase => "phase",
        }
    }
}

fn cells(r: &StatsRow) -> [String; 9] {
    let d = |v: Option<u64>| {
        v.map_or_else(
            || "-".to_owned(),
            |ms| duration(i64::try_from(ms).unwrap_or(i64::MAX)),
        )
    };
    [
        r.group.clone(),
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
    // The group reads left, the numbers right.
    let mut table = (1..head.len())
        .fold(Table::new(&head), |t, i| t.align(i, Align::Right))
        .bold_last_row();
    for r in rows.iter().chain([total]) {
        table.push(cells(r));
    }
    table.write(out)
}
