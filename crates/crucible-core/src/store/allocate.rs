//! Fresh session ids: `YYYY-MM-DD-<slug>`, unique even under concurrent creation.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::{SessionCodec, SessionStore, StoreError, session_files, stem};
use crate::{SessionId, SessionLog, Timestamp};

/// The longest slug taken from a title, in characters.
const MAX_SLUG: usize = 48;

/// The longest slug in bytes: 48 letters of four bytes each (`𝐀`) are
/// 192, and with the date and a `-N` suffix the id would pass the 200
/// bytes an id may have ([`SessionId`]).
const MAX_SLUG_BYTES: usize = 160;

/// A file-name-safe slug of a title: lower case letters and digits joined by
/// single dashes; `session` when nothing is left.
pub fn slugify(title: &str) -> String {
    // From the redacted title: an id is in every list, export and log line,
    // so a key pasted into a title must not become part of it.
    let title = crucible_redact::Redactor::shared().redact(title);
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if slug.len() + c.len_utf8() > MAX_SLUG_BYTES {
            break;
        }
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.chars().count() >= MAX_SLUG {
            break;
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "session".to_owned()
    } else {
        slug.to_owned()
    }
}

/// Fresh ids for many new sessions, from one look at the directory: a
/// bulk import creates thousands, and scanning the tree for each would make
/// it quadratic. Ids of files in subfolders count too, so an id is never
/// given twice in one directory tree; the top-level name itself is claimed
/// atomically by `create`, which is what settles races between processes
/// (a file another process puts in a subfolder meanwhile is not seen).
#[derive(Debug)]
pub struct IdAllocator {
    taken: HashSet<String>,
    /// `YYYY-MM-DD-<slug>` → the first suffix not yet tried for it: many
    /// sessions of one title and day (a transcript's thousands of subagent
    /// runs) would otherwise try every suffix given before, each time.
    next_suffix: HashMap<String, u32>,
}

impl IdAllocator {
    /// The ids taken in `store` now: every session file's name, and the id
    /// each declares (a file may be named otherwise than its id: copied,
    /// renamed, or an imported agent's own name), so that a new session
    /// never shares an id with an old one.
    pub fn new<C: SessionCodec>(store: &SessionStore<C>) -> Result<Self, StoreError> {
        let files = session_files(store.dir()).map_err(|source| StoreError::Io {
            path: store.dir().to_owned(),
            source,
        })?;
        let mut taken: HashSet<String> = files.iter().map(|p| stem(p).to_lowercase()).collect();
        taken.extend(
            store
                .scan()
                .into_iter()
                .filter_map(Result::ok)
                .map(|f| f.id.as_str().to_lowercase()),
        );
        Ok(Self {
            taken,
            next_suffix: HashMap::new(),
        })
    }

    /// Creates a session with a fresh `YYYY-MM-DD-<slug>` id; see
    /// [`SessionStore::create_new`].
    pub fn create_new<C: SessionCodec>(
        &mut self,
        store: &SessionStore<C>,
        started: &Timestamp,
        title: Option<&str>,
        build: &mut dyn FnMut(SessionId) -> SessionLog,
    ) -> Result<(PathBuf, SessionLog), StoreError> {
        let base = format!("{}-{}", started.utc_day(), slugify(title.unwrap_or("")));
        let from = self.next_suffix.get(&base).copied().unwrap_or(1);
        let (path, log, n) = create_with_fresh_id(store, &self.taken, &base, from, build)?;
        self.taken.insert(log.id().as_str().to_lowercase());
        self.next_suffix.insert(base, n.saturating_add(1));
        Ok((path, log))
    }
}

/// Creates the session `build` makes under the first free id of `base`
/// (`base`, then `base-2`, `base-3`, ...), trying suffixes from `from` on;
/// the session, and the suffix it got (1 for `base` itself).
fn create_with_fresh_id<C: SessionCodec>(
    store: &SessionStore<C>,
    taken: &HashSet<String>,
    base: &str,
    from: u32,
    build: &mut dyn FnMut(SessionId) -> SessionLog,
) -> Result<(PathBuf, SessionLog, u32), StoreError> {
    for n in from.. {
        let candidate = if n == 1 {
            base.to_owned()
        } else {
            format!("{base}-{n}")
        };
        if taken.contains(&candidate) {
            continue;
        }
        let log = build(SessionId::new(&candidate)?);
        match store.create(&log) {
            Ok(path) => return Ok((path, log, n)),
            Err(StoreError::AlreadyExists { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    unreachable!("u32 suffixes run out only after four billion sessions in one day")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_and_short() {
        assert_eq!(
            slugify("Fix the Parser: CRLF & BOM!"),
            "fix-the-parser-crlf-bom"
        );
        assert_eq!(slugify("  ../etc/passwd "), "etc-passwd");
        assert_eq!(slugify(""), "session");
        let key = format!("sk-proj-{}", "Zx81kQ2mLp94TrW0aB3c");
        let slug = slugify(&format!("Deploy with {key} today"));
        assert_eq!(slug, "deploy-with-redacted-openai-key-today");
        assert_eq!(slugify("Überprüfung"), "überprüfung");
        assert!(slugify(&"long words ".repeat(20)).chars().count() <= MAX_SLUG);
    }

    #[test]
    fn a_title_of_wide_letters_still_makes_an_id() {
        // 48 letters of four bytes were 192 bytes of slug: with the date,
        // past the 200 bytes of an id, and `session start` failed.
        for letter in ["𝐀", "日", "é", "a"] {
            let slug = slugify(&letter.repeat(60));
            assert!(slug.len() <= MAX_SLUG_BYTES, "{letter}: {}", slug.len());
            let id = format!("2026-11-27-{slug}-999");
            assert!(SessionId::new(&id).is_ok(), "{id}");
        }
    }
}
