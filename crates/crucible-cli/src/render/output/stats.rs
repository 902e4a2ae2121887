//! `cru session stats --format json|toon`.

use crucible_index::StatsRow;
use serde::Serialize;

use super::{DuplicateId, SkippedFile};

/// The groups are the index's rows as they are, with their cost beside:
/// `StatsRow` owns the shape of a group in the JSON (docs/json.md).
#[derive(Debug, Serialize)]
pub struct StatsAnswer<'a> {
    /// What the groups are by: agent, channel, status, model, day or phase.
    pub group_by: &'static str,
    pub groups: Vec<PricedRow<'a>>,
    /// Every matching session once (a session in two groups counts once).
    pub total: PricedRow<'a>,
    pub skipped: Vec<SkippedFile>,
    pub duplicates: Vec<DuplicateId>,
}

/// A group and what its tokens cost, priced as `cru usage` prices them.
#[derive(Debug, Serialize)]
pub struct PricedRow<'a> {
    #[serde(flatten)]
    pub row: &'a StatsRow,
    /// US dollars for the tokens that have a price; `null` when the group
    /// has tokens and none of them has a price (never a false $0).
    pub cost_usd: Option<f64>,
    /// Tokens no price was found for (their model is not in the table, or
    /// their kind is unknown).
    pub unpriced_tokens: u64,
    /// The models of those tokens that the table has no price for, sorted.
    pub unpriced_models: Vec<String>,
}
