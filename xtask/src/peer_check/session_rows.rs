//! cru's `usage session` rows under the names ccusage gives sessions.
//!
//! ccusage 20.0.24 names a Claude Code session (`sessionId`, or `period` in
//! the all-agents view) by where its file lies below the project folder
//! (`projects/<project>/`): a file right there by its stem, a file in a
//! folder by that folder's name (so all the files of one folder are one
//! session), and a file in `<session>/subagents/` by `<session>`. cru's
//! session rows are its own sessions, one per run (a subagent is a linked
//! session of its own), and give the session file's `path`; that file's
//! import provenance names the transcript. So each cru row is filed under
//! ccusage's name for its source and the rows of one name summed.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;

use super::report_rows::{Rows, parse_rows};

/// ccusage's session name for the transcript `source` (an import path,
/// perhaps with a `#<agent>` fragment) under `projects`.
pub fn ccusage_session(source: &str, projects: &Path) -> anyhow::Result<String> {
    let file = Path::new(source.split('#').next().unwrap_or(source));
    let rel = file
        .strip_prefix(projects)
        .with_context(|| format!("{source} is not under {}", projects.display()))?;
    // Below the project's folder.
    let parts: Vec<String> = rel
        .iter()
        .skip(1)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let name = match parts.as_slice() {
        [] => None,
        [file] => Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned()),
        [.., session, sub, _] if sub == "subagents" => Some(session.clone()),
        [.., folder, _] => Some(folder.clone()),
    };
    name.with_context(|| format!("{source} is no file inside a project folder"))
}

/// The import provenance of the session file `file`; an error when the
/// file was not imported.
pub fn provenance(file: &Path) -> anyhow::Result<crucible_interop::Provenance> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let log = crucible_parser::parse_session(file, &bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    crucible_interop::Provenance::of(&log)
        .with_context(|| format!("{}: no import provenance", file.display()))
}

/// Each cru session id of a `usage session --json` report with its
/// session file's path (relative to the sessions directory).
pub fn paths(json: &[u8]) -> anyhow::Result<BTreeMap<String, String>> {
    let v: serde_json::Value = serde_json::from_slice(json).context("reading cru's JSON")?;
    let mut out = BTreeMap::new();
    for (i, s) in v["session"].as_array().into_iter().flatten().enumerate() {
        let (Some(id), Some(path)) = (s["sessionId"].as_str(), s["path"].as_str()) else {
            anyhow::bail!("session[{i}] lacks sessionId or path");
        };
        out.insert(id.to_owned(), path.to_owned());
    }
    Ok(out)
}

/// `rows` (by cru session id) summed under the names `name_of` gives
/// each session; an error names a session it does not know.
pub fn rename(rows: &Rows, name_of: &BTreeMap<String, String>) -> anyhow::Result<Rows> {
    let mut out = Rows::new();
    for ((session, model), r) in rows {
        let name = name_of
            .get(session)
            .with_context(|| format!("no source for cru session {session}"))?;
        out.entry((name.clone(), model.clone()))
            .or_default()
            .add(*r);
    }
    Ok(out)
}

/// cru's `usage session --json` report on the store `sessions`, imported
/// from `projects`, by ccusage's session rows.
pub fn by_source(json: &[u8], sessions: &Path, projects: &Path) -> anyhow::Result<Rows> {
    // cru records the absolute path it imported.
    let projects = std::fs::canonicalize(projects)
        .with_context(|| format!("resolving {}", projects.display()))?;
    by_name(json, sessions, |p| ccusage_session(&p.path, &projects))
}

/// cru's `usage session --json` report on the store `sessions`, each
/// session under the name `name` gives its import provenance, and the
/// rows of one name summed.
pub fn by_name(
    json: &[u8],
    sessions: &Path,
    name: impl Fn(&crucible_interop::Provenance) -> anyhow::Result<String>,
) -> anyhow::Result<Rows> {
    let mut name_of = BTreeMap::new();
    for (id, path) in paths(json)? {
        name_of.insert(id, name(&provenance(&sessions.join(path))?)?);
    }
    rename(&parse_rows(json, "session")?, &name_of)
}

#[cfg(test)]
mod tests {
    use super::super::report_rows::{ALL_MODELS, differences};
    use super::*;

