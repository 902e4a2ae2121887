//! The parse benchmark: our full parse against plain pulldown-cmark event
//! iteration, over the same files held in memory, on one core.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

/// One measured row.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: &'static str,
    pub bytes: usize,
    pub best: Duration,
}

impl Row {
    pub fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.best.as_secs_f64()
    }
}

/// A peak memory figure for a table: megabytes, or `-` when unknown.
pub fn peak_mb(kb: Option<u64>) -> String {
    kb.map_or_else(
        || "-".to_owned(),
        |k| format!("{:.0} MB", k as f64 / 1024.0),
    )
}

/// Runs each measured closure `runs` times, interleaved (a, b, a, b, ...) so
/// that both see the same machine conditions, and keeps each one's best time.
fn best_interleaved(runs: usize, fs: &mut [&mut dyn FnMut() -> usize]) -> Vec<(Duration, usize)> {
    let mut best = vec![(Duration::MAX, 0); fs.len()];
    for _ in 0..runs.max(1) {
        for (f, b) in fs.iter_mut().zip(best.iter_mut()) {
            let t = Instant::now();
            let check = std::hint::black_box(f());
            *b = (b.0.min(t.elapsed()), check);
        }
    }
    best
}

/// Reads every session file in `dir` and measures both parsers `runs` times,
/// keeping the best time of each (warm caches, no I/O in the timed part).
pub fn measure(dir: &Path, runs: usize) -> anyhow::Result<Vec<Row>> {
    let files: Vec<(std::path::PathBuf, Vec<u8>)> = crucible_core::store::session_files(dir)?
        .into_iter()
        .map(|p| std::fs::read(&p).map(|b| (p, b)))
        .collect::<Result<_, _>>()
        .context("reading the corpus")?;
    anyhow::ensure!(!files.is_empty(), "no session files in {}", dir.display());
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();

    let mut baseline = || -> usize {
        files
            .iter()
            .map(|(_, b)| {
                let text = std::str::from_utf8(b).unwrap_or_default();
                pulldown_cmark::Parser::new(text).count()
            })
            .sum()
    };
    let mut failures = Vec::new();
    let mut ours = || -> usize {
        failures.clear();
        files
            .iter()
            .map(|(p, b)| match crucible_parser::parse_session(p, b) {
                Ok(log) => log.phase_count(),
                Err(e) => {
                    failures.push(e.to_string());
                    0
                }
            })
            .sum()
    };
    let timings = best_interleaved(runs, &mut [&mut baseline, &mut ours]);
    let [(raw, events), (ours, phases)] = [timings[0], timings[1]];
    anyhow::ensure!(
        failures.is_empty(),
        "corpus files failed to parse: {failures:?}"
    );
    anyhow::ensure!(events > 0 && phases > 0, "the corpus has no content");
    Ok(vec![
        Row {
            name: "pulldown-cmark events (baseline)",
            bytes,
            best: raw,
        },
        Row {
            name: "crucible-parser parse_session",
            bytes,
            best: ours,
        },
    ])
}

/// Measures and formats the table `cargo xtask bench` prints.
pub fn run(dir: &Path, runs: usize) -> anyhow::Result<String> {
    let files = crucible_core::store::session_files(dir)?.len();
    let rows = measure(dir, runs)?;
    let mut out = String::new();
    writeln!(
        out,
        "corpus: {} ({files} files, {:.1} MB)",
        dir.display(),
        rows[0].bytes as f64 / 1e6
    )?;
    writeln!(out, "| operation | time | throughput |")?;
    writeln!(out, "|---|---:|---:|")?;
    for r in &rows {
        writeln!(
            out,
            "| {} | {:.3} s | {:.1} MB/s |",
            r.name,
            r.best.as_secs_f64(),
            r.mb_per_s()
        )?;
    }
    let ratio = rows[1].mb_per_s() / rows[0].mb_per_s();
    writeln!(
        out,
        "parse throughput is {:.0}% of raw pulldown-cmark (target: at least 50%)",
        ratio * 100.0
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::CorpusSpec;

    /// The whole harness on a tiny corpus, so it cannot rot between real runs.
    #[test]
    fn bench_smoke_run_on_a_small_corpus() {
        let dir = crate::corpus::small(20, 2, 8, 7);
        let table = run(dir.path(), 1).unwrap();
        assert!(table.contains("20 files"), "{table}");
        assert!(
            table.contains("| crucible-parser parse_session |"),
            "{table}"
        );
        assert!(table.contains("% of raw pulldown-cmark"), "{table}");
    }

    #[test]
    fn corpora_are_deterministic_valid_and_sized() {
        let spec = CorpusSpec {
            sessions: 30,
            min_bytes: 2048,
            max_bytes: 50 * 1024,
            seed: 3,
        };
        for n in 0..spec.sessions {
            let log = crate::corpus::session(&spec, n);
            assert_eq!(log, crate::corpus::session(&spec, n));
            let text = crucible_parser::write_session(&log);
            let back = crucible_parser::parse_session(Path::new("x.md"), text.as_bytes()).unwrap();
            assert_eq!(back, log);
            assert!(
                text.len() >= spec.min_bytes / 2 && text.len() <= spec.max_bytes * 2,
                "{}",
                text.len()
            );
        }
    }
}
