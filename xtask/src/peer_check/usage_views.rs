//! `cru usage daily --json` against `ccusage daily --json`: for a Claude
//! Code directory, day by day and model by model, the four token kinds
//! equal and the cost equal to the cent.
//!
//! ccusage's `daily` views (all agents, and `claude daily`) count a
//! subagent's usage again where Claude Code repeats it in the parent's
//! `progress` lines; its `claude monthly` (and `session`) views count
//! each request once, as cru does. So when neither daily view agrees, and
//! the corpus has such lines, and ccusage's days only ever count more,
//! the check compares month by month against `ccusage claude monthly`
//! instead, and says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

use super::{Totals, cru_import};

/// The model name of a period's own row (its totals over all models).
const ALL_MODELS: &str = "(all models)";

/// One row: tokens and cost.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Row {
    pub tokens: Totals,
    pub cost: f64,
}

/// Rows by (period, model); each period also has an [`ALL_MODELS`] row.
pub type Rows = BTreeMap<(String, String), Row>;

fn row_of(v: &serde_json::Value, cost_key: &str) -> Row {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    Row {
        tokens: Totals {
            input: n("inputTokens"),
            output: n("outputTokens"),
            cache_creation: n("cacheCreationTokens"),
            cache_read: n("cacheReadTokens"),
        },
        cost: v[cost_key].as_f64().unwrap_or(0.0),
    }
}

/// The rows of a ccusage-shaped report (`{"daily": [...]}` or
/// `{"monthly": [...]}`), whichever tool wrote it: the period is
/// `period`, else `date` or `month` (ccusage's `claude` views).
pub fn parse_rows(json: &[u8], list: &str) -> anyhow::Result<Rows> {
    let v: serde_json::Value = serde_json::from_slice(json).context("reading the report's JSON")?;
    let entries = v[list]
        .as_array()
        .with_context(|| format!("the report has no \"{list}\" list"))?;
    let mut rows = Rows::new();
    for (i, e) in entries.iter().enumerate() {
        let period = ["period", "date", "month"]
            .iter()
            .find_map(|k| e[*k].as_str())
            .with_context(|| format!("{list}[{i}] has no period, date or month"))?
            .to_owned();
        rows.insert((period.clone(), ALL_MODELS.into()), row_of(e, "totalCost"));
        for m in e["modelBreakdowns"].as_array().into_iter().flatten() {
            let model = m["modelName"]
                .as_str()
                .with_context(|| format!("{list}[{i}] has a model breakdown without modelName"))?;
            rows.insert((period.clone(), model.to_owned()), row_of(m, "cost"));
        }
    }
    Ok(rows)
}

fn same(a: Row, b: Row) -> bool {
    a.tokens == b.tokens && (a.cost - b.cost).abs() < 0.005
}

/// The rows where the two disagree (a missing row counts as zero), as
/// lines to print.
pub fn differences(cru: &Rows, peer: &Rows) -> Vec<String> {
    let keys: std::collections::BTreeSet<&(String, String)> =
        cru.keys().chain(peer.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        let a = cru.get(k).copied().unwrap_or_default();
        let b = peer.get(k).copied().unwrap_or_default();
        if !same(a, b) {
            out.push(format!(
                "{} {}: cru {:?} ${:.4}, ccusage {:?} ${:.4}",
                k.0, k.1, a.tokens, a.cost, b.tokens, b.cost
            ));
        }
    }
    out
}

/// True when ccusage's rows count at least cru's tokens in every row and
/// kind: what counting repeated lines again gives, and nothing else.
fn peer_only_counts_more(cru: &Rows, peer: &Rows) -> bool {
    cru.iter().all(|(k, a)| {
        let b = peer.get(k).copied().unwrap_or_default().tokens;
        let a = a.tokens;
        b.input >= a.input
            && b.output >= a.output
            && b.cache_creation >= a.cache_creation
            && b.cache_read >= a.cache_read
    })
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        if p.is_dir() {
            jsonl_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}

fn has_usage_key(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| k == "usage" || has_usage_key(v)),
        serde_json::Value::Array(a) => a.iter().any(has_usage_key),
        _ => false,
    }
}

/// True when some `progress` line under `projects` carries a usage.
fn has_progress_usage(projects: &Path) -> anyhow::Result<bool> {
    let mut files = Vec::new();
    jsonl_files(projects, &mut files)?;
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        for l in text.lines().filter(|l| l.contains("\"progress\"")) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(l)
                && v["type"] == "progress"
                && has_usage_key(&v)
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

fn output(cmd: &mut Command, what: &str) -> anyhow::Result<Vec<u8>> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    anyhow::ensure!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out.stdout)
}

