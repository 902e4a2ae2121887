//! Where an imported session came from, kept in its frontmatter as
//! `import: {format, path, id, source_hash, session_hash}`.

use crucible_core::SessionLog;

/// The frontmatter key.
pub const KEY: &str = "import";

/// Where a session came from and in what state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    pub format: String,
    /// The source as given (absolute).
    pub path: String,
    /// The source's own id for the session, when it has one.
    pub id: Option<String>,
    /// [`bytes_hash`] of the source's bytes (FNV-1a, 16 hex digits, in
    /// imports before issue 19): a re-import of the same bytes changes
    /// nothing.
    pub source_hash: String,
    /// [`content_hash`] of the session as imported: a session whose hash
    /// differs was changed in cru since (resumed, edited) and is not
    /// overwritten by a re-import without `--force`.
    pub session_hash: String,
    /// [`bytes_hash`] of the sidecar's records as written with the session
    /// (the file less its header line), when it has one: `validate` tells
    /// a sidecar changed or lost since the import by it ([`hash_matches`]
    /// reads the older FNV-1a ones too).
    pub data_hash: Option<String>,
}

impl Provenance {
    /// Writes itself into the session's frontmatter.
    pub fn store(&self, log: &mut SessionLog) {
        let mut m = crucible_core::yaml::Mapping::new();
        m.insert("format", self.format.clone());
        m.insert("path", self.path.clone());
        if let Some(id) = &self.id {
            m.insert("id", id.clone());
        }
        m.insert("source_hash", self.source_hash.clone());
        m.insert("session_hash", self.session_hash.clone());
        if let Some(h) = &self.data_hash {
            m.insert("data_hash", h.clone());
        }
        log.frontmatter.extra.insert(KEY, m);
    }

    /// Reads it back from a session, if it was imported.
    pub fn of(log: &SessionLog) -> Option<Self> {
        let m = log.frontmatter.extra.get(KEY)?.as_mapping()?;
        let text = |k: &str| m.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        Some(Self {
            format: text("format")?,
            path: text("path")?,
            id: text("id"),
            source_hash: text("source_hash")?,
            session_hash: text("session_hash")?,
            data_hash: text("data_hash"),
        })
    }
}

/// The `source_hash` of a session recorded live by an agent's hooks
/// (crucible-capture) rather than imported: no bytes were read, so no
/// hash; an import of its transcript fills it in and replaces the
/// session's content (same id), whatever the hooks wrote.
pub const CAPTURED: &str = "captured";

impl Provenance {
    /// True for a session recorded live by hooks ([`CAPTURED`]).
    pub fn is_captured(&self) -> bool {
        self.source_hash == CAPTURED
    }
}

/// FNV-1a, 64 bits, as hex: stable across runs and platforms.
pub fn fnv_hex(bytes: &[u8]) -> String {
    let mut h = FnvWriter(FNV_OFFSET);
    h.add(bytes);
    format!("{:016x}", h.0)
}

/// The prefix of [`bytes_hash`]: what tells it from the FNV-1a hashes
/// (16 bare hex digits) that imports wrote before.
const XXH3: &str = "xxh3:";

/// The hash of a source's or a sidecar's bytes: xxh3 (64 bits), as
/// `xxh3:<16 hex digits>`; stable across runs and platforms. A bulk import
/// hashes hundreds of megabytes: FNV-1a, a byte at a time, took as long as
/// the rest of reading them.
pub fn bytes_hash(bytes: &[u8]) -> String {
    format!("{XXH3}{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// [`bytes_hash`] of bytes given in parts (a transcript, then its
/// subagents' files), without putting them together first.
#[derive(Clone, Default)]
pub struct BytesHasher(xxhash_rust::xxh3::Xxh3Default);

impl std::fmt::Debug for BytesHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BytesHasher")
    }
}

impl BytesHasher {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The hash of all the parts, as [`bytes_hash`] of them joined.
    pub fn finish(&self) -> String {
        format!("{XXH3}{:016x}", self.0.digest())
    }
}

/// True for a hash an import wrote before issue 19 (FNV-1a, 16 bare hex
/// digits), which [`bytes_hash`] never equals.
pub fn is_fnv(hash: &str) -> bool {
    hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `hash`, as an import wrote it (either kind), is the hash of `bytes`.
pub fn hash_matches(hash: &str, bytes: &[u8]) -> bool {
    if is_fnv(hash) {
        fnv_hex(bytes) == hash
    } else {
        bytes_hash(bytes) == hash
    }
}

/// A hash of what a session says (its body, status and resume point; not
/// its `import` key), from its JSON form: equal for the session as imported
/// and as read back from its file, different once it was resumed, paused,
/// ended or edited.
pub fn content_hash(log: &SessionLog) -> String {
    // The same bytes as ever (the sections' JSON, the preamble's, status,
    // resume point), hashed as they are written: no copy of the session,
    // no buffer. (The `import` key, left out, is in none of them.)
    let mut h = FnvWriter(FNV_OFFSET);
    let fm = &log.frontmatter;
    let _ = serde_json::to_writer(&mut h, &log.sections);
    let _ = serde_json::to_writer(&mut h, &log.preamble);
    h.add(fm.status.as_str().as_bytes());
    if let Some(p) = fm.resume_point {
        h.add(p.to_string().as_bytes());
    }
    format!("{:016x}", h.0)
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over what is written to it.
struct FnvWriter(u64);

impl FnvWriter {
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl std::io::Write for FnvWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.add(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_hashes_are_xxh3_whole_or_in_parts_and_fnv_ones_still_match() {
        let h = bytes_hash(b"a transcript, then its subagents");
        assert!(h.starts_with("xxh3:") && h.len() == 5 + 16, "{h}");
        let mut parts = BytesHasher::new();
        parts.update(b"a transcript, ");
        parts.update(b"then its subagents");
        assert_eq!(parts.finish(), h);
        assert!(hash_matches(&h, b"a transcript, then its subagents"));
        assert!(!hash_matches(&h, b"another"));
        // What an import before issue 19 wrote.
        let old = fnv_hex(b"records");
        assert!(is_fnv(&old) && !is_fnv(&h));
        assert!(hash_matches(&old, b"records"));
        assert!(!hash_matches(&old, b"changed"));
    }

    #[test]
    fn the_content_hash_is_what_it_was_before_it_was_streamed() {
        let started: crucible_core::Timestamp = "2026-01-02T03:04:05Z".parse().unwrap();
        let mut log = SessionLog::new(crucible_core::Frontmatter::new(
            "2026-01-02-a".parse().unwrap(),
            started,
        ));
        log.preamble
            .push(crucible_core::Block::Callout(crucible_core::Callout::user(
                "hello", None,
            )));
        // As it was computed: a copy without the key, its JSON in a buffer.
        let mut bytes = serde_json::to_vec(&log.sections).unwrap();
        bytes.extend(serde_json::to_vec(&log.preamble).unwrap());
        bytes.extend(log.frontmatter.status.as_str().as_bytes());
        assert_eq!(content_hash(&log), fnv_hex(&bytes));
        let before = content_hash(&log);
        Provenance {
            format: "codex".into(),
            path: "/a".into(),
            id: None,
            source_hash: "h".into(),
            session_hash: before.clone(),
            data_hash: None,
        }
        .store(&mut log);
        assert_eq!(content_hash(&log), before, "the import key is not hashed");
    }
}
