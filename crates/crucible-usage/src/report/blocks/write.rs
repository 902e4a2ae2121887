//! The blocks view in ccusage's JSON: `{"blocks": [...]}` with
//! `tokenCounts`, `costUSD`, `burnRate`, `projection` and, when a limit was
//! given, `tokenLimitStatus`. cru adds `modelBreakdowns` (per model, as the
//! other views have them), `unpricedTokens` when some tokens had no price,
//! and `totals`.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{Block, BlocksReport, BurnRate, Projection, TokenLimitStatus};
use crate::report::dates::utc_millis;
use crate::report::json::{Breakdowns, ModelsUsed};

impl Serialize for BlocksReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("blocks", &self.blocks)?;
        map.serialize_entry("totals", &self.totals)?;
        map.end()
    }
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let start = utc_millis(self.start_ms);
        let id = if self.is_gap {
            format!("gap-{start}")
        } else {
            start.clone()
        };
        let u = &self.usage;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("id", &id)?;
        map.serialize_entry("startTime", &start)?;
        map.serialize_entry("endTime", &utc_millis(self.end_ms))?;
        map.serialize_entry("actualEndTime", &self.last_ms.map(utc_millis))?;
        map.serialize_entry("isActive", &self.is_active)?;
        map.serialize_entry("isGap", &self.is_gap)?;
        map.serialize_entry("entries", &self.requests)?;
        map.serialize_entry("tokenCounts", &TokenCounts(self))?;
        map.serialize_entry("totalTokens", &u.total_tokens())?;
        map.serialize_entry("costUSD", &u.cost.usd())?;
        if u.cost.unpriced_tokens > 0 {
            map.serialize_entry("unpricedTokens", &u.cost.unpriced_tokens)?;
        }
        if u.untyped > 0 {
            map.serialize_entry("untypedTokens", &u.untyped)?;
        }
        map.serialize_entry("models", &ModelsUsed(u))?;
        map.serialize_entry("modelBreakdowns", &Breakdowns(u))?;
        map.serialize_entry("burnRate", &self.burn_rate)?;
        map.serialize_entry("projection", &self.projection)?;
        if let Some(limit) = &self.limit {
            map.serialize_entry("tokenLimitStatus", limit)?;
        }
        map.end()
    }
}

struct TokenCounts<'a>(&'a Block);

impl Serialize for TokenCounts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = &self.0.usage.tokens;
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("inputTokens", &t.input)?;
        map.serialize_entry("outputTokens", &t.output)?;
        map.serialize_entry("cacheCreationInputTokens", &t.cache_creation)?;
        map.serialize_entry("cacheReadInputTokens", &t.cache_read)?;
        map.end()
    }
}

impl Serialize for BurnRate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("tokensPerMinute", &self.tokens_per_minute)?;
        map.serialize_entry(
            "tokensPerMinuteForIndicator",
            &self.tokens_per_minute_for_indicator,
        )?;
        map.serialize_entry("costPerHour", &self.cost_per_hour)?;
        map.end()
    }
}

impl Serialize for Projection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("totalTokens", &self.total_tokens)?;
        // ccusage rounds the projected cost to the cent here (and only here).
        map.serialize_entry("totalCost", &((self.total_cost * 100.0).round() / 100.0))?;
        map.serialize_entry("remainingMinutes", &self.remaining_minutes)?;
        map.end()
    }
}

impl Serialize for TokenLimitStatus {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("limit", &self.limit)?;
        map.serialize_entry("projectedUsage", &self.projected)?;
        map.serialize_entry("percentUsed", &self.percent_used)?;
        map.serialize_entry("status", self.status.as_str())?;
        map.end()
    }
}
