//! When a transcript was last written to, by what it says rather than by
//! its file's mtime: a copied, restored or touched transcript has a fresh
//! mtime and records from long ago, and must not pass for a live one.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How much of a transcript's end is read to find its last timestamp: a
/// record longer than this (a huge tool result) is passed over, and the
/// one before it found.
const TAIL: u64 = 256 * 1024;

/// The `timestamp` of the last JSON record of the file at `path` that has
/// one (Claude Code's and Codex's transcripts both stamp each record), or
/// `None` (another format, no record with a time, unreadable).
pub fn last_record_time(path: &Path) -> Option<SystemTime> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut tail = Vec::new();
    file.take(TAIL).read_to_end(&mut tail).ok()?;
    tail.split(|&b| b == b'\n').rev().find_map(record_time)
}

/// The time of one JSON line's top-level `timestamp`.
fn record_time(line: &[u8]) -> Option<SystemTime> {
    #[derive(serde::Deserialize)]
    struct Stamped {
        timestamp: String,
    }
    let line = line.trim_ascii();
    if !line.starts_with(b"{") {
        return None;
    }
    let stamped: Stamped = serde_json::from_slice(line).ok()?;
    let ms = crucible_core::Timestamp::parse_unix_ms(&stamped.timestamp)?;
    let ms = u64::try_from(ms).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_stamped_record_is_found_past_unstamped_and_partial_lines() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(
            &t,
            concat!(
                "{\"timestamp\":\"2025-06-10T12:00:00Z\"}\n",
                "{\"timestamp\":\"2025-06-10T12:36:23.500Z\",\"type\":\"user\"}\n",
                "{\"type\":\"summary\"}\n",
                "{\"timestamp\":\"2026-01-01T00:0"
            ),
        )
        .unwrap();
        let at = last_record_time(&t).unwrap();
        let ms = at
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        assert_eq!(
            ms,
            u128::try_from(
                crucible_core::Timestamp::parse_unix_ms("2025-06-10T12:36:23.500Z").unwrap()
            )
            .unwrap()
        );
        std::fs::write(&t, "not json\n").unwrap();
        assert_eq!(last_record_time(&t), None);
        assert_eq!(last_record_time(&dir.path().join("missing")), None);
    }
}
