//! The sidecar of an imported session (`.<stem>.data.jsonl`, what the
//! markdown cuts kept whole), checked against its session: `cru session
//! validate` reports these problems like a file's.

use std::path::{Path, PathBuf};

use crucible_core::store::{SessionCodec, SessionStore, names, walk};

use crate::Provenance;
use crate::provenance::{bytes_hash, hash_matches};

/// One thing wrong with a sidecar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarProblem {
    /// The sidecar.
    pub path: PathBuf,
    /// Its line, when the problem is on one.
    pub line: Option<usize>,
    pub message: String,
}

/// What is wrong with the sidecar of the session at `path`: one that cannot
/// be read, names another session, holds calls the session does not have,
/// or was changed or lost since the import that wrote it (its records' hash
/// is in the session's `import` key).
pub fn problems_of<C: SessionCodec>(store: &SessionStore<C>, path: &Path) -> Vec<SidecarProblem> {
    let mut out = Vec::new();
    let data_path = crucible_core::data_path(path);
    let mut problem = |line, message| {
        out.push(SidecarProblem {
            path: data_path.clone(),
            line,
            message,
        });
    };
    let bytes = match store.read_data_bytes(path) {
        Ok(found) => found,
        Err(e) => {
            problem(None, e.to_string());
            return out;
        }
    };
    // The session was parsed by its own check already; it is parsed again
    // only when a sidecar is there or its import wrote one (most sessions
    // have neither). One that does not parse is reported by its own check.
    let may_have_had_one = || {
        store
            .read_bytes(path)
            .is_ok_and(|b| crucible_parser::read::may_hold_key(&b, "data_hash"))
    };
    if bytes.is_none() && !may_have_had_one() {
        return out;
    }
    let Ok(log) = store.load_path(path) else {
        return out;
    };
    let written = Provenance::of(&log).and_then(|p| p.data_hash);
    let Some(bytes) = bytes else {
        if written.is_some() {
            problem(
                None,
                "missing: the import wrote it with the session, and it is gone".into(),
            );
        }
        return out;
    };
    let (id, data) = match crucible_core::SessionData::from_jsonl(&bytes) {
        Ok(found) => found,
        Err(e) => {
            problem(Some(e.line), e.message);
            return out;
        }
    };
    if id != log.id().as_str() {
        problem(
            Some(1),
            format!(
                "the sidecar of session `{id}`, beside session `{}`",
                log.id()
            ),
        );
        return out;
    }
    for m in data.check(&log) {
        problem(Some(m.line), m.message);
    }
    let records = crucible_core::SessionData::records_part(&bytes);
    if let Some(h) = written.filter(|h| !hash_matches(h, records)) {
        let now = bytes_hash(records);
        problem(
            None,
            format!(
                "changed since the import that wrote it (records hash {now}, written {h}): its arguments and results are not the source's"
            ),
        );
    }
    out
}

/// Sidecars in `folders` whose session is gone.
pub fn orphans(folders: &[PathBuf]) -> Vec<SidecarProblem> {
    let mut out = Vec::new();
    // Sidecars are hidden: listed by the one walker with hidden names
    // taken, one folder at a time.
    let sidecars = walk::Rules {
        take_hidden: true,
        tree: walk::SESSIONS.tree,
    };
    let options = walk::WalkOptions {
        file_filter: &|n| n.to_str().and_then(names::sidecar_of).is_some(),
        utf8_names: false,
        recursive: false,
        confine_to: None,
    };
    for dir in folders {
        let Ok(tree) = walk::walk_with(dir, options, &sidecars) else {
            continue;
        };
        for path in tree.files {
            let Some(stem) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(names::sidecar_of)
            else {
                continue;
            };
            if !dir.join(format!("{stem}.md")).exists() {
                out.push(SidecarProblem {
                    message: format!("a sidecar without its session ({stem}.md is gone)"),
                    path,
                    line: None,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_without_its_session_is_an_orphan() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join(".gone.data.jsonl"), "{}\n").unwrap();
        std::fs::write(t.path().join(".kept.data.jsonl"), "{}\n").unwrap();
        std::fs::write(t.path().join("kept.md"), "---\n---\n").unwrap();
        let found = orphans(&[t.path().to_owned()]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].path.ends_with(".gone.data.jsonl"));
        assert!(found[0].message.contains("gone.md is gone"), "{found:?}");
    }
}
