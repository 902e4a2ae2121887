//! The peer check for Codex: on every real Codex file in
//! `fixtures/real/codex/`, `ccusage codex session --json --offline` (one run
//! per file, the file alone under a scratch `CODEX_HOME/sessions/`) and
//! `cru session import` must report the same tokens of each kind.
//!
//! ccusage reports Codex's input without its cached part (`inputTokens`),
//! the cached part (`cacheReadTokens`), output with reasoning
//! (`outputTokens`) and reasoning alone (`reasoningOutputTokens`): cru's
//! `usage` keys `input`, `cache_read`, `output`, `reasoning`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// One file's tokens, by kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CodexTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub reasoning: u64,
}

/// The Codex files under `dir`, sorted.
pub fn codex_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| d.display().to_string())? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// ccusage's totals for `file` alone.
pub fn ccusage_codex(ccusage: &Path, file: &Path) -> anyhow::Result<CodexTotals> {
    let home = tempfile::tempdir()?;
    let sessions = home.path().join("sessions");
    std::fs::create_dir_all(&sessions)?;
    std::fs::copy(
        file,
        sessions.join(file.file_name().context("a file name")?),
    )?;
    let out = Command::new(ccusage)
        .args(["codex", "session", "--json", "--offline"])
        .env("CODEX_HOME", home.path())
        .output()
        .context("running ccusage codex")?;
    anyhow::ensure!(
        out.status.success(),
        "ccusage codex failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).context("ccusage's JSON")?;
    let mut t = CodexTotals::default();
    for s in v["sessions"].as_array().into_iter().flatten() {
        let n = |k: &str| s[k].as_u64().unwrap_or(0);
        t.input += n("inputTokens");
        t.output += n("outputTokens");
        t.cache_read += n("cacheReadTokens");
        t.reasoning += n("reasoningOutputTokens");
    }
    Ok(t)
}

/// cru's totals for `file` alone: imported into a scratch store, the
/// session's `usage:` read back.
pub fn cru_codex(cru: &Path, file: &Path) -> anyhow::Result<CodexTotals> {
    let sessions = tempfile::tempdir()?;
    let mut t = CodexTotals::default();
    for (f, log) in super::cru_import(cru, Some("codex"), file, sessions.path())? {
        let usage = log.frontmatter.extra.get("usage");
        // The method's path is serde_yaml's, which xtask does not name.
        #[allow(clippy::redundant_closure_for_method_calls)]
        let n = |k: &str| {
            usage
                .and_then(|u| u.get(k))
                .and_then(|v| v.as_u64())
                .unwrap_or(0)
        };
        t.input += n("input");
        t.output += n("output");
        t.cache_read += n("cache_read");
        t.reasoning += n("reasoning");
        anyhow::ensure!(
            n("cache_creation") == 0,
            "{}: Codex reports no cache writes",
            f.display()
        );
    }
    Ok(t)
}

/// Both counts of every Codex file under `dir`, compared kind by kind.
pub fn check(cru: &Path, ccusage: &Path, name: &str, dir: &Path) -> anyhow::Result<()> {
    let files = codex_files(dir)?;
    let mut diffs = Vec::new();
    let mut total = 0;
    for f in &files {
        let (ours, theirs) = (cru_codex(cru, f)?, ccusage_codex(ccusage, f)?);
        total += theirs.input + theirs.output + theirs.cache_read;
        if ours != theirs {
            diffs.push(format!("{}: cru {ours:?}, ccusage {theirs:?}", f.display()));
        }
    }
    println!(
        "{name}: {} files, {total} tokens by ccusage ({} differences)",
        files.len(),
        diffs.len()
    );
    if !diffs.is_empty() {
        for d in &diffs {
            println!("  {d}");
        }
        bail!("{name}: cru and ccusage disagree on {} files", diffs.len());
    }
    Ok(())
}
