//! One model's prices, and what a line's tokens cost at them.

use crucible_core::Tokens;
use serde::{Deserialize, Serialize};

/// A model's prices in US dollars per token (LiteLLM's unit, kept so the
/// shipped numbers are LiteLLM's exactly).
///
/// A cache price the source leaves out is derived from the input price as
/// ccusage derives it: writes at 1.25 times, reads at 0.1 times. Writes to
/// the one-hour cache cost twice the input price (Anthropic's rule, which
/// ccusage applies; LiteLLM's own one-hour key is not used).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    pub input: f64,
    pub output: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// The factor every price is multiplied by in the provider's fast mode
    /// (LiteLLM's `provider_specific_entry.fast`); a model named `<m>-fast`
    /// is priced at `<m>`'s prices times this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast: Option<f64>,
    /// Long-context prices, by rising threshold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<PriceTier>,
}

/// The prices of a kind's tokens above `above` tokens of that kind in one
/// request (LiteLLM's `*_above_<N>k_tokens`). A kind the tier leaves out
/// keeps the price below it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PriceTier {
    pub above: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
}

/// ccusage's cache prices for a list that gives none.
const CACHE_WRITE_PER_INPUT: f64 = 1.25;
const CACHE_READ_PER_INPUT: f64 = 0.1;
const CACHE_WRITE_1H_PER_INPUT: f64 = 2.0;

/// The price of each kind, one-hour cache writes apart, in attodollars
/// per token (exact: see [`crate::Cost`]).
#[derive(Debug, Clone, Copy)]
struct Rates {
    input: i128,
    output: i128,
    cache_write: i128,
    cache_write_1h: i128,
    cache_read: i128,
}

impl Rates {
    /// What `t` costs at these rates, in attodollars; `cache_creation`
    /// holds the one-hour part, priced apart.
    /// (Saturating: an absurd price in the config gives an absurd cost,
    /// never one wrapped round.)
    fn of(self, t: Tokens) -> i128 {
        let one_hour = t.cache_creation_1h.min(t.cache_creation);
        [
            (t.input, self.input),
            (t.output, self.output),
            (t.cache_creation - one_hour, self.cache_write),
            (one_hour, self.cache_write_1h),
            (t.cache_read, self.cache_read),
        ]
        .into_iter()
        .fold(0i128, |sum, (n, price)| {
            sum.saturating_add(i128::from(n).saturating_mul(price))
        })
    }

    /// The rates above `tier`: its prices where it has them, else these.
    fn above(self, tier: &PriceTier) -> Self {
        let or = |p: Option<f64>, this: i128| p.map_or(this, crate::attos);
        Self {
            input: or(tier.input, self.input),
            output: or(tier.output, self.output),
            cache_write: or(tier.cache_write, self.cache_write),
            cache_write_1h: tier.input.map_or(self.cache_write_1h, |i| {
                crate::attos(i * CACHE_WRITE_1H_PER_INPUT)
            }),
            cache_read: or(tier.cache_read, self.cache_read),
        }
    }
}

impl ModelPrice {
    /// A model that costs nothing (Claude Code's `<synthetic>` messages).
    pub const FREE: Self = Self {
        input: 0.0,
        output: 0.0,
        cache_write: Some(0.0),
        cache_read: Some(0.0),
        fast: None,
        tiers: Vec::new(),
    };

    /// A model priced at `input` and `output` per token, caches derived.
    pub fn new(input: f64, output: f64) -> Self {
        Self {
            input,
            output,
            cache_write: None,
            cache_read: None,
            fast: None,
            tiers: Vec::new(),
        }
    }

    /// The price of a cache write (five minutes), given or derived.
    pub fn cache_write_price(&self) -> f64 {
        self.cache_write
            .unwrap_or(self.input * CACHE_WRITE_PER_INPUT)
    }

    /// The price of a cache read, given or derived.
    pub fn cache_read_price(&self) -> f64 {
        self.cache_read.unwrap_or(self.input * CACHE_READ_PER_INPUT)
    }

    fn rates(&self) -> Rates {
        Rates {
            input: crate::attos(self.input),
            output: crate::attos(self.output),
            cache_write: crate::attos(self.cache_write_price()),
            cache_write_1h: crate::attos(self.input * CACHE_WRITE_1H_PER_INPUT),
            cache_read: crate::attos(self.cache_read_price()),
        }
    }

    /// What `tokens` cost, in attodollars (exact, see [`crate::Cost`];
    /// [`ModelPrice::cost_usd`] in dollars), given `above`: for each threshold
    /// some request went over, each kind's tokens above it summed over the
    /// requests (`UsageLine::above`). Each tier charges its price for the
    /// tokens of a kind above its threshold in one request, as ccusage
    /// charges LiteLLM's `_above_200k_tokens` prices: the base price for
    /// all tokens, plus each tier's step up for the tokens above it.
    pub fn cost(&self, tokens: Tokens, above: &[(u64, Tokens)]) -> i128 {
        // Priced by bands, each kind's tokens up to the first threshold at
        // the base rates, those between two thresholds at the lower one's:
        // the same sum as the base price for all plus each step up for the
        // tokens above it, without subtracting one price from another, so
        // an absurd price saturates rather than cancels out.
        let mut rates = self.rates();
        let mut band = tokens;
        let mut attos = 0i128;
        for tier in &self.tiers {
            let over = above
                .iter()
                .find(|(at, _)| *at == tier.above)
                .map_or_else(Tokens::default, |(_, over)| *over);
            attos = attos.saturating_add(rates.of(band.minus(over)));
            band = over;
            rates = rates.above(tier);
        }
        attos.saturating_add(rates.of(band))
    }

