//! 5-hour billing blocks, as ccusage finds them.
//!
//! Lines are taken in time order. A block starts at the UTC hour of the
//! first request it holds and lasts `hours`; a line belongs to the current
//! block while its hour is before the block's end and it follows the
//! block's last request by no more than `hours`. Otherwise the block is
//! closed and the next one starts at the line's hour; when the pause was
//! longer than `hours`, a gap block fills it (from the last request plus
//! `hours` to the next request). Because lines are whole UTC hours, this is
//! ccusage's per-request rule except for a request at exactly the end of a
//! block, which ccusage keeps in the old block and cru puts in the new one.
//!
//! The block that is still open at `now` (its last request less than
//! `hours` ago and its end not reached) is active: it gets a burn rate (per
//! minute between its first and last request) and a projection to its end.

mod limit;
mod write;

use std::str::FromStr;

pub use limit::{LimitStatus, TokenLimit, TokenLimitError, TokenLimitStatus};

use super::dates::local_date_ms;
use super::tally::{Totals, Usage};
use super::{Order, PriceFn, PricedLine, ReportOptions, priced_lines};
use crate::SessionUsage;

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
/// `--recent`: blocks that started within this many days (or are active).
const RECENT_DAYS: i64 = 3;

/// How blocks are cut and which are shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockOptions {
    /// A block's length in hours (ccusage's `--session-length`, 5). Lines
    /// are per UTC hour, so only whole hours are possible.
    pub hours: u32,
    /// `--token-limit`: the projected use is compared with it.
    pub token_limit: Option<TokenLimit>,
    /// `--active`: only the active block.
    pub active_only: bool,
    /// `--recent`: blocks of the last three days, and the active one.
    pub recent: bool,
}

impl Default for BlockOptions {
    fn default() -> Self {
        Self {
            hours: 5,
            token_limit: None,
            active_only: false,
            recent: false,
        }
    }
}

impl BlockOptions {
    fn length_ms(&self) -> i64 {
        i64::from(self.hours.max(1)) * HOUR_MS
    }
}

/// One billing block, or the gap between two.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The block's start (a UTC hour) and end (start + its length); for a
    /// gap, the last request before it plus the length, and the next request.
    pub start_ms: i64,
    pub end_ms: i64,
    /// The first and last request in it; `None` for a gap.
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
    pub is_active: bool,
    pub is_gap: bool,
    /// Requests counted (ccusage's `entries`).
    pub requests: u64,
    pub usage: Usage,
    /// For the active block: its pace so far.
    pub burn_rate: Option<BurnRate>,
    /// For the active block: where that pace takes it by its end.
    pub projection: Option<Projection>,
    /// For the active block, when a token limit was given.
    pub limit: Option<TokenLimitStatus>,
}

/// Tokens and cost per unit of time, between a block's first and last
/// request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BurnRate {
    pub tokens_per_minute: f64,
    /// Input and output only: the pace without the cache (ccusage's
    /// `tokensPerMinuteForIndicator`).
    pub tokens_per_minute_for_indicator: f64,
    pub cost_per_hour: f64,
}

/// The active block at its end, if the burn rate holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    pub total_tokens: u64,
    /// Unrounded; the JSON writes it to the cent, as ccusage does.
    pub total_cost: f64,
    pub remaining_minutes: u64,
}

/// The blocks view; `totals` sums the blocks shown (cru's addition: ccusage
/// writes none for blocks).
#[derive(Debug, Clone, PartialEq)]
pub struct BlocksReport {
    pub blocks: Vec<Block>,
    pub totals: Totals,
}

/// The billing blocks of every line, with gaps, filtered and ordered.
pub fn blocks(
    sessions: &[SessionUsage],
    price: &PriceFn<'_>,
    opts: &ReportOptions,
    block_opts: &BlockOptions,
) -> BlocksReport {
    let now_ms = opts.now.as_millisecond();
    // Nothing after "now" is in a block: with `--now` in the past, the
    // requests made later would be counted in the block it is active in,
    // and projected again on top. (A line is an hour of requests: the hour
    // holding "now" counts whole once its first request is not after it.)
    let mut lines: Vec<PricedLine<'_>> = priced_lines(sessions, price)
        .filter(|p| p.line.first_ms <= now_ms)
        .collect();
    // Blocks are cut in time order. An integer key (the session breaks ties,
    // the stable sort keeps a session's own order) sorts cheaply and the
    // same way every run.
    lines.sort_by_key(|p| (p.line.first_ms, p.session));
    let mut blocks = cut(&lines, block_opts.length_ms(), now_ms);
    blocks.retain(|b| opts.admits(local_date_ms(b.start_ms, &opts.time_zone)));
    if opts.order == Order::Desc {
        blocks.reverse();
    }
    // "max" is the largest finished block of the range, taken before
    // `--active`/`--recent` narrow it (ccusage takes it after, so that
    // `--active --token-limit max` never has a limit).
    let max_tokens = blocks
        .iter()
        .filter(|b| !b.is_gap && !b.is_active)
        .map(|b| b.usage.total_tokens())
        .max()
        .unwrap_or(0);
    if block_opts.recent {
        let cutoff = now_ms.saturating_sub(RECENT_DAYS * 24 * HOUR_MS);
        blocks.retain(|b| b.start_ms >= cutoff || b.is_active);
    }
    if block_opts.active_only {
        blocks.retain(|b| b.is_active);
    }
    for b in &mut blocks {
        if b.is_active {
            b.burn_rate = burn_rate(b);
            b.projection = b.burn_rate.map(|rate| project(b, rate, now_ms));
            b.limit = b
                .projection
                .zip(block_opts.token_limit)
                .and_then(|(p, limit)| TokenLimitStatus::of(p.total_tokens, limit, max_tokens));
        }
    }
    let totals = Totals::of(blocks.iter().map(|b| &b.usage));
    BlocksReport { blocks, totals }
}

