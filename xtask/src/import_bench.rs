//! `cru session import` of generated Claude Code transcripts, in MB/s, and
//! `cru session stats` over the imported sessions beside
//! `ccusage session --json --offline` over the same transcripts: whole
//! processes, warm page cache, best of several runs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::claude_corpus::{ClaudeCorpus, generate};
use crate::index_bench::{Measured, measure};

/// The corpus under `target/`, generated once per spec.
pub fn corpus(root: &Path, spec: &ClaudeCorpus) -> anyhow::Result<(PathBuf, u64)> {
    let dir = root.join(format!(
        "target/bench-claude-{}x{}k-s{}",
        spec.transcripts,
        spec.bytes_each / 1024,
        spec.seed
    ));
    let marker = dir.join("bytes");
    if let Ok(text) = std::fs::read_to_string(&marker)
        && let Ok(bytes) = text.trim().parse()
    {
        return Ok((dir, bytes));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let bytes = generate(&dir, spec)?;
    std::fs::write(&marker, bytes.to_string())?;
    Ok((dir, bytes))
}

/// Reads every file once, so the runs measure a warm cache.
fn warm(dir: &Path) {
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let _ = std::fs::read(&p);
            }
        }
    }
}

/// The figures of one benchmark run.
#[derive(Debug)]
pub struct ImportFigures {
    pub transcripts: usize,
    pub bytes: u64,
    pub sessions: usize,
    pub import: Measured,
    pub stats: Measured,
    pub ccusage: Option<Measured>,
}

impl ImportFigures {
    pub fn megabytes_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.import.best.as_secs_f64()
    }
}

pub fn measure_import(
    cru: &Path,
    ccusage: Option<&Path>,
    claude_dir: &Path,
    bytes: u64,
    transcripts: usize,
    runs: usize,
) -> anyhow::Result<ImportFigures> {
    warm(claude_dir);
    let projects = claude_dir.join("projects").to_string_lossy().into_owned();
    let mut best: Option<Measured> = None;
    let mut last_dir = None;
    // Each run imports into an empty directory: a second import into the
    // same one would find every source unchanged.
    for _ in 0..runs.max(1) {
        let sessions = tempfile::tempdir()?;
        let s = sessions.path().to_string_lossy().into_owned();
        let m = measure(cru, &["--dir", &s, "session", "import", &projects], 1)?
            .ok_or_else(|| anyhow::anyhow!("cru did not run"))?;
        if best.as_ref().is_none_or(|b| m.best < b.best) {
            best = Some(Measured {
                best: m.best,
                peak_kb: m.peak_kb.max(best.as_ref().and_then(|b| b.peak_kb)),
            });
        }
        last_dir = Some(sessions);
    }
    let sessions = last_dir.expect("one run");
    let s = sessions.path().to_string_lossy().into_owned();
    let count = crucible_core::store::session_files(sessions.path())?.len();
    // The index is built by the import; stats reads it.
    let stats = measure(cru, &["--dir", &s, "session", "stats"], runs)?
        .ok_or_else(|| anyhow::anyhow!("cru did not run"))?;
    let ccusage = match ccusage {
        Some(bin) => {
            let env_arg = format!("CLAUDE_CONFIG_DIR={}", claude_dir.display());
            let bin = bin.to_string_lossy().into_owned();
            measure(
                Path::new("/usr/bin/env"),
                &[&env_arg, &bin, "session", "--json", "--offline"],
                runs,
            )?
        }
        None => None,
    };
    Ok(ImportFigures {
        transcripts,
        bytes,
        sessions: count,
        import: best.expect("one run"),
        stats,
        ccusage,
    })
}

fn mb(kb: Option<u64>) -> String {
    kb.map_or_else(
        || "-".to_owned(),
        |k| format!("{:.0} MB", k as f64 / 1024.0),
    )
}

/// The benchmark table.
pub fn run(
    root: &Path,
    cru: &Path,
    ccusage: Option<&Path>,
    spec: &ClaudeCorpus,
    runs: usize,
) -> anyhow::Result<String> {
    let (dir, bytes) = corpus(root, spec)?;
    let f = measure_import(cru, ccusage, &dir, bytes, spec.transcripts, runs)?;
    let mut s = String::new();
    writeln!(
        s,
        "import corpus: {} ({} Claude Code transcripts, {:.0} MB → {} sessions)",
        dir.display(),
        f.transcripts,
        f.bytes as f64 / 1e6,
        f.sessions
    )?;
    writeln!(s, "| operation | time | throughput | peak memory |")?;
    writeln!(s, "|---|---:|---:|---:|")?;
    writeln!(
        s,
        "| `cru session import` (all transcripts) | {:.0} ms | {:.0} MB/s | {} |",
        f.import.best.as_secs_f64() * 1e3,
        f.megabytes_per_second(),
        mb(f.import.peak_kb)
    )?;
    writeln!(
        s,
        "| `cru session stats` (imported sessions) | {:.0} ms | | {} |",
        f.stats.best.as_secs_f64() * 1e3,
        mb(f.stats.peak_kb)
    )?;
    match &f.ccusage {
        Some(m) => writeln!(
            s,
            "| `ccusage session --json --offline` (same transcripts) | {:.0} ms | {:.0} MB/s | {} |",
            m.best.as_secs_f64() * 1e3,
            f.bytes as f64 / 1e6 / m.best.as_secs_f64(),
            mb(m.peak_kb)
        )?,
        None => writeln!(s, "| ccusage | not installed | | |")?,
    }
    let codex = crate::codex_corpus::CodexCorpus {
        rollouts: spec.transcripts / 10,
        bytes_each: spec.bytes_each,
        seed: spec.seed,
    };
    s.push_str(&crate::codex_corpus::bench_rows(
        root, cru, ccusage, &codex, runs,
    )?);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_benchmark_smoke_run() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let spec = ClaudeCorpus {
            transcripts: 20,
            bytes_each: 8 * 1024,
            seed: 9,
        };
        let bytes = generate(dir.path(), &spec).unwrap();
        let f = measure_import(&cru, None, dir.path(), bytes, 20, 1).unwrap();
        // Every transcript and every subagent run is a session.
        assert!(f.sessions >= 20, "{f:?}");
        assert!(f.megabytes_per_second() > 0.0);
    }
}
