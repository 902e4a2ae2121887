//! `cru session stats [--group-by agent|channel|status|model|day|phase] [filters]`.

use std::io::Write;

use clap::Args;
use clap::builder::TypedValueParser;
use crucible_index::{Aggregator, GroupBy, SessionIndex, StatsRow};

use super::query::{DataFormat, FilterArgs, tally_index};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::stats::StatsAnswer;
use crate::render::output::{self, DuplicateId, SkippedFile};
use crate::render::table::{Align, Table};
use crate::render::{duration, progress, thousands};

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// What to group sessions by.
    #[arg(long, value_parser = group_by_parser(), default_value = "agent")]
    pub group_by: GroupBy,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = DataFormat::Table)]
    pub format: DataFormat,
}

/// `--group-by`: the index's groupings, by name (one list of them, the
/// index's, so the flag cannot drift from what stats can group by).
fn group_by_parser() -> impl clap::builder::TypedValueParser<Value = GroupBy> {
    let values = GroupBy::ALL.map(|g| {
        let value = clap::builder::PossibleValue::new(g.name());
        match g.about() {
            Some(about) => value.help(about),
            None => value,
        }
    });
    clap::builder::PossibleValuesParser::new(values)
        .map(|name| GroupBy::from_name(&name).expect("clap took one of the possible values"))
}

pub fn run(ctx: &Context, args: &StatsArgs) -> anyhow::Result<Outcome> {
    let filter = args.filters.filter()?;
    let by = args.group_by;
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
    let tallied = tally_index(
        ctx,
        &filter,
        &|| Aggregator::new(by),
        &|agg: &mut Aggregator, facts, _| {
            agg.add(facts);
            true
        },
        Aggregator::merge,
    )?;
    let (rows, total) = tallied.tally.finish(&phases);
    let answer = || StatsAnswer {
        group_by: args.group_by.name(),
        groups: &rows,
        total: &total,
        skipped: tallied.skipped.iter().map(SkippedFile::from).collect(),
        duplicates: tallied
            .duplicates
            .iter()
            .cloned()
            .map(DuplicateId::from)
            .collect(),
    };
    match args.format {
        DataFormat::Json => output::print_json(&answer())?,
        DataFormat::Toon => output::print_toon(&answer())?,
        DataFormat::Table => {
            let prices = crate::commands::usage::price_table(ctx, jiff::Timestamp::now())?;
            let cost = |r: &StatsRow| {
                let mut c = crucible_usage::Cost::default();
                for l in &r.usage {
                    c.add(prices.cost_of(l, crucible_usage::CostMode::Auto));
                }
                crate::commands::usage::cost_cell(c)
            };
            let mut out = anstream::stdout().lock();
            table(&mut out, &rows, &total, &cost)?;
            out.flush()?;
        }
    }
    Ok(tallied.outcome)
}

fn cells(r: &StatsRow, cost: &dyn Fn(&StatsRow) -> String) -> [String; 13] {
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
        thousands(r.input),
        thousands(r.output),
        thousands(r.cache_creation.saturating_add(r.cache_read)),
        cost(r),
        d(r.avg_duration_ms),
        d(r.min_duration_ms),
        d(r.max_duration_ms),
        r.failure_rate
            .map_or_else(|| "-".to_owned(), |f| format!("{:.1}%", f * 100.0)),
        thousands(r.errors),
        thousands(r.user_interventions),
    ]
}

fn table(
    out: &mut impl Write,
    rows: &[StatsRow],
    total: &StatsRow,
    cost: &dyn Fn(&StatsRow) -> String,
) -> std::io::Result<()> {
    let head = [
        "group", "sessions", "tokens", "input", "output", "cache", "cost", "avg", "min", "max",
        "failed", "errors", "user",
    ];
    // The group reads left, the numbers right.
    let mut table = (1..head.len())
        .fold(Table::new(&head), |t, i| t.align(i, Align::Right))
        .bold_last_row();
    for r in rows.iter().chain([total]) {
        table.push(cells(r, cost));
    }
    table.write(out)
}
