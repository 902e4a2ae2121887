//! ConnectOnion files written by the real `connectonion` package
//! (`fixtures/real/connectonion/README.md` says how): each imported, and
//! checked against what a counter reads from the YAML itself.

use std::path::{Path, PathBuf};

use serde_yaml::Value as Yaml;

use crucible_core::Block;
use crucible_interop::{Format, find_sources, import};

fn real() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/connectonion")
}

/// What the counter reads from a file (and its run file, for an eval).
#[derive(Debug, PartialEq)]
struct Facts {
    turns: usize,
    /// Every message the file (and its run file) holds.
    messages: usize,
    user_messages: usize,
    tool_calls: usize,
    failed_calls: usize,
    tokens: u64,
    /// Verdicts recorded: each `pass` and each earlier run's in `history`.
    verdicts: usize,
}

/// The package's writers, from their source: the 1.x logger puts each
/// turn's own numbers in `meta`; `co eval` and the 0.5.x logger sum over
/// the agent's whole trace so far, so the last turn's `tokens` is the
/// conversation's. Tool calls are the messages' `tool_calls` where the
/// file has messages, else the last turn's running `tools_called`.
fn count(path: &Path) -> Facts {
    let doc: Yaml = serde_yaml::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let turns = doc["turns"].as_sequence().unwrap();
    let meta = |t: &Yaml| -> Option<serde_json::Value> {
        serde_json::from_str(t.get("meta")?.as_str()?).ok()
    };
    let tokens = if turns.iter().all(|t| meta(t).is_some()) {
        turns
            .iter()
            .map(|t| meta(t).unwrap()["tokens"].as_u64().unwrap())
            .sum()
    } else {
        turns.last().unwrap()["tokens"].as_u64().unwrap()
    };
    let run_file = doc
        .get("runs")
        .and_then(Yaml::as_u64)
        .map(|n| path.with_extension("").join(format!("run_{n}.yaml")))
        .filter(|p| p.exists());
    let messages: Option<Vec<serde_json::Value>> = match &run_file {
        Some(p) => {
            let run: Yaml = serde_yaml::from_slice(&std::fs::read(p).unwrap()).unwrap();
            Some(serde_json::from_str(run["messages"].as_str().unwrap()).unwrap())
        }
        None => doc
            .get("messages")
            .and_then(Yaml::as_mapping)
            .map(|by_turn| {
                by_turn
                    .values()
                    .flat_map(|v| v.as_sequence().unwrap().iter())
                    .map(|m| serde_json::to_value(m).unwrap())
                    .collect()
            }),
    };
    // ConnectOnion writes a tool's exception as its result, `Error...`.
    let failed_calls = messages.iter().flatten().filter(|m| {
        m["role"] == "tool"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("Error"))
    });
    let failed_calls = failed_calls.count();
    let tool_calls = match &messages {
        Some(ms) => ms
            .iter()
            .filter_map(|m| m.get("tool_calls").and_then(|c| c.as_array()))
            .map(Vec::len)
            .sum(),
        None => turns.last().unwrap()["tools_called"]
            .as_sequence()
            .unwrap()
            .len(),
    };
    let verdicts = turns
        .iter()
        .map(|t| {
            let history: Vec<serde_json::Value> = t
                .get("history")
                .and_then(Yaml::as_str)
                .map(|h| serde_json::from_str(h).unwrap())
                .unwrap_or_default();
            usize::from(t.get("pass").is_some()) + history.len()
        })
        .sum();
    Facts {
        turns: turns.len(),
        messages: messages.as_ref().map_or(0, Vec::len),
        user_messages: turns.len(),
        tool_calls,
        failed_calls,
        tokens,
        verdicts,
    }
}

/// The same facts, from the imported session and its record tally.
fn facts_of(imp: &crucible_interop::Imported) -> Facts {
    let log = &imp.log;
    let callouts = |kind: &str| {
        log.phases()
            .flat_map(|(_, p)| p.blocks.iter())
            .filter(|b| matches!(b, Block::Callout(c) if c.kind == kind))
            .count()
    };
    Facts {
        turns: log.phase_count(),
        messages: imp.records.read.get("message").copied().unwrap_or(0) as usize,
        user_messages: callouts("user"),
        tool_calls: log.tool_calls().count(),
        failed_calls: log.tool_calls().filter(|c| c.failed).count(),
        tokens: log.frontmatter.tokens_used.unwrap_or(0),
        verdicts: callouts("eval"),
    }
}

