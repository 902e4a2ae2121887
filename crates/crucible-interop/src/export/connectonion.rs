//! ConnectOnion session YAML laid out as seed 000 shows it: metadata, the
//! turn summaries (all turns at a glance), then the system prompt and the
//! messages keyed by turn number at the end, in block style.

use serde_json::Value;
use serde_yaml::{Mapping, Value as Yaml};

use crucible_core::{AgentRef, DataRecord, SessionData, SessionLog, Timestamp};

use super::turns::Turn;

/// `2025-12-03 10:12:44`: how ConnectOnion writes times.
fn co_time(t: &Timestamp) -> String {
    super::utc(t).trim_end_matches('Z').replacen('T', " ", 1)
}

/// True for a string a YAML 1.1 reader (PyYAML, which ConnectOnion uses)
/// could read as another type, plain: a bool word (`yes`, `off`, ...),
/// null (`~`, `null`), a number or a timestamp (`2025-12-03 10:12:44`).
/// A superset (`1 apple` too): quoting a string never changes its value.
fn yaml11_ambiguous(s: &str) -> bool {
    const WORDS: [&str; 8] = ["yes", "no", "on", "off", "true", "false", "null", "y"];
    let lower = s.to_ascii_lowercase();
    if s.is_empty() || matches!(s, "~" | "<<" | "=" | "n") || WORDS.contains(&lower.as_str()) {
        return true;
    }
    let numberish = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " \t_:.+-".contains(c));
    let opens = s.trim_start_matches(['+', '-', '.']).chars().next();
    numberish
        && (opens.is_some_and(|c| c.is_ascii_digit())
            || lower.contains(".inf")
            || lower.contains(".nan"))
}

