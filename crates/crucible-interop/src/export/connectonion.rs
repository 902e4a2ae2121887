//! ConnectOnion session YAML laid out as seed 000 shows it: metadata, the
//! turn summaries (all turns at a glance), then the system prompt and the
//! messages keyed by turn number at the end, in block style.

use serde_json::Value;
use serde_yaml::{Mapping, Value as Yaml};

use crucible_core::{AgentRef, SessionLog, Timestamp};

use super::turns::Turn;

/// `2025-12-03 10:12:44`: how ConnectOnion writes times.
fn co_time(t: &Timestamp) -> String {
    super::utc(t).trim_end_matches('Z').replacen('T', " ", 1)
}

/// A mapping as YAML lines, each with `first` before the first line and
/// `rest` before the others (a list item: `- ` then two spaces).
fn item(m: &Mapping, first: &str, rest: &str) -> String {
    let text = serde_yaml::to_string(m).unwrap_or_default();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(if i == 0 { first } else { rest });
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// One `key: value` line (or block) at the top level.
fn top(key: &str, v: Yaml) -> String {
    let mut m = Mapping::new();
    m.insert(key.into(), v);
    item(&m, "", "")
}

/// `run(command='ls -la')`, `add(a=2, b=3)`: a call as ConnectOnion's
/// logger lists it (`_format_tool_call`: strings quoted, other values as
/// they print, each cut at 50 characters with `...`); `args` are the call's
/// own (see [`Turn::call_args`]).
fn tool_called(c: &crucible_core::ToolCall, args: &Value) -> String {
    let cut = |s: String| match s.char_indices().nth(50) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s,
    };
    let args = match args {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}='{}'", cut(s.clone())),
                Value::Bool(b) => format!("{k}={}", if *b { "True" } else { "False" }),
                Value::Null => format!("{k}=None"),
                other => format!("{k}={}", cut(other.to_string())),
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    format!("{}({args})", c.tool)
}

fn json_to_yaml(v: &Value) -> Yaml {
    serde_yaml::to_value(v).unwrap_or(Yaml::Null)
}

fn turn_summary(n: usize, t: &Turn) -> Mapping {
    let mut m = Mapping::new();
    m.insert("turn".into(), (n as u64).into());
    m.insert("input".into(), t.input.clone().into());
    m.insert("result".into(), t.result.clone().into());
    if let Some(model) = &t.model {
        m.insert("model".into(), model.clone().into());
    }
    if let Some(d) = t.duration_ms {
        m.insert("duration_ms".into(), d.into());
    }
    if let Some(tokens) = t.tokens {
        m.insert("tokens".into(), tokens.into());
    }
    if let Some(c) = t.cost_usd {
        m.insert("cost".into(), c.into());
    }
    let calls: Vec<Yaml> = t
        .calls
        .iter()
        .zip(&t.call_args)
        .map(|(c, a)| tool_called(c, a).into())
        .collect();
    m.insert("tools_called".into(), Yaml::Sequence(calls));
    if let Some(end) = t.ended() {
        m.insert("timestamp".into(), co_time(&end).into());
    }
    // Eval fields go back where ConnectOnion keeps them.
    if let Some(e) = &t.expected {
        m.insert("expected".into(), e.clone().into());
    }
    if let Some(p) = t.passed {
        m.insert("passed".into(), p.into());
    }
    if let Some((_, notes)) = t.extra.iter().find(|(k, _)| k == "evaluation") {
        m.insert("evaluation".into(), notes.clone().into());
    }
    let mut eval = Mapping::new();
    if !t.expect_tools.is_empty() {
        let tools: Vec<Yaml> = t.expect_tools.iter().map(|s| s.clone().into()).collect();
        eval.insert("expect_tools".into(), Yaml::Sequence(tools));
    }
    if !eval.is_empty() {
        m.insert("eval".into(), Yaml::Mapping(eval));
    }
    m
}

pub(super) fn write(log: &SessionLog, turns: &[Turn]) -> String {
    let fm = &log.frontmatter;
    let name = fm
        .participants
        .first()
        .or_else(|| log.phases().find_map(|(_, p)| p.agent.as_ref()))
        .map_or_else(|| "agent".to_owned(), AgentRef::to_string);
    let updated = fm
        .ended
        .clone()
        .or_else(|| turns.iter().rev().find_map(Turn::ended))
        .unwrap_or_else(|| fm.started.clone());
    let mut out = String::from("# ===== METADATA (compact) =====\n");
    out.push_str(&top("name", name.into()));
    out.push_str(&top("session_id", fm.session_id.to_string().into()));
    out.push_str(&top("created", co_time(&fm.started).into()));
    out.push_str(&top("updated", co_time(&updated).into()));
    out.push_str(&top("total_cost", fm.cost_usd.unwrap_or(0.0).into()));
    out.push_str(&top("total_tokens", fm.tokens_used.unwrap_or(0).into()));
    out.push_str("\n# ===== TURNS SUMMARY (all turns visible at a glance) =====\n");
    if turns.is_empty() {
        out.push_str("turns: []\n");
    } else {
        out.push_str("turns:\n");
        for (i, t) in turns.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&item(&turn_summary(i + 1, t), "  - ", "    "));
        }
    }
    out.push_str("\n# ===== DETAIL SECTION (scroll down) =====\n");
    if let Some(sp) = log.system_prompt() {
        out.push_str(&top("system_prompt", sp.into()));
        out.push('\n');
    }
    if turns.is_empty() {
        out.push_str("messages: {}\n");
        return out;
    }
    out.push_str("messages:\n");
    for (i, t) in turns.iter().enumerate() {
        out.push_str(&format!("  {}:\n", i + 1));
        for (j, msg) in t.messages.iter().enumerate() {
            if j > 0 {
                out.push('\n');
            }
            if let Yaml::Mapping(m) = json_to_yaml(msg) {
                out.push_str(&item(&m, "    - ", "      "));
            }
        }
    }
    out
}