/// Cuts the time-ordered lines into blocks and gaps.
fn cut(lines: &[PricedLine<'_>], length_ms: i64, now_ms: i64) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for priced in lines {
        let line = priced.line;
        let hour_ms = line.hour.saturating_mul(1000);
        if let Some(block) = open.take_if(|b| {
            let last = b.last_ms.unwrap_or(b.start_ms);
            hour_ms >= b.end_ms || line.first_ms.saturating_sub(last) > length_ms
        }) {
            let last = block.last_ms.unwrap_or(block.start_ms);
            let gap = line.first_ms.saturating_sub(last) > length_ms;
            blocks.push(close(block, now_ms, length_ms));
            if gap {
                blocks.push(gap_block(last, line.first_ms, length_ms));
            }
        }
        let block = open.get_or_insert_with(|| new_block(hour_ms, length_ms));
        block.first_ms = Some(
            block
                .first_ms
                .map_or(line.first_ms, |f| f.min(line.first_ms)),
        );
        block.last_ms = Some(block.last_ms.map_or(line.last_ms, |l| l.max(line.last_ms)));
        block.requests += line.requests;
        block.usage.add_line(line, priced.cost);
    }
    if let Some(block) = open {
        blocks.push(close(block, now_ms, length_ms));
    }
    blocks
}

fn new_block(start_ms: i64, length_ms: i64) -> Block {
    Block {
        start_ms,
        end_ms: start_ms.saturating_add(length_ms),
        first_ms: None,
        last_ms: None,
        is_active: false,
        is_gap: false,
        requests: 0,
        usage: Usage::default(),
        burn_rate: None,
        projection: None,
        limit: None,
    }
}

/// Decides whether a finished cut is the active block.
///
/// A block that starts after `now` (a `--now` in the past) is not active:
/// ccusage would call it active and project its pace over the months to its
/// end; nobody is spending in a window that has not begun.
fn close(mut block: Block, now_ms: i64, length_ms: i64) -> Block {
    block.is_active = block.start_ms <= now_ms
        && block
            .last_ms
            .is_some_and(|last| now_ms.saturating_sub(last) < length_ms && now_ms < block.end_ms);
    block
}

fn gap_block(last_ms: i64, next_ms: i64, length_ms: i64) -> Block {
    Block {
        is_gap: true,
        end_ms: next_ms,
        ..new_block(last_ms.saturating_add(length_ms), 0)
    }
}

fn burn_rate(block: &Block) -> Option<BurnRate> {
    let minutes = (block.last_ms? - block.first_ms?) as f64 / MINUTE_MS as f64;
    if block.is_gap || minutes <= 0.0 {
        return None;
    }
    let u = &block.usage;
    Some(BurnRate {
        tokens_per_minute: u.total_tokens() as f64 / minutes,
        tokens_per_minute_for_indicator: u.tokens.input.saturating_add(u.tokens.output) as f64
            / minutes,
        cost_per_hour: u.cost.usd() / minutes * 60.0,
    })
}

fn project(block: &Block, rate: BurnRate, now_ms: i64) -> Projection {
    let remaining = ((block.end_ms - now_ms) as f64 / MINUTE_MS as f64)
        .round()
        .max(0.0);
    Projection {
        total_tokens: (block.usage.total_tokens() as f64 + rate.tokens_per_minute * remaining)
            .round() as u64,
        total_cost: block.usage.cost.usd() + rate.cost_per_hour / 60.0 * remaining,
        remaining_minutes: remaining as u64,
    }
}

impl FromStr for TokenLimit {
    type Err = TokenLimitError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        limit::parse(s)
    }
}
