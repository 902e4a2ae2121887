//! The rule every tier keeps, as a check: a cheap tier either defers or gives
//! exactly the full reader's answer.
//!
//! The differential harnesses (this crate's `tests/it/tiers.rs` on fixtures
//! and generated frontmatter, crucible-interop's `tests/it/tiers_on_imports.rs`
//! on imported real files) run it, so the rule is written once.

use std::path::Path;

use crate::ParseErrorKind;

use super::{
    Peek, check, declared_id, declared_id_by_yaml, fast_summary, full, may_hold_key, peek, summary,
};

/// A tier that answered differently from the reader it stands in for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {tier} tier answered {cheap}, the {reference} read answered {full}")]
pub struct Disagreement {
    /// The cheap tier that answered.
    pub tier: &'static str,
    /// The reader it is held to.
    pub reference: &'static str,
    /// The cheap tier's answer, as `{:?}`.
    pub cheap: String,
    /// The reference's answer, as `{:?}`.
    pub full: String,
}

fn differ<T: std::fmt::Debug + PartialEq>(
    tier: &'static str,
    reference: &'static str,
    cheap: &T,
    full: &T,
) -> Result<(), Disagreement> {
    if cheap == full {
        return Ok(());
    }
    Err(Disagreement {
        tier,
        reference,
        cheap: format!("{cheap:?}"),
        full: format!("{full:?}"),
    })
}

/// Runs every tier on one file's bytes and returns the first that disagrees
/// with the reader it defers to.
///
/// # Errors
/// The first [`Disagreement`] found.
pub fn check_agreement(bytes: &[u8]) -> Result<(), Disagreement> {
    let by_yaml = declared_id_by_yaml(bytes);
    let declared = declared_id(bytes);
    // The peek answers only what the YAML tier would answer.
    match peek(bytes) {
        Peek::Session(id) => differ("peek", "YAML", &Some(id), &by_yaml)?,
        Peek::NotASession => differ("peek", "YAML", &None, &by_yaml)?,
        Peek::Unsure => {}
    }
    differ("declared id", "YAML", &declared, &by_yaml)?;
    ids_against_full(bytes, declared.as_deref())?;
    // The summary tiers against the full parser.
    let path = Path::new("tiers.md");
    let log = full(path, bytes).ok();
    keys_against_full(bytes, log.as_ref())?;
    let full_summary = log.map(|log| log.summary());
    if let Some(fast) = fast_summary(bytes) {
        differ("fast summary", "full", &Some(fast), &full_summary)?;
    }
    differ("summary", "full", &summary(path, bytes).ok(), &full_summary)
}

/// The key tier against the full parser: every top-level key the parser
/// kept as unknown is one [`may_hold_key`] says may be there.
fn keys_against_full(
    bytes: &[u8],
    log: Option<&crucible_core::SessionLog>,
) -> Result<(), Disagreement> {
    let keys = log.into_iter().flat_map(|l| l.frontmatter.extra.keys());
    for key in keys.filter_map(crucible_core::yaml::Value::as_str) {
        differ("key", "full", &may_hold_key(bytes, key), &true)?;
    }
    Ok(())
}

/// The id tiers against the full parser: a parsed session's id is the
/// declared one (when the frontmatter fits in the head the store reads), and
/// a file the parser refuses as not a session declares none.
fn ids_against_full(bytes: &[u8], declared: Option<&str>) -> Result<(), Disagreement> {
    let checked = check(Path::new("tiers.md"), bytes);
    if let Some(log) = &checked.log {
        let head_holds_frontmatter = bytes.len() <= crucible_core::store::HEAD_BYTES as usize;
        if head_holds_frontmatter {
            differ(
                "declared id",
                "full",
                &declared,
                &Some(log.frontmatter.session_id.as_str()),
            )?;
        }
        return Ok(());
    }
    let not_a_session = checked.errors.iter().any(|e| {
        matches!(
            e.kind,
            ParseErrorKind::NotASession { .. } | ParseErrorKind::MissingFrontmatter
        )
    });
    if not_a_session {
        differ("declared id", "full", &declared, &None)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_written_the_way_cru_writes_it_agrees() {
        let doc = "---\ntype: session\nsession_id: s-1\nstarted: 2025-12-05T14:32:15Z\nstatus: paused\n---\n\n## Phase @a\n\nText.\n";
        assert_eq!(check_agreement(doc.as_bytes()), Ok(()));
    }

    #[test]
    fn a_disagreement_names_the_tier_and_both_answers() {
        let err = differ("peek", "YAML", &Some("a"), &Some("b")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the peek tier answered Some(\"a\"), the YAML read answered Some(\"b\")"
        );
    }
}
