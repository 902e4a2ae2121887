//! Bringing cru up to the files: the sources imported, the index and the
//! search index made fresh.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use crucible_index::{Filter, SessionIndex};
use crucible_interop::Format;

use super::live::Live;
use super::sources::Sources;
use crate::commands::session::import;
use crate::context::Context;

/// Everything once: every source, then the indexes (`--once`, a
/// watcher's start, the catch-up after lost events).
pub fn everything(ctx: &Context, sources: &mut Sources, live: &mut Live) -> anyhow::Result<bool> {
    let all = sources.all();
    import_sources(ctx, sources, live, &all)?;
    let quiet = live.gone_quiet(SystemTime::now());
    settle(ctx, sources, live, &quiet)?;
    Ok(indexes(ctx))
}

/// Imports `list`, marking the sources written lately as live.
pub fn import_sources(
    ctx: &Context,
    sources: &mut Sources,
    live: &mut Live,
    list: &[(PathBuf, Format)],
) -> anyhow::Result<()> {
    if list.is_empty() {
        return Ok(());
    }
    let now = SystemTime::now();
    let marked = Mutex::new(Vec::new());
    import::import_listed(ctx, list, false, &|p| live.mark(p, now, &marked))?;
    sources.imported(list);
    live.stored(list, marked.into_inner().unwrap_or_default());
    Ok(())
}

/// Imports again, as the importer has them (paused), the live sources
/// that went quiet.
pub fn settle(
    ctx: &Context,
    sources: &mut Sources,
    live: &mut Live,
    quiet: &[PathBuf],
) -> anyhow::Result<()> {
    if quiet.is_empty() {
        return Ok(());
    }
    let changed = quiet.iter().cloned().collect();
    let list = sources.touched(&changed);
    // No marking: quiet sources are stored as a one-shot import has them.
    import::import_listed(ctx, &list, false, &|_| {})?;
    sources.imported(&list);
    live.stored(&list, Vec::new());
    Ok(())
}

/// Brings the index and the search index up to the session files, by the
/// same freshness proof a read runs (the watcher never trusts itself).
/// True when both were saved, so that readers may trust them.
pub fn indexes(ctx: &Context) -> bool {
    let index = SessionIndex::new(&ctx.store)
        .without_usage()
        .proving_freshness();
    let visited = index.visit(None, &Filter::default(), &|_, _| {}, &|| (), &|(), _, _| {});
    if let Err(e) = &visited {
        eprintln!("warning: the index could not be brought up to date: {e}");
    }
    let dir = ctx.store.dir();
    let searched = crucible_search::catch_up_fully(dir, ctx.store.max_file_bytes());
    if let Err(e) = &searched {
        eprintln!("warning: the search index could not be brought up to date: {e}");
    }
    visited.is_ok() && index.saved_everything() && searched.is_ok_and(|committed| committed)
}
