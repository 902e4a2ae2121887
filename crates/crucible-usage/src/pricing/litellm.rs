//! Reading LiteLLM's model price list (`model_prices_and_context_window.json`).
//!
//! A model is kept when it has both a price per input token and per output
//! token (what ccusage keeps); the rest of an entry (modes, context sizes,
//! prices per image, second or query, batch and priority prices) is left
//! out. Long-context prices are kept for the thresholds usage lines track
//! (`crucible_core::TIER_THRESHOLDS`). A price that is there but is not a
//! number is an error naming the model and the key, so a damaged list is
//! refused rather than half read.

use std::collections::BTreeMap;

use crucible_core::TIER_THRESHOLDS;
use jiff::civil::Date;
use serde_json::{Map, Value};

use super::error::kind;
use super::{ModelPrice, PriceTable, PriceTier, PricingError};

/// LiteLLM's entry that documents the format rather than pricing a model.
const SAMPLE_SPEC: &str = "sample_spec";

/// The token kinds as LiteLLM names their prices.
const INPUT: &str = "input_cost_per_token";
const OUTPUT: &str = "output_cost_per_token";
const CACHE_WRITE: &str = "cache_creation_input_token_cost";
const CACHE_READ: &str = "cache_read_input_token_cost";

impl PriceTable {
    /// A table from LiteLLM's price list, taken on `taken` (the list's
    /// date: the day it was published or downloaded; the library has no
    /// clock). `source` says where it came from, for `cru pricing`.
    pub fn from_litellm_json(
        bytes: &[u8],
        taken: Date,
        source: &str,
    ) -> Result<Self, PricingError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(PricingError::Empty);
        }
        let doc: Value = serde_json::from_slice(bytes).map_err(PricingError::NotJson)?;
        let Value::Object(entries) = doc else {
            return Err(PricingError::NotAnObject { found: kind(&doc) });
        };
        let mut models = BTreeMap::new();
        for (name, entry) in &entries {
            if name == SAMPLE_SPEC {
                continue;
            }
            let Value::Object(entry) = entry else {
                return Err(PricingError::NotAModel {
                    model: name.clone(),
                    found: kind(entry),
                });
            };
            if let Some(p) = model_price(name, entry)? {
                models.insert(name.clone(), p);
            }
        }
        if models.is_empty() {
            return Err(PricingError::NoPricedModel);
        }
        Ok(Self::new(taken, source.to_owned(), models))
    }
}

/// One entry's prices; `None` when it has no per-token input and output price.
fn model_price(name: &str, entry: &Map<String, Value>) -> Result<Option<ModelPrice>, PricingError> {
    let price = |key: &str| price(name, entry, key);
    let (input, output) = (price(INPUT)?, price(OUTPUT)?);
    let fast = match entry.get("provider_specific_entry") {
        Some(Value::Object(p)) => price_in(name, p, "fast", "provider_specific_entry.fast")?,
        _ => None,
    };
    let tiers = tiers(name, entry)?;
    let (cache_write, cache_read) = (price(CACHE_WRITE)?, price(CACHE_READ)?);
    let (Some(input), Some(output)) = (input, output) else {
        return Ok(None);
    };
    Ok(Some(ModelPrice {
        input,
        output,
        cache_write,
        cache_read,
        fast,
        tiers,
    }))
}

/// The `<kind>_above_<N>k_tokens` prices, by threshold.
fn tiers(name: &str, entry: &Map<String, Value>) -> Result<Vec<PriceTier>, PricingError> {
    let mut by_threshold: BTreeMap<u64, PriceTier> = BTreeMap::new();
    for key in entry.keys() {
        let Some((kind, above)) = tier_key(key) else {
            continue;
        };
        let p = price(name, entry, key)?;
        let tier = by_threshold.entry(above).or_insert(PriceTier {
            above,
            ..PriceTier::default()
        });
        let slot = match kind {
            INPUT => &mut tier.input,
            OUTPUT => &mut tier.output,
            CACHE_WRITE => &mut tier.cache_write,
            _ => &mut tier.cache_read,
        };
        *slot = p;
    }
    Ok(by_threshold.into_values().collect())
}

