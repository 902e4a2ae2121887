//! The views against ccusage itself, on the Claude Code fixtures: tokens of
//! each kind per (day, model), (month, model) and (session, model).
//!
//! The test reads the transcripts the way ccusage 20.0.24 does (which lines
//! count, deduplication by message and request id keeping the largest),
//! makes one line per (file, model, UTC hour) as an import would, and runs
//! the views; costs are helper P's comparison, so the price is a stub.
//! ccusage's `daily` also counts the usage Claude Code repeats inside
//! `progress` lines (a subagent's answers, as its parent saw them), which
//! its `monthly` and `session` leave out; the test reads both ways.
//! Skipped, with a note, where ccusage is not installed under
//! `target/peer/` (`cargo xtask peer-check` installs it).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use crucible_core::{Tokens, UsageLine};
use crucible_usage::report::{daily, monthly, session};
use crucible_usage::{Cost, ReportOptions, SessionUsage};
use jiff::Timestamp;
use serde_json::Value;

use crate::report_support::tz;

fn ccusage() -> Option<PathBuf> {
    let tail = "peer/node_modules/.bin/ccusage";
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::iter::once(manifest.join("../../target").join(tail))
        .chain(std::env::var_os("CARGO_TARGET_DIR").map(|t| PathBuf::from(t).join(tail)))
        .find(|p| p.is_file())
}

/// The fixtures as ccusage finds them: `<dir>/projects/<project>/...`. A
/// source's own `projects/` folder is kept; other files go one per session
/// under a project named after their folder; `subagents/` stay under their
/// session.
fn lay_out(claude: &Path) -> Vec<PathBuf> {
    let fixtures = crucible_testkit::fixtures();
    let mut roots = vec![("foreign".to_owned(), fixtures.join("foreign/claude-code"))];
    let real = fixtures.join("real/claude-code");
    for e in std::fs::read_dir(&real).expect("the real fixtures") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            roots.push((p.file_name().unwrap().to_string_lossy().into_owned(), p));
        }
    }
    let mut laid = Vec::new();
    for (name, root) in roots {
        for f in crucible_testkit::files_under(&root) {
            if f.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let to = claude.join("projects").join(destination(&name, &root, &f));
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&f, &to).unwrap();
            laid.push(to);
        }
    }
    laid.sort_by_key(|p| p.to_string_lossy().into_owned());
    laid
}

/// Where under `projects/` the file `f` of the source `name` goes.
fn destination(name: &str, root: &Path, f: &Path) -> PathBuf {
    let rel: Vec<String> = f
        .strip_prefix(root)
        .unwrap()
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let rel = match rel.iter().position(|c| c == "projects") {
        Some(i) => rel[i + 1..].to_vec(),
        None => rel,
    };
    let n = rel.len();
    let (folders, kept) = if n >= 3 && rel[n - 2] == "subagents" {
        (&rel[..n - 3], &rel[n - 3..])
    } else {
        (&rel[..n - 1], &rel[n - 1..])
    };
    let project: Vec<&str> = std::iter::once(name)
        .chain(folders.iter().map(String::as_str))
        .collect();
    kept.iter()
        .fold(PathBuf::from(project.join("-")), |p, c| p.join(c))
}

/// ccusage's (session, project) of a file under `projects/`.
fn session_of(file: &Path) -> (String, String) {
    let parts: Vec<String> = file
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let at = parts
        .iter()
        .position(|p| p == "projects")
        .expect("under projects/");
    let rel = &parts[at + 1..];
    let n = rel.len();
    if n == 2 {
        return (rel[1].trim_end_matches(".jsonl").to_owned(), rel[0].clone());
    }
    if n >= 4 && rel[n - 2] == "subagents" {
        return (rel[n - 3].clone(), rel[..n - 3].join("/"));
    }
    (rel[n - 2].clone(), rel[..n - 2].join("/"))
}

