//! `cru site [-o DIR] [filters]`: the sessions directory as a static site
//! (crucible-view's `site`): index pages, a page per session, the data the
//! index's filter searches. A second run writes only the pages whose
//! session, sidecar or linked sessions changed (`site/manifest.rs`).

mod manifest;
mod neighbours;
mod workflows;

use std::path::{Path, PathBuf};

use clap::Args;
use crucible_index::SessionRecord;
use crucible_view::site::{self, Row};

use self::manifest::{Manifest, PageKey};
use self::neighbours::{Site, SiteNeighbours};
use super::session::query::{FilterArgs, agents_of, records};
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The folder to write the site into (made if missing).
    #[arg(short, long, value_name = "DIR", default_value = "cru-site")]
    pub output: PathBuf,
    /// Write every page again, even those whose session did not change.
    #[arg(long)]
    pub force: bool,
    /// A folder of workflow files (as `cru session codify` writes them) to
    /// add to the site: a page each with its step graph, and a list.
    #[arg(long, value_name = "DIR")]
    pub workflows: Option<PathBuf>,
    #[command(flatten)]
    pub filters: FilterArgs,
}

pub fn run(ctx: &Context, args: &SiteArgs) -> anyhow::Result<Outcome> {
    let filter = args.filters.filter()?;
    let found = records(ctx, &filter)?;
    let records = crucible_index::query::sort_newest_first(found.tally, None);
    let out = &args.output;
    let pages_dir = out.join("s");
    std::fs::create_dir_all(&pages_dir)
        .map_err(|e| CliError::new(format!("{}: {e}", pages_dir.display())))?;
    let old = if args.force {
        Manifest::default()
    } else {
        Manifest::read(out)
    };
    let site = Site::new(ctx.store.dir(), &records);
    let existing: std::collections::HashSet<String> = std::fs::read_dir(&pages_dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    let mut written = write_pages(ctx, &records, &old, (&site, &existing), &pages_dir);
    let removed = old.remove_gone(&pages_dir, &site.by_id);
    let rows: Vec<Row> = records.iter().map(row).collect();
    let mut warnings = std::mem::take(&mut written.warnings);
    let has_workflows = match &args.workflows {
        Some(dir) => workflows::write(dir, out, &mut warnings)? > 0,
        None => false,
    };
    write_indexes(out, &rows, has_workflows)?;
    // One durability point for every page: a crash of the machine before
    // it leaves the old manifest, which makes the pages again.
    if written.count > 0 {
        crucible_core::store::atomic::sync_file_system(out)
            .map_err(|e| CliError::new(format!("{}: {e}", out.display())))?;
    }
    written.manifest.write(out)?;
    let pages = format!(
        "{} {}",
        written.count,
        crate::render::plural(written.count, "page", "pages")
    );
    let removed = if removed > 0 {
        format!(", {removed} removed")
    } else {
        String::new()
    };
    eprintln!(
        "{}: {} sessions, {pages} written, {} unchanged{removed}",
        out.display(),
        records.len(),
        records.len() - written.count,
    );
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(if warnings.is_empty() {
        found.outcome
    } else {
        Outcome::Skipped
    })
}

/// What [`write_pages`] did (or one thread's share of it).
#[derive(Default)]
struct Written {
    count: usize,
    manifest: Manifest,
    warnings: Vec<String>,
}

/// Writes the page of every session whose key changed, on every core.
fn write_pages(
    ctx: &Context,
    records: &[SessionRecord],
    old: &Manifest,
    (site, existing): (&Site<'_>, &std::collections::HashSet<String>),
    pages_dir: &Path,
) -> Written {
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let chunk = records.len().div_ceil(threads).max(1);
    let shares: Vec<Written> = std::thread::scope(|s| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .map(|part| s.spawn(move || page_share(ctx, part, old, (site, existing), pages_dir)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut written = Written::default();
    for share in shares {
        written.count += share.count;
        written.manifest.merge(share.manifest);
        written.warnings.extend(share.warnings);
    }
    written
}

/// One thread's share of [`write_pages`].
fn page_share(
    ctx: &Context,
    part: &[SessionRecord],
    old: &Manifest,
    (site, existing): (&Site<'_>, &std::collections::HashSet<String>),
    pages_dir: &Path,
) -> Written {
    let mut share = Written::default();
    for record in part {
        let name = format!("{}.html", record.id);
        let page = pages_dir.join(&name);
        // A page found by one listing of the folder, not a `stat` each.
        if !record.live
            && existing.contains(&name)
            && let Some(key) = old.unchanged(&record.id, &|id| site.stamp(id))
        {
            share.manifest.insert(record.id.clone(), key);
            continue;
        }
        match render(ctx, record, site) {
            Ok((html, key)) => {
                // Not synced one by one: the run ends with one sync before
                // the manifest that says the pages are made (`run`).
                match crucible_core::store::atomic::write_atomic_with(
                    &page,
                    &[html.as_bytes()],
                    crucible_core::store::atomic::Durability::Deferred,
                ) {
                    Ok(()) => {
                        share.count += 1;
                        share.manifest.insert(record.id.clone(), key);
                    }
                    Err(e) => share.warnings.push(format!("{}: {e}", page.display())),
                }
            }
            Err(e) => share
                .warnings
                .push(format!("{}: {e}; its page is left out", record.path)),
        }
    }
    share
}

/// The page of one session and the key it was made from.
fn render(
    ctx: &Context,
    record: &SessionRecord,
    site: &Site<'_>,
) -> anyhow::Result<(String, PageKey)> {
    let path = ctx.store.dir().join(&record.path);
    let log = ctx.store.load_path(&path)?;
    let data = ctx.store.load_data_for(&path, &log).ok().flatten();
    let neighbours = SiteNeighbours::new(ctx, site);
    let html = crucible_view::SessionPage {
        log: &log,
        data: data.as_ref(),
        figures: None,
        neighbours: &neighbours,
        home: Some("../index.html"),
    }
    .render();
    let own = site.stamp(&record.id).unwrap_or_default();
    Ok((html, PageKey::new(own, neighbours.asked())))
}

fn row(r: &SessionRecord) -> Row {
    Row {
        id: r.id.clone(),
        title: r.title.clone().unwrap_or_default(),
        status: r.status.as_str().to_owned(),
        agents: agents_of(r),
        project: r.project.clone().unwrap_or_default(),
        started: r.started.clone(),
        duration_ms: r.duration_ms.unwrap_or(0),
        tokens: r
            .usage
            .iter()
            .map(crucible_core::UsageLine::total)
            .sum::<u64>()
            .max(r.tokens_used.unwrap_or(0)),
    }
}

/// The index pages and `sessions.js`, each written only when it changed.
fn write_indexes(out: &Path, rows: &[Row], workflows: bool) -> anyhow::Result<()> {
    let pages = rows.len().div_ceil(site::ROWS_PER_PAGE).max(1);
    let title = "Sessions";
    for n in 1..=pages {
        let share = rows
            .chunks(site::ROWS_PER_PAGE)
            .nth(n - 1)
            .unwrap_or_default();
        let html = site::index_page(title, share, (n, pages), rows.len(), workflows);
        write_if_changed(&out.join(site::index_name(n)), html.as_bytes())?;
    }
    // Index pages of an earlier, longer run.
    let mut n = pages + 1;
    while std::fs::remove_file(out.join(site::index_name(n))).is_ok() {
        n += 1;
    }
    write_if_changed(
        &out.join("sessions.js"),
        site::sessions_script(rows).as_bytes(),
    )
}

pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    crucible_core::store::atomic::write_atomic_with(
        path,
        &[bytes],
        crucible_core::store::atomic::Durability::Deferred,
    )
    .map_err(|e| CliError::new(format!("{}: {e}", path.display())).into())
}
