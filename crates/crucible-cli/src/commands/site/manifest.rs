//! What each page of a site was made from (`<site>/.cru-site`), so that a
//! second run writes only the pages whose inputs changed.
//!
//! A line per session: its id, the stamp of its file and sidecar, then
//! each session its page asked about (linked or embedded) with that
//! session's stamp, or `-` when it was not in the site. A page is made
//! again when any of these differs now, when its file is missing, or when
//! the manifest was written by another version of cru (pages would look
//! different).

use foldhash::HashMap;
use std::path::Path;

use crucible_index::SessionRecord;

const NAME: &str = ".cru-site";

/// What one page was made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageKey {
    own: String,
    refs: Vec<(String, Option<String>)>,
}

impl PageKey {
    pub fn new(own: String, refs: Vec<(String, Option<String>)>) -> Self {
        Self { own, refs }
    }
}

#[derive(Debug, Default)]
pub struct Manifest {
    pages: HashMap<String, PageKey>,
}

fn header() -> String {
    format!("cru-site 1 {}", env!("CARGO_PKG_VERSION"))
}

/// Whether `out` holds a manifest (of any version): a site cru made.
pub fn exists(out: &Path) -> bool {
    std::fs::read(out.join(NAME)).is_ok_and(|bytes| bytes.starts_with(b"cru-site "))
}

impl Manifest {
    /// The manifest of the site in `out`; an empty one when there is none
    /// or it cannot be read (every page is then made).
    pub fn read(out: &Path) -> Self {
        let Ok(text) = std::fs::read_to_string(out.join(NAME)) else {
            return Self::default();
        };
        let mut lines = text.lines();
        if lines.next() != Some(header().as_str()) {
            return Self::default();
        }
        let pages = lines
            .filter_map(|line| {
                let mut fields = line.split('\t');
                let id = fields.next()?.to_owned();
                let own = fields.next()?.to_owned();
                let refs = fields
                    .map(|f| {
                        let (id, stamp) = f.split_once('=')?;
                        Some((id.to_owned(), (stamp != "-").then(|| stamp.to_owned())))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some((id, PageKey { own, refs }))
            })
            .collect();
        Self { pages }
    }

    /// How many pages the manifest names.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether nothing session `id`'s page was made from changed: `stamp`
    /// writes each session's stamp now into the buffer it is given (false
    /// when the session is not in the site), `buffer` is reused so that
    /// asking this of 100,000 pages allocates nothing.
    pub fn unchanged(
        &self,
        id: &str,
        stamp: &dyn Fn(&str, &mut String) -> bool,
        buffer: &mut String,
    ) -> bool {
        let Some(key) = self.pages.get(id) else {
            return false;
        };
        let mut same = |id: &str, then: Option<&str>| {
            let there = stamp(id, buffer);
            match then {
                Some(then) => there && buffer == then,
                None => !there,
            }
        };
        same(id, Some(&key.own)) && key.refs.iter().all(|(r, then)| same(r, then.as_deref()))
    }

    pub fn insert(&mut self, id: String, key: PageKey) {
        self.pages.insert(id, key);
    }

    pub fn merge(&mut self, other: Manifest) {
        self.pages.extend(other.pages);
    }

    /// Keeps only the pages `keep` says yes to.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.pages.retain(|id, _| keep(id));
    }

    /// Removes the pages of sessions no longer in the site; how many.
    pub fn remove_gone(&self, pages_dir: &Path, now: &HashMap<&str, &SessionRecord>) -> usize {
        self.pages
            .keys()
            .filter(|id| !now.contains_key(id.as_str()))
            .filter(|id| std::fs::remove_file(pages_dir.join(format!("{id}.html"))).is_ok())
            .count()
    }

    pub fn write(&self, out: &Path) -> anyhow::Result<()> {
        let mut ids: Vec<&String> = self.pages.keys().collect();
        ids.sort();
        let mut text = header();
        text.push('\n');
        for id in ids {
            let key = &self.pages[id];
            text.push_str(id);
            text.push('\t');
            text.push_str(&key.own);
            for (r, stamp) in &key.refs {
                text.push('\t');
                text.push_str(r);
                text.push('=');
                text.push_str(stamp.as_deref().unwrap_or("-"));
            }
            text.push('\n');
        }
        let path = out.join(NAME);
        // Not synced: the pages it names were made durable before it, and
        // a manifest lost or cut short by a crash only makes the pages it
        // no longer names again (a line that does not read is left out,
        // another version's header is ignored).
        crucible_core::store::atomic::write_atomic_with(
            &path,
            &[text.as_bytes()],
            crucible_core::store::atomic::Durability::Deferred,
        )
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
}
