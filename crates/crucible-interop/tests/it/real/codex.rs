//! Codex: every real rollout and `codex exec --json` stream in
//! `fixtures/real/codex/`, imported and compared with what a counter here
//! reads from the lines themselves.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crucible_core::{Block, CalloutKind, Tokens, UsageByModel};
use crucible_interop::{Exported, Format, detect, export, find_sources, import};

fn root() -> PathBuf {
    super::real_dir("codex")
}

/// The real files that hold a session (one exec stream holds only its
/// start and is refused: `a_stream_that_only_started_is_refused`).
fn files() -> Vec<PathBuf> {
    super::real_files("codex", &["jsonl"])
        .into_iter()
        .filter(|p| !p.ends_with(ONLY_STARTED))
        .collect()
}

const ONLY_STARTED: &str = "agentcmd/exec-json/stream-output-multi-1.jsonl";

#[test]
fn a_stream_that_only_started_is_refused() {
    let path = root().join(ONLY_STARTED);
    assert_eq!(detect(&path), Some(Format::Codex));
    let err = import(&path, Format::Codex).unwrap_err().to_string();
    assert!(
        err.ends_with("nothing to import: 2 records read (thread.started 1, turn.started 1)"),
        "{err}"
    );
}

/// What the source says, counted from its lines.
#[derive(Debug, Default, PartialEq)]
struct Facts {
    lines: u64,
    calls: usize,
    failed: usize,
    user_messages: usize,
    replies: usize,
    /// Images the user sent (`input_image` parts).
    images: usize,
    usage: Tokens,
    /// Model requests that spent tokens: steps of the running total
    /// (rollouts), turns (exec streams).
    requests: usize,
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Words Codex puts in a user message itself; the IDE's message holds the
/// request after its `## My request for Codex:` heading.
fn user_words(text: &str) -> Option<&str> {
    let t = text.trim_start();
    if t.starts_with("# Context from my IDE setup") {
        return t
            .split("## My request for Codex:")
            .nth(1)
            .map(str::trim)
            .filter(|r| !r.is_empty());
    }
    let injected = [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md",
        "<INSTRUCTIONS>",
    ];
    (!injected.iter().any(|m| t.starts_with(m)) && !t.trim().is_empty()).then_some(t)
}

fn content_text(content: &Value) -> String {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A shell or patch output that failed: a wrapper with a non-zero exit
/// code, or Codex's plain-text refusals.
fn output_failed(output: &str) -> bool {
    if let Ok(w) = serde_json::from_str::<Value>(output)
        && w["output"].is_string()
    {
        return w["metadata"]["exit_code"].as_i64().is_some_and(|c| c != 0);
    }
    // Codex's plain-text headers: `Exit code: N` (shell_command) or
    // `Process exited with code N` (unified exec), before `Output:`.
    let header = output.split("\nOutput:").next().unwrap_or("");
    if header.len() < output.len()
        && let Some(code) = header.lines().find_map(|l| {
            l.strip_prefix("Exit code: ")
                .or_else(|| l.strip_prefix("Process exited with code "))
        })
    {
        return code.trim() != "0";
    }
    [
        "failed in sandbox",
        "execution error",
        "patch rejected",
        "apply_patch verification failed",
        "error",
        "Error",
    ]
    .iter()
    .any(|p| output.starts_with(p))
}

/// The tokens of `total_token_usage` steps: a lower total restarts the
/// count; a total seen before is a replay and counts nothing. True when
/// the step spent tokens.
fn add_step(
    usage: &mut Tokens,
    prev: &mut Option<[u64; 4]>,
    seen: &mut HashSet<[u64; 4]>,
    t: &Value,
) -> bool {
    let now = [
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "reasoning_output_tokens",
    ]
    .map(|k| t[k].as_u64().unwrap_or(0));
    if !seen.insert(now) {
        return false;
    }
    let step = match prev {
        Some(p) if now.iter().zip(p.iter()).any(|(a, b)| a < b) => now,
        Some(p) => [0, 1, 2, 3].map(|i| now[i] - p[i]),
        None => now,
    };
    *prev = Some(now);
    usage.input += step[0] - step[1];
    usage.cache_read += step[1];
    usage.output += step[2];
    usage.reasoning += step[3];
    step.iter().any(|n| *n > 0)
}

fn rollout_facts(records: &[Value]) -> Facts {
    let mut f = Facts::default();
    let mut calls = HashSet::new();
    let mut prev = None;
    let mut seen = HashSet::new();
    for v in records {
        f.lines += 1;
        let p = &v["payload"];
        match (v["type"].as_str(), p["type"].as_str()) {
            (Some("response_item"), Some("message")) => match p["role"].as_str() {
                Some("user") => {
                    let images = p["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|c| c["type"] == "input_image")
                        .count();
                    // Each image is a record of its own in the tally.
                    f.lines += images as u64;
                    f.images += images;
                    f.user_messages += usize::from(
                        user_words(&content_text(&p["content"])).is_some() || images > 0,
                    );
                }
                Some("assistant") => {
                    f.replies += usize::from(!content_text(&p["content"]).trim().is_empty());
                }
                _ => {}
            },
            (
                Some("response_item"),
                Some("function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call"),
            ) => {
                f.calls += 1;
                calls.insert(p["call_id"].as_str().unwrap_or("").to_owned());
            }
            (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
                let out = p["output"].as_str().unwrap_or("");
                if calls.contains(p["call_id"].as_str().unwrap_or("")) && output_failed(out) {
                    f.failed += 1;
                }
            }
            (Some("event_msg"), Some("token_count")) => {
                if let Some(t) = p["info"].get("total_token_usage") {
                    f.requests += usize::from(add_step(&mut f.usage, &mut prev, &mut seen, t));
                }
            }
            _ => {}
        }
    }
    f
}

fn exec_facts(records: &[Value]) -> Facts {
    let mut f = Facts::default();
    let mut state: HashMap<String, &Value> = HashMap::new();
    for v in records {
        f.lines += 1;
        let item = &v["item"];
        match (v["type"].as_str(), item["type"].as_str()) {
            (Some("item.completed"), Some("agent_message")) => f.replies += 1,
            (
                Some(_),
                Some("command_execution" | "file_change" | "mcp_tool_call" | "web_search"),
            ) => {
                state.insert(item["id"].as_str().unwrap().to_owned(), item);
            }
            (Some("turn.completed"), _) => {
                let u = &v["usage"];
                let n = |k: &str| u[k].as_u64().unwrap_or(0);
                f.usage.input += n("input_tokens") - n("cached_input_tokens");
                f.usage.cache_read += n("cached_input_tokens");
                f.usage.output += n("output_tokens");
                f.requests += usize::from(n("input_tokens") + n("output_tokens") > 0);
            }
            _ => {}
        }
    }
    f.calls = state.len();
    f.failed = state
        .values()
        .filter(|i| i["exit_code"].as_i64().is_some_and(|c| c != 0) || i["status"] == "failed")
        .count();
    f
}

fn facts(path: &Path) -> Facts {
    let records = lines(path);
    if records.iter().any(|v| v.get("payload").is_some()) {
        rollout_facts(&records)
    } else {
        exec_facts(&records)
    }
}

/// The same facts, read from the imported session.
fn imported_facts(path: &Path) -> Facts {
    let imp = import(path, Format::Codex).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        imp.warnings.is_empty(),
        "{}: {:?}",
        path.display(),
        imp.warnings
    );
    assert!(imp.children.is_empty(), "Codex files have no subagents");
    let log = &imp.log;
    let calls: Vec<_> = log.tool_calls().collect();
    let callouts = |k: CalloutKind| log.callouts().filter(|c| c.kind() == k).count();
    let user_phases = log
        .phases()
        .filter(|(_, p)| matches!(p.blocks.first(), Some(Block::Callout(c)) if c.kind() == CalloutKind::User))
        .count();
    assert_eq!(
        user_phases,
        callouts(CalloutKind::User),
        "{}",
        path.display()
    );
    // Every call is in the sidecar too (a web search has no id in Codex).
    assert_eq!(imp.data.calls().count(), calls.len());
    assert_eq!(imp.data.check(log), Vec::new(), "{}", path.display());
    super::assert_records_make_the_totals(log, &path.display().to_string());
    Facts {
        lines: imp.records.read_count() + imp.records.skipped_count(),
        calls: calls.len(),
        failed: calls.iter().filter(|c| c.failed).count(),
        user_messages: user_phases,
        replies: log
            .callouts()
            .filter(|c| c.kind.eq_ignore_ascii_case("reply"))
            .count(),
        images: {
            let records = imp
                .data
                .records
                .iter()
                .filter(|r| matches!(r, crucible_core::DataRecord::Image(_)))
                .count();
            let markers: usize = log
                .callouts()
                .filter(|c| c.kind() == CalloutKind::User)
                .map(|c| {
                    c.body
                        .iter()
                        .map(|l| l.matches("[image: ").count())
                        .sum::<usize>()
                })
                .sum();
            assert_eq!(records, markers, "{}", path.display());
            records
        },
        usage: UsageByModel::of(&log.frontmatter)
            .map(|u| u.total())
            .unwrap_or_default(),
        requests: log.usage_records().count(),
    }
}

#[test]
fn every_real_codex_file_is_detected_as_codex() {
    let files = super::real_files("codex", &["jsonl"]);
    assert_eq!(files.len(), 20, "14 rollouts and 6 exec streams");
    for f in &files {
        assert_eq!(detect(f), Some(Format::Codex), "{}", f.display());
    }
    let found = find_sources(&root(), None);
    assert_eq!(found.sources.len(), files.len());
    assert!(found.sources.iter().all(|(_, f)| *f == Format::Codex));
}

#[test]
fn every_real_codex_file_imports_with_the_counted_facts() {
    let mut by_file = BTreeMap::new();
    for f in files() {
        let expected = facts(&f);
        let got = imported_facts(&f);
        assert_eq!(got, expected, "{}", f.display());
        by_file.insert(f.file_name().unwrap().to_string_lossy().into_owned(), got);
    }
    // The traps the issue names are in these files.
    let total_failed: usize = by_file.values().map(|f| f.failed).sum();
    assert!(total_failed >= 14, "failed calls: {total_failed}");
    let total_images: usize = by_file.values().map(|f| f.images).sum();
    assert!(total_images >= 14, "user images: {total_images}");
    let restart =
        &by_file["rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl"];
    // ccusage 20.0.24 reports 1,400,951 for this file (docs/interop.md).
    assert_eq!(restart.usage.total(), 1_400_951);
}

#[test]
fn every_real_codex_record_is_read_and_none_skipped() {
    for f in files() {
        let imp = import(&f, Format::Codex).unwrap();
        assert_eq!(
            imp.records.skipped_count(),
            0,
            "{}: {}",
            f.display(),
            imp.records
        );
    }
}

#[test]
fn codex_context_is_never_a_title_or_a_phase() {
    for f in files() {
        let imp = import(&f, Format::Codex).unwrap();
        let log = &imp.log;
        let title = log.title().unwrap_or_default();
        for marker in [
            "<environment_context>",
            "# Context from my IDE",
            "<user_instructions>",
            "# AGENTS.md",
        ] {
            assert!(!title.starts_with(marker), "{}: title {title}", f.display());
            assert!(
                log.phases().all(|(_, p)| !p.name.starts_with(marker)),
                "{}: a phase named {marker}",
                f.display()
            );
        }
    }
    // The IDE extension's files keep their context in the sidecar.
    let f = root().join(
        "agentcmd/full/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl",
    );
    let imp = import(&f, Format::Codex).unwrap();
    let labels: HashSet<String> = imp
        .data
        .records
        .iter()
        .filter_map(|r| match r {
            crucible_core::DataRecord::Context(c) => Some(c.label.clone()),
            _ => None,
        })
        .collect();
    assert!(
        labels.contains("environment_context") && labels.contains("ide_context"),
        "{labels:?}"
    );
    assert!(imp.log.title().unwrap().starts_with("Quality score"));
}

/// (tool, args, failed, id, arguments, result, exit code) of every call.
type CallFacts = Vec<(
    String,
    String,
    bool,
    Option<String>,
    Option<Value>,
    Option<Value>,
    Option<i64>,
)>;

fn call_facts(imp: &crucible_interop::Imported) -> CallFacts {
    imp.log
        .tool_calls()
        .zip(imp.data.calls())
        .map(|(c, d)| {
            (
                c.tool.clone(),
                c.args.clone(),
                c.failed,
                d.id.clone(),
                d.arguments.clone(),
                d.result.clone(),
                d.exit_code,
            )
        })
        .collect()
}

/// Exports `imp` to a Codex rollout under `dir` and imports it back.
fn through_codex(
    imp: &crucible_interop::Imported,
    dir: &Path,
) -> (PathBuf, crucible_interop::Imported) {
    let Exported::Folder { name, files } = export(&imp.log, &imp.data, Format::Codex).unwrap()
    else {
        panic!("a rollout in its day's folder")
    };
    let day = dir.join(name);
    std::fs::create_dir_all(&day).unwrap();
    let (file, bytes) = files.into_iter().next().unwrap();
    let path = day.join(file);
    std::fs::write(&path, bytes).unwrap();
    assert_eq!(detect(&path), Some(Format::Codex));
    let back = import(&path, Format::Codex).unwrap();
    (path, back)
}

#[test]
fn every_real_codex_file_survives_export_to_codex_and_back() {
    for f in files() {
        let first = import(&f, Format::Codex).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (_, back) = through_codex(&first, dir.path());
        let what = f.display().to_string();
        assert_eq!(back.log.phase_count(), first.log.phase_count(), "{what}");
        assert_eq!(call_facts(&back), call_facts(&first), "{what}");
        assert_eq!(
            back.log.frontmatter.model, first.log.frontmatter.model,
            "{what}"
        );
        assert_eq!(
            UsageByModel::of(&back.log.frontmatter).map(|u| u.total()),
            UsageByModel::of(&first.log.frontmatter).map(|u| u.total()),
            "{what}"
        );
        // Each record comes back in its phase, by its model, at its time
        // (an exec stream's have none; the rollout gives them one).
        let records = |i: &crucible_interop::Imported| {
            i.log
                .phases()
                .enumerate()
                .flat_map(|(n, (_, p))| p.usage.iter().map(move |r| (n, r.clone())))
                .collect::<Vec<_>>()
        };
        let (back_records, first_records) = (records(&back), records(&first));
        assert_eq!(back_records.len(), first_records.len(), "{what}");
        for ((n, b), (m, a)) in back_records.iter().zip(&first_records) {
            assert_eq!((n, &b.model, b.tokens), (m, &a.model, a.tokens), "{what}");
            if let Some(at) = &a.at {
                assert_eq!(
                    b.at.as_ref().map(crucible_core::Timestamp::unix_ms),
                    Some(at.unix_ms()),
                    "{what}"
                );
            }
        }
        let replies = |i: &crucible_interop::Imported| {
            i.log
                .callouts()
                .filter(|c| c.kind.eq_ignore_ascii_case("reply"))
                .map(crucible_core::Callout::text)
                .collect::<Vec<_>>()
        };
        assert_eq!(replies(&back), replies(&first), "{what}");
        let names = |i: &crucible_interop::Imported| {
            i.log
                .phases()
                .map(|(_, p)| p.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&back), names(&first), "{what}");
    }
}

#[test]
fn an_exported_rollout_is_what_codex_resume_lists() {
    let f = root().join("ai-sessions/codex-pomodor-timer.jsonl");
    let imp = import(&f, Format::Codex).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = through_codex(&imp, dir.path());
    // `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl`.
    let rel = path
        .strip_prefix(dir.path())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (day, file) = rel.rsplit_once('/').unwrap();
    assert_eq!(day, "2025/10/21");
    let core = file
        .strip_prefix("rollout-2025-10-21T")
        .unwrap()
        .strip_suffix(".jsonl")
        .unwrap();
    let uuid = &core[9..];
    assert_eq!(uuid.len(), 36, "{uuid}");
    assert!(uuid.split('-').map(str::len).eq([8, 4, 4, 4, 12]), "{uuid}");
    assert_ne!(
        Some(uuid),
        imp.provenance.id.as_deref(),
        "a new thread id, not the source's"
    );
    // The listing's rule: a session_meta and a user_message event among the first 10 records.
    let head: Vec<Value> = lines(&path).into_iter().take(10).collect();
    assert_eq!(head[0]["type"], "session_meta");
    assert_eq!(head[0]["payload"]["id"], uuid);
    assert!(
        head.iter()
            .any(|v| v["type"] == "event_msg" && v["payload"]["type"] == "user_message")
    );
    assert!(
        lines(&path)
            .iter()
            .all(|v| v["timestamp"].is_string() && v["payload"].is_object())
    );
}

/// Writes `lines` as a rollout in `dir` and imports it.
fn import_lines(dir: &Path, lines: &[&str]) -> crucible_interop::Imported {
    let path = dir.join("rollout-2026-03-10T08-00-00-019c0000-0000-7000-8000-000000000001.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    import(&path, Format::Codex).unwrap()
}

const META: &str = r#"{"timestamp":"2026-03-10T08:00:00.000Z","type":"session_meta","payload":{"id":"019c0000-0000-7000-8000-000000000001","timestamp":"2026-03-10T08:00:00.000Z","cwd":"/tmp/x","originator":"codex_cli_rs","cli_version":"0.98.0","source":"cli","model_provider":"openai"}}"#;

#[test]
fn current_codex_plain_text_outputs_mark_failed_calls() {
    let dir = tempfile::tempdir().unwrap();
    let imp = import_lines(
        dir.path(),
        &[
            META,
            r#"{"timestamp":"2026-03-10T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}"#,
            r#"{"timestamp":"2026-03-10T08:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"npm test\",\"workdir\":\"/tmp/x\"}","call_id":"c1"}}"#,
            r#"{"timestamp":"2026-03-10T08:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 1\nWall time: 5.8 seconds\nOutput:\nFAIL src/a.test.ts"}}"#,
            r#"{"timestamp":"2026-03-10T08:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"false\"}","call_id":"c2"}}"#,
            r#"{"timestamp":"2026-03-10T08:00:05.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: b\nWall time: 0.0 seconds\nProcess exited with code 2\nOriginal token count: 5\nOutput:\nboom"}}"#,
            r#"{"timestamp":"2026-03-10T08:00:06.000Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"ls\"}","call_id":"c3"}}"#,
            r#"{"timestamp":"2026-03-10T08:00:07.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\na.txt"}}"#,
        ],
    );
    let failed: Vec<bool> = imp.log.tool_calls().map(|c| c.failed).collect();
    assert_eq!(failed, [true, true, false]);
    let kept: Vec<_> = imp
        .data
        .calls()
        .map(|d| (d.exit_code, d.duration_ms))
        .collect();
    assert_eq!(
        kept,
        [
            (Some(1), Some(5800)),
            (Some(2), Some(0)),
            (Some(0), Some(100))
        ]
    );
}

#[test]
fn a_users_image_is_a_marker_and_an_image_record() {
    let dir = tempfile::tempdir().unwrap();
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let with_words = format!(
        r#"{{"timestamp":"2026-03-10T08:00:01.000Z","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"what is in this screenshot"}},{{"type":"input_image","image_url":"data:image/png;base64,{png}"}}]}}}}"#
    );
    let alone = r#"{"timestamp":"2026-03-10T08:00:03.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"https://example.com/a.jpg"}]}}"#;
    let imp = import_lines(
        dir.path(),
        &[
            META,
            &with_words,
            r#"{"timestamp":"2026-03-10T08:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A pixel."}]}}"#,
            alone,
        ],
    );
    let users: Vec<String> = imp
        .log
        .callouts()
        .filter(|c| c.kind() == CalloutKind::User)
        .map(|c| c.body.join("\n"))
        .collect();
    assert_eq!(
        users,
        [
            "\"what is in this screenshot\n\n[image: image/png, 0.1 KB]\"",
            "\"[image: https://example.com/a.jpg]\""
        ]
    );
    assert_eq!(imp.log.title(), Some("what is in this screenshot"));
    let images: Vec<_> = imp
        .data
        .records
        .iter()
        .filter_map(|r| match r {
            crucible_core::DataRecord::Image(i) => Some(i),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 2);
    assert_eq!(
        (
            images[0].phase,
            images[0].media_type.as_str(),
            images[0].bytes
        ),
        (Some(0), "image/png", 70)
    );
    assert_eq!(images[0].data.as_deref(), Some(png));
    assert_eq!(images[1].phase, Some(1));
    assert_eq!(images[1].extra["url"], "https://example.com/a.jpg");
    assert!(
        imp.records.to_string().contains("input_image"),
        "{}",
        imp.records
    );
    assert_eq!(imp.data.check(&imp.log), Vec::new());
}

#[test]
fn token_counts_seen_again_do_not_count_again() {
    let f = root().join(
        "agentcmd/full/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl",
    );
    let total = |bytes: &[u8]| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(f.file_name().unwrap());
        std::fs::write(&path, bytes).unwrap();
        let imp = import(&path, Format::Codex).unwrap();
        UsageByModel::of(&imp.log.frontmatter).unwrap().total()
    };
    let once = std::fs::read(&f).unwrap();
    let text = String::from_utf8(once.clone()).unwrap();
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    let tail: String = tail.into_iter().rev().map(|l| format!("{l}\n")).collect();
    let expected = total(&once);
    // The restart inside this file still counts: ccusage 20.0.24's figure.
    assert_eq!(expected.total(), 1_400_951);
    assert_eq!(
        total(format!("{text}{text}").as_bytes()),
        expected,
        "cat F F"
    );
    assert_eq!(
        total(format!("{text}{tail}").as_bytes()),
        expected,
        "(cat F; tail -40 F)"
    );
}

#[test]
fn a_claude_sessions_cache_writes_survive_export_to_codex_as_input() {
    let src = super::real_dir("claude-code").join("agentcmd/full/full-session-two.jsonl");
    let imp = import(&src, Format::ClaudeCode).unwrap();
    let before = UsageByModel::of(&imp.log.frontmatter).unwrap().total();
    assert!(before.cache_creation > 0, "the file writes to the cache");
    let dir = tempfile::tempdir().unwrap();
    let (_, back) = through_codex(&imp, dir.path());
    let after = UsageByModel::of(&back.log.frontmatter).unwrap().total();
    assert_eq!(after.total(), before.total());
    assert_eq!(
        (
            after.input,
            after.cache_creation,
            after.cache_read,
            after.output
        ),
        (
            before.input + before.cache_creation,
            0,
            before.cache_read,
            before.output
        )
    );
}

/// Codex 0.15x writes each response's usage twice: a `token_usage_record`
/// of its own (with the response's id) and the `token_count` event after
/// it (running totals). The import counts the events; on the real rollout
/// the records add up to the same tokens, one request each.
#[test]
fn a_codex_0_15_rollouts_usage_records_add_up_to_its_token_counts() {
    let path = root()
        .join("yepanywhere/rollout-2026-09-12T09-53-53-01a09509-a912-7403-9a87-c71de38153b4.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut from_records = Tokens::default();
    let mut records = 0;
    for v in text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
    {
        if v["type"] != "token_usage_record" {
            continue;
        }
        let u = &v["payload"]["usage"];
        let n = |k: &str| u[k].as_u64().unwrap();
        from_records.input += n("input_tokens") - n("cached_input_tokens");
        from_records.cache_read += n("cached_input_tokens");
        from_records.output += n("output_tokens");
        from_records.reasoning += n("reasoning_output_tokens");
        records += 1;
    }
    assert_eq!(records, 7);
    let imported = import(&path, Format::Codex).unwrap();
    assert_eq!(imported.records.skipped_count(), 0, "{}", imported.records);
    let log = imported.log;
    let counted = UsageByModel::of(&log.frontmatter).unwrap().total();
    assert_eq!(counted, from_records);
    assert_eq!(log.usage_records().count(), records);
    assert_eq!(log.frontmatter.model.as_deref(), Some("gpt-5.6-luna"));
}
