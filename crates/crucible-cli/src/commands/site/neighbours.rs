//! The sessions a site page may link to, and which ones it asked about.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use crucible_core::{SessionData, SessionLog};
use crucible_index::SessionRecord;
use crucible_view::Neighbours;

use crate::context::Context;

/// The sessions the site holds, by id.
pub struct Site<'a> {
    pub dir: &'a Path,
    pub by_id: HashMap<&'a str, &'a SessionRecord>,
}

impl Site<'_> {
    /// What a page of session `id` depends on of its files: the session
    /// file's stamp and its sidecar's; `None` when it is not in the site.
    pub fn stamp(&self, id: &str) -> Option<String> {
        use std::os::unix::fs::MetadataExt;
        let r = self.by_id.get(id)?;
        let path = self.dir.join(&r.path);
        // The files as they are now (not the index's stamps, which may
        // say "look again" for a file changed within a clock tick).
        let of = |m: &std::fs::Metadata| {
            format!(
                "{}:{}.{}:{}:{}.{}",
                m.len(),
                m.mtime(),
                m.mtime_nsec(),
                m.ino(),
                m.ctime(),
                m.ctime_nsec()
            )
        };
        let own = std::fs::metadata(&path).map_or_else(|_| "-".to_owned(), |m| of(&m));
        let side = std::fs::metadata(crucible_core::store::names::sidecar(&path))
            .map_or_else(|_| "-".to_owned(), |m| of(&m));
        Some(format!("{own}+{side}"))
    }
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
