//! Trace and span ids derived from what names a session's parts, never
//! random: the same session exported twice gives the same ids, so an engine
//! that keys spans on them (Phoenix, Tempo, Jaeger) stores it once.
//!
//! The trace id is the 128-bit xxh3 of the session id; a span id is the
//! 64-bit xxh3 of the session id and the span's path in the session
//! (`root`, `phase-2`, `phase-2/tool-3`, `phase-2/chat-1`,
//! `phase-2/subagent-1`). An all-zero id is invalid in OTLP; the one input
//! in 2^64 that hashes to zero is given 1 instead.

use xxhash_rust::xxh3::Xxh3;

/// The trace id of the session `session_id` (16 bytes).
pub fn trace_id(session_id: &str) -> [u8; 16] {
    // Streamed: the same hash as of the bytes joined, without joining them.
    let mut h = Xxh3::new();
    h.update(b"cru-trace\0");
    h.update(session_id.as_bytes());
    h.digest128().max(1).to_be_bytes()
}

/// The span id of the part `path` of the session `session_id` (8 bytes).
pub fn span_id(session_id: &str, path: &str) -> [u8; 8] {
    let mut h = Xxh3::new();
    h.update(b"cru-span\0");
    h.update(session_id.as_bytes());
    h.update(b"\0");
    h.update(path.as_bytes());
    h.digest().max(1).to_be_bytes()
}

/// The path of the root span: the agent's run.
pub const ROOT: &str = "root";

/// Lower-case hex, as OTLP/JSON and every engine's UI write ids.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_depend_on_the_session_and_the_path_only() {
        assert_eq!(trace_id("a"), trace_id("a"));
        assert_ne!(trace_id("a"), trace_id("b"));
        assert_eq!(span_id("a", "phase-1"), span_id("a", "phase-1"));
        assert_ne!(span_id("a", "phase-1"), span_id("a", "phase-2"));
        assert_ne!(span_id("a", "phase-1"), span_id("b", "phase-1"));
        // The separator keeps ("ab", "c") apart from ("a", "bc").
        assert_ne!(span_id("ab", "c"), span_id("a", "bc"));
        assert_ne!(trace_id("x"), [0; 16]);
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }

    /// The ids engines already hold (and sent-records name) stay what
    /// they were when the input was hashed joined.
    #[test]
    fn streamed_ids_are_the_hash_of_the_joined_input() {
        use xxhash_rust::xxh3::{xxh3_64, xxh3_128};
        assert_eq!(
            span_id("2025-12-10-fix", "phase-2/tool-3"),
            xxh3_64(b"cru-span\x002025-12-10-fix\x00phase-2/tool-3").to_be_bytes()
        );
        assert_eq!(
            trace_id("2025-12-10-fix"),
            xxh3_128(b"cru-trace\x002025-12-10-fix").to_be_bytes()
        );
    }
}
