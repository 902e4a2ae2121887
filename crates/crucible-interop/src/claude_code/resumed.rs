//! Which Claude Code session a resumed one continues. `--resume` and
//! `--continue` start a new transcript (a new session id) that first
//! repeats the earlier conversation's lines, with their `uuid`s, under
//! either the earlier `sessionId` or the new one (both are seen in the
//! wild). So the earlier session is the other `sessionId` in the new
//! transcript's head, else the transcript beside it whose head holds one
//! of the same `uuid`s (the newest such: a chain A → B → C continues B).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// How many lines of a transcript are looked at (its repeated history
/// comes first).
const HEAD_LINES: usize = 64;

/// The Claude Code sessions `path` (the transcript of session `current`)
/// may continue, the likeliest first. The hooks (crucible-capture) and the
/// importer both ask this, so that they agree on what a resume is.
pub fn earlier_sessions(path: &Path, current: &str) -> Vec<String> {
    let lines = head(path);
    let mut found: Vec<String> = lines
        .iter()
        .filter_map(|v| v.get("sessionId")?.as_str())
        .filter(|sid| *sid != current)
        .take(1)
        .map(str::to_owned)
        .collect();
    let uuids: HashSet<&str> = lines
        .iter()
        .filter_map(|v| v.get("uuid")?.as_str())
        .collect();
    if uuids.is_empty() {
        return found;
    }
    let Ok(dir) = std::fs::read_dir(path.parent().unwrap_or(Path::new("."))) else {
        return found;
    };
    let mut siblings: Vec<(std::time::SystemTime, String)> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != path && p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| {
            head(p)
                .iter()
                .filter_map(|v| v.get("uuid")?.as_str())
                .any(|u| uuids.contains(u))
        })
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.to_owned();
            let modified = std::fs::metadata(&p).and_then(|m| m.modified()).ok()?;
            (stem != current).then_some((modified, stem))
        })
        .collect();
    siblings.sort_by_key(|s| std::cmp::Reverse(s.0));
    found.extend(siblings.into_iter().map(|(_, stem)| stem));
    found
}

/// The first lines of a transcript that read as JSON objects.
fn head(path: &Path) -> Vec<serde_json::Value> {
    let Ok((file, _)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
        return Vec::new();
    };
    BufReader::new(file)
        .lines()
        .take(HEAD_LINES)
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str(&line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(sid: &str, uuid: &str) -> String {
        format!(
            r#"{{"type":"user","sessionId":"{sid}","uuid":"{uuid}","message":{{"role":"user","content":"hi"}}}}"#
        )
    }

    #[test]
    fn the_earlier_session_is_named_by_its_lines_or_found_by_their_uuids() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, line("aaaa", "u1") + "\n").unwrap();
        // Copied lines under the earlier id.
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("aaaa", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb")[0], "aaaa");
        // Copied lines under the new id: found by their uuid beside it.
        std::fs::write(&b, line("bbbb", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb"), ["aaaa"]);
        // A new session shares no line with another.
        let c = dir.path().join("cccc.jsonl");
        std::fs::write(&c, line("cccc", "u9") + "\n").unwrap();
        assert!(earlier_sessions(&c, "cccc").is_empty());
    }
}
