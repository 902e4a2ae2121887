//! Makes `data/litellm-prices.json` from a LiteLLM price list:
//!
//! ```text
//! cargo run -p crucible-usage --example price_table_from_litellm -- \
//!     model_prices_and_context_window_backup.json 2026-09-20 "LiteLLM 1.102.0 ..." \
//!     > crates/crucible-usage/data/litellm-prices.json
//! ```

use std::io::Write;

use crucible_usage::pricing::PriceTable;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, taken, source] = args.as_slice() else {
        return Err("usage: price_table_from_litellm FILE YYYY-MM-DD SOURCE".into());
    };
    let bytes = std::fs::read(file)?;
    let table = PriceTable::from_litellm_json(&bytes, taken.parse()?, source)?;
    std::io::stdout().write_all(&table.to_bytes())?;
    Ok(())
}
