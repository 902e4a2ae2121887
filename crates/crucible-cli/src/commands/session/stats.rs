//! `cru session stats [--group-by agent|channel|status|model|day|phase|...]
//! [--mode auto|calculate|display] [filters]`.

use std::collections::BTreeSet;
use std::io::Write;

use clap::Args;
use clap::builder::TypedValueParser;
use crucible_index::stats_rollup::{GroupKind, StatsQuery, StatsShare, Visited};
use crucible_index::{Aggregator, DuplicateIds, Filter, GroupBy, SessionIndex, StatsRow};
use crucible_usage::pricing::PriceTable;
use crucible_usage::{Cost, CostMode};

use super::query::{
    DataFormat, FilterArgs, Tallied, UsageCells, report, tally_index_reading, warn_duplicates,
};
use crate::commands::usage::{Mode, cost_cell, price_table, warn_unreadable_usage};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::stats::{PricedRow, StatsAnswer};
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
    /// How cost is found, as in `cru usage`: the cost the source wrote
    /// when it wrote one (auto), always from tokens and prices
    /// (calculate), or only the written cost (display).
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    pub mode: Mode,
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

/// What `stats` computed, before it is printed.
pub struct Computed {
    rows: Vec<StatsRow>,
    total: StatsRow,
    prices: PriceTable,
    skipped: Vec<crucible_index::Problem>,
    duplicates: Vec<crucible_index::Duplicate>,
    pub outcome: Outcome,
}

impl Computed {
    fn priced(&self, r: &StatsRow, args: &StatsArgs) -> RowCost {
        RowCost::of(r, &self.prices, args.mode.into())
    }

    /// The answer `--format json` prints (and `cru mcp` gives).
    pub fn answer(&self, args: &StatsArgs) -> StatsAnswer<'_> {
        StatsAnswer {
            group_by: args.group_by.name(),
            groups: self
                .rows
                .iter()
                .map(|r| self.priced(r, args).json(r))
                .collect(),
            total: self.priced(&self.total, args).json(&self.total),
            skipped: SkippedFile::all(&self.skipped),
            duplicates: DuplicateId::all(&self.duplicates),
        }
    }
}

/// The groups the filters take, with their totals and the price table.
pub fn computed(ctx: &Context, args: &StatsArgs) -> anyhow::Result<Computed> {
    let filter = args.filters.filter()?;
    let by = args.group_by;
    let phases = if by == GroupBy::Phase {
        let bar = progress::bar("indexing sessions");
        let (p, warnings) = SessionIndex::new(&ctx.store)
            .phases(&|d, t| progress::update(&bar, d, t))
            .map_err(|e| CliError::new(e.to_string()))?;
        progress::finish(&bar);
        for w in warnings {
            writeln!(anstream::stderr(), "{w}")?;
        }
        p
    } else {
        Vec::new()
    };
    let tallied = match from_rollup(ctx, &filter, by)? {
        Some(tallied) => tallied,
        None => tally_index_reading(
            ctx,
            UsageCells::Read,
            &filter,
            &|| Aggregator::new(by),
            &|agg: &mut Aggregator, facts, _| {
                agg.add(facts);
                true
            },
            Aggregator::merge,
        )?,
    };
    warn_unreadable_usage(ctx, tallied.tally.unreadable().to_vec())?;
    let (rows, total) = tallied.tally.finish(&phases);
    Ok(Computed {
        rows,
        total,
        prices: price_table(ctx, jiff::Timestamp::now())?,
        skipped: tallied.skipped,
        duplicates: tallied.duplicates,
        outcome: tallied.outcome,
    })
}

