//! The record of what reached which endpoint: `--since-last` sends a
//! session only when the record has no entry for it at that endpoint, or
//! one with another content hash (the session changed, or the mapping
//! did). A session is entered only once the endpoint accepted its batch,
//! so a run that failed leaves it to the next.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::SentRecordError;
use crate::ids::hex;

/// Endpoint → session id → content hash of what was sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SentRecord {
    endpoints: BTreeMap<String, BTreeMap<String, String>>,
}

/// The hash of a session's part as encoded ([`crate::session_part`]):
/// whatever changes what would be sent changes it.
pub fn content_hash(part: &[u8]) -> String {
    hex(&xxhash_rust::xxh3::xxh3_128(part).to_be_bytes())
}

impl SentRecord {
    /// The record at `path`; an empty one when there is no file yet.
    pub fn load(path: &Path) -> Result<Self, SentRecordError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(SentRecordError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        serde_json::from_slice(&bytes).map_err(|e| SentRecordError::Invalid {
            path: path.to_owned(),
            line: e.line(),
            message: e.to_string(),
        })
    }

    /// Writes the record to `path` atomically (a temporary file renamed
    /// over it): a reader sees the old record or the new, never half.
    pub fn save(&self, path: &Path) -> Result<(), SentRecordError> {
        let mut text = serde_json::to_vec_pretty(self).expect("strings serialize");
        text.push(b'\n');
        crucible_core::store::atomic::write_atomic(path, &text).map_err(|source| {
            SentRecordError::Write {
                path: path.to_owned(),
                source,
            }
        })
    }

    /// True when `session` was sent to `endpoint` with this `hash`.
    pub fn is_sent(&self, endpoint: &str, session: &str, hash: &str) -> bool {
        self.endpoints
            .get(endpoint)
            .and_then(|m| m.get(session))
            .is_some_and(|h| h == hash)
    }

    pub fn mark_sent(&mut self, endpoint: &str, session: &str, hash: &str) {
        self.endpoints
            .entry(endpoint.to_owned())
            .or_default()
            .insert(session.to_owned(), hash.to_owned());
    }

    /// Folds in what `other` records (a record read again under the lock,
    /// so that two runs at once both keep what they sent).
    pub fn merge(&mut self, other: Self) {
        for (endpoint, sessions) in other.endpoints {
            self.endpoints.entry(endpoint).or_default().extend(sessions);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_a_bad_file_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".otlp-sent.json");
        assert_eq!(SentRecord::load(&path).unwrap(), SentRecord::default());
        let mut r = SentRecord::default();
        r.mark_sent("http://x/v1/traces", "s1", "abc");
        r.save(&path).unwrap();
        let back = SentRecord::load(&path).unwrap();
        assert!(back.is_sent("http://x/v1/traces", "s1", "abc"));
        assert!(!back.is_sent("http://x/v1/traces", "s1", "abd"));
        assert!(!back.is_sent("http://y/v1/traces", "s1", "abc"));
        std::fs::write(&path, "{\n  \"a\": 3\n}").unwrap();
        let e = SentRecord::load(&path).unwrap_err().to_string();
        assert!(e.contains(".otlp-sent.json:2:"), "{e}");
    }
}
