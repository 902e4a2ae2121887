//! `cru site [-o DIR] [filters]`: the sessions directory as a static site
//! (crucible-view's `site`): index pages, a page per session, the data the
//! index's filter searches. A second run writes only the pages whose
//! session, sidecar or linked sessions changed (`site/manifest.rs`).

mod indexes;
mod manifest;
mod neighbours;
mod workflows;

use foldhash::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use clap::Args;
use crucible_index::SessionRecord;

use self::manifest::{Manifest, PageKey};
use self::neighbours::{Site, SiteNeighbours};
use super::session::query::{FilterArgs, records};
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
    let out = &args.output;
    claim(out, args.force)?;
    let pages_dir = out.join("s");
    std::fs::create_dir_all(&pages_dir)
        .map_err(|e| CliError::new(format!("{}: {e}", pages_dir.display())))?;
    // What the last run made is read while the index is visited.
    // Every session is read, and the filters applied here: a page links a
    // session the filters leave out to its file rather than calling it
    // missing.
    let (found, (old, existing)) = std::thread::scope(|s| {
        let last = s.spawn(|| last_run(out, &pages_dir, args.force));
        let found = records(ctx, &crucible_index::Filter::default());
        (found, last.join().unwrap_or_default())
    });
    let found = found?;
    let (taken, left): (Vec<_>, Vec<_>) = found
        .tally
        .into_iter()
        .partition(|r| filter.matches(&crucible_index::Facts::of(r)));
    let (records, mut warnings) = one_per_id(crucible_index::query::sort_newest_first(taken, None));
    let site = Site::new(ctx.store.dir(), &records, &left, &pages_dir);
    let mut written = write_pages(ctx, &records, &old, (&site, &existing), &pages_dir);
    let removed = old.remove_gone(&pages_dir, &site.by_id);
    warnings.append(&mut written.warnings);
    let has_workflows = match &args.workflows {
        Some(dir) => workflows::write(dir, out, &mut warnings)? > 0,
        None => false,
    };
    let drawn = indexes::write(out, &records, has_workflows, args.force)?;
    // One durability point for every page: a crash of the machine before
    // it leaves the old manifest and keys, which make the pages again.
    if written.count > 0 || drawn.wrote {
        crucible_core::store::atomic::sync_file_system(out)
            .map_err(|e| CliError::new(format!("{}: {e}", out.display())))?;
    }
    let same = written.count == 0
        && written.failed.is_empty()
        && removed == 0
        && old.len() == records.len();
    if same {
        left_to_exit(old);
    } else {
        let mut manifest = old;
        manifest.retain(|id| site.by_id.contains_key(id) && !written.failed.contains(id));
        manifest.merge(written.manifest);
        manifest.write(out)?;
        left_to_exit(manifest);
    }
    drawn.save(out)?;
    report(out, records.len(), written.count, removed, &warnings);
    left_to_exit((site, existing));
    left_to_exit((records, left));
    Ok(if warnings.is_empty() {
        found.outcome
    } else {
        Outcome::Skipped
    })
}

