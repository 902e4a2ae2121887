//! Gemini CLI's real chats (`fixtures/real/gemini/`): each imported, and
//! its calls, failures, messages and tokens compared with a count made
//! here from the JSON itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crucible_core::{CalloutKind, DataRecord, Tokens, UsageByModel};
use crucible_interop::{Format, detect, import};
use serde_json::Value;

fn dir() -> PathBuf {
    super::real_dir("gemini")
}

fn files() -> Vec<PathBuf> {
    super::real_files("gemini", &["json", "jsonl"])
}

/// What a chat holds, counted straight from the file.
#[derive(Debug, Default, PartialEq)]
struct Facts {
    calls: usize,
    failed: usize,
    prompts: usize,
    replies: usize,
    thoughts: usize,
    input: u64,
    cached: u64,
    output: u64,
    thinking: u64,
    tool: u64,
    total: u64,
    /// Replies that report tokens.
    requests: usize,
}

/// The messages as the file leaves them: the document's array, or for
/// JSONL the last line written for each id, in first-seen order.
fn messages(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    if let Ok(doc) = serde_json::from_str::<Value>(&text) {
        return doc["messages"].as_array().unwrap().clone();
    }
    let mut order: Vec<String> = Vec::new();
    let mut by_id: BTreeMap<String, Value> = BTreeMap::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let (Some(id), Some(_)) = (v["id"].as_str(), v["type"].as_str()) else {
            continue;
        };
        if by_id.insert(id.to_owned(), v.clone()).is_none() {
            order.push(id.to_owned());
        }
    }
    order.iter().map(|id| by_id[id].clone()).collect()
}

fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

fn facts(path: &Path) -> Facts {
    let mut f = Facts::default();
    for m in messages(path) {
        let words = text(&m["content"]);
        match m["type"].as_str().unwrap() {
            "user" if !words.trim().is_empty() => f.prompts += 1,
            "gemini" => {
                f.replies += usize::from(!words.trim().is_empty());
                f.thoughts += m["thoughts"].as_array().map_or(0, Vec::len);
                for c in m["toolCalls"].as_array().into_iter().flatten() {
                    f.calls += 1;
                    f.failed +=
                        usize::from(matches!(c["status"].as_str(), Some("error" | "cancelled")));
                }
                let t = &m["tokens"];
                let n = |k: &str| t[k].as_u64().unwrap_or(0);
                f.input += n("input");
                f.cached += n("cached");
                f.output += n("output");
                f.thinking += n("thoughts");
                f.tool += n("tool");
                f.total += n("total");
                f.requests += usize::from(
                    ["input", "output", "cached", "thoughts", "tool"]
                        .iter()
                        .any(|k| n(k) > 0),
                );
            }
            _ => {}
        }
    }
    f
}

