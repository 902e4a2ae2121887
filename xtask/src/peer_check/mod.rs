//! `cargo xtask peer-check`: cru's token totals for Claude Code transcripts
//! against ccusage's, the tool Claude Code users count tokens with.
//!
//! ccusage (`session --json --offline`) reports one row per transcript
//! file, named by the file's stem; a newer subagent file
//! (`<sid>/subagents/agent-<id>.jsonl`) counts toward its parent's row, an
//! older `agent-<id>.jsonl` beside the transcripts is a row of its own.
//! cru imports every run as its own session (subagents as linked
//! children), so its sessions are summed by the row their source falls
//! in, and the four usage parts compared row by row.
//!
//! Beyond these import-time totals, the usage views themselves are
//! compared: `usage_views` (daily, weekly, monthly and session views of a
//! Claude Code directory), `real_views` (each real Claude Code source, and
//! the documented differences), `agent_views` (the daily, monthly and
//! session views of Codex, Gemini CLI, OpenCode and Copilot CLI), on rows
//! read by `report_rows`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

mod agent_views;
pub mod codex;
mod gemini;
mod opencode;
mod orphan_copies;
pub mod real_claude;
mod real_views;
mod report_rows;
mod session_rows;
mod usage_views;

/// The version the issue names: its JSON is what this reads.
pub const CCUSAGE: &str = "ccusage@20.0.24";

/// Token counts of one ccusage row.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
}

impl Totals {
    /// A row (or the `totals`) of ccusage's JSON, by its key names.
    pub fn of_ccusage(row: &serde_json::Value) -> Self {
        let n = |k: &str| row[k].as_u64().unwrap_or(0);
        Self {
            input: n("inputTokens"),
            output: n("outputTokens"),
            cache_creation: n("cacheCreationTokens"),
            cache_read: n("cacheReadTokens"),
        }
    }

