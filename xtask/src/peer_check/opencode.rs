//! OpenCode's real storage against ccusage's OpenCode reader (`ccusage
//! opencode session`), one ccusage run per data folder (the SQLite
//! database of 1.18.33, the JSON storage of 1.1.65), compared session by
//! session: ccusage's `sessionId` is OpenCode's, which cru keeps as the
//! import's `id`.
//!
//! OpenCode's `tokens.output` leaves the reasoning out; cru's `output`
//! holds it and names it again as `reasoning`, so cru's output less its
//! reasoning is compared with ccusage's.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, ensure};

use super::gemini::Kinds;

/// ccusage's count of each session of the data folder `data`.
fn ccusage_sessions(ccusage: &Path, data: &Path) -> anyhow::Result<BTreeMap<String, Kinds>> {
    let out = Command::new(ccusage)
        .args(["opencode", "session", "--json", "--offline"])
        .env("OPENCODE_DATA_DIR", data)
        .output()
        .context("running ccusage opencode")?;
    ensure!(
        out.status.success(),
        "ccusage opencode failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).context("ccusage's JSON")?;
    let mut by = BTreeMap::new();
    for s in v["sessions"].as_array().into_iter().flatten() {
        let n = |k: &str| s[k].as_u64().unwrap_or(0);
        by.insert(
            s["sessionId"].as_str().unwrap_or("").to_owned(),
            Kinds {
                input: n("inputTokens"),
                output: n("outputTokens"),
                cache_creation: n("cacheCreationTokens"),
                cache_read: n("cacheReadTokens"),
                total: n("totalTokens"),
            },
        );
    }
    Ok(by)
}

/// cru's count of each session of `data`: imported, its `usage:` read back
/// and filed under the source's session id.
fn cru_sessions(cru: &Path, data: &Path) -> anyhow::Result<BTreeMap<String, Kinds>> {
    let sessions = tempfile::tempdir()?;
    let mut by = BTreeMap::new();
    for (f, log) in super::cru_import(cru, Some("opencode"), data, sessions.path())? {
        let id = crucible_interop::Provenance::of(&log)
            .and_then(|p| p.id)
            .with_context(|| format!("{}: no source id", f.display()))?;
        let u = crucible_core::UsageByModel::of(&log.frontmatter)
            .unwrap_or_default()
            .total();
        by.insert(
            id,
            Kinds {
                input: u.input,
                output: u.output - u.reasoning,
                cache_creation: u.cache_creation,
                cache_read: u.cache_read,
                total: u.total() - u.reasoning,
            },
        );
    }
    Ok(by)
}

/// Every data folder under `dir` (`v*/`), counted by both; an error names
/// each session where they disagree.
pub fn check(cru: &Path, ccusage: &Path, dir: &Path) -> anyhow::Result<()> {
    let mut folders: Vec<_> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("opencode.db").is_file() || p.join("storage").is_dir())
        .collect();
    folders.sort();
    ensure!(
        !folders.is_empty(),
        "no OpenCode data folder under {}",
        dir.display()
    );
    let mut diffs = Vec::new();
    let mut count = 0;
    for data in &folders {
        let (ours, theirs) = (cru_sessions(cru, data)?, ccusage_sessions(ccusage, data)?);
        println!("opencode {}: {} sessions", data.display(), theirs.len());
        count += theirs.len();
        if ours != theirs {
            diffs.push(format!(
                "{}: cru {ours:?}, ccusage {theirs:?}",
                data.display()
            ));
        }
    }
    for d in &diffs {
        println!("  {d}");
    }
    ensure!(
        diffs.is_empty(),
        "opencode: cru and ccusage disagree on {} data folders",
        diffs.len()
    );
    println!("opencode: {count} sessions, cru's tokens match ccusage's on each");
    Ok(())
}