/// The same facts read back from the imported session.
fn imported_facts(path: &Path) -> Facts {
    let imp = import(path, Format::Gemini).unwrap();
    assert!(
        imp.warnings.is_empty(),
        "{}: {:?}",
        path.display(),
        imp.warnings
    );
    assert!(
        imp.records.skipped.is_empty(),
        "{}: {}",
        path.display(),
        imp.records
    );
    let log = &imp.log;
    let calls: Vec<_> = log.tool_calls().collect();
    let kinds = |k: CalloutKind| log.callouts().filter(|c| c.kind() == k).count();
    let usage = UsageByModel::of(&log.frontmatter)
        .unwrap_or_default()
        .total();
    let Tokens {
        input,
        output,
        cache_read,
        reasoning,
        ..
    } = usage;
    let thoughts = imp
        .data
        .records
        .iter()
        .filter(|r| matches!(r, DataRecord::Thinking(_)))
        .count();
    assert_eq!(log.frontmatter.tokens_used.unwrap_or(0), usage.total());
    super::assert_records_make_the_totals(log, &path.display().to_string());
    // Each record is its reply's: the message's id and time.
    let replies: BTreeMap<String, String> = messages(path)
        .iter()
        .filter(|m| m["type"] == "gemini")
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_owned(),
                m["timestamp"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for r in log.usage_records() {
        let id = r.id.as_deref().unwrap();
        assert_eq!(
            r.at.as_ref().map(crucible_core::Timestamp::as_str),
            replies.get(id).map(String::as_str)
        );
    }
    Facts {
        calls: calls.len(),
        failed: calls.iter().filter(|c| c.failed).count(),
        prompts: kinds(CalloutKind::User),
        replies: kinds(CalloutKind::Other("reply".into())),
        thoughts,
        // Put back into gemini-cli's terms: its input holds the cached
        // part and the tool prompt, its output not the thoughts.
        input: input + cache_read,
        cached: cache_read,
        output: output - reasoning,
        thinking: reasoning,
        tool: 0,
        total: usage.total(),
        requests: log.usage_records().count(),
    }
}

#[test]
fn every_real_gemini_chat_is_detected_and_imported_with_its_facts() {
    let files = files();
    assert_eq!(files.len(), 6, "{files:?}");
    for path in &files {
        assert_eq!(detect(path), Some(Format::Gemini), "{}", path.display());
        // No real chat spent tool-prompt tokens (cru counts them as input;
        // `tool: 0` on the imported side makes a chat that did fail here).
        let want = facts(path);
        assert_eq!(imported_facts(path), want, "{}", path.display());
    }
}

#[test]
fn the_jsonl_chat_counts_each_rewritten_reply_once() {
    let path = dir().join("vibecodingtracker/gemini.jsonl");
    let imp = import(&path, Format::Gemini).unwrap();
    // 11 reply lines for 6 replies: 5 are written again with their tool calls.
    assert_eq!(imp.records.read.get("gemini"), Some(&11));
    assert_eq!(imp.records.read.get("$set"), Some(&11));
    // Of the 6, 2 have words; the rest are only thoughts and tool calls.
    assert_eq!(
        imp.log
            .callouts()
            .filter(|c| c.kind() == CalloutKind::Other("reply".into()))
            .count(),
        2
    );
    assert_eq!(imp.log.tool_calls().count(), 12);
    let by = UsageByModel::of(&imp.log.frontmatter).unwrap();
    assert_eq!(
        by.models.keys().collect::<Vec<_>>(),
        ["gemini-3-flash-preview", "gemini-3.1-pro-preview"]
    );
    // Every call's arguments and result are kept whole beside the session.
    let calls: Vec<_> = imp
        .data
        .records
        .iter()
        .filter_map(|r| match r {
            DataRecord::Call(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 12);
    assert!(
        calls
            .iter()
            .all(|c| c.arguments.is_some() && c.result.is_some())
    );
}

#[test]
fn a_failed_call_is_marked_and_keeps_its_error() {
    let path = dir().join("ai-sessions/gemini-cli-pomodoro-timer.json");
    let imp = import(&path, Format::Gemini).unwrap();
    let failed: Vec<_> = imp.log.tool_calls().filter(|c| c.failed).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].tool, "replace");
    let summary = failed[0].summary.as_deref().unwrap_or("");
    assert!(
        summary.starts_with("A secondary check by an LLM"),
        "{summary}"
    );
    // The line is cut; the sidecar has the whole error.
    let record = imp
        .data
        .records
        .iter()
        .find_map(|r| match r {
            DataRecord::Call(c) if c.tool == "replace" && c.extra["status"] == "error" => Some(c),
            _ => None,
        })
        .unwrap();
    let error = record.result.as_ref().unwrap()[0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(
        error.contains("0 occurrences found for old_string"),
        "{error}"
    );
}

/// A user message's `inlineData` image (what Gemini CLI writes for a
/// pasted image: the real chat with one added to its first prompt) is a
/// marker in the `[!user]` callout and an image record with its media
/// type, decoded size and base64; a `fileData` part is a marker naming
/// the file and a record with its URI.
#[test]
fn a_user_image_is_a_marker_and_an_image_record() {
    let src = dir().join("ai-sessions/gemini-cli-pomodoro-timer.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    // A 1×1 PNG, 70 bytes decoded.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let first = doc["messages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["type"] == "user")
        .unwrap();
    let words = text(&first["content"]);
    first["content"] = serde_json::json!([
        {"text": words},
        {"inlineData": {"mimeType": "image/png", "data": png}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/spec.pdf"}},
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("session-with-image.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let imp = import(&path, Format::Gemini).unwrap();
    let prompt = imp
        .log
        .callouts()
        .find(|c| c.kind() == CalloutKind::User)
        .unwrap()
        .text();
    assert!(prompt.contains("[image: image/png, 0.1 KB]"), "{prompt}");
    assert!(prompt.contains("[file: application/pdf, gs://bucket/spec.pdf]"));
    let images: Vec<_> = imp
        .data
        .records
        .iter()
        .filter_map(|r| match r {
            DataRecord::Image(i) => Some(i),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 2);
    assert_eq!(
        (
            images[0].media_type.as_str(),
            images[0].bytes,
            images[0].phase
        ),
        ("image/png", 70, Some(0))
    );
    assert_eq!(images[0].data.as_deref(), Some(png));
    assert_eq!(images[1].extra["file_uri"], "gs://bucket/spec.pdf");
    // Held by the image records, the message is not kept a second time.
    assert!(!imp.data.records.iter().any(
        |r| matches!(r, DataRecord::Source(s) if s.record["content"].to_string().contains(png))
    ));
}
