//! `cru usage daily|weekly|monthly|session|blocks`: tokens and cost as
//! ccusage shows them, over every session of the sessions directory
//! (imported from any agent, or recorded), answered from the index.

mod args;
pub(crate) mod prices;
mod rollup;
mod sessions;
mod table;
mod zone;

use clap::Subcommand;
use crucible_usage::report::{self, BlockOptions};

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::Outcome;

pub use args::{BlocksArgs, Mode, ViewArgs};
pub use prices::price_table;
pub use sessions::warn_unreadable_usage;
pub use table::cost_cell;

#[derive(Debug, Subcommand)]
pub enum UsageCommand {
    /// Tokens and cost by day (in --timezone), with each day's models.
    Daily(ViewArgs),
    /// Tokens and cost by week (weeks start on --start-of-week, Sunday by default).
    Weekly(ViewArgs),
    /// Tokens and cost by month.
    Monthly(ViewArgs),
    /// Tokens and cost by session, latest activity last.
    Session(ViewArgs),
    /// The 5-hour billing windows; the active one with its burn rate and
    /// projection.
    Blocks(BlocksArgs),
}

pub fn run(cmd: &UsageCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let ctx = Context::load(global)?;
    ctx.require_dir()?;
    let view = match cmd {
        UsageCommand::Daily(v)
        | UsageCommand::Weekly(v)
        | UsageCommand::Monthly(v)
        | UsageCommand::Session(v) => v,
        UsageCommand::Blocks(b) => &b.view,
    };
    let opts = view.report_options()?;
    let table = price_table(&ctx, opts.now)?;
    let mode = view.mode.into();
    let price = |line: &crucible_core::UsageLine| table.cost_of(line, mode);
    let filter = view.filters.filter()?;
    let period = matches!(
        cmd,
        UsageCommand::Daily(_) | UsageCommand::Weekly(_) | UsageCommand::Monthly(_)
    );
    let from_rollup = if period {
        rollup::load(&ctx, &filter, &opts.time_zone)?
    } else {
        None
    };
    let (usage, outcome) = match from_rollup {
        Some(found) => found,
        None => sessions::load(&ctx, &filter)?,
    };
    if period {
        warn_days_split_by_hour(&usage, &opts.time_zone);
    }
    let out = table::Render {
        json: view.json,
        breakdown: view.breakdown,
        time_zone: &opts.time_zone,
    };
    match cmd {
        UsageCommand::Daily(_) => out.period(&report::daily(&usage, &price, &opts))?,
        UsageCommand::Weekly(_) => out.period(&report::weekly(&usage, &price, &opts))?,
        UsageCommand::Monthly(_) => out.period(&report::monthly(&usage, &price, &opts))?,
        UsageCommand::Session(_) => out.session(&report::session(&usage, &price, &opts))?,
        UsageCommand::Blocks(b) => {
            let block_opts = BlockOptions {
                token_limit: b.token_limit()?,
                active_only: b.active,
                recent: b.recent,
                ..BlockOptions::default()
            };
            out.blocks(&report::blocks(&usage, &price, &opts, &block_opts))?;
        }
    }
    // The process ends here: freeing a million lines one by one (at 100,000
    // sessions) would only delay the exit.
    std::mem::forget(usage);
    Ok(outcome)
}

/// Usage is kept by UTC hour, and an hour's requests are counted on the
/// local day of its first. In a zone whose offset is not a whole number of
/// hours (India, Nepal, Chatham), local midnight falls inside an hour: when
/// an hour's requests fall on both sides of it, the later ones are counted
/// on the day before (ccusage, which reads every request, splits them).
/// Said, with how many hours, rather than left for a user to find.
fn warn_days_split_by_hour(usage: &[crucible_usage::SessionUsage], zone: &jiff::tz::TimeZone) {
    let day = |ms: i64| {
        jiff::Timestamp::from_millisecond(ms)
            .ok()
            .map(|t| zone.to_datetime(t).date())
    };
    let split = usage
        .iter()
        .flat_map(|s| &s.lines)
        .filter(|l| l.requests > 1 && day(l.first_ms) != day(l.last_ms))
        .count();
    if split > 0 {
        eprintln!(
            "warning: {split} hour(s) of requests cross local midnight in {} (its offset is not \
             a whole number of hours): each is counted on the day of its first request, so a \
             few requests after midnight are on the day before",
            zone.iana_name().unwrap_or("this time zone")
        );
    }
}