    /// [`ModelPrice::cost`] in US dollars.
    pub fn cost_usd(&self, tokens: Tokens, above: &[(u64, Tokens)]) -> f64 {
        crate::Cost::from_attos(self.cost(tokens, above), 0).usd()
    }

    /// Every price times `factor` (a fast mode's multiplier).
    #[must_use]
    pub fn scaled(&self, factor: f64) -> Self {
        let s = |p: Option<f64>| p.map(|p| p * factor);
        Self {
            input: self.input * factor,
            output: self.output * factor,
            cache_write: s(self.cache_write),
            cache_read: s(self.cache_read),
            fast: None,
            tiers: self
                .tiers
                .iter()
                .map(|t| PriceTier {
                    above: t.above,
                    input: s(t.input),
                    output: s(t.output),
                    cache_write: s(t.cache_write),
                    cache_read: s(t.cache_read),
                })
                .collect(),
        }
    }

    /// Every price, for checks: `(name, value)`.
    pub(super) fn prices(&self) -> Vec<(&'static str, f64)> {
        let mut out = vec![("input", self.input), ("output", self.output)];
        out.extend(self.cache_write.map(|p| ("cache_write", p)));
        out.extend(self.cache_read.map(|p| ("cache_read", p)));
        out.extend(self.fast.map(|p| ("fast", p)));
        for t in &self.tiers {
            out.extend(t.input.map(|p| ("tier input", p)));
            out.extend(t.output.map(|p| ("tier output", p)));
            out.extend(t.cache_write.map(|p| ("tier cache_write", p)));
            out.extend(t.cache_read.map(|p| ("tier cache_read", p)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sonnet() -> ModelPrice {
        ModelPrice {
            cache_write: Some(3.75e-6),
            cache_read: Some(3e-7),
            tiers: vec![PriceTier {
                above: 200_000,
                input: Some(6e-6),
                output: Some(2.25e-5),
                cache_write: Some(7.5e-6),
                cache_read: Some(6e-7),
            }],
            ..ModelPrice::new(3e-6, 1.5e-5)
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn a_request_over_the_threshold_pays_the_tier_price_for_the_tokens_above_it() {
        // One request: 300k input, 250k cache reads, 1k output.
        let t = Tokens {
            input: 300_000,
            output: 1_000,
            cache_read: 250_000,
            ..Tokens::default()
        };
        let above = [(200_000, t.above(200_000))];
        let want = 200_000.0 * 3e-6
            + 100_000.0 * 6e-6
            + 1_000.0 * 1.5e-5
            + 200_000.0 * 3e-7
            + 50_000.0 * 6e-7;
        assert!(close(sonnet().cost_usd(t, &above), want));
        // The same tokens spread over requests that each stay below: base prices.
        let flat = 300_000.0 * 3e-6 + 1_000.0 * 1.5e-5 + 250_000.0 * 3e-7;
        assert!(close(sonnet().cost_usd(t, &[]), flat));
    }

    #[test]
    fn one_hour_cache_writes_cost_twice_the_input_price_and_its_tier() {
        let t = Tokens {
            cache_creation: 1_000_000,
            cache_creation_1h: 1_000_000,
            ..Tokens::default()
        };
        let above = [(200_000, t.above(200_000))];
        // ccusage: 200k at 2 x 3e-6, 800k at 2 x 6e-6.
        assert!(close(sonnet().cost_usd(t, &above), 10.8));
        let five_minutes = Tokens {
            cache_creation: 100_000,
            ..Tokens::default()
        };
        assert!(close(sonnet().cost_usd(five_minutes, &[]), 0.375));
    }

    #[test]
    fn missing_cache_prices_are_derived_from_the_input_price() {
        let p = ModelPrice::new(1e-6, 2e-6);
        let t = Tokens {
            cache_creation: 1_000_000,
            cache_read: 1_000_000,
            ..Tokens::default()
        };
        assert!(close(p.cost_usd(t, &[]), 1.25 + 0.1));
    }

    #[test]
    fn tiers_step_up_from_the_price_below_them() {
        let p = ModelPrice {
            tiers: vec![
                PriceTier {
                    above: 128_000,
                    input: Some(2e-6),
                    ..PriceTier::default()
                },
                PriceTier {
                    above: 256_000,
                    output: Some(9e-6),
                    ..PriceTier::default()
                },
            ],
            ..ModelPrice::new(1e-6, 4e-6)
        };
        let t = Tokens {
            input: 300_000,
            output: 300_000,
            ..Tokens::default()
        };
        let above = [(128_000, t.above(128_000)), (256_000, t.above(256_000))];
        let input = 128_000.0 * 1e-6 + 172_000.0 * 2e-6;
        let output = 256_000.0 * 4e-6 + 44_000.0 * 9e-6;
        assert!(close(p.cost_usd(t, &above), input + output));
    }
}