/// `input_cost_per_token_above_200k_tokens` → (`input_cost_per_token`,
/// 200000), for the thresholds lines track; other keys (`_above_1hr`,
/// `_above_200k_tokens_priority`, thresholds nobody tracks) are not tiers.
fn tier_key(key: &str) -> Option<(&'static str, u64)> {
    let (kind, rest) = [INPUT, OUTPUT, CACHE_WRITE, CACHE_READ]
        .into_iter()
        .find_map(|k| Some((k, key.strip_prefix(k)?.strip_prefix("_above_")?)))?;
    let thousands: u64 = rest.strip_suffix("k_tokens")?.parse().ok()?;
    let above = thousands.checked_mul(1000)?;
    TIER_THRESHOLDS.contains(&above).then_some((kind, above))
}

fn price(model: &str, entry: &Map<String, Value>, key: &str) -> Result<Option<f64>, PricingError> {
    price_in(model, entry, key, key)
}

/// `entry[key]` as a price: absent or null is none; anything but a finite
/// number of 0 or more is an error (`shown` is the key as the message names it).
fn price_in(
    model: &str,
    entry: &Map<String, Value>,
    key: &str,
    shown: &str,
) -> Result<Option<f64>, PricingError> {
    let v = match entry.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let Some(n) = v.as_f64() else {
        return Err(PricingError::NotANumber {
            model: model.to_owned(),
            key: shown.to_owned(),
            found: kind(v),
        });
    };
    if !(n.is_finite() && n >= 0.0) {
        return Err(PricingError::NotAPrice {
            model: model.to_owned(),
            key: shown.to_owned(),
            value: n,
        });
    }
    Ok(Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> Date {
        jiff::civil::date(2026, 9, 20)
    }

    fn load(json: &str) -> Result<PriceTable, PricingError> {
        PriceTable::from_litellm_json(json.as_bytes(), day(), "test")
    }

    #[test]
    fn keeps_per_token_prices_and_tracked_tiers() {
        let t = load(
            r#"{
            "sample_spec": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0},
            "m": {"input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5,
                  "cache_read_input_token_cost": 3e-7, "mode": "chat",
                  "input_cost_per_token_above_200k_tokens": 6e-6,
                  "input_cost_per_token_above_200k_tokens_priority": 9e-6,
                  "cache_creation_input_token_cost_above_1hr": 6e-6,
                  "output_cost_per_token_above_150k_tokens": 1.0,
                  "provider_specific_entry": {"us": 1.1, "fast": 2}},
            "embedding": {"input_cost_per_token": 1e-7},
            "image": {"output_cost_per_image": 0.04}
        }"#,
        )
        .unwrap();
        let names: Vec<&str> = t.models().map(|(n, _)| n).collect();
        assert_eq!(names, ["m"]);
        let m = t.price_of("m").unwrap();
        assert_eq!(
            (m.cache_write, m.cache_read, m.fast),
            (None, Some(3e-7), Some(2.0))
        );
        assert_eq!(
            m.tiers,
            [PriceTier {
                above: 200_000,
                input: Some(6e-6),
                ..PriceTier::default()
            }]
        );
    }

    #[test]
    fn a_price_that_is_a_string_names_the_model_and_the_key() {
        let e = load(r#"{"x": {"input_cost_per_token": "3e-6", "output_cost_per_token": 1}}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "model `x`: `input_cost_per_token` should be a number, found a string"
        );
        let e = load(
            r#"{"x": {"input_cost_per_token": 1, "output_cost_per_token": 1,
            "cache_read_input_token_cost_above_200k_tokens": [1]}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`cache_read_input_token_cost_above_200k_tokens` should be a number"),
            "{e}"
        );
        let e = load(r#"{"x": {"input_cost_per_token": -1, "output_cost_per_token": 1}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is -1, not a price"), "{e}");
    }

    #[test]
    fn files_that_are_no_price_list_say_what_they_are() {
        let e = |s: &str| load(s).unwrap_err().to_string();
        assert_eq!(e(""), "the price list is empty");
        assert_eq!(e(" \n"), "the price list is empty");
        assert!(
            e("<html>").starts_with("the price list is not JSON: "),
            "{}",
            e("<html>")
        );
        assert!(e("{\"a\": 1,").contains("line 1"), "{}", e("{\"a\": 1,"));
        assert_eq!(
            e("[1, 2]"),
            "the price list should be a JSON object of models, found an array"
        );
        assert_eq!(
            e("{\"x\": 3}"),
            "model `x`: expected an object of prices, found a number"
        );
        assert!(e("{}").contains("prices no model per token"), "{}", e("{}"));
    }
}
