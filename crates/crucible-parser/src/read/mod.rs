//! The one front end for reading a session file, in tiers.
//!
//! Several callers want different amounts of a file: the store wants only the
//! id a file declares (to find `show <id>`), the index wants counts and the
//! frontmatter, `show` wants everything. Each cheap tier answers only what it
//! can answer with certainty and otherwise defers to the next, so a fast path
//! is never wrong, only sometimes not taken (docs/session-format.md, "How cru
//! reads a file: tiers"; docs/decisions/0004-reading-tiers.md).
//!
//! | tier | reads | defers to |
//! |---|---|---|
//! | [`peek`] | the frontmatter's top-level lines of the head | [`declared_id`]'s YAML read |
//! | [`declared_id`] | [`peek`], else the frontmatter through serde_yaml | (is the reference for ids) |
//! | [`fast_summary`] | a line scan of the shape cru writes | [`full`] |
//! | [`summary`] | [`fast_summary`], else [`full`] | — |
//! | [`may_hold_key`] | the frontmatter's bytes | the caller's parse (answers only "certainly absent") |
//! | [`full`] / [`check`] | everything (pulldown-cmark, serde_yaml) | — |
//!
//! [`check_agreement`] states the rule as a check; `tests/it/tiers.rs` (and
//! crucible-interop's `tests/it/tiers_on_imports.rs`) run it on fixtures,
//! generated frontmatter and imported real files.

mod agreement;
mod declared;
mod key;
mod peek;

pub use agreement::{Disagreement, check_agreement};
pub use declared::{declared_id, declared_id_by_yaml};
pub use key::may_hold_key;
pub use peek::{Peek, peek};

pub use crate::summary::{fast_summary, summarize as summary};
pub use crate::{check_session as check, parse_session as full};

/// The text of at most the first [`HEAD_BYTES`](crucible_core::store::HEAD_BYTES)
/// of a file: a head cut inside a UTF-8 sequence (or with a bad byte) is read
/// up to there.
fn head_text(bytes: &[u8]) -> &str {
    let head = &bytes[..bytes.len().min(crucible_core::store::HEAD_BYTES as usize)];
    match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    }
}
