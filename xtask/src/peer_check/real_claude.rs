//! cru against ccusage on every real Claude Code file in
//! `fixtures/real/claude-code/`, one ccusage run per file: each file is
//! copied alone into a scratch `projects/` folder, so both tools read
//! exactly that file (a transcript without its subagents' files, a
//! subagent's file on its own), and each token kind must be equal.

use std::path::Path;

use super::usage_views::jsonl_files;
use super::{Totals, ccusage_totals, cru_totals};

/// Files on which cru and ccusage differ on purpose, with why (also in
/// docs/interop.md). Each must still differ: one that agrees is reported,
/// so the list never holds a stale entry.
const KNOWN_DIFFERENCES: [(&str, &str); 1] = [(
    "ccusage-fixtures/test-transcript.jsonl",
    "its usage lines have no timestamp: ccusage leaves such lines out (it dates every entry), cru counts their tokens",
)];

/// True when some line of `file` reports tokens.
fn has_usage(file: &Path) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(file)?;
    Ok(text.lines().any(|l| {
        serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| {
            v.pointer("/message/usage")
                .and_then(serde_json::Value::as_object)
                .is_some_and(|u| u.values().any(|n| n.as_u64().is_some_and(|n| n > 0)))
        })
    }))
}

/// Sums a tool's rows (one file can be more than one row for neither).
fn sum(rows: &std::collections::BTreeMap<String, Totals>) -> Totals {
    let mut t = Totals::default();
    for r in rows.values() {
        t.add(*r);
    }
    t
}

/// Every real file compared; the number of files and of tokens checked.
pub fn check(root: &Path, cru: &Path, ccusage: &Path) -> anyhow::Result<(usize, u64)> {
    let mut files = Vec::new();
    jsonl_files(&root.join("fixtures/real/claude-code"), &mut files)?;
    files.sort();
    let mut diffs = Vec::new();
    let mut tokens = 0;
    let mut copies_checked = 0;
    for f in &files {
        let claude = tempfile::tempdir()?;
        let project = claude.path().join("projects/real");
        std::fs::create_dir_all(&project)?;
        std::fs::copy(f, project.join(f.file_name().expect("a file")))?;
        let theirs = sum(&ccusage_totals(ccusage, claude.path())?);
        let rel = f.strip_prefix(root.join("fixtures/real/claude-code"))?;
        let known = KNOWN_DIFFERENCES
            .iter()
            .find(|(k, _)| Path::new(k) == rel)
            .map(|(_, why)| *why);
        // `ccusage session` counts no progress-line copies: cru, which
        // counts those of a subagent with no file (here, every subagent of
        // a transcript copied alone), is compared with it without them,
        // and with them against `ccusage claude daily`, which counts them.
        let stripped =
            super::orphan_copies::without_orphan_copies(&claude.path().join("projects"))?;
        if stripped.is_some() {
            let with_copies = tempfile::tempdir()?;
            let ours = sum(&cru_totals(cru, claude.path(), with_copies.path())?);
            let daily = claude_daily_totals(ccusage, claude.path())?;
            copies_checked += 1;
            if ours != daily {
                diffs.push(format!(
                    "{}: with the progress-line copies, cru {ours:?}, ccusage claude daily {daily:?}",
                    f.display()
                ));
            }
        }
        if theirs.total() == 0 && known.is_none() {
            // Nothing to count: summary-only or empty files, which cru
            // refuses as nothing to import. A file with usage lines that
            // ccusage counts as nothing is a difference to explain.
            if has_usage(f)? {
                diffs.push(format!("{}: ccusage counts no tokens", f.display()));
            }
            continue;
        }
        let cru_dir = stripped.as_ref().map_or(claude.path(), |d| d.path());
        let sessions = tempfile::tempdir()?;
        let ours = sum(&cru_totals(cru, cru_dir, sessions.path())?);
        tokens += theirs.total();
        match known {
            Some(why) if ours != theirs => println!("  known difference, {}: {why}", rel.display()),
            Some(_) => diffs.push(format!(
                "{}: listed as a known difference but agrees",
                rel.display()
            )),
            None if ours != theirs => {
                diffs.push(format!("{}: cru {ours:?}, ccusage {theirs:?}", f.display()));
            }
            None => {}
        }
    }
    println!(
        "real Claude Code files: {} files, {tokens} tokens, {copies_checked} with subagents known only by progress-line copies ({} differences)",
        files.len(),
        diffs.len()
    );
    for d in &diffs {
        println!("  {d}");
    }
    anyhow::ensure!(
        diffs.is_empty(),
        "cru and ccusage disagree on {} real files",
        diffs.len()
    );
    Ok((files.len(), tokens))
}

/// The totals of `ccusage claude daily` on `claude_dir`.
fn claude_daily_totals(ccusage: &Path, claude_dir: &Path) -> anyhow::Result<Totals> {
    let json = super::usage_views::ccusage_json(ccusage, claude_dir, &["claude", "daily"])?;
    let v: serde_json::Value = serde_json::from_slice(&json)?;
    Ok(Totals::of_ccusage(&v["totals"]))
}

/// A transcript and a resumed copy of its history (its first lines, as
/// Claude Code copies them into a resumed session's file), in two
/// projects: ccusage counts each response once, in the file it reads
/// first, and so must cru's import of both in one run (docs/interop.md).
pub fn check_resumed(root: &Path, cru: &Path, ccusage: &Path) -> anyhow::Result<(usize, u64)> {
    const COPIED_LINES: usize = 40;
    let source =
        root.join("fixtures/real/claude-code/ai-sessions/claude-code-pomodoro-timer.jsonl");
    let text = std::fs::read_to_string(&source)?;
    let claude = tempfile::tempdir()?;
    for (project, name, lines) in [
        ("a-resumed", "resumed.jsonl", COPIED_LINES),
        ("b-original", "original.jsonl", usize::MAX),
    ] {
        let dir = claude.path().join("projects").join(project);
        std::fs::create_dir_all(&dir)?;
        let kept: String = text.lines().take(lines).map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(name), kept)?;
    }
    super::check(cru, ccusage, "resumed copy", claude.path())
}