/// `cru --dir sessions usage <view> --json -z UTC`, its rows.
fn cru_rows(cru: &Path, sessions: &Path, view: &str) -> anyhow::Result<Rows> {
    let json = output(
        Command::new(cru)
            .arg("--dir")
            .arg(sessions)
            .args(["usage", view, "--json", "-z", "UTC"]),
        &format!("cru usage {view}"),
    )?;
    parse_rows(&json, view)
}

/// `ccusage <view...> --json --offline -z UTC` on `claude_dir`, its rows
/// (listed under the view's last word).
fn ccusage_rows(ccusage: &Path, claude_dir: &Path, view: &[&str]) -> anyhow::Result<Rows> {
    let json = output(
        Command::new(ccusage)
            .args(view)
            .args(["--json", "--offline", "-z", "UTC"])
            .env("CLAUDE_CONFIG_DIR", claude_dir),
        &format!("ccusage {}", view.join(" ")),
    )?;
    parse_rows(&json, view.last().copied().unwrap_or("daily"))
}

/// What one corpus's comparison found.
pub struct Outcome {
    /// The ccusage view the rows matched (or were last compared with).
    pub view: &'static str,
    /// Rows compared (periods and models).
    pub rows: usize,
    /// The differing rows, as lines; empty when the two agree.
    pub diffs: Vec<String>,
}

/// Imports `claude_dir/projects/` with cru and compares its usage views
/// with ccusage's on the same directory.
pub fn compare(cru: &Path, ccusage: &Path, claude_dir: &Path) -> anyhow::Result<Outcome> {
    let sessions = tempfile::tempdir()?;
    cru_import(cru, None, &claude_dir.join("projects"), sessions.path())?;
    let ours = cru_rows(cru, sessions.path(), "daily")?;
    let all = ccusage_rows(ccusage, claude_dir, &["daily"])?;
    let diffs = differences(&ours, &all);
    if diffs.is_empty() {
        return Ok(Outcome {
            view: "ccusage daily",
            rows: ours.len().max(all.len()),
            diffs,
        });
    }
    let claude = ccusage_rows(ccusage, claude_dir, &["claude", "daily"])?;
    let claude_diffs = differences(&ours, &claude);
    if claude_diffs.is_empty() {
        return Ok(Outcome {
            view: "ccusage claude daily",
            rows: ours.len().max(claude.len()),
            diffs: claude_diffs,
        });
    }
    // Both daily views differ: explained only when the corpus has progress
    // lines with usage and ccusage's days count more, never less.
    if !(has_progress_usage(&claude_dir.join("projects"))?
        && peer_only_counts_more(&ours, &all)
        && peer_only_counts_more(&ours, &claude))
    {
        let mut lines = vec!["against ccusage daily:".to_owned()];
        lines.extend(diffs);
        lines.push("against ccusage claude daily:".into());
        lines.extend(claude_diffs);
        return Ok(Outcome {
            view: "ccusage daily and ccusage claude daily",
            rows: ours.len(),
            diffs: lines,
        });
    }
    println!(
        "  ccusage's daily views count subagent usage repeated in progress lines again ({} day rows differ, ccusage counting more); comparing month by month",
        claude_diffs.len()
    );
    let ours = cru_rows(cru, sessions.path(), "monthly")?;
    let theirs = ccusage_rows(ccusage, claude_dir, &["claude", "monthly"])?;
    Ok(Outcome {
        view: "ccusage claude monthly",
        rows: ours.len().max(theirs.len()),
        diffs: differences(&ours, &theirs),
    })
}

/// One corpus compared; fails with the differing rows listed.
pub fn check(cru: &Path, ccusage: &Path, name: &str, claude_dir: &Path) -> anyhow::Result<()> {
    let o = compare(cru, ccusage, claude_dir)?;
    println!(
        "{name}: cru usage against {}: {} rows ({} differences)",
        o.view,
        o.rows,
        o.diffs.len()
    );
    for d in o.diffs.iter().take(40) {
        println!("  {d}");
    }
    anyhow::ensure!(
        o.diffs.is_empty(),
        "{name}: cru usage and {} disagree",
        o.view
    );
    Ok(())
}

/// Sources of `fixtures/real/claude-code/` whose usage views differ from
/// ccusage's on purpose, with why. Each must still differ, so the list
/// never holds a stale entry.
const KNOWN_DIFFERENCES: [(&str, &str); 1] = [(
    "ccusage-fixtures",
    "usage lines without a timestamp (ccusage leaves them out, cru counts them on the day it imports them), \
     and a request with usage.speed \"fast\" (ccusage names its model <model>-fast, cru keeps the model's name)",
)];

