//! The cost of the Claude Code fixtures' requests, per UTC day and model,
//! against ccusage's (`ccusage claude daily --json --offline --timezone UTC
//! --breakdown`), in both `--mode auto` and `--mode calculate`: equal to the
//! cent for every day and model.
//!
//! The requests are read from the transcripts here, the way ccusage reads
//! them (so the test is about prices, not about importing): every line with
//! a `message.usage` and a `timestamp`, and the subagent requests Claude Code
//! repeats inside `progress` lines (`data.message.message.usage`, which
//! ccusage's daily report counts); a response streamed over several lines is
//! counted once, by `message.id` and `requestId`, with its largest total,
//! a main-chain line winning over a side chain's copy. They become
//! `UsageRecord`s of one session, and `SessionLog::usage_lines` and
//! `PriceTable::cost_of` price them as every report does.
//!
//! ccusage is run when it is installed (`cargo xtask peer-check` installs
//! it under `target/peer/`); otherwise the comparison is skipped with a note.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use crucible_core::{
    Frontmatter, Phase, Section, SessionId, SessionLog, Timestamp, Tokens, UsageRecord,
};
use crucible_usage::CostMode;
use crucible_usage::pricing::PriceTable;
use serde_json::Value;

/// The Claude Code transcripts of the fixtures, by the folder ccusage finds
/// them under (`<CLAUDE_CONFIG_DIR>/projects/<folder>`).
fn transcript_roots() -> Vec<(PathBuf, &'static str)> {
    let f = crucible_testkit::fixtures();
    vec![
        (f.join("foreign/claude-code/projects"), ""),
        (f.join("real/claude-code"), "real"),
    ]
}

/// One model request.
#[derive(Debug, Clone)]
struct Request {
    at: String,
    /// The model as ccusage names it in reports: `-fast` for fast mode.
    model: String,
    tokens: Tokens,
    cost_usd: Option<f64>,
    sidechain: bool,
}

/// The usage a line carries: its own message's, or the subagent message a
/// `progress` line repeats.
fn usages(line: &Value) -> Vec<(&Value, &Value)> {
    let mut out = Vec::new();
    if line.pointer("/message/usage").is_some_and(Value::is_object) {
        out.push((line, &line["message"]));
    }
    if let Some(inner) = line.pointer("/data/message")
        && inner
            .pointer("/message/usage")
            .is_some_and(Value::is_object)
    {
        out.push((inner, &inner["message"]));
    }
    out
}

fn request(envelope: &Value, message: &Value, sidechain: bool) -> Option<Request> {
    let at = envelope["timestamp"].as_str()?.to_owned();
    let u = &message["usage"];
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
    let (cache_creation, one_hour) = match u.get("cache_creation").filter(|c| c.is_object()) {
        Some(c) => {
            let h = n(c, "ephemeral_1h_input_tokens");
            (n(c, "ephemeral_5m_input_tokens") + h, h)
        }
        None => (n(u, "cache_creation_input_tokens"), 0),
    };
    let tokens = Tokens {
        input: n(u, "input_tokens"),
        output: n(u, "output_tokens"),
        cache_creation,
        cache_read: n(u, "cache_read_input_tokens"),
        cache_creation_1h: one_hour,
        ..Tokens::default()
    };
    let mut model = message["model"].as_str().unwrap_or("unknown").to_owned();
    if u["speed"].as_str() == Some("fast") {
        model.push_str("-fast");
    }
    Some(Request {
        at,
        model,
        tokens,
        cost_usd: envelope["costUSD"].as_f64(),
        sidechain,
    })
}

/// Every request of the fixtures, each once.
fn requests() -> Vec<Request> {
    let mut list: Vec<Request> = Vec::new();
    let mut by_id: HashMap<(String, String), usize> = HashMap::new();
    for (root, _) in transcript_roots() {
        for file in crucible_testkit::files_under(&root) {
            if file.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("a fixture is UTF-8");
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let sidechain = v["isSidechain"].as_bool() == Some(true);
                for (envelope, message) in usages(&v) {
                    let Some(r) = request(envelope, message, sidechain) else {
                        continue;
                    };
                    let key = message["id"].as_str().map(|id| {
                        (
                            id.to_owned(),
                            envelope["requestId"].as_str().unwrap_or("").to_owned(),
                        )
                    });
                    match key.as_ref().and_then(|k| by_id.get(k)) {
                        Some(&i) if replaces(&r, &list[i]) => list[i] = r,
                        Some(_) => {}
                        None => {
                            if let Some(k) = key {
                                by_id.insert(k, list.len());
                            }
                            list.push(r);
                        }
                    }
                }
            }
        }
    }
    list.retain(|r| !r.tokens.is_zero());
    list
}

