//! The price table a command prices with: the one `cru pricing update`
//! saved, else the one shipped; the config's `[pricing]` over it.

use anyhow::Context as _;
use crucible_usage::pricing::PriceTable;
use jiff::Timestamp;

use crate::context::Context;
use crate::error::CliError;

/// The table, with a warning on stderr when it is older than 60 days.
pub fn price_table(ctx: &Context, now: Timestamp) -> anyhow::Result<PriceTable> {
    let base = match ctx.prices_path.as_deref() {
        Some(path) if path.is_file() => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            // A model the loaded list lacks keeps the shipped price: looked
            // up here, not copied in when it was loaded, so that a later
            // cru's shipped prices are the ones kept.
            PriceTable::from_bytes(&bytes)
                .map_err(|e| {
                    CliError::new(format!("{}: {e}", path.display()))
                        .with_hint("load a price list again with `cru pricing update FILE`, or remove the file to use the shipped one")
                })?
                .with_fallback(PriceTable::shipped())
        }
        // Something else in its place (a FIFO, a folder, a dangling link)
        // is never opened: said, and the shipped table used.
        Some(path) if std::fs::symlink_metadata(path).is_ok() => {
            eprintln!(
                "warning: {}: not a regular file; pricing with the shipped table",
                path.display()
            );
            PriceTable::shipped()
        }
        _ => PriceTable::shipped(),
    };
    let table = base
        .into_overridden(&ctx.config.pricing)
        .map_err(|e| CliError::new(format!("[pricing] in the config: {e}")))?;
    let today = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    if table.is_stale(today) {
        let days = (today - table.taken()).get_days();
        eprintln!(
            "warning: prices are {days} days old (taken {}): newer models may be unpriced; \
             `cru pricing update FILE` loads a newer LiteLLM price list",
            table.taken(),
        );
    }
    Ok(table)
}