/// Every source of `fixtures/real/claude-code/` (its top folders) laid
/// out as a Claude Code directory of its own, `projects/<source>/...`
/// with the source's files at their paths, and compared.
pub fn check_real(root: &Path, cru: &Path, ccusage: &Path) -> anyhow::Result<()> {
    let base = root.join("fixtures/real/claude-code");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&base)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    sources.retain(|p| p.is_dir());
    sources.sort();
    let mut failed = Vec::new();
    for src in &sources {
        let name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let claude = tempfile::tempdir()?;
        let mut files = Vec::new();
        jsonl_files(src, &mut files)?;
        for f in &files {
            let to = claude
                .path()
                .join("projects")
                .join(&name)
                .join(f.strip_prefix(src)?);
            std::fs::create_dir_all(to.parent().expect("a file's folder"))?;
            std::fs::copy(f, &to)?;
        }
        let o = compare(cru, ccusage, claude.path())?;
        let known = KNOWN_DIFFERENCES
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, why)| *why);
        println!(
            "real {name}: cru usage against {}: {} rows ({} differences)",
            o.view,
            o.rows,
            o.diffs.len()
        );
        match known {
            Some(why) if !o.diffs.is_empty() => println!("  known difference: {why}"),
            Some(_) => {
                println!("  listed as a known difference but agrees");
                failed.push(name);
            }
            None if !o.diffs.is_empty() => {
                for d in o.diffs.iter().take(40) {
                    println!("  {d}");
                }
                failed.push(name);
            }
            None => {}
        }
    }
    anyhow::ensure!(
        failed.is_empty(),
        "cru usage and ccusage disagree on real sources: {}",
        failed.join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{"daily": [
        {"period": "2025-10-02", "inputTokens": 10, "outputTokens": 5,
         "cacheCreationTokens": 3, "cacheReadTokens": 100, "totalCost": 0.25,
         "modelBreakdowns": [
           {"modelName": "claude-opus-4-1", "inputTokens": 6, "outputTokens": 4,
            "cacheCreationTokens": 3, "cacheReadTokens": 100, "cost": 0.2},
           {"modelName": "claude-sonnet-4-5", "inputTokens": 4, "outputTokens": 1,
            "cacheCreationTokens": 0, "cacheReadTokens": 0, "cost": 0.05}]}]}"#;

    fn rows() -> Rows {
        parse_rows(REPORT.as_bytes(), "daily").unwrap()
    }

    #[test]
    fn reads_periods_and_models() {
        let r = rows();
        assert_eq!(r.len(), 3);
        let opus = r[&("2025-10-02".to_owned(), "claude-opus-4-1".to_owned())];
        assert_eq!(opus.tokens.cache_read, 100);
        assert!((opus.cost - 0.2).abs() < 1e-9);
        // ccusage's `claude` views name the day `date`.
        let claude = REPORT.replace("\"period\"", "\"date\"");
        assert_eq!(parse_rows(claude.as_bytes(), "daily").unwrap(), r);
        assert!(parse_rows(b"{}", "daily").is_err());
        assert!(parse_rows(br#"{"daily": [{"inputTokens": 1}]}"#, "daily").is_err());
    }

    #[test]
    fn equal_rows_pass_and_float_noise_is_no_difference() {
        let mut peer = rows();
        for r in peer.values_mut() {
            r.cost += 0.000_000_01;
        }
        assert_eq!(differences(&rows(), &peer), Vec::<String>::new());
    }

    #[test]
    fn a_cent_off_in_cost_fails() {
        let mut peer = rows();
        peer.get_mut(&("2025-10-02".to_owned(), "claude-sonnet-4-5".to_owned()))
            .unwrap()
            .cost += 0.01;
        let d = differences(&rows(), &peer);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].contains("claude-sonnet-4-5"), "{d:?}");
    }

    #[test]
    fn a_token_off_fails_and_a_missing_row_counts() {
        let mut peer = rows();
        peer.get_mut(&("2025-10-02".to_owned(), ALL_MODELS.to_owned()))
            .unwrap()
            .tokens
            .output += 1;
        assert_eq!(differences(&rows(), &peer).len(), 1);
        let mut fewer = rows();
        fewer.remove(&("2025-10-02".to_owned(), "claude-opus-4-1".to_owned()));
        assert_eq!(differences(&rows(), &fewer).len(), 1);
        assert_eq!(differences(&fewer, &rows()).len(), 1);
        // A zero row and no row are the same.
        let mut zero = rows();
        zero.insert(
            ("2025-10-03".to_owned(), ALL_MODELS.to_owned()),
            Row::default(),
        );
        assert_eq!(differences(&rows(), &zero), Vec::<String>::new());
    }

    #[test]
    fn only_counting_more_is_the_progress_lines_pattern() {
        let mut more = rows();
        for r in more.values_mut() {
            r.tokens.cache_read += 7;
        }
        assert!(peer_only_counts_more(&rows(), &more));
        assert!(!peer_only_counts_more(&more, &rows()));
    }
}