fn replaces(candidate: &Request, existing: &Request) -> bool {
    if candidate.sidechain != existing.sidechain {
        return existing.sidechain;
    }
    candidate.tokens.total() > existing.tokens.total()
}

/// The requests as one session's records, priced line by line, summed by
/// (UTC day, model).
fn our_costs(requests: &[Request], mode: CostMode) -> BTreeMap<(String, String), f64> {
    let start: Timestamp = "2025-01-01T00:00:00Z".parse().expect("a time");
    let mut log = SessionLog::new(Frontmatter::new(
        SessionId::new("fixtures").expect("an id"),
        start,
    ));
    let mut phase = Phase::new("all", None, None);
    phase.usage = requests
        .iter()
        .map(|r| UsageRecord {
            at: Some(r.at.parse().unwrap_or_else(|e| panic!("{}: {e}", r.at))),
            model: Some(r.model.clone()),
            tokens: r.tokens,
            cost_usd: r.cost_usd,
            ..UsageRecord::default()
        })
        .collect();
    log.sections.push(Section::Phase(phase));
    let table = PriceTable::shipped();
    let mut out: BTreeMap<(String, String), f64> = BTreeMap::new();
    for line in log.usage_lines() {
        let cost = table.cost_of(&line, mode);
        let model = line.model.clone().unwrap_or_default();
        assert_eq!(cost.unpriced_tokens, 0, "{model} has a price");
        let day = jiff::Timestamp::from_second(line.hour)
            .expect("an hour")
            .to_zoned(jiff::tz::TimeZone::UTC)
            .date()
            .to_string();
        *out.entry((day, model)).or_default() += cost.usd();
    }
    out
}

/// ccusage under the repository's `target/peer/`, when installed.
fn ccusage() -> Option<PathBuf> {
    let bin =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/peer/node_modules/.bin/ccusage");
    bin.exists().then_some(bin)
}

fn copy_tree(from: &Path, to: &Path) {
    for f in crucible_testkit::files_under(from) {
        let dest = to.join(f.strip_prefix(from).expect("under the root"));
        std::fs::create_dir_all(dest.parent().expect("a folder")).expect("a folder made");
        std::fs::copy(&f, dest).expect("a fixture copied");
    }
}

/// ccusage's cost per (day, model) over the same transcripts.
fn their_costs(bin: &Path, claude_dir: &Path, mode: &str) -> BTreeMap<(String, String), f64> {
    let out = Command::new(bin)
        .args([
            "claude",
            "daily",
            "--json",
            "--offline",
            "--timezone",
            "UTC",
            "--breakdown",
        ])
        .args(["--mode", mode])
        .env("CLAUDE_CONFIG_DIR", claude_dir)
        .output()
        .expect("ccusage runs");
    assert!(
        out.status.success(),
        "ccusage: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("ccusage's JSON");
    let mut costs = BTreeMap::new();
    for day in v["daily"].as_array().expect("daily rows") {
        let date = day["date"].as_str().expect("a date").to_owned();
        for m in day["modelBreakdowns"].as_array().expect("breakdowns") {
            let model = m["modelName"].as_str().expect("a model").to_owned();
            costs.insert((date.clone(), model), m["cost"].as_f64().expect("a cost"));
        }
    }
    costs
}

#[test]
fn cost_per_day_and_model_is_ccusages_to_the_cent() {
    let requests = requests();
    assert!(
        requests.len() > 500,
        "the fixtures hold {} requests",
        requests.len()
    );
    let Some(bin) = ccusage() else {
        println!(
            "note: ccusage is not installed under target/peer (cargo xtask peer-check installs it); comparison skipped"
        );
        for mode in [CostMode::Auto, CostMode::Calculate] {
            assert!(!our_costs(&requests, mode).is_empty());
        }
        return;
    };
    let claude = tempfile::tempdir().expect("a scratch folder");
    for (root, folder) in transcript_roots() {
        copy_tree(&root, &claude.path().join("projects").join(folder));
    }
    for (mode, flag) in [(CostMode::Auto, "auto"), (CostMode::Calculate, "calculate")] {
        let ours = our_costs(&requests, mode);
        let theirs = their_costs(&bin, claude.path(), flag);
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "--mode {flag}: the same days and models"
        );
        let mut worst = 0.0_f64;
        for (key, a) in &ours {
            let b = theirs[key];
            worst = worst.max((a - b).abs());
            assert!(
                (a - b).abs() < 0.005,
                "--mode {flag}, {key:?}: cru ${a:.6}, ccusage ${b:.6}"
            );
        }
        println!(
            "--mode {flag}: {} days x models, largest difference ${worst:.2e}",
            ours.len()
        );
    }
}
