//! The price table: what a model's tokens cost, and what a usage line costs.
//!
//! The table is LiteLLM's model price list (the list ccusage prices with),
//! shipped in the binary (`data/litellm-prices.json`, with the date it was
//! taken, digested into constants when cru is built: `build.rs`);
//! `cru pricing update FILE` reads a newer LiteLLM file
//! ([`PriceTable::from_litellm_json`]) and keeps it in the user's config
//! directory ([`PriceTable::to_bytes`], [`PriceTable::from_bytes`]); the
//! config's `[pricing]` table overrides or adds models
//! ([`PriceTable::with_overrides`]). Nothing here reads a file, the
//! network or the clock: callers pass bytes and dates.
//!
//! How a request is priced, and where that agrees with ccusage, is in
//! docs/pricing.md.

mod error;
mod litellm;
mod names;
mod overrides;
mod price;
mod shipped;
mod stored;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crucible_core::UsageLine;
use jiff::civil::Date;

pub use error::PricingError;
pub use price::{ModelPrice, PriceTier};

use crate::{Cost, CostMode};

/// How old a table may be before reports warn that its prices may be out of
/// date (ccusage refreshes its list on every online run; cru never goes
/// online, so it says when the list it has is old).
pub const STALE_AFTER_DAYS: i64 = 60;

/// The model name Claude Code writes on messages it made up itself (errors,
/// interruptions): no model answered them, so they cost nothing.
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// A name's match in the table: the entry's name and the price it gives.
type Resolved = Arc<(String, ModelPrice)>;

/// Prices per model, the date they were taken and where from.
#[derive(Debug)]
pub struct PriceTable {
    taken: Date,
    source: String,
    models: BTreeMap<String, ModelPrice>,
    /// What `price_of` answered for each name asked: the fuzzy match scans
    /// every model, and reports ask for the same few names again and again
    /// (once per usage line: shared, so that pricing a line copies nothing).
    resolved: Mutex<HashMap<String, Option<Resolved>>>,
}

impl Clone for PriceTable {
    fn clone(&self) -> Self {
        Self::new(self.taken, self.source.clone(), self.models.clone())
    }
}

impl PartialEq for PriceTable {
    fn eq(&self, o: &Self) -> bool {
        self.taken == o.taken && self.source == o.source && self.models == o.models
    }
}

impl PriceTable {
    fn new(taken: Date, source: String, models: BTreeMap<String, ModelPrice>) -> Self {
        Self {
            taken,
            source,
            models,
            resolved: Mutex::new(HashMap::new()),
        }
    }

    /// The list shipped with cru (digested when cru was built: the same
    /// table as [`PriceTable::from_bytes`] of the file, which the tests check).
    pub fn shipped() -> Self {
        let (taken, source, models) = shipped::table();
        let taken = taken
            .parse()
            .expect("the shipped table's date is checked by the tests");
        Self::new(taken, source.to_owned(), models)
    }

    /// The day the prices were taken (the source list's date).
    pub fn taken(&self) -> Date {
        self.taken
    }

    /// Where the prices come from, in words (`LiteLLM 1.102.0 ...`).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// True when the prices were taken more than [`STALE_AFTER_DAYS`] days
    /// before `today`.
    pub fn is_stale(&self, today: Date) -> bool {
        let limit = self
            .taken
            .checked_add(jiff::Span::new().days(STALE_AFTER_DAYS))
            .unwrap_or(Date::MAX);
        today > limit
    }

    /// The models with a price, by the name the table files them under.
    pub fn models(&self) -> impl Iterator<Item = (&str, &ModelPrice)> {
        self.models.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The price of `model` as sessions name it, matched the way ccusage
    /// matches names (docs/pricing.md): the name itself; a `-fast` name at
    /// its base model's fast-mode price; a few aliases; else the longest
    /// model name of the table that contains the name, or that the name
    /// contains, at word boundaries, so `claude-sonnet-4-5-20250929`,
    /// `anthropic/claude-sonnet-4-5` and `bedrock/...` find their price.
    /// [`SYNTHETIC_MODEL`] costs nothing; `None` is a model with no price.
    pub fn price_of(&self, model: &str) -> Option<ModelPrice> {
        if model == SYNTHETIC_MODEL {
            return Some(ModelPrice::FREE);
        }
        self.resolve(model).map(|found| found.1.clone())
    }

    /// The name of the table's entry whose prices `model` takes (itself, a
    /// `-fast` model's base, an alias's target, or the matched name), for
    /// showing how a model was priced; `None` when it has no price.
    pub fn priced_as(&self, model: &str) -> Option<String> {
        if model == SYNTHETIC_MODEL {
            return Some(SYNTHETIC_MODEL.to_owned());
        }
        self.resolve(model).map(|found| found.0.clone())
    }

    fn resolve(&self, model: &str) -> Option<Resolved> {
        let mut resolved = self
            .resolved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = resolved.get(model) {
            return found.clone();
        }
        let found = names::resolve(&self.models, model).map(Arc::new);
        resolved.insert(model.to_owned(), found.clone());
        found
    }

    /// What `line` cost, by `mode` (ccusage's `--mode`): `Display` takes the
    /// cost the source wrote (0 where it wrote none), `Auto` takes it where
    /// every request of the line carried one and computes the rest,
    /// `Calculate` always computes. A computed cost leaves tokens it has no
    /// price for (no model, a model not in the table, tokens of unknown
    /// kind) in `unpriced_tokens`, never at $0.
    pub fn cost_of(&self, line: &UsageLine, mode: CostMode) -> Cost {
        let written = Cost::from_usd(line.recorded_cost_usd, 0);
        match mode {
            CostMode::Display => written,
            CostMode::Auto if line.recorded => written,
            CostMode::Auto | CostMode::Calculate => self.computed(line),
        }
    }

    fn computed(&self, line: &UsageLine) -> Cost {
        let price = match line.model.as_deref() {
            Some(SYNTHETIC_MODEL) => return Self::free(line),
            Some(m) => self.resolve(m),
            None => None,
        };
        match price {
            Some(found) => Cost::from_attos(found.1.cost(line.tokens, &line.above), line.untyped),
            None => Cost::from_attos(0, line.total()),
        }
    }

    /// A line of [`SYNTHETIC_MODEL`]: what [`ModelPrice::FREE`] makes of it.
    fn free(line: &UsageLine) -> Cost {
        Cost::from_attos(
            ModelPrice::FREE.cost(line.tokens, &line.above),
            line.untyped,
        )
    }
}

#[cfg(test)]
mod tests {
    use crucible_core::Tokens;
    use jiff::civil::date;

