//! Recording benchmarks: the library must stay linear as a session grows, and
//! `cru session log tool` must be quick as a whole process.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;
use crucible_core::{Recorder, SaveMode, SessionConfig, SessionStore, StartOptions};
use crucible_parser::MarkdownCodec;

/// A phase every this many tool calls, a decision every `DECISION_EVERY`:
/// a session shaped like an agent's, not one endless phase.
const CALLS_PER_PHASE: usize = 20;
const DECISION_EVERY: usize = 50;

/// Records `calls` tool calls into a new session under `dir`; returns the
/// time taken, from start to end.
pub fn record_session(dir: &Path, calls: usize, save: SaveMode) -> anyhow::Result<Duration> {
    std::fs::create_dir_all(dir)?;
    let store = SessionStore::new(dir, MarkdownCodec);
    let config = SessionConfig {
        save,
        ..SessionConfig::default()
    };
    let t = Instant::now();
    let mut rec = Recorder::start(
        &store,
        &StartOptions {
            title: Some(format!("bench {calls}")),
            channel: Some("dev".into()),
            agent: Some("coder@1.0".parse()?),
            ..StartOptions::default()
        },
        &config,
    )?;
    for n in 0..calls {
        if n % CALLS_PER_PHASE == 0 {
            rec.phase(&format!("Step {}", n / CALLS_PER_PHASE + 1), None, None)?;
        }
        rec.tool_call(
            "bash",
            &format!("cargo test --package crate{n} -- --nocapture"),
            Some("test result: ok. 12 passed; 0 failed"),
            n % 17 == 0,
        )?;
        if n % DECISION_EVERY == DECISION_EVERY - 1 {
            rec.decision("Keep going: the failures are unrelated to this change.")?;
        }
    }
    rec.end(crucible_core::SessionStatus::Completed, None)?;
    rec.close()?;
    Ok(t.elapsed())
}

/// Runs `cru session log tool` `runs` times against a session that already
/// holds `events` events; returns each run's wall time, sorted.
pub fn cli_log_tool(
    cru: &Path,
    dir: &Path,
    events: usize,
    runs: usize,
) -> anyhow::Result<Vec<Duration>> {
    let sessions = dir.join("cli");
    let _ = std::fs::remove_dir_all(&sessions);
    record_session(&sessions, events, SaveMode::Phase)?;
    let id = crucible_core::store::session_files(&sessions)?
        .first()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .context("the session was not written")?;
    // Reopen it, as a live session would be.
    let reopen = Command::new(cru)
        .args([
            "session",
            "log",
            "--reopen",
            "--session",
            &id,
            "phase",
            "Benchmark",
        ])
        .env("CRU_SESSIONS_DIR", &sessions)
        .status()?;
    anyhow::ensure!(reopen.success(), "cru session log --reopen failed");
    let mut times = Vec::with_capacity(runs);
    for n in 0..runs {
        let t = Instant::now();
        let ok = Command::new(cru)
            .args([
                "session",
                "log",
                "tool",
                "bash",
                &format!("cargo test run-{n}"),
                "--result",
                "12 passed",
            ])
            .env("CRU_SESSIONS_DIR", &sessions)
            .env("CRU_SESSION", &id)
            .status()?
            .success();
        times.push(t.elapsed());
        anyhow::ensure!(ok, "cru session log tool failed");
    }
    times.sort();
    Ok(times)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The recording rows of `cargo xtask bench`.
pub fn run(
    cru: &Path,
    dir: &Path,
    small: usize,
    large: usize,
    cli_runs: usize,
) -> anyhow::Result<String> {
    let mut out = String::new();
    writeln!(
        out,
        "| recording | {small} calls | {large} calls | ratio (target ≤ 12×) |"
    )?;
    writeln!(out, "|---|---:|---:|---:|")?;
    for (name, save) in [
        ("library, phase policy", SaveMode::Phase),
        ("library, tool policy (fsync per event)", SaveMode::Tool),
    ] {
        let _ = std::fs::remove_dir_all(dir);
        let a = record_session(&dir.join("small"), small, save)?;
        let b = record_session(&dir.join("large"), large, save)?;
        writeln!(
            out,
            "| {name} | {:.1} ms | {:.1} ms | {:.1}× |",
            ms(a),
            ms(b),
            b.as_secs_f64() / a.as_secs_f64()
        )?;
    }
    let times = cli_log_tool(cru, dir, 1000, cli_runs)?;
    let median = times[times.len() / 2];
    let p90 = times[(times.len() * 9 / 10).min(times.len() - 1)];
    writeln!(out)?;
    writeln!(
        out,
        "`cru session log tool` on a 1,000-event session, whole process, {cli_runs} runs: median {:.2} ms, p90 {:.2} ms (target: median under 10 ms)",
        ms(median),
        ms(p90)
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_bench_smoke_run() {
        let t = tempfile::tempdir().unwrap();
        for save in [SaveMode::Phase, SaveMode::Tool] {
            let d = record_session(&t.path().join(format!("{save:?}")), 60, save).unwrap();
            assert!(d > Duration::ZERO);
        }
        let store = SessionStore::new(t.path().join("Phase"), MarkdownCodec);
        let files = crucible_core::store::session_files(store.dir()).unwrap();
        let log = store.load_path(&files[0]).unwrap();
        assert_eq!(log.tool_calls().count(), 60);
        assert_eq!(log.phase_count(), 3);
    }
}
