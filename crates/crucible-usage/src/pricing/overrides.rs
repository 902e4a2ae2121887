//! The config's `[pricing]` table over the price table.

use crucible_core::config::{ModelPriceConfig, PriceTierConfig, PricingConfig};

use super::{ModelPrice, PriceTable, PriceTier, PricingError};

/// The config's unit is US dollars per million tokens; the table's per token.
const TOKENS_PER_UNIT: f64 = 1_000_000.0;

fn per_token(per_million: Option<f64>) -> Option<f64> {
    per_million.map(|p| p / TOKENS_PER_UNIT)
}

impl PriceTable {
    /// The table with the config's prices over it. A model the config
    /// names starts from the price its name finds in the table (exactly,
    /// or by matching as [`PriceTable::price_of`] does) and takes each
    /// price the config gives; a cache price the table derives from the
    /// input price follows a new input price. A model that finds no price
    /// is added, and then needs both `input` and `output`. Overrides are
    /// filed under the name the config gives, which the sessions' model
    /// name then finds first.
    pub fn with_overrides(&self, config: &PricingConfig) -> Result<Self, PricingError> {
        let mut models = self.models.clone();
        for (name, o) in &config.models {
            let base = match self.price_of(name) {
                Some(base) => base,
                None => added(name, o)?,
            };
            let price = overridden(base, o);
            models.insert(name.clone(), price);
        }
        Ok(Self::new(self.taken, self.source.clone(), models))
    }

    /// This table, with every model of `fallback` it lacks added at
    /// `fallback`'s price: a newer list that dropped a model (LiteLLM's
    /// later lists no longer name the dated Claude 4 models) does not make
    /// the sessions that used it unpriced. `fallback` is taken whole: its
    /// entries move, none is copied.
    #[must_use]
    pub fn with_fallback(self, fallback: PriceTable) -> Self {
        let mut models = self.models;
        for (name, price) in fallback.models {
            models.entry(name).or_insert(price);
        }
        Self::new(self.taken, self.source, models)
    }

    /// [`PriceTable::with_overrides`] for a table not needed after: with
    /// no overrides it is the table itself. The shipped table has over
    /// 3,000 models, and copying then dropping them all was a twentieth
    /// of a `cru usage daily` on an indexed directory.
    pub fn into_overridden(self, config: &PricingConfig) -> Result<Self, PricingError> {
        if config.models.is_empty() {
            return Ok(self);
        }
        self.with_overrides(config)
    }
}

/// A model the table does not price: the config must give both prices.
fn added(name: &str, o: &ModelPriceConfig) -> Result<ModelPrice, PricingError> {
    let (Some(input), Some(output)) = (o.input, o.output) else {
        return Err(PricingError::IncompleteModel {
            model: name.to_owned(),
        });
    };
    Ok(ModelPrice::new(
        input / TOKENS_PER_UNIT,
        output / TOKENS_PER_UNIT,
    ))
}

fn overridden(base: ModelPrice, o: &ModelPriceConfig) -> ModelPrice {
    ModelPrice {
        input: per_token(o.input).unwrap_or(base.input),
        output: per_token(o.output).unwrap_or(base.output),
        cache_write: per_token(o.cache_write).or(base.cache_write),
        cache_read: per_token(o.cache_read).or(base.cache_read),
        fast: base.fast,
        tiers: match &o.tiers {
            Some(tiers) => tiers.iter().map(tier).collect(),
            None => base.tiers,
        },
    }
}

fn tier(t: &PriceTierConfig) -> PriceTier {
    PriceTier {
        above: t.above,
        input: per_token(t.input),
        output: per_token(t.output),
        cache_write: per_token(t.cache_write),
        cache_read: per_token(t.cache_read),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::Tokens;

    #[test]
    fn a_table_taken_over_is_the_table_with_its_overrides() {
        let none = PricingConfig::default();
        assert!(table().into_overridden(&none).unwrap() == table());
        let mut some = PricingConfig::default();
        some.models.insert(
            "claude-sonnet-4-5".into(),
            ModelPriceConfig {
                input: Some(1.0),
                ..ModelPriceConfig::default()
            },
        );
        let taken = table().into_overridden(&some).unwrap();
        assert!(taken == table().with_overrides(&some).unwrap());
        assert!(taken != table());
    }

    fn table() -> PriceTable {
        let models = [
            (
                "claude-sonnet-4-5".to_owned(),
                ModelPrice {
                    cache_write: Some(3.75e-6),
                    cache_read: Some(3e-7),
                    ..ModelPrice::new(3e-6, 1.5e-5)
                },
            ),
            ("plain".to_owned(), ModelPrice::new(1e-6, 2e-6)),
        ];
        PriceTable::new(jiff::civil::date(2026, 9, 20), "t".into(), models.into())
    }

    fn config(entries: &[(&str, ModelPriceConfig)]) -> PricingConfig {
        PricingConfig {
            models: entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        }
    }

    #[test]
    fn overrides_win_price_by_price_and_may_add_models() {
        let c = config(&[
            (
                "claude-sonnet-4-5-20250929",
                ModelPriceConfig {
                    output: Some(10.0),
                    ..ModelPriceConfig::default()
                },
            ),
            (
                "plain",
                ModelPriceConfig {
                    input: Some(2.0),
                    ..ModelPriceConfig::default()
                },
            ),
            (
                "my-local-model",
                ModelPriceConfig {
                    input: Some(0.5),
                    output: Some(1.0),
                    tiers: Some(vec![PriceTierConfig {
                        above: 128_000,
                        input: Some(1.0),
                        ..PriceTierConfig::default()
                    }]),
                    ..ModelPriceConfig::default()
                },
            ),
        ]);
        let t = table().with_overrides(&c).unwrap();
        let dated = t.price_of("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!(
            (dated.input, dated.output, dated.cache_read),
            (3e-6, 1e-5, Some(3e-7))
        );
        let base = t.price_of("claude-sonnet-4-5").unwrap();
        assert!(
            (base.output - 1.5e-5).abs() < 1e-18,
            "the base keeps its own"
        );
        // A derived cache price follows the new input price.
        let plain = t.price_of("plain").unwrap();
        assert!((plain.input - 2e-6).abs() < 1e-18);
        assert!((plain.cache_read_price() - 2e-7).abs() < 1e-18);
        let local = t.price_of("my-local-model").unwrap();
        let tokens = Tokens {
            input: 1_000_000,
            ..Tokens::default()
        };
        assert!((local.cost_usd(tokens, &[]) - 0.5).abs() < 1e-12);
        assert_eq!(local.tiers[0].input, Some(1e-6));
    }

    #[test]
    fn a_new_model_needs_input_and_output() {
        let c = config(&[(
            "unknown-model",
            ModelPriceConfig {
                input: Some(1.0),
                ..ModelPriceConfig::default()
            },
        )]);
        let e = table().with_overrides(&c).unwrap_err().to_string();
        assert!(
            e.contains("`unknown-model`") && e.contains("`input` and `output`"),
            "{e}"
        );
    }
}