    use super::*;

    /// The shipped list, LiteLLM's, in the format of [`PriceTable::to_bytes`].
    const SHIPPED: &[u8] = include_bytes!("../../data/litellm-prices.json");

    fn line(model: Option<&str>, tokens: Tokens) -> UsageLine {
        UsageLine {
            model: model.map(str::to_owned),
            requests: 1,
            tokens,
            ..UsageLine::default()
        }
    }

    fn tokens(input: u64, output: u64) -> Tokens {
        Tokens {
            input,
            output,
            ..Tokens::default()
        }
    }

    #[test]
    fn the_shipped_table_is_canonical_dated_and_prices_the_usual_models() {
        let t = PriceTable::shipped();
        assert_eq!(
            t.to_bytes(),
            SHIPPED,
            "data/litellm-prices.json is as to_bytes writes it"
        );
        assert_eq!(t.taken(), date(2026, 9, 20));
        assert_eq!(
            PriceTable::from_bytes(SHIPPED).unwrap(),
            t,
            "the digest built from data/litellm-prices.json reads as the file does"
        );
        for m in [
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-20250514",
            "claude-opus-4-6",
            "claude-haiku-4-5-20251001",
            "gpt-5-codex",
            "gpt-5.1-codex-max",
            "gemini-2.5-pro",
            "anthropic/claude-sonnet-4-5",
            "bedrock/anthropic.claude-opus-4-1-20250805-v1:0",
        ] {
            assert!(t.price_of(m).is_some(), "{m} has a price");
        }
    }

    #[test]
    fn a_table_is_stale_sixty_days_after_it_was_taken() {
        let t = PriceTable::shipped();
        assert!(!t.is_stale(date(2026, 11, 19)));
        assert!(t.is_stale(date(2026, 11, 20)));
    }

    #[test]
    fn synthetic_messages_cost_nothing_and_unknown_models_are_unpriced() {
        let t = PriceTable::shipped();
        assert_eq!(
            t.priced_as(SYNTHETIC_MODEL).as_deref(),
            Some(SYNTHETIC_MODEL)
        );
        assert_eq!(t.priced_as("llama-local-7b"), None);
        let synthetic = t.cost_of(
            &line(Some(SYNTHETIC_MODEL), tokens(10, 10)),
            CostMode::Calculate,
        );
        assert_eq!(synthetic, Cost::default());
        let unknown = t.cost_of(
            &line(Some("llama-local-7b"), tokens(10, 5)),
            CostMode::Calculate,
        );
        assert_eq!((unknown.usd(), unknown.unpriced_tokens), (0.0, 15));
        let nameless = t.cost_of(&line(None, tokens(1, 1)), CostMode::Auto);
        assert_eq!(nameless.unpriced_tokens, 2);
        let mut old = line(Some("claude-sonnet-4-5"), Tokens::default());
        old.untyped = 500;
        assert_eq!(t.cost_of(&old, CostMode::Calculate).unpriced_tokens, 500);
    }

    #[test]
    fn the_mode_chooses_the_written_or_the_computed_cost() {
        let t = PriceTable::shipped();
        let mut l = line(Some("claude-sonnet-4-5"), tokens(1_000_000, 0));
        let computed = t.cost_of(&l, CostMode::Calculate).usd();
        let usd = |l: &UsageLine, mode| t.cost_of(l, mode).usd();
        assert!(same(computed, 3.0));
        assert!(same(usd(&l, CostMode::Display), 0.0));
        assert!(same(usd(&l, CostMode::Auto), computed));
        l.recorded = true;
        l.recorded_cost_usd = 1.5;
        assert!(same(usd(&l, CostMode::Auto), 1.5));
        assert!(same(usd(&l, CostMode::Display), 1.5));
        assert!(same(usd(&l, CostMode::Calculate), computed));
    }

    #[test]
    fn long_requests_pay_the_long_context_price_above_the_threshold() {
        let t = PriceTable::shipped();
        let mut l = line(Some("claude-sonnet-4-5-20250929"), tokens(1_000_000, 0));
        l.above = vec![(200_000, l.tokens.above(200_000))];
        // What ccusage 20.0.24 answers for one request of a million input tokens.
        assert!(same(t.cost_of(&l, CostMode::Calculate).usd(), 5.4));
    }

    fn same(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }
}