    pub fn total(self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    pub fn add(&mut self, o: Self) {
        self.input += o.input;
        self.output += o.output;
        self.cache_creation += o.cache_creation;
        self.cache_read += o.cache_read;
    }
}

/// ccusage installed under `target/peer/` (once), its binary's path.
pub fn install_ccusage(root: &Path) -> anyhow::Result<PathBuf> {
    let prefix = root.join("target/peer");
    let bin = prefix.join("node_modules/.bin/ccusage");
    if bin.exists() {
        return Ok(bin);
    }
    std::fs::create_dir_all(&prefix)?;
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(CCUSAGE)
        .status()
        .context("running npm (Node.js is needed for ccusage)")?;
    anyhow::ensure!(status.success(), "npm install {CCUSAGE} failed");
    Ok(bin)
}

/// ccusage's rows for the transcripts under `claude_dir/projects/`.
pub fn ccusage_totals(
    ccusage: &Path,
    claude_dir: &Path,
) -> anyhow::Result<BTreeMap<String, Totals>> {
    let out = Command::new(ccusage)
        .args(["session", "--json", "--offline"])
        .env("CLAUDE_CONFIG_DIR", claude_dir)
        .output()
        .context("running ccusage")?;
    anyhow::ensure!(
        out.status.success(),
        "ccusage failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).context("ccusage's JSON")?;
    let mut rows = BTreeMap::new();
    for s in v["session"].as_array().into_iter().flatten() {
        let period = s["period"].as_str().unwrap_or("").to_owned();
        rows.insert(period, Totals::of_ccusage(s));
    }
    Ok(rows)
}

/// The ccusage row a cru session imported from `source` counts in.
pub fn row_of(source: &str) -> String {
    let file = Path::new(source.split('#').next().unwrap_or(source));
    let parent = file.parent();
    if parent
        .and_then(Path::file_name)
        .is_some_and(|n| n == "subagents")
        && let Some(sid) = parent.and_then(Path::parent).and_then(Path::file_name)
    {
        return sid.to_string_lossy().into_owned();
    }
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `cru session import [--from <from>] <source>` into the scratch
/// directory `sessions`, and every session it wrote, parsed back, with its
/// file. A source cru refuses as holding nothing gives no session (and no
/// token, as ccusage counts it).
pub fn cru_import(
    cru: &Path,
    from: Option<&str>,
    source: &Path,
    sessions: &Path,
) -> anyhow::Result<Vec<(PathBuf, crucible_core::SessionLog)>> {
    let mut cmd = Command::new(cru);
    cmd.arg("--dir").arg(sessions).args(["session", "import"]);
    if let Some(f) = from {
        cmd.args(["--from", f]);
    }
    let out = cmd
        .arg(source)
        .output()
        .context("running cru session import")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(
        out.status.success() || stderr.contains("nothing to import"),
        "cru session import failed on {}: {stderr}",
        source.display()
    );
    let mut logs = Vec::new();
    for f in crucible_core::store::session_files(sessions)? {
        let bytes = std::fs::read(&f)?;
        let log = crucible_parser::parse_session(&f, &bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        logs.push((f, log));
    }
    Ok(logs)
}

/// Imports `claude_dir/projects/` with `cru` into `sessions` and sums the
/// `usage:` of the sessions by ccusage row.
pub fn cru_totals(
    cru: &Path,
    claude_dir: &Path,
    sessions: &Path,
) -> anyhow::Result<BTreeMap<String, Totals>> {
    let mut rows: BTreeMap<String, Totals> = BTreeMap::new();
    for (f, log) in cru_import(cru, None, &claude_dir.join("projects"), sessions)? {
        let Some(p) = crucible_interop::Provenance::of(&log) else {
            continue;
        };
        let usage = log.frontmatter.extra.get("usage");
        // The method's path is serde_yaml's, which xtask does not name.
        #[allow(clippy::redundant_closure_for_method_calls)]
        let n = |k: &str| {
            usage
                .and_then(|u| u.get(k))
                .and_then(|v| v.as_u64())
                .unwrap_or(0)
        };
        rows.entry(row_of(&p.path)).or_default().add(Totals {
            input: n("input"),
            output: n("output"),
            cache_creation: n("cache_creation"),
            cache_read: n("cache_read"),
        });
        // tokens_used is the sum of the four parts: ccusage's totalTokens.
        let parts = n("input") + n("output") + n("cache_creation") + n("cache_read");
        anyhow::ensure!(
            log.frontmatter.tokens_used.unwrap_or(0) == parts,
            "{}: tokens_used {:?} is not the sum of its usage parts {parts}",
            f.display(),
            log.frontmatter.tokens_used
        );
    }
    Ok(rows)
}

/// The rows where the two disagree, as lines to print.
pub fn differences(cru: &BTreeMap<String, Totals>, peer: &BTreeMap<String, Totals>) -> Vec<String> {
    let mut out = Vec::new();
    // ccusage leaves out a transcript without usage; so does cru's sum.
    let keys: std::collections::BTreeSet<&String> = cru
        .iter()
        .filter(|(_, t)| t.total() > 0)
        .map(|(k, _)| k)
        .chain(peer.keys())
        .collect();
    for k in keys {
        let (a, b) = (
            cru.get(k).copied().unwrap_or_default(),
            peer.get(k).copied().unwrap_or_default(),
        );
        if a != b {
            out.push(format!("{k}: cru {a:?}, ccusage {b:?}"));
        }
    }
    out
}

/// Both counts of one corpus, compared.
pub fn check(
    cru: &Path,
    ccusage: &Path,
    name: &str,
    claude_dir: &Path,
) -> anyhow::Result<(usize, u64)> {
    let scratch = tempfile::tempdir()?;
    let ours = cru_totals(cru, claude_dir, scratch.path())?;
    let theirs = ccusage_totals(ccusage, claude_dir)?;
    let diffs = differences(&ours, &theirs);
    let total: u64 = theirs.values().map(|t| t.total()).sum();
    println!(
        "{name}: {} ccusage rows, {} tokens; cru {} ({} differences)",
        theirs.len(),
        total,
        ours.values().map(|t| t.total()).sum::<u64>(),
        diffs.len()
    );
    if !diffs.is_empty() {
        for d in diffs.iter().take(20) {
            println!("  {d}");
        }
        bail!("{name}: cru and ccusage disagree on {} rows", diffs.len());
    }
    Ok((theirs.len(), total))
}

pub fn run(root: &Path, transcripts: usize) -> anyhow::Result<()> {
    let cru = crate::cru_binary::debug(root)?;
    let ccusage = install_ccusage(root)?;
    real_claude::check(root, &cru, &ccusage)?;
    real_claude::check_resumed(root, &cru, &ccusage)?;
    real_views::check_real(root, &cru, &ccusage)?;
    real_views::check_fast_mode_price(&cru, &ccusage)?;
    check(
        &cru,
        &ccusage,
        "fixtures",
        &root.join("fixtures/foreign/claude-code"),
    )?;
    usage_views::check(
        &cru,
        &ccusage,
        "fixtures",
        &root.join("fixtures/foreign/claude-code"),
    )?;
    codex::check(&cru, &ccusage, "codex", &root.join("fixtures/real/codex"))?;
    let codex_scratch = tempfile::tempdir()?;
    crate::codex_corpus::generate(
        codex_scratch.path(),
        &crate::codex_corpus::CodexCorpus {
            rollouts: 30,
            bytes_each: 40 * 1024,
            seed: 13,
        },
    )?;
    codex::check(&cru, &ccusage, "codex generated", codex_scratch.path())?;
    let scratch = tempfile::tempdir()?;
    crate::claude_corpus::generate(
        scratch.path(),
        &crate::claude_corpus::ClaudeCorpus {
            transcripts,
            bytes_each: 40 * 1024,
            seed: 11,
        },
    )?;
    check(&cru, &ccusage, "generated", scratch.path())?;
    usage_views::check(&cru, &ccusage, "generated", scratch.path())?;
    gemini::check(&cru, &ccusage, &root.join("fixtures/real/gemini"))?;
    opencode::check(&cru, &ccusage, &root.join("fixtures/real/opencode"))?;
    other_agents_daily(root, &cru, &ccusage, codex_scratch.path())?;
    println!("cru's token totals match ccusage's on every session");
    Ok(())
}

/// `cru usage daily|monthly|session` against ccusage's views of each
/// other agent, on its fixtures laid out where ccusage looks (see
/// [`agent_views`]).
fn other_agents_daily(
    root: &Path,
    cru: &Path,
    ccusage: &Path,
    codex_generated: &Path,
) -> anyhow::Result<()> {
    use agent_views::{COPILOT, GEMINI, OPENCODE};
    for (name, dir) in [
        ("codex views", root.join("fixtures/real/codex")),
        ("codex views (foreign)", root.join("fixtures/foreign/codex")),
        ("codex views (generated)", codex_generated.to_owned()),
    ] {
        let (rollouts, streams) = agent_views::codex_files(&dir)?;
        agent_views::check_files(cru, ccusage, name, agent_views::CODEX, &dir, &rollouts)?;
        if !streams.is_empty() {
            agent_views::check_codex_streams(cru, ccusage, &dir, &streams)?;
        }
    }
    let gemini = root.join("fixtures/real/gemini");
    let chats = agent_views::gemini_files(&gemini)?;
    agent_views::check_files(cru, ccusage, "gemini views", GEMINI, &gemini, &chats)?;
    let copilot = root.join("fixtures/real/copilot");
    let events = agent_views::copilot_files(&copilot)?;
    agent_views::check_files(cru, ccusage, "copilot views", COPILOT, &copilot, &events)?;
    for version in ["v1.1.65", "v1.18.33"] {
        let data = root.join("fixtures/real/opencode").join(version);
        agent_views::check(
            cru,
            ccusage,
            &format!("opencode views {version}"),
            OPENCODE,
            &data,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_ccusage_naming() {
        assert_eq!(row_of("/p/-x/abc.jsonl"), "abc");
        assert_eq!(row_of("/p/-x/abc.jsonl#s1"), "abc");
        assert_eq!(row_of("/p/-x/abc/subagents/agent-1.jsonl"), "abc");
        assert_eq!(row_of("/p/-x/agent-9f.jsonl"), "agent-9f");
    }
}

#[cfg(test)]
mod smoke {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::{Totals, cru_totals, differences, row_of};
    use crate::claude_corpus::{ClaudeCorpus, generate};

    /// ccusage's counting rule written out: each `(message.id, requestId)`
    /// once across all files, by its largest line, summed by row.
    fn reference_totals(claude_dir: &Path) -> BTreeMap<String, Totals> {
        let mut files = Vec::new();
        let mut stack = vec![claude_dir.join("projects")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    files.push(p);
                }
            }
        }
        files.sort();
        // Each response once, by its line with the largest total (the
        // final count of a streamed response), summed by row.
        let mut best: BTreeMap<String, (String, Totals)> = BTreeMap::new();
        for f in files {
            for line in std::fs::read_to_string(&f).unwrap().lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let Some(u) = v["message"].get("usage") else {
                    continue;
                };
                let key = format!("{}:{}", v["message"]["id"], v["requestId"]);
                let n = |k: &str| u[k].as_u64().unwrap_or(0);
                let t = Totals {
                    input: n("input_tokens"),
                    output: n("output_tokens"),
                    cache_creation: n("cache_creation_input_tokens"),
                    cache_read: n("cache_read_input_tokens"),
                };
                let row = row_of(&f.display().to_string());
                let e = best.entry(key).or_insert((row, Totals::default()));
                if t.total() > e.1.total() {
                    e.1 = t;
                }
            }
        }
        let mut rows: BTreeMap<String, Totals> = BTreeMap::new();
        for (row, t) in best.into_values() {
            rows.entry(row).or_default().add(t);
        }
        rows
    }

    #[test]
    fn peer_check_smoke_run_on_a_small_generated_corpus() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let claude = tempfile::tempdir().unwrap();
        generate(
            claude.path(),
            &ClaudeCorpus {
                transcripts: 40,
                bytes_each: 4 * 1024,
                seed: 3,
            },
        )
        .unwrap();
        let sessions = tempfile::tempdir().unwrap();
        let ours = cru_totals(&cru, claude.path(), sessions.path()).unwrap();
        let reference = reference_totals(claude.path());
        assert!(reference.len() >= 40);
        assert_eq!(differences(&ours, &reference), Vec::<String>::new());
        // And a difference is found when there is one.
        let mut off = reference;
        off.values_mut().next().unwrap().cache_read += 1;
        assert_eq!(differences(&ours, &off).len(), 1);
    }
}
