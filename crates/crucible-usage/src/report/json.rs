//! The fields every row shares in ccusage's JSON, written into a row's map.
//!
//! Key names are ccusage's (`inputTokens`, `totalCost`, `modelsUsed`,
//! `modelBreakdowns`, ...). cru adds `unpricedTokens` (tokens no price was
//! found for, so a reader can tell "unpriced" from $0) and `untypedTokens`
//! (tokens of unknown kind from old files), and `reasoningOutputTokens` (the
//! part of `outputTokens` that was reasoning, under the name ccusage's Codex
//! view gives it), each only when non-zero, so a file ccusage could have
//! written looks exactly as ccusage writes it.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::tally::{ModelUsage, Totals, Usage};

/// The figures of a row, then its models.
pub(super) fn usage_fields<M: SerializeMap>(map: &mut M, usage: &Usage) -> Result<(), M::Error> {
    figures(map, &Totals::of([usage]))?;
    map.serialize_entry("modelsUsed", &ModelsUsed(usage))?;
    map.serialize_entry("modelBreakdowns", &Breakdowns(usage))
}

/// Token kinds, total, cost (and the additions when non-zero).
pub(super) fn figures<M: SerializeMap>(map: &mut M, t: &Totals) -> Result<(), M::Error> {
    map.serialize_entry("inputTokens", &t.tokens.input)?;
    map.serialize_entry("outputTokens", &t.tokens.output)?;
    map.serialize_entry("cacheCreationTokens", &t.tokens.cache_creation)?;
    map.serialize_entry("cacheReadTokens", &t.tokens.cache_read)?;
    map.serialize_entry("totalTokens", &t.total_tokens())?;
    map.serialize_entry("totalCost", &t.cost.usd())?;
    additions(map, t.tokens.reasoning, t.cost.unpriced_tokens, t.untyped)
}

fn additions<M: SerializeMap>(
    map: &mut M,
    reasoning: u64,
    unpriced: u64,
    untyped: u64,
) -> Result<(), M::Error> {
    if reasoning > 0 {
        map.serialize_entry("reasoningOutputTokens", &reasoning)?;
    }
    if unpriced > 0 {
        map.serialize_entry("unpricedTokens", &unpriced)?;
    }
    if untyped > 0 {
        map.serialize_entry("untypedTokens", &untyped)?;
    }
    Ok(())
}

impl Serialize for Totals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        figures(&mut map, self)?;
        map.end()
    }
}

pub(super) struct ModelsUsed<'a>(pub &'a Usage);

impl Serialize for ModelsUsed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.models_used())
    }
}

pub(super) struct Breakdowns<'a>(pub &'a Usage);

impl Serialize for Breakdowns<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let by_cost = self.0.breakdowns();
        let mut seq = s.serialize_seq(Some(by_cost.len()))?;
        for m in by_cost {
            seq.serialize_element(m)?;
        }
        seq.end()
    }
}

impl Serialize for ModelUsage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("modelName", &self.model)?;
        map.serialize_entry("inputTokens", &self.tokens.input)?;
        map.serialize_entry("outputTokens", &self.tokens.output)?;
        map.serialize_entry("cacheCreationTokens", &self.tokens.cache_creation)?;
        map.serialize_entry("cacheReadTokens", &self.tokens.cache_read)?;
        map.serialize_entry("cost", &self.cost.usd())?;
        additions(
            &mut map,
            self.tokens.reasoning,
            self.cost.unpriced_tokens,
            self.untyped,
        )?;
        map.end()
    }
}
