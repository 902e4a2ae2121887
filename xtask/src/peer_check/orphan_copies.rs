//! The progress-line copies of subagents that have no record of their own.
//!
//! Claude Code repeats each line of a subagent in an `agent_progress`
//! line of its parent; the subagent's own file (or, in older transcripts,
//! its side chain) holds the same lines. cru reads the copies only for a
//! subagent with neither: then they are its only record. The ccusage views
//! that count no copies (`claude weekly|monthly|session`, `session`) leave
//! such a subagent's requests out, so they are compared with cru reading
//! the corpus without those lines. This finder is written here, from the
//! files, not from cru's code.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::usage_views::jsonl_files;

/// A copy of the transcripts of `projects` (under `<dir>/projects/`)
/// without the `agent_progress` lines of subagents that have no file and
/// no side chain; `None` when no transcript has such a line.
pub fn without_orphan_copies(projects: &Path) -> anyhow::Result<Option<tempfile::TempDir>> {
    let mut files = Vec::new();
    jsonl_files(projects, &mut files)?;
    let mut texts = Vec::new();
    let mut any = false;
    for f in &files {
        let text = std::fs::read_to_string(f)?;
        let kept = match orphan_lines_left_out(f, &text) {
            Some(kept) => {
                any = true;
                kept
            }
            None => text,
        };
        texts.push((f.strip_prefix(projects)?.to_owned(), kept));
    }
    if !any {
        return Ok(None);
    }
    let dir = tempfile::tempdir()?;
    for (rel, text) in texts {
        let to = dir.path().join("projects").join(rel);
        std::fs::create_dir_all(to.parent().expect("a file's folder"))?;
        std::fs::write(to, text)?;
    }
    Ok(Some(dir))
}

/// `text` (the transcript at `path`) without its orphan copies; `None`
/// when it has none (or is a subagent's own file).
fn orphan_lines_left_out(path: &Path, text: &str) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let in_subagents = path.parent().is_some_and(|p| p.ends_with("subagents"));
    if name.starts_with("agent-") || in_subagents {
        return None;
    }
    let values: Vec<Option<Value>> = text.lines().map(|l| serde_json::from_str(l).ok()).collect();
    let chains: HashSet<&str> = values
        .iter()
        .flatten()
        .filter(|v| v["isSidechain"] == true)
        .filter_map(|v| v["agentId"].as_str())
        .collect();
    let own_dir = path.with_extension("").join("subagents");
    let beside = path.parent()?;
    let has_file = |a: &str| {
        let name = format!("agent-{a}.jsonl");
        own_dir.join(&name).exists() || beside.join(&name).exists()
    };
    let orphan = |v: &Value| {
        v["type"] == "progress"
            && v["data"]["type"] == "agent_progress"
            && v["data"]["message"]["message"].is_object()
            && v["data"]["agentId"]
                .as_str()
                .is_some_and(|a| !a.is_empty() && !chains.contains(a) && !has_file(a))
    };
    if !values.iter().flatten().any(orphan) {
        return None;
    }
    Some(
        text.lines()
            .zip(&values)
            .filter(|(_, v)| !v.as_ref().is_some_and(orphan))
            .map(|(l, _)| format!("{l}\n"))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(agent: &str) -> String {
        format!(
            r#"{{"type":"progress","data":{{"type":"agent_progress","agentId":"{agent}","message":{{"type":"assistant","message":{{"id":"m"}}}}}}}}"#
        )
    }

    #[test]
    fn only_copies_of_a_subagent_without_a_file_or_side_chain_are_left_out() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("projects/p");
        std::fs::create_dir_all(p.join("s/subagents")).unwrap();
        std::fs::write(p.join("s/subagents/agent-withfile.jsonl"), "{}\n").unwrap();
        let chain = r#"{"type":"assistant","isSidechain":true,"agentId":"chained"}"#;
        let text = [
            progress("withfile"),
            progress("orphan"),
            progress("chained"),
            chain.to_owned(),
        ]
        .join("\n");
        std::fs::write(p.join("s.jsonl"), &text).unwrap();
        let kept = orphan_lines_left_out(&p.join("s.jsonl"), &text).unwrap();
        assert!(!kept.contains("\"orphan\""), "{kept}");
        assert_eq!(kept.lines().count(), 3);
        let copy = without_orphan_copies(&t.path().join("projects"))
            .unwrap()
            .unwrap();
        let laid = std::fs::read_to_string(copy.path().join("projects/p/s.jsonl")).unwrap();
        assert_eq!(laid, kept);
        // A corpus without such a line is not copied.
        std::fs::write(p.join("s.jsonl"), progress("withfile")).unwrap();
        assert!(
            without_orphan_copies(&t.path().join("projects"))
                .unwrap()
                .is_none()
        );
    }
}
