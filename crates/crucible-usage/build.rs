//! Digests the shipped price table (`data/litellm-prices.json`) into Rust
//! constants, so that a command that prices does not parse 275 KB of JSON
//! every time it runs (about 4 ms, against a 10 ms budget for
//! `cru usage daily` on a thousand sessions). The JSON stays the source of
//! truth: a test checks that the digest reads back equal to it.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{Map, Value};

const TABLE: &str = "data/litellm-prices.json";

fn main() {
    println!("cargo::rerun-if-changed={TABLE}");
    let text = std::fs::read_to_string(TABLE).expect("the shipped price table is readable");
    let doc: Value = serde_json::from_str(&text).expect("the shipped price table is JSON");
    let text_of = |key: &str| doc[key].as_str().unwrap_or_else(|| panic!("no `{key}`"));
    let mut out = String::new();
    writeln!(
        out,
        "pub(super) const TAKEN: &str = {:?};",
        text_of("taken")
    )
    .unwrap();
    writeln!(
        out,
        "pub(super) const SOURCE: &str = {:?};",
        text_of("source")
    )
    .unwrap();
    out.push_str("pub(super) const MODELS: &[(&str, Digest)] = &[\n");
    let models = doc["models"].as_object().expect("`models` is a map");
    for (name, price) in models {
        let price = price.as_object().expect("a model's prices are a map");
        write!(out, "({name:?}, Digest {{ ").unwrap();
        for key in ["input", "output"] {
            let v = price[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{name}: no `{key}`"));
            write!(out, "{key}: {v:?}, ").unwrap();
        }
        for key in ["cache_write", "cache_read", "fast"] {
            write!(out, "{key}: {}, ", optional(price, key)).unwrap();
        }
        out.push_str("tiers: &[");
        for tier in price
            .get("tiers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let tier = tier.as_object().expect("a tier is a map");
            let above = tier["above"].as_u64().expect("a tier's `above` is a count");
            write!(out, "PriceTier {{ above: {above}, ").unwrap();
            for key in ["input", "output", "cache_write", "cache_read"] {
                write!(out, "{key}: {}, ", optional(tier, key)).unwrap();
            }
            out.push_str("}, ");
        }
        out.push_str("] }),\n");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("shipped_prices.rs");
    std::fs::write(dest, out).expect("the digest is written");
}

/// `Some(price)` or `None`, as Rust source.
fn optional(map: &Map<String, Value>, key: &str) -> String {
    match map.get(key).and_then(Value::as_f64) {
        Some(v) => format!("Some({v:?})"),
        None => "None".to_owned(),
    }
}
