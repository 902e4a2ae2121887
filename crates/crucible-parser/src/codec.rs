//! The markdown format as the store's [`SessionCodec`].

use std::path::Path;

use crucible_core::{CodecError, SessionCodec, SessionLog};

/// Reads and writes session files as markdown for a
/// [`SessionStore`](crucible_core::SessionStore).
#[derive(Debug, Clone, Copy, Default)]
pub struct MarkdownCodec;

impl SessionCodec for MarkdownCodec {
    fn peek_id(&self, bytes: &[u8]) -> Option<String> {
        crate::read::declared_id(bytes)
    }

    fn decode(&self, path: &Path, bytes: &[u8]) -> Result<SessionLog, CodecError> {
        crate::parse_session(path, bytes).map_err(Into::into)
    }

    fn encode(&self, log: &SessionLog) -> String {
        crate::write_session(log)
    }
}
