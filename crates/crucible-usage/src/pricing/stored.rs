//! The table as cru keeps it: the shipped `data/litellm-prices.json` and the
//! copy `cru pricing update` saves in the user's config directory.
//!
//! JSON, one model per line so that a new list reads as a diff:
//!
//! ```text
//! {"format":1,"taken":"2026-09-20","source":"...","models":{
//! "claude-sonnet-4-5":{"input":3e-6,"output":1.5e-5,"cache_write":3.75e-6,...},
//! ...
//! }}
//! ```
//!
//! Prices are in US dollars per token, LiteLLM's numbers unchanged.

use std::collections::BTreeMap;

use jiff::civil::Date;
use serde::Deserialize;

use super::{ModelPrice, PriceTable, PricingError};

/// The layout's version: a reader refuses one it does not know.
const FORMAT: u32 = 1;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    format: u32,
    taken: String,
    source: String,
    models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// The table in cru's format, for [`PriceTable::from_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let text = |s: &str| serde_json::to_string(s).expect("a string is JSON");
        let mut out = format!(
            "{{\"format\":{FORMAT},\"taken\":{},\"source\":{},\"models\":{{",
            text(&self.taken.to_string()),
            text(&self.source)
        );
        for (i, (name, price)) in self.models.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            out.push_str(&text(name));
            out.push(':');
            out.push_str(&serde_json::to_string(price).expect("prices are finite numbers"));
        }
        out.push_str("\n}}\n");
        out.into_bytes()
    }

    /// Reads what [`PriceTable::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, PricingError> {
        let bad = |m: String| PricingError::NotATable(m);
        let s: Stored = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if s.format != FORMAT {
            return Err(bad(format!(
                "format {} (this cru reads format {FORMAT})",
                s.format
            )));
        }
        let taken: Date = s
            .taken
            .parse()
            .map_err(|e| bad(format!("`taken` {:?} is not a date: {e}", s.taken)))?;
        for (name, p) in &s.models {
            if let Some((key, value)) = p
                .prices()
                .into_iter()
                .find(|(_, v)| !(v.is_finite() && *v >= 0.0))
            {
                return Err(PricingError::NotAPrice {
                    model: name.clone(),
                    key: key.to_owned(),
                    value,
                });
            }
        }
        Ok(Self::new(taken, s.source, s.models))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pricing::PriceTier;

    #[test]
    fn a_saved_table_reads_back_equal() {
        let mut models = BTreeMap::new();
        models.insert(
            "m \"quoted\"".to_owned(),
            ModelPrice {
                cache_read: Some(3e-7),
                tiers: vec![PriceTier {
                    above: 200_000,
                    output: Some(2.25e-5),
                    ..PriceTier::default()
                }],
                ..ModelPrice::new(3e-6, 1.5e-5)
            },
        );
        models.insert("n".to_owned(), ModelPrice::new(0.1, 0.2));
        let t = PriceTable::new(jiff::civil::date(2026, 9, 20), "here".into(), models);
        let bytes = t.to_bytes();
        assert_eq!(PriceTable::from_bytes(&bytes).unwrap(), t);
        assert_eq!(String::from_utf8(bytes).unwrap().lines().count(), 4);
    }

    #[test]
    fn other_files_are_refused_with_why() {
        let e = |s: &str| {
            PriceTable::from_bytes(s.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert!(
            e("{}").starts_with("not a cru price table: missing field"),
            "{}",
            e("{}")
        );
        let v2 = r#"{"format":2,"taken":"2026-01-01","source":"","models":{}}"#;
        assert!(e(v2).contains("format 2"), "{}", e(v2));
        let day = r#"{"format":1,"taken":"soon","source":"","models":{}}"#;
        assert!(
            e(day).contains("`taken` \"soon\" is not a date"),
            "{}",
            e(day)
        );
        let neg = r#"{"format":1,"taken":"2026-01-01","source":"","models":{"m":{"input":-1,"output":0}}}"#;
        assert_eq!(
            e(neg),
            "model `m`: `input` is -1, not a price (expected 0 or more)"
        );
    }
}