pub fn run(ctx: &Context, args: &StatsArgs) -> anyhow::Result<Outcome> {
    let computed = computed(ctx, args)?;
    match args.format {
        DataFormat::Json => output::print_json(&computed.answer(args))?,
        DataFormat::Toon => output::print_toon(&computed.answer(args))?,
        DataFormat::Table => {
            let cost = |r: &StatsRow| cost_cell(computed.priced(r, args).cost);
            let mut out = anstream::stdout().lock();
            table(&mut out, &computed.rows, &computed.total, &cost)?;
            out.flush()?;
        }
    }
    Ok(computed.outcome)
}

/// What one thread of the rollup path's visit found.
struct Share {
    stats: StatsShare,
    ids: DuplicateIds,
    sessions: usize,
}

/// Unfiltered stats by agent, channel, model, day, week or month, answered
/// from the index's rollup file ([`crucible_index::stats_rollup`]) instead
/// of every usage cell; `None` to take the path that reads the cells.
/// Prints what that path would (index warnings, files skipped, ids
/// twice) only when it answers.
fn from_rollup(
    ctx: &Context,
    filter: &Filter,
    by: GroupBy,
) -> anyhow::Result<Option<Tallied<Aggregator>>> {
    let Some(kind) = GroupKind::of(by) else {
        return Ok(None);
    };
    if !filter.takes_all() {
        return Ok(None);
    }
    let index = SessionIndex::new(&ctx.store).without_usage();
    // Read before the visit: each fresh row is counted in its groups as the
    // visit finds it.
    let Some(query) = index
        .base_stats(kind)
        .and_then(|file| StatsQuery::new(by, file))
    else {
        return Ok(None);
    };
    let bar = progress::bar("indexing sessions");
    let (opened, shares) = index
        .visit(
            None,
            filter,
            &|done, total| progress::update(&bar, done, total),
            &|| Share {
                stats: query.share(),
                ids: DuplicateIds::default(),
                sessions: 0,
            },
            &|share: &mut Share, facts, _| {
                share.sessions += 1;
                share.ids.add(&facts.id, &facts.path);
                query.add(&mut share.stats, facts);
            },
        )
        .map_err(|e| CliError::new(e.to_string()))?;
    progress::finish(&bar);
    let visited = opened.generation.map_or(Visited::Records, Visited::Base);
    let (mut ids, mut sessions, mut stats) = (DuplicateIds::default(), 0, Vec::new());
    for share in shares {
        ids.merge(share.ids);
        sessions += share.sessions;
        stats.push(share.stats);
    }
    let Some(tally) = query.finish(stats, visited, |file, fresh, fresh_rows| {
        index.usage_outside(file, fresh, fresh_rows)
    }) else {
        return Ok(None);
    };
    report(ctx, &opened)?;
    let duplicates = ids.finish();
    warn_duplicates(ctx, &duplicates)?;
    Ok(Some(Tallied {
        tally,
        duplicates,
        outcome: Outcome::from_files(sessions, opened.index.problems.len()),
        skipped: opened.index.problems,
    }))
}

/// A group's cost, priced line by line (model, hour, phase) exactly as
/// the usage views price them, and the models the table has no price for.
#[derive(Default)]
struct RowCost {
    cost: Cost,
    unpriced_models: BTreeSet<String>,
}

impl RowCost {
    fn of(r: &StatsRow, prices: &PriceTable, mode: CostMode) -> Self {
        let mut out = Self::default();
        for l in &r.usage {
            let c = prices.cost_of(l, mode);
            // More unpriced than the tokens of unknown kind: the model
            // itself has no price.
            if c.unpriced_tokens > l.untyped
                && let Some(m) = &l.model
            {
                out.unpriced_models.insert(m.clone());
            }
            out.cost.add(c);
        }
        out
    }

    fn json(self, row: &StatsRow) -> PricedRow<'_> {
        let none_priced = self.cost.is_zero() && self.cost.unpriced_tokens > 0;
        PricedRow {
            row,
            cost_usd: (!none_priced).then_some(self.cost.usd()),
            unpriced_tokens: self.cost.unpriced_tokens,
            unpriced_models: self.unpriced_models.into_iter().collect(),
        }
    }
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