/// One request as ccusage keeps it.
#[derive(Debug, Clone)]
struct Entry {
    file: usize,
    at_ms: i64,
    model: Option<String>,
    tokens: Tokens,
    message_id: Option<String>,
    request_id: Option<String>,
    session: String,
    sidechain: bool,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// True when the line has what ccusage requires: a semver-like version if
/// any, and no empty session, request, message id or model.
fn valid(v: &Value, msg: &Value) -> bool {
    let semver = |s: String| {
        s.split('.')
            .take(3)
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let empty = |s: Option<String>| s.is_some_and(|s| s.is_empty());
    text(v, "version").is_none_or(semver)
        && !empty(text(v, "sessionId"))
        && !empty(text(v, "requestId"))
        && !empty(text(msg, "id"))
        && !empty(text(msg, "model"))
}

/// A usage line as ccusage reads one: `message.usage` with input and output
/// counts, a parseable time, no empty ids; `<synthetic>` has no model.
fn entry(v: &Value, file: usize, path_session: &str) -> Option<Entry> {
    let msg = v.get("message")?;
    let usage = msg.get("usage")?;
    let n = |k: &str| usage.get(k).and_then(Value::as_u64);
    let (input, output) = (n("input_tokens")?, n("output_tokens")?);
    let at_ms = text(v, "timestamp")?
        .parse::<Timestamp>()
        .ok()?
        .as_millisecond();
    if !valid(v, msg) {
        return None;
    }
    let cache_creation = match usage.get("cache_creation") {
        Some(c) if c.is_object() => {
            let e = |k: &str| c.get(k).and_then(Value::as_u64).unwrap_or(0);
            e("ephemeral_5m_input_tokens") + e("ephemeral_1h_input_tokens")
        }
        _ => n("cache_creation_input_tokens").unwrap_or(0),
    };
    let fast = usage.get("speed").and_then(Value::as_str) == Some("fast");
    let model = text(msg, "model")
        .filter(|m| m != "<synthetic>")
        .map(|m| if fast { format!("{m}-fast") } else { m });
    Some(Entry {
        file,
        at_ms,
        model,
        tokens: Tokens {
            input,
            output,
            cache_creation,
            cache_read: n("cache_read_input_tokens").unwrap_or(0),
            reasoning: 0,
            cache_creation_1h: 0,
        },
        message_id: text(msg, "id"),
        request_id: text(v, "requestId"),
        session: text(v, "sessionId").unwrap_or_else(|| path_session.to_owned()),
        sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
    })
}

/// The repeated copy of a subagent's request inside a `progress` line
/// (`data.message`), which ccusage's daily view counts.
fn progress_entry(v: &Value, file: usize, path_session: &str) -> Option<Entry> {
    let inner = v.get("data")?.get("message")?;
    let mut e = entry(inner, file, path_session)?;
    e.session = text(v, "sessionId").unwrap_or_else(|| path_session.to_owned());
    Some(e)
}

type DedupKey = (String, Option<String>, Option<String>, Option<i64>);

/// Every counted request of the files, deduplicated: by message and
/// request id (across files), else by message id, session and time; the
/// parent's copy wins over a sidechain's, then the larger.
fn read(files: &[PathBuf], with_progress: bool) -> Vec<Entry> {
    let mut kept: Vec<Entry> = Vec::new();
    let mut index: HashMap<DedupKey, usize> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        let path_session = session_of(f).0;
        let body = std::fs::read_to_string(f).unwrap();
        for l in body.lines().filter(|l| l.contains("\"usage\":{")) {
            let Ok(v) = serde_json::from_str::<Value>(l) else {
                continue;
            };
            let progress = || with_progress.then(|| progress_entry(&v, i, &path_session));
            let Some(e) = entry(&v, i, &path_session).or_else(|| progress().flatten()) else {
                continue;
            };
            let Some(id) = e.message_id.clone() else {
                kept.push(e);
                continue;
            };
            let key = match &e.request_id {
                Some(r) => (id, Some(r.clone()), None, None),
                None => (id, None, Some(e.session.clone()), Some(e.at_ms)),
            };
            if let Some(&at) = index.get(&key) {
                let old = &kept[at];
                let better = if old.sidechain == e.sidechain {
                    e.tokens.total() > old.tokens.total()
                } else {
                    old.sidechain
                };
                if better {
                    kept[at] = e;
                }
            } else {
                index.insert(key, kept.len());
                kept.push(e);
            }
        }
    }
    kept
}

/// One line per (file, model, UTC hour), gathered into ccusage's sessions.
fn sessions(files: &[PathBuf], entries: &[Entry]) -> Vec<SessionUsage> {
    let mut lines: BTreeMap<(usize, Option<String>, i64), UsageLine> = BTreeMap::new();
    for e in entries {
        let hour = e.at_ms.div_euclid(3_600_000) * 3_600;
        let l = lines
            .entry((e.file, e.model.clone(), hour))
            .or_insert_with(|| UsageLine {
                agent: Some("claude-code".into()),
                model: e.model.clone(),
                hour,
                first_ms: e.at_ms,
                last_ms: e.at_ms,
                ..UsageLine::default()
            });
        l.first_ms = l.first_ms.min(e.at_ms);
        l.last_ms = l.last_ms.max(e.at_ms);
        l.requests += 1;
        l.tokens.add(e.tokens);
    }
    let mut by_session: BTreeMap<(String, String), SessionUsage> = BTreeMap::new();
    for ((file, _, _), line) in lines {
        let (id, project) = session_of(&files[file]);
        let s = by_session
            .entry((project.clone(), id.clone()))
            .or_insert_with(|| SessionUsage {
                session_id: id,
                path: files[file].to_string_lossy().into_owned(),
                project: Some(project),
                ..SessionUsage::default()
            });
        s.lines.push(line);
    }
    by_session.into_values().collect()
}

fn stub_price(_: &UsageLine) -> Cost {
    Cost::default()
}

type Figures = BTreeMap<(String, String), [u64; 4]>;

fn kinds(v: &Value) -> [u64; 4] {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    [
        n("inputTokens"),
        n("outputTokens"),
        n("cacheCreationTokens"),
        n("cacheReadTokens"),
    ]
}

/// (row, model) → kinds, and (row, "") → the row's own kinds, from a JSON
/// written by ccusage or by cru: rows under `rows`, named by `key`.
fn figures(json: &Value, rows: &str, key: &str) -> Figures {
    let mut out = Figures::new();
    for row in json[rows].as_array().expect("the rows") {
        let name = row[key].as_str().expect("a row's name").to_owned();
        out.insert((name.clone(), String::new()), kinds(row));
        for m in row["modelBreakdowns"].as_array().into_iter().flatten() {
            let model = m["modelName"].as_str().unwrap_or_default().to_owned();
            out.insert((name.clone(), model), kinds(m));
        }
    }
    out
}

fn run_ccusage(bin: &Path, claude: &Path, view: &str, zone: &str) -> Value {
    let out = Command::new(bin)
        .args(["claude", view, "--json", "--offline", "--timezone", zone])
        .env("CLAUDE_CONFIG_DIR", claude)
        .output()
        .expect("ccusage runs");
    assert!(
        out.status.success(),
        "ccusage {view}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("ccusage's JSON")
}

/// Our view's figures against ccusage's: rows under `rows`, named by `key`.
fn assert_same(what: &str, ours: &Value, theirs: &Value, rows: &str, key: &str) {
    let (ours, theirs) = (figures(ours, rows, key), figures(theirs, rows, key));
    let diff: Vec<String> = ours
        .keys()
        .chain(theirs.keys())
        .filter(|k| ours.get(*k) != theirs.get(*k))
        .map(|k| format!("{k:?}: cru {:?}, ccusage {:?}", ours.get(k), theirs.get(k)))
        .collect();
    assert!(
        diff.is_empty(),
        "{what}: {} differences:\n{}",
        diff.len(),
        diff.join("\n")
    );
    assert!(ours.len() > 10, "{what}: too little compared: {ours:?}");
}

#[test]
fn daily_monthly_and_session_tokens_equal_ccusages() {
    let Some(bin) = ccusage() else {
        eprintln!(
            "note: ccusage is not under target/peer/ (cargo xtask peer-check installs it); skipped"
        );
        return;
    };
    let claude = tempfile::tempdir().unwrap();
    let files = lay_out(claude.path());
    let plain = sessions(&files, &read(&files, false));
    let with_progress = sessions(&files, &read(&files, true));
    let now: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
    // Whole-hour zones only: in a half-hour zone an hour line that crosses
    // local midnight goes to one day (docs/usage.md), ccusage splits it.
    for zone in ["UTC", "America/Los_Angeles", "Asia/Tokyo"] {
        let opts = ReportOptions::new(tz(zone), now);
        let ours = serde_json::to_value(daily(&with_progress, &stub_price, &opts)).unwrap();
        let theirs = run_ccusage(&bin, claude.path(), "daily", zone);
        assert_same(&format!("daily in {zone}"), &ours, &theirs, "daily", "date");
        let ours = serde_json::to_value(monthly(&plain, &stub_price, &opts)).unwrap();
        let theirs = run_ccusage(&bin, claude.path(), "monthly", zone);
        assert_same(
            &format!("monthly in {zone}"),
            &ours,
            &theirs,
            "monthly",
            "month",
        );
    }
    let opts = ReportOptions::new(tz("UTC"), now);
    let ours = serde_json::to_value(session(&plain, &stub_price, &opts)).unwrap();
    let theirs = run_ccusage(&bin, claude.path(), "session", "UTC");
    assert_same("session", &ours, &theirs, "sessions", "sessionId");
}
