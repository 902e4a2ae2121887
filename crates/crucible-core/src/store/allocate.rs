//! Fresh session ids: `YYYY-MM-DD-<slug>`, unique even under concurrent creation.

use std::collections::HashSet;
use std::path::PathBuf;

use super::{SessionCodec, SessionStore, StoreError, session_files, stem};
use crate::{SessionId, SessionLog, Timestamp};

/// The longest slug taken from a title, in characters.
const MAX_SLUG: usize = 48;

/// A file-name-safe slug of a title: lower case letters and digits joined by
/// single dashes; `session` when nothing is left.
pub fn slugify(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
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

pub(super) fn create_with_fresh_id<C: SessionCodec>(
    store: &SessionStore<C>,
    started: &Timestamp,
    title: Option<&str>,
    build: &mut dyn FnMut(SessionId) -> SessionLog,
) -> Result<(PathBuf, SessionLog), StoreError> {
    let base = format!("{}-{}", started.utc_day(), slugify(title.unwrap_or("")));
    // Ids of files in subfolders count too, so an id is never given twice in
    // one directory tree. The top-level name itself is claimed atomically by
    // `create`, which is what settles races between processes.
    let taken: HashSet<String> = session_files(store.dir())?
        .iter()
        .map(|p| stem(p).to_lowercase())
        .collect();
    for n in 1u32.. {
        let candidate = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        if taken.contains(&candidate) {
            continue;
        }
        let log = build(SessionId::new(&candidate)?);
        match store.create(&log) {
            Ok(path) => return Ok((path, log)),
            Err(StoreError::AlreadyExists { .. }) => continue,
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
        assert_eq!(slugify("Überprüfung"), "überprüfung");
        assert!(slugify(&"long words ".repeat(20)).chars().count() <= MAX_SLUG);
    }
}
