//! `cru session learn --all --export jsonl` over a generated corpus: whole
//! processes, warm page cache, best of several runs, in sessions per second.

use std::fmt::Write as _;
use std::path::Path;

use crate::index_bench::measure;

/// The figures of one run.
#[derive(Debug, Clone)]
pub struct LearnFigures {
    pub sessions: usize,
    pub megabytes: f64,
    pub seconds: f64,
    pub peak_kb: Option<u64>,
}

impl LearnFigures {
    pub fn sessions_per_second(&self) -> f64 {
        self.sessions as f64 / self.seconds
    }
}

/// Measures learn over `dir` (a corpus of `sessions` files); the index is
/// built once before, as a user's would be.
pub fn measure_learn(
    cru: &Path,
    dir: &Path,
    sessions: usize,
    runs: usize,
) -> anyhow::Result<LearnFigures> {
    let dir_arg = dir.to_string_lossy().into_owned();
    let out = tempfile::NamedTempFile::new()?;
    let out_arg = out.path().to_string_lossy().into_owned();
    // The index first: learn reads it to find and filter the sessions.
    measure(cru, &["--dir", &dir_arg, "session", "index"], 1)?;
    let args = [
        "--dir", &dir_arg, "session", "learn", "--all", "--export", "jsonl", "--output", &out_arg,
    ];
    let m = measure(cru, &args, runs)?.ok_or_else(|| anyhow::anyhow!("cru did not run"))?;
    let bytes: u64 = crucible_core::store::session_files(dir)?
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    Ok(LearnFigures {
        sessions,
        megabytes: bytes as f64 / 1e6,
        seconds: m.best.as_secs_f64(),
        peak_kb: m.peak_kb,
    })
}

/// The benchmark table.
pub fn run(cru: &Path, dir: &Path, sessions: usize, runs: usize) -> anyhow::Result<String> {
    let f = measure_learn(cru, dir, sessions, runs)?;
    let mut s = String::new();
    writeln!(
        s,
        "learn corpus: {} ({} sessions, {:.0} MB)",
        dir.display(),
        f.sessions,
        f.megabytes
    )?;
    writeln!(
        s,
        "| operation | time | sessions/s | MB/s | peak memory | target |"
    )?;
    writeln!(s, "|---|---:|---:|---:|---:|---|")?;
    writeln!(
        s,
        "| `cru session learn --all --export jsonl` | {:.0} ms | {:.0} | {:.0} | {} | ≥ 5,000 sessions/s |",
        f.seconds * 1000.0,
        f.sessions_per_second(),
        f.megabytes / f.seconds,
        crate::bench::peak_mb(f.peak_kb),
    )?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small run of the benchmark itself, so that the harness cannot rot.
    #[test]
    fn learn_benchmark_smoke_run() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let dir = crate::corpus::small(60, 1, 4, 5);
        let f = measure_learn(&cru, dir.path(), 60, 1).unwrap();
        assert!(f.seconds > 0.0 && f.megabytes > 0.0);
        let table = run(&cru, dir.path(), 60, 1).unwrap();
        assert!(table.contains("sessions/s"), "{table}");
    }
}
