//! Tool payloads too large for the markdown: the call's line is cut with
//! a marker, and the whole call goes to the session's sidecar (the
//! `.data.jsonl` an import keeps what the markdown cuts in), as a call
//! record pointing at the call.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crucible_core::store::safe_file::open_own;
use crucible_core::{CallData, DataRecord, SessionCodec, SessionData, SessionId, SessionStore};

use crate::CaptureError;

/// The marker a cut line ends with.
pub(crate) fn cut_marker(bytes: usize) -> String {
    format!(" …[cut: {bytes} bytes, whole in the sidecar]")
}

/// The marker of a result so large that the hook kept only the start of
/// its long texts ([`crate::huge_strings`]), in the sidecar too.
pub(crate) fn partly_kept_marker(bytes: usize, kept: usize) -> String {
    format!(" …[cut: {bytes} bytes, {kept} of them in the sidecar]")
}

/// `text` cut to at most `limit` bytes (on a character boundary) with the
/// marker, or as it is when it fits.
pub(crate) fn cut_to(text: &str, limit: usize) -> (String, bool) {
    if text.len() <= limit {
        return (text.to_owned(), false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}{}", &text[..end], cut_marker(text.len())), true)
}

/// The size of a JSON value as written compactly.
pub(crate) fn json_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Null => 0,
        other => serde_json::to_vec(other).map_or(0, |b| b.len()),
    }
}

/// Appends one call record to the sidecar of the session at `path`
/// (its header first when it has none), under the store's lock.
pub(crate) fn append_call<C: SessionCodec>(
    store: &SessionStore<C>,
    path: &Path,
    id: &SessionId,
    call: CallData,
) -> Result<(), CaptureError> {
    let _lock = store.lock()?;
    let dpath = crucible_core::data_path(path);
    let mut file = open_own(
        &dpath,
        std::fs::OpenOptions::new().create(true).append(true),
    )
    .map_err(crucible_core::StoreError::from)?;
    let io = |source| CaptureError::Io {
        path: dpath.clone(),
        source,
    };
    let mut line = Vec::new();
    if file.metadata().map_err(io)?.len() == 0 {
        line.extend(SessionData::default().to_jsonl(id));
    }
    serde_json::to_writer(&mut line, &DataRecord::Call(call)).map_err(|e| io(e.into()))?;
    line.push(b'\n');
    // One write of whole lines: a reader never sees half of one.
    file.write_all(&line).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_on_a_character_boundary_with_its_size() {
        let (s, cut) = cut_to("héllo wörld", 2);
        assert!(cut);
        assert!(s.starts_with('h') && s.contains("13 bytes"), "{s}");
        assert_eq!(cut_to("short", 10), ("short".to_owned(), false));
    }
}
