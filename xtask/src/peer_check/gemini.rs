//! Gemini CLI chats against ccusage's Gemini reader (`ccusage gemini
//! session`), one ccusage run per real chat file.
//!
//! ccusage's kinds and cru's differ in one place only: ccusage's
//! `outputTokens` leave the thoughts out (they are in its `totalTokens`
//! only), cru's `output` holds them and names them again as `reasoning`.
//! So cru's output less its reasoning is compared with ccusage's output,
//! and both totals with each other.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, ensure};

/// One chat's tokens, in ccusage's terms.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Kinds {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    pub total: u64,
}

/// The chat files under `dir`.
fn chats(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json" || x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// ccusage's count of one chat: the file alone in a `chats/` folder it
/// is pointed at with `GEMINI_DATA_DIR`.
fn ccusage_kinds(ccusage: &Path, chat: &Path) -> anyhow::Result<Kinds> {
    let data = tempfile::tempdir()?;
    let chats = data.path().join("project/chats");
    std::fs::create_dir_all(&chats)?;
    std::fs::copy(chat, chats.join(chat.file_name().context("a file name")?))?;
    let out = Command::new(ccusage)
        .args(["gemini", "session", "--json", "--offline"])
        .env("GEMINI_DATA_DIR", data.path())
        .output()
        .context("running ccusage gemini")?;
    ensure!(
        out.status.success(),
        "ccusage gemini failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).context("ccusage's JSON")?;
    let t = &v["totals"];
    let n = |k: &str| t[k].as_u64().unwrap_or(0);
    Ok(Kinds {
        input: n("inputTokens"),
        output: n("outputTokens"),
        cache_creation: n("cacheCreationTokens"),
        cache_read: n("cacheReadTokens"),
        total: n("totalTokens"),
    })
}

/// cru's count of one chat: imported alone, its `usage:` read back.
fn cru_kinds(cru: &Path, chat: &Path) -> anyhow::Result<Kinds> {
    let sessions = tempfile::tempdir()?;
    let mut k = Kinds::default();
    for (_, log) in super::cru_import(cru, Some("gemini"), chat, sessions.path())? {
        let u = crucible_core::UsageByModel::of(&log.frontmatter)
            .unwrap_or_default()
            .total();
        k.input += u.input;
        k.output += u.output - u.reasoning;
        k.cache_creation += u.cache_creation;
        k.cache_read += u.cache_read;
        k.total += u.total();
    }
    Ok(k)
}

/// Every chat under `dir`, counted by both; an error names each file
/// where they disagree.
pub fn check(cru: &Path, ccusage: &Path, dir: &Path) -> anyhow::Result<()> {
    let mut diffs = Vec::new();
    let files = chats(dir)?;
    for chat in &files {
        let (ours, theirs) = (cru_kinds(cru, chat)?, ccusage_kinds(ccusage, chat)?);
        println!("gemini {}: {} tokens", chat.display(), theirs.total);
        if ours != theirs {
            diffs.push(format!(
                "{}: cru {ours:?}, ccusage {theirs:?}",
                chat.display()
            ));
        }
    }
    for d in &diffs {
        println!("  {d}");
    }
    ensure!(
        diffs.is_empty(),
        "gemini: cru and ccusage disagree on {} files",
        diffs.len()
    );
    println!(
        "gemini: {} chats, cru's tokens match ccusage's on each",
        files.len()
    );
    Ok(())
}
