//! The sessions a site page may link to, and which ones it asked about.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crucible_core::store::names;
use crucible_core::{SessionData, SessionLog};
use crucible_index::SessionRecord;
use crucible_view::Neighbours;

use crate::context::Context;

/// The sessions the site holds, by id.
pub struct Site<'a> {
    pub dir: &'a Path,
    pub by_id: HashMap<&'a str, &'a SessionRecord>,
    /// The sidecars of the sessions directory (paths relative to it), from
    /// one listing of each folder: most sessions have none, and a `stat`
    /// of each absent one was a third of a second run at 100,000.
    pub sidecars: HashSet<String>,
}

impl<'a> Site<'a> {
    pub fn new(dir: &'a Path, records: &'a [SessionRecord]) -> Self {
        let by_id = records.iter().map(|r| (r.id.as_str(), r)).collect();
        let folders: HashSet<&str> = records
            .iter()
            .map(|r| r.path.rsplit_once('/').map_or("", |(folder, _)| folder))
            .collect();
        let mut sidecars = HashSet::new();
        for folder in folders {
            let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
                continue;
            };
            for name in entries.flatten().map(|e| e.file_name()) {
                if let Some(name) = name.to_str().filter(|n| names::is_sidecar(n)) {
                    sidecars.insert(if folder.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{folder}/{name}")
                    });
                }
            }
        }
        Self {
            dir,
            by_id,
            sidecars,
        }
    }

    /// What a page of session `id` depends on of its files: the session
    /// file's stamp and its sidecar's; `None` when it is not in the site.
    pub fn stamp(&self, id: &str) -> Option<String> {
        let r = self.by_id.get(id)?;
        let path = self.dir.join(&r.path);
        // The index's stamp, proven fresh by the visit that listed the
        // session, unless it says "look again" (a change within a clock
        // tick of its stat): then the file itself.
        let own = if r.stamp.ctime_ns == 0 {
            std::fs::metadata(&path).map_or_else(|_| "-".to_owned(), |m| stamp_of(&m))
        } else {
            let s = &r.stamp;
            format!("{}:{}:{}:{}", s.size, s.mtime_ns, s.ino, s.ctime_ns)
        };
        let sidecar = names::sidecar(Path::new(&r.path));
        let side = if self.sidecars.contains(sidecar.to_string_lossy().as_ref()) {
            std::fs::metadata(self.dir.join(&sidecar))
                .map_or_else(|_| "-".to_owned(), |m| stamp_of(&m))
        } else {
            "-".to_owned()
        };
        Some(format!("{own}+{side}"))
    }
}

fn stamp_of(m: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    format!(
        "{}:{}:{}:{}",
        m.len(),
        m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        m.ino(),
        m.ctime() * 1_000_000_000 + m.ctime_nsec()
    )
}

/// A page's view of the site, noting every session it asked about (a link
/// to it, or its content embedded) with that session's stamp: the page is
/// made again when one of them changes, appears or goes.
pub struct SiteNeighbours<'a> {
    ctx: &'a Context,
    site: &'a Site<'a>,
    asked: RefCell<Vec<(String, Option<String>)>>,
}

impl<'a> SiteNeighbours<'a> {
    pub fn new(ctx: &'a Context, site: &'a Site<'a>) -> Self {
        Self {
            ctx,
            site,
            asked: RefCell::new(Vec::new()),
        }
    }

    /// Every session asked about, once, with its stamp then.
    pub fn asked(&self) -> Vec<(String, Option<String>)> {
        let mut asked = self.asked.take();
        asked.sort();
        asked.dedup();
        asked
    }

    fn note(&self, id: &str) -> Option<String> {
        let stamp = self.site.stamp(id);
        self.asked.borrow_mut().push((id.to_owned(), stamp.clone()));
        stamp
    }
}

impl Neighbours for SiteNeighbours<'_> {
    fn href(&self, id: &str) -> Option<String> {
        self.note(id).map(|_| format!("{id}.html"))
    }

    fn embedded(&self, id: &str) -> Option<(SessionLog, Option<SessionData>)> {
        self.note(id)?;
        let record = self.site.by_id.get(id)?;
        let path = self.site.dir.join(&record.path);
        let log = self.ctx.store.load_path(&path).ok()?;
        let data = self.ctx.store.load_data_for(&path, &log).ok().flatten();
        Some((log, data))
    }
}