/// The run's summary and warnings, on stderr.
fn report(out: &Path, sessions: usize, written: usize, removed: usize, warnings: &[String]) {
    let pages = format!(
        "{written} {}",
        crate::render::plural(written, "page", "pages")
    );
    let removed = if removed > 0 {
        format!(", {removed} removed")
    } else {
        String::new()
    };
    eprintln!(
        "{}: {sessions} sessions, {pages} written, {} unchanged{removed}",
        out.display(),
        sessions - written,
    );
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// Makes `out` a site folder, or checks that it is one: a folder that
/// holds files and no manifest was not written by cru, and its
/// `index.html` is not ours to replace without `--force`. A new or empty
/// folder gets a manifest at once, so that a first run cut short is still
/// known for a site.
fn claim(out: &Path, force: bool) -> anyhow::Result<()> {
    if std::fs::metadata(out).is_ok_and(|m| !m.is_dir()) {
        return Err(CliError::usage(format!(
            "-o {}: is a file; cru site writes a folder",
            out.display()
        ))
        .into());
    }
    if manifest::exists(out) {
        return Ok(());
    }
    let holds_files = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
    if holds_files && !force {
        return Err(CliError::new(format!(
            "{}: holds files cru did not write (no site of cru's is there)",
            out.display()
        ))
        .with_hint("name a new folder, or pass --force to write the site over them")
        .into());
    }
    std::fs::create_dir_all(out).map_err(|e| CliError::new(format!("{}: {e}", out.display())))?;
    Manifest::default().write(out)
}

/// The records with one per id: a page is named by its session's id, so a
/// second file declaring an id (a copy, a link inside the directory) is
/// left out of the site, with a warning naming both files. The file kept
/// is the first by path, whatever order the index gave.
fn one_per_id(records: Vec<SessionRecord>) -> (Vec<SessionRecord>, Vec<String>) {
    let mut first: HashMap<&str, &str> = HashMap::default();
    for r in &records {
        first
            .entry(&r.id)
            .and_modify(|p| *p = (*p).min(r.path.as_str()))
            .or_insert(&r.path);
    }
    let mut warnings = Vec::new();
    let mut left_out = HashSet::default();
    for r in &records {
        let shown = first[r.id.as_str()];
        if shown != r.path {
            warnings.push(format!(
                "{}: declares the id {} of {shown}, whose page the site has; left out",
                r.path, r.id
            ));
            left_out.insert(r.path.clone());
        }
    }
    let kept = records
        .into_iter()
        .filter(|r| !left_out.contains(&r.path))
        .collect();
    (kept, warnings)
}

/// The manifest of the last run and the pages there now (from one
/// listing of the folder, not a `stat` each); nothing with `force`.
fn last_run(out: &Path, pages_dir: &Path, force: bool) -> (Manifest, HashSet<String>) {
    if force {
        return Default::default();
    }
    let existing = std::fs::read_dir(pages_dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter_map(|name| name.strip_suffix(".html").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (Manifest::read(out), existing)
}

/// Leaves `value` to the end of the process instead of freeing it: `cru
/// site` returns to exit, and freeing 100,000 records and their manifest
/// entries one by one took a twentieth of a second run.
fn left_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// What [`write_pages`] did (or one thread's share of it).
#[derive(Default)]
struct Written {
    count: usize,
    /// The keys of the pages written (those unchanged keep theirs).
    manifest: Manifest,
    /// Sessions whose page could not be made: their old keys are dropped,
    /// so the next run tries again.
    failed: HashSet<String>,
    warnings: Vec<String>,
}

/// Writes the page of every session whose key changed, on every core.
fn write_pages(
    ctx: &Context,
    records: &[SessionRecord],
    old: &Manifest,
    (site, existing): (&Site<'_>, &HashSet<String>),
    pages_dir: &Path,
) -> Written {
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let chunk = records.len().div_ceil(threads).max(1);
    let shares: Vec<Written> = std::thread::scope(|s| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .map(|part| s.spawn(|| page_share(ctx, part, old, (site, existing), pages_dir)))
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
        written.failed.extend(share.failed);
        written.warnings.extend(share.warnings);
    }
    written
}

/// One thread's share of [`write_pages`].
fn page_share(
    ctx: &Context,
    part: &[SessionRecord],
    old: &Manifest,
    (site, existing): (&Site<'_>, &HashSet<String>),
    pages_dir: &Path,
) -> Written {
    let mut share = Written::default();
    let mut stamp = String::new();
    let stamp_of = |id: &str, out: &mut String| site.stamp_into(id, out);
    for record in part {
        if !record.live
            && existing.contains(&record.id)
            && old.unchanged(&record.id, &stamp_of, &mut stamp)
        {
            continue;
        }
        let page = pages_dir.join(format!("{}.html", record.id));
        let made = render(ctx, record, site).and_then(|(html, key)| {
            // Not synced one by one: the run ends with one sync before
            // the manifest that says the pages are made (`run`).
            crucible_core::store::atomic::write_atomic_with(
                &page,
                &[html.as_bytes()],
                crucible_core::store::atomic::Durability::Deferred,
            )
            .map_err(|e| anyhow::anyhow!("{}: {e}", page.display()))?;
            Ok(key)
        });
        match made {
            Ok(key) => {
                share.count += 1;
                share.manifest.insert(record.id.clone(), key);
            }
            Err(e) => {
                share.failed.insert(record.id.clone());
                share
                    .warnings
                    .push(format!("{}: {e}; its page is left out", record.path));
            }
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
        first_phase: 1,
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

/// Writes `bytes` to `path` unless it holds them already; whether it wrote.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> anyhow::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    crucible_core::store::atomic::write_atomic_with(
        path,
        &[bytes],
        crucible_core::store::atomic::Durability::Deferred,
    )
    .map(|()| true)
    .map_err(|e| CliError::new(format!("{}: {e}", path.display())).into())
}
