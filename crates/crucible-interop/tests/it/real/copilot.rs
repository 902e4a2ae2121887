//! GitHub Copilot CLI's real event log (`fixtures/real/copilot/`):
//! imported, and its calls, failures, messages and tokens compared with a
//! count made here from the events themselves.

use std::path::{Path, PathBuf};

use crucible_core::{CalloutKind, DataRecord, UsageByModel};
use crucible_interop::{Format, detect, import};
use serde_json::Value;

fn files() -> Vec<PathBuf> {
    super::real_files("copilot", &["jsonl"])
}

#[derive(Debug, Default, PartialEq)]
struct Facts {
    calls: usize,
    failed: usize,
    prompts: usize,
    replies: usize,
    /// `inputTokens` (cache reads inside), output, cache read, cache write.
    tokens: [u64; 4],
    /// (shutdown time, model) of each model's metrics at each shutdown.
    requests: Vec<(String, String)>,
}

fn facts(path: &Path) -> (Facts, u64) {
    let mut f = Facts::default();
    let mut reply_output = 0;
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let d = &v["data"];
        let said = |k: &str| d[k].as_str().is_some_and(|s| !s.trim().is_empty());
        match v["type"].as_str().unwrap() {
            "user.message" => f.prompts += usize::from(said("content")),
            "assistant.message" => {
                f.replies += usize::from(said("content"));
                f.calls += d["toolRequests"].as_array().map_or(0, Vec::len);
                reply_output += d["outputTokens"].as_u64().unwrap_or(0);
            }
            "tool.execution_complete" => f.failed += usize::from(d["success"] == false),
            "session.shutdown" => {
                for (model, m) in d["modelMetrics"].as_object().unwrap() {
                    let at = v["timestamp"].as_str().unwrap().to_owned();
                    f.requests.push((at, model.clone()));
                    let u = &m["usage"];
                    for (i, k) in [
                        "inputTokens",
                        "outputTokens",
                        "cacheReadTokens",
                        "cacheWriteTokens",
                    ]
                    .iter()
                    .enumerate()
                    {
                        f.tokens[i] += u[k].as_u64().unwrap();
                    }
                }
            }
            _ => {}
        }
    }
    (f, reply_output)
}

#[test]
fn every_real_copilot_event_log_is_detected_and_imported_with_its_facts() {
    let files = files();
    assert_eq!(files.len(), 1, "{files:?}");
    for path in &files {
        assert_eq!(detect(path), Some(Format::Copilot), "{}", path.display());
        let (want, reply_output) = facts(path);
        // The shutdown's output is the replies' output summed: one count, two places.
        assert_eq!(want.tokens[1], reply_output, "{}", path.display());
        let imp = import(path, Format::Copilot).unwrap();
        assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
        assert!(imp.records.skipped.is_empty(), "{}", imp.records);
        let log = &imp.log;
        let calls: Vec<_> = log.tool_calls().collect();
        let kinds = |k: CalloutKind| log.callouts().filter(|c| c.kind() == k).count();
        let u = UsageByModel::of(&log.frontmatter).unwrap().total();
        let got = Facts {
            calls: calls.len(),
            failed: calls.iter().filter(|c| c.failed).count(),
            prompts: kinds(CalloutKind::User),
            replies: kinds(CalloutKind::Other("reply".into())),
            tokens: [
                u.input + u.cache_read,
                u.output,
                u.cache_read,
                u.cache_creation,
            ],
            requests: log
                .usage_records()
                .map(|r| {
                    let at = r.at.as_ref().unwrap().as_str().to_owned();
                    (at, r.model.clone().unwrap())
                })
                .collect(),
        };
        super::assert_records_make_the_totals(log, &path.display().to_string());
        assert_eq!(got, want, "{}", path.display());
        assert_eq!(log.frontmatter.tokens_used, Some(u.total()));
        assert_eq!(log.frontmatter.model.as_deref(), Some("claude-sonnet-4.6"));
        // Each call keeps its arguments and result whole beside the session.
        let whole = imp
            .data
            .records
            .iter()
            .filter(
                |r| matches!(r, DataRecord::Call(c) if c.arguments.is_some() && c.result.is_some()),
            )
            .count();
        assert_eq!(whole, calls.len());
    }
}
