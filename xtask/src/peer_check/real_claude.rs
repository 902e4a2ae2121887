//! cru against ccusage on every real Claude Code file in
//! `fixtures/real/claude-code/`, one ccusage run per file: each file is
//! copied alone into a scratch `projects/` folder, so both tools read
//! exactly that file (a transcript without its subagents' files, a
//! subagent's file on its own), and each token kind must be equal.

use std::path::{Path, PathBuf};

use super::{Totals, ccusage_totals, cru_totals};

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            jsonl_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
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
    for f in &files {
        let claude = tempfile::tempdir()?;
        let project = claude.path().join("projects/real");
        std::fs::create_dir_all(&project)?;
        std::fs::copy(f, project.join(f.file_name().expect("a file")))?;
        let theirs = sum(&ccusage_totals(ccusage, claude.path())?);
        if theirs.total() == 0 {
            // Nothing to count (no usage; summary-only or empty files):
            // cru refuses or imports them without tokens.
            continue;
        }
        let sessions = tempfile::tempdir()?;
        let ours = sum(&cru_totals(cru, claude.path(), sessions.path())?);
        tokens += theirs.total();
        if ours != theirs {
            diffs.push(format!("{}: cru {ours:?}, ccusage {theirs:?}", f.display()));
        }
    }
    println!(
        "real Claude Code files: {} files, {tokens} tokens ({} differences)",
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
