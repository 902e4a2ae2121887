//! What `cru site` costs (`cargo xtask bench --only site`), on the index
//! benchmark's corpus (100,000 sessions): the first run (every page
//! written, target ≥ 2,000 pages/s), and a second run after one session
//! was edited (target ≤ 1 s). Whole processes, best of `runs`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;

use crate::index_bench::{mb, measure, ms};

/// The site of `corpus` written into `scratch` (emptied first).
pub fn run(cru: &Path, corpus: &Path, scratch: &Path, runs: usize) -> anyhow::Result<String> {
    let sessions = crucible_core::store::session_files(corpus)?;
    let n = sessions.len();
    let d = corpus.to_str().context("corpus path is not UTF-8")?;
    let site = scratch.join("site");
    let s = site.to_str().context("scratch path is not UTF-8")?;
    // Warm the index (a first read builds it), as a person's `list` has.
    let _ = measure(cru, &["--dir", d, "session", "list", "--limit", "1"], 1)?;
    let mut out = String::new();
    writeln!(out, "### `cru site` ({n} sessions)\n")?;
    writeln!(out, "| operation | time | peak memory | target |")?;
    writeln!(out, "|---|---:|---:|---|")?;
    // Every page written: each run starts from an empty folder.
    let mut first = None;
    for _ in 0..runs.max(1) {
        let _ = std::fs::remove_dir_all(&site);
        let m = measure(cru, &["--dir", d, "site", "-o", s], 1)?.context("cru site failed")?;
        if first
            .as_ref()
            .is_none_or(|f: &crate::index_bench::Measured| m.best < f.best)
        {
            first = Some(m);
        }
    }
    let first = first.context("no run")?;
    writeln!(
        out,
        "| first run, every page | {:.0} ms ({:.0} pages/s) | {} | ≥ 2,000 pages/s |",
        ms(first.best),
        n as f64 / first.best.as_secs_f64(),
        mb(&first)
    )?;
    // One session edited (in place, a line added), then a second run.
    let edited = sessions.get(n / 2).context("empty corpus")?;
    let original = std::fs::read(edited)?;
    let mut best = None;
    for i in 0..runs.max(1) {
        let mut text = original.clone();
        text.extend_from_slice(format!("\nedited {i}\n").as_bytes());
        std::fs::write(edited, &text)?;
        let m = measure(cru, &["--dir", d, "site", "-o", s], 1)?.context("cru site failed")?;
        if best
            .as_ref()
            .is_none_or(|b: &crate::index_bench::Measured| m.best < b.best)
        {
            best = Some(m);
        }
    }
    std::fs::write(edited, &original)?;
    let best = best.context("no run")?;
    writeln!(
        out,
        "| second run, one session edited | {:.0} ms | {} | ≤ 1 s |",
        ms(best.best),
        mb(&best)
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The site rows on a tiny corpus with the test profile's `cru`, so the
    /// harness cannot rot.
    #[test]
    fn site_bench_smoke_run_on_a_small_corpus() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let dir = crate::corpus::small(20, 1, 4, 5);
        let scratch = tempfile::tempdir().unwrap();
        let table = run(&cru, dir.path(), scratch.path(), 1).unwrap();
        assert!(table.contains("| first run, every page |"), "{table}");
        assert!(
            table.contains("| second run, one session edited |"),
            "{table}"
        );
        assert!(scratch.path().join("site/index.html").is_file());
    }
}
