//! The sessions a site page may link to, and which ones it asked about.

use foldhash::{HashMap, HashSet};
use std::cell::RefCell;
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
    /// The sessions of the directory that have a sidecar, as their paths
    /// without the extension, from one listing of each folder: most
    /// sessions have none, and a `stat` of each absent one was a third of
    /// a second run at 100,000.
    with_sidecar: HashSet<String>,
    /// Sessions of the directory the filters left out of the site, by id:
    /// linked to their files.
    elsewhere: HashMap<&'a str, &'a str>,
    /// Where the site's pages are, for links from them to session files.
    pages_dir: &'a Path,
}

impl<'a> Site<'a> {
    pub fn new(
        dir: &'a Path,
        records: &'a [SessionRecord],
        left_out: &'a [SessionRecord],
        pages_dir: &'a Path,
    ) -> Self {
        let by_id = records.iter().map(|r| (r.id.as_str(), r)).collect();
        let elsewhere = left_out
            .iter()
            .map(|r| (r.id.as_str(), r.path.as_str()))
            .collect();
        let folders: HashSet<&str> = records
            .iter()
            .map(|r| r.path.rsplit_once('/').map_or("", |(folder, _)| folder))
            .collect();
        let mut with_sidecar = HashSet::default();
        for folder in folders {
            let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
                continue;
            };
            for name in entries.flatten().map(|e| e.file_name()) {
                if let Some(stem) = name.to_str().and_then(names::sidecar_of) {
                    with_sidecar.insert(if folder.is_empty() {
                        stem.to_owned()
                    } else {
                        format!("{folder}/{stem}")
                    });
                }
            }
        }
        Self {
            dir,
            by_id,
            with_sidecar,
            elsewhere,
            pages_dir,
        }
    }

    /// The file of a session the filters left out of the site, from the
    /// pages' folder.
    fn file_link(&self, id: &str) -> Option<String> {
        let path = self.dir.join(self.elsewhere.get(id)?);
        let relative = crate::commands::session::show::html::relative_path(self.pages_dir, &path)?;
        Some(relative.to_string_lossy().into_owned())
    }

    /// What a page of session `id` depends on of its files: the session
    /// file's stamp and its sidecar's; `None` when it is not in the site.
    pub fn stamp(&self, id: &str) -> Option<String> {
        let mut stamp = String::new();
        self.stamp_into(id, &mut stamp).then_some(stamp)
    }

    /// [`Site::stamp`] written into `out` (cleared first), without
    /// allocating: a second run asks this of every session; false when
    /// `id` is not in the site.
    pub fn stamp_into(&self, id: &str, out: &mut String) -> bool {
        use std::fmt::Write;
        out.clear();
        let Some(r) = self.by_id.get(id) else {
            return false;
        };
        // The index's stamp, proven fresh by the visit that listed the
        // session, unless it says "look again" (a change within a clock
        // tick of its stat): then the file itself.
        if r.stamp.ctime_ns == 0 {
            match std::fs::metadata(self.dir.join(&r.path)) {
                Ok(m) => push_stamp(out, &m),
                Err(_) => out.push('-'),
            }
        } else {
            let s = &r.stamp;
            let _ = write!(out, "{}:{}:{}:{}", s.size, s.mtime_ns, s.ino, s.ctime_ns);
        }
        out.push('+');
        if self.with_sidecar.contains(without_extension(&r.path)) {
            match std::fs::metadata(self.dir.join(names::sidecar(Path::new(&r.path)))) {
                Ok(m) => push_stamp(out, &m),
                Err(_) => out.push('-'),
            }
        } else {
            out.push('-');
        }
        true
    }
}

/// `a/b.md` → `a/b`, as the file stem a sidecar is named after.
fn without_extension(path: &str) -> &str {
    let name_at = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_at..].rfind('.') {
        Some(dot) if dot > 0 => &path[..name_at + dot],
        _ => path,
    }
}

fn push_stamp(out: &mut String, m: &std::fs::Metadata) {
    use std::fmt::Write;
    use std::os::unix::fs::MetadataExt;
    let _ = write!(
        out,
        "{}:{}:{}:{}",
        m.len(),
        m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        m.ino(),
        m.ctime() * 1_000_000_000 + m.ctime_nsec()
    );
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
        match self.note(id) {
            Some(_) => Some(format!("{id}.html")),
            None => self.site.file_link(id),
        }
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

#[cfg(test)]
mod tests {
    use super::without_extension;

    #[test]
    fn a_path_without_its_extension_is_what_a_sidecar_is_named_after() {
        for (path, stem) in [
            ("a.md", "a"),
            ("dir/a.b.md", "dir/a.b"),
            ("dir.x/a", "dir.x/a"),
            ("dir/.md", "dir/.md"),
            ("plain", "plain"),
        ] {
            assert_eq!(without_extension(path), stem, "{path}");
            let sidecar = crucible_core::store::names::sidecar(std::path::Path::new(path));
            let name = sidecar.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
            let from_sidecar = crucible_core::store::names::sidecar_of(name).map(|s| {
                if folder.is_empty() {
                    s.to_owned()
                } else {
                    format!("{folder}/{s}")
                }
            });
            assert_eq!(from_sidecar.as_deref(), Some(stem), "{path}");
        }
    }
}
