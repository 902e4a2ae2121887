//! `cru mcp` (issue 24) against the CLI on the same corpus: a
//! `list_sessions` or `search_sessions` call should cost what the command
//! costs less its process start, since the server stays up between calls;
//! and `record` should add at most 2 ms to the event's own cost.
//!
//! The CLI rows are whole processes, best of `runs`. The MCP rows are
//! calls to one `cru mcp` over stdio, after one call that warms it (as an
//! agent's first call does), best of `runs`, from the request written to
//! the response read. The event's own cost is `cru session log decision`
//! less a process that does nothing (`cru --version`).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};

use crate::index_bench::ms;

/// One `cru mcp` on stdio, initialized.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(cru: &Path, dir: &Path) -> anyhow::Result<Self> {
        let mut child = Command::new(cru)
            .arg("--dir")
            .arg(dir)
            .args(["mcp", "--poll", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting cru mcp")?;
        let stdin = child.stdin.take().context("cru mcp's stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("cru mcp's stdout")?);
        let mut server = Self {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "xtask", "version": "1"}}),
        )?;
        writeln!(
            server.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )?;
        Ok(server)
    }

    fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.next_id += 1;
        let mut msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method});
        msg["params"] = params;
        writeln!(self.stdin, "{msg}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        loop {
            line.clear();
            anyhow::ensure!(self.stdout.read_line(&mut line)? > 0, "cru mcp exited");
            let answer: Value = serde_json::from_str(&line)?;
            if answer["id"] == self.next_id {
                anyhow::ensure!(answer.get("error").is_none(), "{method}: {answer}");
                return Ok(answer);
            }
        }
    }

    /// A tool call that must succeed: its wall time and structured answer.
    fn call(&mut self, tool: &str, arguments: &Value) -> anyhow::Result<(Duration, Value)> {
        let t = Instant::now();
        let answer = self.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments.clone()}),
        )?;
        let took = t.elapsed();
        let result = &answer["result"];
        anyhow::ensure!(result["isError"] != true, "{tool}: {result}");
        Ok((took, result["structuredContent"].clone()))
    }

    /// The best of `runs` calls, after one to warm the server.
    fn best(&mut self, tool: &str, arguments: &Value, runs: usize) -> anyhow::Result<Duration> {
        self.call(tool, arguments)?;
        let mut best = Duration::MAX;
        for _ in 0..runs {
            best = best.min(self.call(tool, arguments)?.0);
        }
        Ok(best)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The best wall time of `cru --dir DIR ARGS`, `runs` times (after one).
fn cli_best(cru: &Path, dir: &Path, args: &[&str], runs: usize) -> anyhow::Result<Duration> {
    let once = || -> anyhow::Result<Duration> {
        let t = Instant::now();
        let out = Command::new(cru)
            .arg("--dir")
            .arg(dir)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        anyhow::ensure!(
            out.success() || out.code() == Some(3),
            "cru {args:?}: {out}"
        );
        Ok(t.elapsed())
    };
    once()?;
    (0..runs)
        .map(|_| once())
        .try_fold(Duration::MAX, |b, t| Ok(b.min(t?)))
}

/// `to` made anew with a hard link to each session file of `from` (no
/// index, no lock): the sessions are never written in place by what the
/// benchmark runs (it records into a session of its own), so the links
/// are safe, and cost no disk.
pub fn link_sessions(from: &Path, to: &Path) -> anyhow::Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to)?;
    }
    for file in crucible_core::store::session_files(from)? {
        let rel = file.strip_prefix(from)?;
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::hard_link(&file, &dest)
            .with_context(|| format!("linking {} to {}", file.display(), dest.display()))?;
    }
    Ok(())
}

/// The `cargo xtask bench --only mcp` table over the sessions in `dir`
/// (which gains one recorded session and the indexes).
pub fn run(cru: &Path, dir: &Path, runs: usize) -> anyhow::Result<String> {
    let sessions = crucible_core::store::session_files(dir)?.len();
    let mut server = Server::start(cru, dir)?;
    let mut out = String::new();
    writeln!(out, "## cru mcp against the CLI, {sessions} sessions")?;
    writeln!(out)?;
    writeln!(
        out,
        "| question | CLI (process) | MCP call | process start (`cru --version`) |"
    )?;
    writeln!(out, "|---|--:|--:|--:|")?;
    let start = cli_best(cru, dir, &["--version"], runs)?;
    let rows: [(&str, Vec<&str>, &str, Value); 2] = [
        (
            "list, 20 newest paused",
            vec![
                "session", "list", "--status", "paused", "--limit", "20", "--format", "json",
            ],
            "list_sessions",
            json!({"status": "paused", "limit": 20}),
        ),
        (
            "search `flaky`",
            vec!["session", "search", "flaky", "--format", "json"],
            "search_sessions",
            json!({"query": "flaky"}),
        ),
    ];
    for (what, args, tool, arguments) in rows {
        let cli = cli_best(cru, dir, &args, runs)?;
        let call = server.best(tool, &arguments, runs)?;
        writeln!(
            out,
            "| {what} | {:.1} ms | {:.1} ms | {:.1} ms |",
            ms(cli),
            ms(call),
            ms(start)
        )?;
    }
    writeln!(out)?;
    write!(out, "{}", record_rows(cru, dir, &mut server, start, runs)?)?;
    Ok(out)
}

/// `record` a decision over MCP against `cru session log decision`.
fn record_rows(
    cru: &Path,
    dir: &Path,
    server: &mut Server,
    start: Duration,
    runs: usize,
) -> anyhow::Result<String> {
    let (_, started) = server.call(
        "record",
        &json!({"event": "start", "title": "mcp bench", "agent": "bench@1.0"}),
    )?;
    let id = started["session"]
        .as_str()
        .context("record start's id")?
        .to_owned();
    let decision = json!({"event": "decision", "session": id, "text": "keep going"});
    let call = server.best("record", &decision, runs)?;
    let cli = cli_best(
        cru,
        dir,
        &["session", "log", "--session", &id, "decision", "keep going"],
        runs,
    )?;
    let own = cli.saturating_sub(start);
    let mut out = String::new();
    writeln!(out, "| record a decision | time |")?;
    writeln!(out, "|---|--:|")?;
    writeln!(
        out,
        "| `cru session log decision` (process) | {:.1} ms |",
        ms(cli)
    )?;
    writeln!(
        out,
        "| its own cost (less `cru --version`) | {:.1} ms |",
        ms(own)
    )?;
    writeln!(out, "| `record` over MCP | {:.1} ms |", ms(call))?;
    writeln!(
        out,
        "| what MCP adds to the event's cost | {:.1} ms |",
        ms(call) - ms(own)
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row on a tiny corpus with the test profile's `cru`, so the
    /// harness cannot rot.
    #[test]
    fn mcp_bench_smoke_run_on_a_small_corpus() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let dir = crate::corpus::small(20, 1, 4, 5);
        let table = run(&cru, dir.path(), 1).unwrap();
        assert!(table.contains("20 sessions"), "{table}");
        assert!(table.contains("| search `flaky` |"), "{table}");
        assert!(table.contains("| `record` over MCP |"), "{table}");
    }
}
