//! `cru session import --list-sources`: the agents' stores, found or not,
//! and what each holds, in a table or as JSON (docs/json.md).

use crucible_interop::import_state::ImportState;
use crucible_interop::store_scan::{StoreStatus, store_statuses};
use crucible_interop::stores::{Presence, agent_name, agent_stores};

use super::SourcesFormat;
use super::discovered::{capture_context, store_env};
use crate::context::Context;
use crate::error::Outcome;

/// `--list-sources`: the stores, found or not, and their sources.
pub fn list_sources(ctx: &Context, format: SourcesFormat) -> anyhow::Result<Outcome> {
    let cap = capture_context(ctx)?;
    let (state, _) = ImportState::load(cap.store.dir());
    let rows: Vec<serde_json::Value> = store_statuses(agent_stores(&store_env()), &state)
        .iter()
        .map(store_row)
        .collect();
    match format {
        SourcesFormat::Json => {
            let doc = serde_json::json!({
                "version": 1,
                "sessions_dir": cap.store.dir(),
                "stores": rows,
            });
            println!("{doc}");
        }
        SourcesFormat::Table => print_table(&rows)?,
    }
    Ok(Outcome::Success)
}

/// One store as `--list-sources --format json` shows it.
fn store_row(s: &StoreStatus) -> serde_json::Value {
    let (presence, why) = match &s.store.presence {
        Presence::Found => ("found", None),
        Presence::Missing => ("missing", None),
        Presence::Refused(why) => ("refused", Some(why.clone())),
    };
    serde_json::json!({
        "agent": s.store.format.as_str(),
        "name": agent_name(s.store.format),
        "path": s.store.root,
        "from": s.store.origin.to_string(),
        "state": presence,
        "why": why,
        "sources": s.sources,
        "to_read": s.to_read,
    })
}

fn print_table(rows: &[serde_json::Value]) -> anyhow::Result<()> {
    use crate::render::table::{Align, Table};
    let mut t = Table::new(&["AGENT", "PATH", "FROM", "STATE", "SOURCES", "TO READ"])
        .align(4, Align::Right)
        .align(5, Align::Right);
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    };
    for r in rows {
        let state = match r["why"].as_str() {
            Some(why) => format!("refused: {why}"),
            None => text(&r["state"]),
        };
        t.push([
            text(&r["name"]),
            text(&r["path"]),
            text(&r["from"]),
            state,
            text(&r["sources"]),
            text(&r["to_read"]),
        ]);
    }
    // Through anstream, as every table: no bold escapes when stdout is
    // not a terminal or NO_COLOR is set.
    let mut out = anstream::stdout().lock();
    t.write(&mut out)?;
    std::io::Write::flush(&mut out)?;
    Ok(())
}