    const CRU: &str = r#"{"session": [
        {"period": "2025-10-02-parent", "sessionId": "2025-10-02-parent",
         "path": "2025-10-02-parent.md", "inputTokens": 10, "outputTokens": 5,
         "cacheCreationTokens": 0, "cacheReadTokens": 100, "totalCost": 0.2,
         "modelBreakdowns": [{"modelName": "m", "inputTokens": 10, "outputTokens": 5,
           "cacheCreationTokens": 0, "cacheReadTokens": 100, "cost": 0.2}]},
        {"period": "2025-10-02-helper", "sessionId": "2025-10-02-helper",
         "path": "2025-10-02-helper.md", "inputTokens": 1, "outputTokens": 2,
         "cacheCreationTokens": 3, "cacheReadTokens": 4, "totalCost": 0.05,
         "modelBreakdowns": [{"modelName": "m", "inputTokens": 1, "outputTokens": 2,
           "cacheCreationTokens": 3, "cacheReadTokens": 4, "cost": 0.05}]}]}"#;

    #[test]
    fn a_subagents_session_is_summed_into_its_parents_row() {
        let files = paths(CRU.as_bytes()).unwrap();
        assert_eq!(files["2025-10-02-helper"], "2025-10-02-helper.md");
        let name_of: BTreeMap<String, String> = [
            ("2025-10-02-parent", "c41d9e7b"),
            ("2025-10-02-helper", "c41d9e7b"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
        let rows = rename(&parse_rows(CRU.as_bytes(), "session").unwrap(), &name_of).unwrap();
        let peer = br#"{"sessions": [{"sessionId": "c41d9e7b", "inputTokens": 11,
            "outputTokens": 7, "cacheCreationTokens": 3, "cacheReadTokens": 104,
            "totalCost": 0.25, "modelBreakdowns": [{"modelName": "m", "inputTokens": 11,
            "outputTokens": 7, "cacheCreationTokens": 3, "cacheReadTokens": 104,
            "cost": 0.25}]}]}"#;
        let peer = parse_rows(peer, "sessions").unwrap();
        assert_eq!(differences(&rows, &peer), Vec::<String>::new());
        assert_eq!(rows.len(), 2);
        assert!(rows.contains_key(&("c41d9e7b".to_owned(), ALL_MODELS.to_owned())));
        // A session with no source is an error, not a row dropped.
        let mut partial = name_of.clone();
        partial.remove("2025-10-02-helper");
        assert!(rename(&parse_rows(CRU.as_bytes(), "session").unwrap(), &partial).is_err());
        assert!(paths(br#"{"session": [{"sessionId": "x"}]}"#).is_err());
    }

    #[test]
    fn sessions_are_named_as_ccusage_names_them() {
        let p = Path::new("/c/projects");
        let name = |s: &str| ccusage_session(s, p).unwrap();
        assert_eq!(name("/c/projects/-x/abc.jsonl"), "abc");
        assert_eq!(name("/c/projects/-x/abc.jsonl#s1"), "abc");
        assert_eq!(name("/c/projects/-x/abc/subagents/agent-1.jsonl"), "abc");
        assert_eq!(name("/c/projects/-x/agent-9f.jsonl"), "agent-9f");
        // A file in a folder is that folder's session, at any depth.
        assert_eq!(name("/c/projects/real/full/0638.jsonl"), "full");
        assert_eq!(name("/c/projects/p/a/b/c.jsonl"), "b");
        assert!(ccusage_session("/c/projects/abc.jsonl", p).is_err());
        assert!(ccusage_session("/elsewhere/-x/abc.jsonl", p).is_err());
    }

    #[test]
    fn the_source_row_comes_from_the_import_provenance() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.md");
        std::fs::write(
            &file,
            "---\ntype: session\nsession_id: s\ntitle: S\nstarted: 2025-08-14T09:00:13.000Z\n\
             status: completed\nparticipants:\n  - claude-code\nimport:\n  format: claude-code\n  \
             path: /c/projects/-x/7f3c2a10/subagents/agent-a3f.jsonl\n  id: a3f\n  source_hash: 6976f519f5c9d6ba\n  \
             session_hash: 3acf0449e25fe8b8\n---\n\n# S\n",
        )
        .unwrap();
        let projects = Path::new("/c/projects");
        assert_eq!(
            ccusage_session(&provenance(&file).unwrap().path, projects).unwrap(),
            "7f3c2a10"
        );
        std::fs::write(
            &file,
            "---\ntype: session\nsession_id: s\ntitle: S\nstarted: 2025-08-14T09:00:13.000Z\n\
             status: completed\nparticipants:\n  - claude-code\n---\n\n# S\n",
        )
        .unwrap();
        assert!(provenance(&file).is_err());
    }
}
