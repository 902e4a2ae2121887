//! The index pages and `sessions.js` of a site, each written again only
//! when what it shows changed.
//!
//! Every run keys each index page by the xxh3 of its rows (every field of
//! each, through `Row`'s `Hash`, so a field added to the row is in the
//! key) with everything else the page shows (its number, the number of
//! pages, the total, the workflows link, the version of cru that drew it);
//! `sessions.js` by the xxh3 of all the rows. The keys are kept in
//! `<site>/.cru-site-index`; a file whose key is unchanged and that is
//! still there is not drawn again. At 100,000 sessions that is 200 pages
//! and 15 MB of script not rendered, read back and compared on a run
//! where one session changed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::Hash;
use std::path::Path;

use crucible_index::SessionRecord;
use crucible_view::site::{self, Row};
use xxhash_rust::xxh3::Xxh3;

use crate::commands::session::query::agents_of;

const NAME: &str = ".cru-site-index";
const SCRIPT: &str = "sessions.js";

fn header() -> String {
    format!("cru-site-index 1 {}", env!("CARGO_PKG_VERSION"))
}

/// What [`write`] drew, and the keys to keep once it is durable.
pub struct Drawn {
    /// Some file was written: the caller syncs before [`Drawn::save`].
    pub wrote: bool,
    keys: Vec<(String, u128)>,
    changed: bool,
}

impl Drawn {
    /// Keeps the keys for the next run (when they changed). Only after
    /// the files they describe are durable: a key that outlived its file
    /// in a crash would keep a torn page.
    pub fn save(&self, out: &Path) -> anyhow::Result<()> {
        if self.changed {
            write_keys(out, &self.keys)?;
        }
        Ok(())
    }
}

/// Writes the index pages and `sessions.js` of `records` (newest first)
/// into `out`, those whose key changed (every one when `force`).
pub fn write(
    out: &Path,
    records: &[SessionRecord],
    workflows: bool,
    force: bool,
) -> anyhow::Result<Drawn> {
    let old = if force { HashMap::new() } else { read(out) };
    let rows: Vec<Row<'_>> = records.iter().map(row).collect();
    let pages = rows.len().div_ceil(site::ROWS_PER_PAGE).max(1);
    let mut keys = Vec::with_capacity(pages + 1);
    let mut wrote = false;
    let mut all = Xxh3::new();
    rows.len().hash(&mut all);
    for n in 1..=pages {
        let first = (n - 1) * site::ROWS_PER_PAGE;
        let share = &rows[first..(first + site::ROWS_PER_PAGE).min(rows.len())];
        let mut key = Xxh3::new();
        (n, pages, rows.len(), workflows).hash(&mut key);
        for r in share {
            r.hash(&mut key);
            r.hash(&mut all);
        }
        let name = site::index_name(n);
        let key = key.digest128();
        if old.get(&name) != Some(&key) || !out.join(&name).is_file() {
            let html = site::index_page("Sessions", share, (n, pages), rows.len(), workflows);
            wrote |= super::write_if_changed(&out.join(&name), html.as_bytes())?;
        }
        keys.push((name, key));
    }
    // Index pages of an earlier, longer run.
    let mut n = pages + 1;
    while std::fs::remove_file(out.join(site::index_name(n))).is_ok() {
        n += 1;
    }
    let key = all.digest128();
    if old.get(SCRIPT) != Some(&key) || !out.join(SCRIPT).is_file() {
        wrote |=
            super::write_if_changed(&out.join(SCRIPT), site::sessions_script(&rows).as_bytes())?;
    }
    keys.push((SCRIPT.to_owned(), key));
    // The index pages' own script: small, compared byte for byte.
    wrote |= super::write_if_changed(&out.join("site.js"), site::SCRIPT.as_bytes())?;
    let changed =
        keys.len() != old.len() || keys.iter().any(|(name, key)| old.get(name) != Some(key));
    Ok(Drawn {
        wrote,
        keys,
        changed,
    })
}

/// The index's row of one session.
fn row(r: &SessionRecord) -> Row<'_> {
    Row {
        id: &r.id,
        title: r.title.as_deref().unwrap_or_default(),
        status: r.status.as_str(),
        agents: if r.participants.len() + r.agents.len() == 1 {
            Cow::Borrowed(r.all_agents().next().unwrap_or_default())
        } else {
            Cow::Owned(agents_of(r))
        },
        project: r.project.as_deref().unwrap_or_default(),
        started: &r.started,
        duration_ms: r.duration_ms.unwrap_or(0),
        tokens: r
            .usage
            .iter()
            .map(crucible_core::UsageLine::total)
            .sum::<u64>()
            .max(r.tokens_used.unwrap_or(0)),
    }
}

/// The keys of the last run; none when there are none or they do not read
/// (every file is then drawn again).
fn read(out: &Path) -> HashMap<String, u128> {
    let Ok(text) = std::fs::read_to_string(out.join(NAME)) else {
        return HashMap::new();
    };
    let mut lines = text.lines();
    if lines.next() != Some(header().as_str()) {
        return HashMap::new();
    }
    lines
        .filter_map(|line| {
            let (name, key) = line.split_once('\t')?;
            Some((name.to_owned(), u128::from_str_radix(key, 16).ok()?))
        })
        .collect()
}

fn write_keys(out: &Path, keys: &[(String, u128)]) -> anyhow::Result<()> {
    let mut text = header();
    text.push('\n');
    for (name, key) in keys {
        text.push_str(&format!("{name}\t{key:032x}\n"));
    }
    let path = out.join(NAME);
    // Not synced, as the manifest (`manifest.rs`): a key lost in a crash
    // only draws its file again.
    crucible_core::store::atomic::write_atomic_with(
        &path,
        &[text.as_bytes()],
        crucible_core::store::atomic::Durability::Deferred,
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}
