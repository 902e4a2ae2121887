//! `cru pricing show [MODEL]` and `cru pricing update FILE`: the price
//! table usage reports compute cost with.

use anyhow::Context as _;
use clap::{Args, Subcommand};
use crucible_core::store::safe_file::{UnsafeFile, read_regular};
use crucible_usage::pricing::PriceTable;

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Subcommand)]
pub enum PricingCommand {
    /// The table's date and source, and a model's prices (per million tokens).
    Show(ShowArgs),
    /// Load a newer LiteLLM price list (model_prices_and_context_window.json)
    /// and use it from now on; a model it lacks keeps the shipped table's
    /// price (this cru's). The list is dated by the file's modification time.
    Update(UpdateArgs),
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A model name as sessions write it (dated and provider-prefixed names match).
    pub model: Option<String>,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// A LiteLLM model price list (JSON).
    pub file: std::path::PathBuf,
}

pub fn run(cmd: PricingCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let ctx = Context::load(global)?;
    match cmd {
        PricingCommand::Show(a) => show(&ctx, &a),
        PricingCommand::Update(a) => update(&ctx, &a),
    }
}

fn show(ctx: &Context, args: &ShowArgs) -> anyhow::Result<Outcome> {
    let table = crate::commands::usage::price_table(ctx, jiff::Timestamp::now())?;
    println!(
        "price table taken {} from {} ({} models)",
        table.taken(),
        table.source(),
        table.models().count()
    );
    let Some(model) = &args.model else {
        return Ok(Outcome::Success);
    };
    let Some(p) = table.price_of(model) else {
        return Err(CliError::new(format!("no price for model `{model}`"))
            .with_hint(
                "usage reports show its tokens as unpriced; add it under [pricing] in the config",
            )
            .into());
    };
    let m = |per_token: f64| format!("${:.4}", per_token * 1_000_000.0);
    println!("{model} (per million tokens):");
    println!("  input        {}", m(p.input));
    println!("  output       {}", m(p.output));
    println!("  cache write  {}", m(p.cache_write_price()));
    println!("  cache read   {}", m(p.cache_read_price()));
    let opt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), m);
    for t in &p.tiers {
        println!(
            "  above {} tokens: input {}, output {}, cache write {}, cache read {}",
            t.above,
            opt(t.input),
            opt(t.output),
            opt(t.cache_write),
            opt(t.cache_read)
        );
    }
    Ok(Outcome::Success)
}

/// A price list larger than this is no LiteLLM list (today's is about
/// 1.5 MB): refused before it is read whole.
const MAX_PRICE_LIST_BYTES: u64 = 256 * 1024 * 1024;

fn update(ctx: &Context, args: &UpdateArgs) -> anyhow::Result<Outcome> {
    // The store's checked open: a FIFO, device or directory is refused
    // without blocking, as the session walk refuses them.
    let bytes = read_regular(&args.file, MAX_PRICE_LIST_BYTES).map_err(|e| {
        let why = match e {
            UnsafeFile::TooLarge { size, limit, .. } => {
                format!("{size} bytes, over the limit of {limit} bytes for a price list")
            }
            other => other.reason(),
        };
        CliError::new(format!("{}: {why}", args.file.display()))
            .with_hint("give the JSON file of LiteLLM's model price list (model_prices_and_context_window.json)")
    })?;
    // The list says nothing of its date: the file's own time is the
    // likeliest (a download is dated when it was made), never later than
    // today. So an old list still warns that it is old.
    let now = jiff::Timestamp::now();
    let modified = std::fs::metadata(&args.file)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .map_or(now, |t| t.min(now));
    let taken = modified.to_zoned(jiff::tz::TimeZone::UTC).date();
    let source = std::path::absolute(&args.file)
        .unwrap_or_else(|_| args.file.clone())
        .display()
        .to_string();
    let table = PriceTable::from_litellm_json(&bytes, taken, &source)
        .map_err(|e| CliError::new(format!("{}: {e}", args.file.display())))?;
    let from_file = table.models().count();
    let Some(path) = &ctx.prices_path else {
        return Err(CliError::new(
            "no place to keep the price table: no $HOME and no $CRUCIBLE_CONFIG",
        )
        .into());
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    crucible_core::store::atomic::write_atomic(path, &table.to_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    let models = if from_file == 1 {
        "1 model".to_owned()
    } else {
        format!("{from_file} models")
    };
    println!(
        "{models} from {} (taken {taken}) saved to {}; a model it lacks keeps the shipped table's price",
        args.file.display(),
        path.display()
    );
    Ok(Outcome::Success)
}
