//! Token usage at `Stop`: the transcript read from the offset reached last
//! time to its last whole line, so a `Stop` late in a long session reads
//! only the turn it ends. Usage is counted as the importer counts it
//! ([`crucible_interop::line_usage`]): each streamed response once, by
//! its largest count; side-chain lines are their subagent's.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crucible_core::{SessionCodec, SessionEvent, Tokens};
use crucible_interop::{LineUsage, line_usage};

use super::{CaptureError, Turn};
use crate::state::SessionState;

/// Responses remembered from the last read: enough for those whose lines
/// straddle two reads.
const RECENT: usize = 32;

impl<C: SessionCodec> Turn<'_, C> {
    pub(super) fn usage(&mut self, state: &mut SessionState) -> Result<(), CaptureError> {
        let Some(path) = state.transcript.clone() else {
            return Ok(());
        };
        let Some((tail, read_to)) = read_tail(&path, &mut state.transcript_offset)? else {
            return Ok(());
        };
        let (responses, keys) = count(&tail, &state.recent_responses);
        state.transcript_offset = read_to;
        if !keys.is_empty() {
            let mut recent = std::mem::take(&mut state.recent_responses);
            recent.extend(keys);
            let drop = recent.len().saturating_sub(RECENT);
            recent.drain(..drop);
            state.recent_responses = recent;
        }
        for (model, tokens) in responses {
            self.push(state, SessionEvent::Usage { model, tokens });
        }
        Ok(())
    }
}

/// The responses of the transcript at `path` after `offset` (moved past
/// what was read), each once: a subagent's own transcript, read whole.
pub(super) fn responses_of(
    path: &Path,
    offset: &mut u64,
) -> Result<Vec<(Option<String>, Tokens)>, CaptureError> {
    let Some((tail, read_to)) = read_tail(path, offset)? else {
        return Ok(Vec::new());
    };
    *offset = read_to;
    // A subagent's own file is its side chain throughout: every line counts.
    Ok(count_lines(&tail, &[], true).0)
}

/// The whole lines of `path` after `offset`, and the offset after them.
/// A transcript shorter than the offset was replaced: read from the start.
fn read_tail(path: &Path, offset: &mut u64) -> Result<Option<(Vec<u8>, u64)>, CaptureError> {
    let io = |source| CaptureError::Io {
        path: path.to_owned(),
        source,
    };
    // No transcript (yet, or any more): nothing to count.
    let Ok((mut file, meta)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
        return Ok(None);
    };
    if meta.len() < *offset {
        *offset = 0;
    }
    if meta.len() == *offset {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(*offset)).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(meta.len() - *offset)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    // A line still being written is left for the next read.
    let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
        return Ok(None);
    };
    bytes.truncate(end + 1);
    let read_to = *offset + bytes.len() as u64;
    Ok(Some((bytes, read_to)))
}

/// The responses of `tail` not among `seen`, each once by its largest
/// count, in order; and their keys.
fn count(tail: &[u8], seen: &[String]) -> (Vec<(Option<String>, Tokens)>, Vec<String>) {
    count_lines(tail, seen, false)
}

/// [`count`], taking side-chain lines too when `sidechain_too`.
fn count_lines(
    tail: &[u8],
    seen: &[String],
    sidechain_too: bool,
) -> (Vec<(Option<String>, Tokens)>, Vec<String>) {
    let mut order: Vec<LineUsage> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for line in tail.split(|&b| b == b'\n') {
        // Most lines report no usage (tool results are most of the bytes):
        // only those that name it are parsed.
        if !contains(line, b"\"usage\"") {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let Some(u) = line_usage(&v).filter(|u| sidechain_too || !u.sidechain) else {
            continue;
        };
        match u.key.clone() {
            Some(k) if seen.contains(&k) => {}
            Some(k) => match by_key.get(&k) {
                Some(&i) if order[i].tokens.total() >= u.tokens.total() => {}
                Some(&i) => order[i] = u,
                None => {
                    by_key.insert(k, order.len());
                    order.push(u);
                }
            },
            None => order.push(u),
        }
    }
    let keys = order.iter().filter_map(|u| u.key.clone()).collect();
    let responses = order
        .into_iter()
        .filter(|u| u.tokens.total() > 0)
        .map(|u| (u.model, u.tokens))
        .collect();
    (responses, keys)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, out: u64) -> String {
        format!(
            r#"{{"type":"assistant","requestId":"r","message":{{"id":"{id}","model":"claude-sonnet-4","usage":{{"input_tokens":10,"output_tokens":{out}}}}}}}"#
        )
    }

    #[test]
    fn a_streamed_response_counts_once_by_its_final_count_and_not_again_later() {
        let tail = format!("{}\n{}\n{}\n", line("m1", 1), line("m1", 7), line("m2", 3));
        let (r, keys) = count(tail.as_bytes(), &[]);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].1.output, 7);
        assert_eq!(r[0].0.as_deref(), Some("claude-sonnet-4"));
        let (again, _) = count(format!("{}\n", line("m2", 3)).as_bytes(), &keys);
        assert!(again.is_empty(), "m2 was counted at the last read");
    }

    #[test]
    fn the_tail_is_read_from_the_offset_to_the_last_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "one\ntwo\nthr").unwrap();
        let mut off = 4;
        let (bytes, to) = read_tail(&p, &mut off).unwrap().unwrap();
        assert_eq!(bytes, b"two\n");
        assert_eq!(to, 8);
        let mut off = 100;
        let (bytes, _) = read_tail(&p, &mut off).unwrap().unwrap();
        assert_eq!(
            bytes, b"one\ntwo\n",
            "a shorter file is read again from the start"
        );
    }
}