/// `v` with each ambiguous string (see [`yaml11_ambiguous`]) swapped for a
/// placeholder that serializes plain, the strings kept in `swapped`.
fn swap_ambiguous(v: &Yaml, prefix: &str, swapped: &mut Vec<String>) -> Yaml {
    match v {
        Yaml::String(s) if yaml11_ambiguous(s) => {
            swapped.push(s.clone());
            Yaml::String(format!("{prefix}{}_", swapped.len() - 1))
        }
        Yaml::Sequence(items) => Yaml::Sequence(
            items
                .iter()
                .map(|x| swap_ambiguous(x, prefix, swapped))
                .collect(),
        ),
        Yaml::Mapping(m) => Yaml::Mapping(
            m.iter()
                .map(|(k, x)| {
                    (
                        swap_ambiguous(k, prefix, swapped),
                        swap_ambiguous(x, prefix, swapped),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `m` as YAML text in which every string a YAML 1.1 reader would take for
/// another type is single-quoted (serde_yaml quotes by YAML 1.2 only).
fn to_yaml11(m: &Mapping) -> String {
    let plain = serde_yaml::to_string(m).unwrap_or_default();
    // A placeholder that occurs nowhere in the text already.
    let mut prefix = String::from("cruq");
    while plain.contains(&prefix) {
        prefix.push('x');
    }
    let mut swapped = Vec::new();
    let Yaml::Mapping(masked) = swap_ambiguous(&Yaml::Mapping(m.clone()), &prefix, &mut swapped)
    else {
        return plain;
    };
    let mut text = serde_yaml::to_string(&masked).unwrap_or_default();
    // Last first, so that `cruq1_` is not taken for the start of `cruq12_`.
    for (i, s) in swapped.iter().enumerate().rev() {
        let quoted = format!("'{}'", s.replace('\'', "''"));
        text = text.replacen(&format!("{prefix}{i}_"), &quoted, 1);
    }
    text
}

/// A mapping as YAML lines, each with `first` before the first line and
/// `rest` before the others (a list item: `- ` then two spaces).
fn item(m: &Mapping, first: &str, rest: &str) -> String {
    let text = to_yaml11(m);
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

/// A session as ConnectOnion's session file holds it, before it is laid
/// out as text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    /// `name`, `session_id`, `created`, `updated`, `total_cost`,
    /// `total_tokens`, and any other top-level key, in order.
    pub top: Mapping,
    pub turns: Vec<Mapping>,
    pub system_prompt: Option<String>,
    /// Each turn's messages.
    pub messages: Vec<Vec<Value>>,
    /// Whether the messages are written in their section at the end (seed
    /// 000, 0.5.x); seed 001's files keep them in the turns.
    pub messages_section: bool,
}

/// The document of `log`: what the session says, then what a ConnectOnion
/// import kept that this would not give back (the sidecar's
/// `{"connectonion": ...}` records) put over it.
pub(crate) fn document(log: &SessionLog, data: &SessionData, turns: &[Turn]) -> Document {
    let mut doc = derived(log, turns);
    for r in &data.records {
        let DataRecord::Source(src) = r else { continue };
        let Some(part) = src.record.get("connectonion").and_then(Value::as_str) else {
            continue;
        };
        match (part, src.phase) {
            ("no_messages_section", _) => doc.messages_section = false,
            ("top", _) => overlay(&mut doc.top, &src.record),
            ("turn", Some(i)) if i < doc.turns.len() => overlay(&mut doc.turns[i], &src.record),
            ("messages", Some(i)) if i < doc.messages.len() => {
                if let Some(list) = src.record.get("messages").and_then(Value::as_array) {
                    doc.messages[i].clone_from(list);
                }
            }
            _ => {}
        }
    }
    doc
}

/// Puts a kept record's `set` keys over `m` and takes its `unset` keys out.
fn overlay(m: &mut Mapping, record: &Value) {
    if let Some(set) = record.get("set").and_then(Value::as_object) {
        for (k, v) in set {
            m.insert(k.clone().into(), json_to_yaml(v));
        }
    }
    for k in record
        .get("unset")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(k) = k.as_str() {
            m.shift_remove(k);
        }
    }
}

fn derived(log: &SessionLog, turns: &[Turn]) -> Document {
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
    let mut top = Mapping::new();
    top.insert("name".into(), name.into());
    top.insert("session_id".into(), fm.session_id.to_string().into());
    top.insert("created".into(), co_time(&fm.started).into());
    top.insert("updated".into(), co_time(&updated).into());
    top.insert("total_cost".into(), fm.cost_usd.unwrap_or(0.0).into());
    top.insert("total_tokens".into(), fm.tokens_used.unwrap_or(0).into());
    Document {
        top,
        turns: turns
            .iter()
            .enumerate()
            .map(|(i, t)| turn_summary(i + 1, t))
            .collect(),
        system_prompt: log.system_prompt().map(str::to_owned),
        messages: turns.iter().map(|t| t.messages.clone()).collect(),
        messages_section: true,
    }
}

pub(super) fn write(log: &SessionLog, data: &SessionData, turns: &[Turn]) -> String {
    let doc = document(log, data, turns);
    let mut out = String::from("# ===== METADATA (compact) =====\n");
    out.push_str(&item(&doc.top, "", ""));
    out.push_str("\n# ===== TURNS SUMMARY (all turns visible at a glance) =====\n");
    if doc.turns.is_empty() {
        out.push_str("turns: []\n");
    } else {
        out.push_str("turns:\n");
        for (i, t) in doc.turns.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&item(t, "  - ", "    "));
        }
    }
    out.push_str("\n# ===== DETAIL SECTION (scroll down) =====\n");
    if let Some(sp) = &doc.system_prompt {
        out.push_str(&top("system_prompt", sp.clone().into()));
        out.push('\n');
    }
    if !doc.messages_section {
        return out;
    }
    if doc.messages.is_empty() {
        out.push_str("messages: {}\n");
        return out;
    }
    out.push_str("messages:\n");
    for (i, msgs) in doc.messages.iter().enumerate() {
        if msgs.is_empty() {
            out.push_str(&format!("  {}: []\n", i + 1));
            continue;
        }
        out.push_str(&format!("  {}:\n", i + 1));
        for (j, msg) in msgs.iter().enumerate() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_yaml_1_1_reads_as_other_types_are_quoted() {
        let mut m = Mapping::new();
        for (k, v) in [
            ("created", "2026-11-23 19:35:47"),
            ("flag", "yes"),
            ("off", "Off"),
            ("num", "1e3"),
            ("tilde", "~"),
            ("null", "null"),
            ("quote", "it's 12"),
            ("plain", "hello world"),
        ] {
            m.insert(k.into(), v.into());
        }
        let text = to_yaml11(&m);
        for line in [
            "created: '2026-11-23 19:35:47'",
            "flag: 'yes'",
            "'off': 'Off'",
            "num: '1e3'",
            "tilde: '~'",
            "'null': 'null'",
            "quote: it's 12",
            "plain: hello world",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
        // Quoting changes no value.
        let back: Mapping = serde_yaml::from_str(&text).unwrap();
        assert_eq!(back, m);
    }
}
