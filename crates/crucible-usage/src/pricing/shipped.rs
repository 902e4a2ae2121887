//! The shipped table, digested at build time (`build.rs`) from
//! `data/litellm-prices.json` into constants, so that loading it is
//! building a map, not parsing JSON.

use std::collections::BTreeMap;

use super::{ModelPrice, PriceTier};

/// A model's prices as constants (a [`ModelPrice`] holds its tiers in a `Vec`).
struct Digest {
    input: f64,
    output: f64,
    cache_write: Option<f64>,
    cache_read: Option<f64>,
    fast: Option<f64>,
    tiers: &'static [PriceTier],
}

/// `TAKEN`, `SOURCE` and `MODELS`, as `build.rs` wrote them: numbers as
/// the file has them, not grouped by hand.
#[allow(clippy::unreadable_literal, clippy::excessive_precision)]
mod digest {
    use super::{Digest, PriceTier};

    include!(concat!(env!("OUT_DIR"), "/shipped_prices.rs"));
}

use digest::{MODELS, SOURCE, TAKEN};

/// The day the shipped prices were taken, where from, and every model's.
pub(super) fn table() -> (&'static str, &'static str, BTreeMap<String, ModelPrice>) {
    let models = MODELS
        .iter()
        .map(|(name, d)| {
            let price = ModelPrice {
                input: d.input,
                output: d.output,
                cache_write: d.cache_write,
                cache_read: d.cache_read,
                fast: d.fast,
                tiers: d.tiers.to_vec(),
            };
            ((*name).to_owned(), price)
        })
        .collect();
    (TAKEN, SOURCE, models)
}