#[test]
fn every_real_connectonion_file_imports_with_the_counted_facts() {
    let found = find_sources(&real(), None);
    let names: Vec<String> = found
        .sources
        .iter()
        .map(|(p, f)| {
            assert_eq!(*f, Format::ConnectOnion, "{}", p.display());
            p.strip_prefix(real()).unwrap().display().to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "co-eval/.co/evals/add_numbers.yaml",
            "failing-tool/.co/evals/what_is_1_0.yaml",
            "failing-tool-0.5/.co/sessions/divider.yaml",
            "generated/.co/evals/what_is_2_3.yaml",
            "generated-0.5/.co/sessions/calc.yaml",
        ]
    );
    for (path, format) in &found.sources {
        let imp = import(path, *format).unwrap();
        assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
        assert_eq!(imp.records.skipped_count(), 0, "{}", imp.records);
        assert_eq!(imp.records.read["turn"], 2);
        let counted = count(path);
        assert_eq!(facts_of(&imp), counted, "{}", path.display());
        // What the stand-in LLM spent: two turns of 294 tokens (adding) or
        // 252 (dividing), $0.002 each; one call of the divider failed.
        let divider = path.to_string_lossy().contains("failing-tool");
        let turn = if divider { 252 } else { 294 };
        assert_eq!(counted.tokens, 2 * turn);
        assert_eq!(
            counted.failed_calls,
            usize::from(divider),
            "{}",
            path.display()
        );
        assert_eq!(
            imp.log.frontmatter.cost_usd,
            Some(0.004),
            "{}",
            path.display()
        );
        let per_phase: Vec<Option<u64>> = imp.log.phases().map(|(_, p)| p.meta.tokens).collect();
        assert_eq!(per_phase, [Some(turn), Some(turn)], "{}", path.display());
        // Every turn ends with the agent's final words, as the file has them.
        let doc: Yaml = serde_yaml::from_slice(&std::fs::read(path).unwrap()).unwrap();
        for ((_, p), t) in imp.log.phases().zip(doc["turns"].as_sequence().unwrap()) {
            let last = t.get("result").or_else(|| t.get("output")).unwrap();
            let last = last.as_str().unwrap().trim();
            assert!(
                p.blocks.iter().any(|b| matches!(b, Block::Callout(c)
                    if c.kind == "reply" && c.text() == last)),
                "{}: {:?}",
                path.display(),
                p.blocks
            );
        }
    }
}

#[test]
fn co_eval_verdicts_and_analysis_become_eval_callouts() {
    let imp = import(
        &real().join("co-eval/.co/evals/add_numbers.yaml"),
        Format::ConnectOnion,
    )
    .unwrap();
    // The file has no `created`: its turns' times, never the file's mtime.
    assert_eq!(imp.log.frontmatter.started.as_str(), "2026-11-23T19:46:55Z");
    let evals: Vec<Vec<(String, Vec<String>)>> = imp
        .log
        .phases()
        .map(|(_, p)| {
            p.blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Callout(c) if c.kind == "eval" => {
                        Some((c.title.clone(), c.body.clone()))
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    assert_eq!(
        evals[1],
        [
            (
                "failed".to_owned(),
                vec![
                    "by: connectonion (recorded in the source)".to_owned(),
                    "at: 2026-11-23T19:46:53Z".to_owned()
                ]
            ),
            (
                "failed".to_owned(),
                vec![
                    "judge: ✗ The output does not contain '10'.".to_owned(),
                    "by: connectonion (recorded in the source)".to_owned(),
                    "at: 2026-11-23T19:46:55Z".to_owned()
                ]
            ),
        ]
    );
    assert_eq!(evals[0][1].0, "passed");
    assert_eq!(
        crucible_core::last_verdict(imp.log.phases().next().unwrap().1),
        Some(crucible_core::Verdict::Passed)
    );
}

#[test]
fn a_0_5_session_keeps_its_source_totals_beside_the_spend() {
    let imp = import(
        &real().join("generated-0.5/.co/sessions/calc.yaml"),
        Format::ConnectOnion,
    )
    .unwrap();
    let fm = &imp.log.frontmatter;
    assert_eq!(fm.tokens_used, Some(588));
    assert_eq!(fm.extra["source_total_tokens"].as_u64(), Some(882));
    assert_eq!(fm.started.as_str(), "2026-11-23T19:35:47Z");
}

/// What PyYAML (ConnectOnion's reader, YAML 1.1) makes of `yaml`: the
/// value with each scalar's Python type beside it, as JSON; `None` when
/// python3 with `yaml` is not installed.
fn pyyaml_typed(yaml: &[u8]) -> Option<serde_json::Value> {
    use std::io::Write;
    let script = r"
import json, sys, yaml
def typed(v):
    if isinstance(v, dict):
        return {str(k): typed(x) for k, x in v.items()}
    if isinstance(v, list):
        return [typed(x) for x in v]
    return [type(v).__name__, str(v)]
print(json.dumps(typed(yaml.safe_load(sys.stdin.buffer.read()))))
";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(yaml).ok()?;
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// An exported session file reads back in PyYAML with every value of the
/// type the real 0.5.10 file has: times stay strings (a datetime beside a
/// native file's string crashes ConnectOnion's own session listing).
#[test]
fn an_exported_session_keeps_its_yaml_types_for_pyyaml() {
    for rel in [
        "generated-0.5/.co/sessions/calc.yaml",
        "failing-tool-0.5/.co/sessions/divider.yaml",
    ] {
        let src = real().join(rel);
        let original = std::fs::read(&src).unwrap();
        let Some(expected) = pyyaml_typed(&original) else {
            eprintln!("python3 with yaml not installed: skipped");
            return;
        };
        assert_eq!(expected["created"][0], "str", "{rel}");
        let imp = import(&src, Format::ConnectOnion).unwrap();
        let text = crucible_parser::write_session(&imp.log);
        let log = crucible_parser::parse_session(Path::new("s.md"), text.as_bytes()).unwrap();
        let crucible_interop::Exported::File(bytes) =
            crucible_interop::export(&log, &imp.data, Format::ConnectOnion).unwrap()
        else {
            panic!("connectonion is one file")
        };
        assert_eq!(pyyaml_typed(&bytes), Some(expected), "{rel}");
    }
}
