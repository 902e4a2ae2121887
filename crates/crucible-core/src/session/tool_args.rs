//! A tool call's arguments, as other tools record them (a JSON object, or
//! a JSON string of one), made into the one line a tool-call list holds.

use serde_json::Value;

use crate::one_line;

/// A tool call's arguments as one line: a shell call's command line; a
/// file path and then the other fields as JSON; the usual single field
/// (`cmd`, `path`, `file_path`, `query`, `pattern`, `url`, `input`) when
/// that is all there is; else the JSON.
pub fn args_line(arguments: &Value) -> String {
    let v = match arguments {
        Value::String(s) => serde_json::from_str::<Value>(s).unwrap_or(Value::String(s.clone())),
        other => other.clone(),
    };
    if let Value::Object(m) = &v {
        // No arguments at all: nothing to show.
        if m.is_empty() {
            return String::new();
        }
        // A shell call is its command line (Codex: `["bash", "-lc", "..."]`),
        // whatever else came with it (a working directory, a timeout).
        if let Some(cmd) = m.get("command") {
            match cmd {
                Value::String(c) => return one_line(c),
                Value::Array(a) => {
                    let words: Vec<String> = a
                        .iter()
                        .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                        .collect();
                    let shell = words.len() == 3
                        && matches!(words[0].as_str(), "bash" | "sh" | "zsh")
                        && matches!(words[1].as_str(), "-lc" | "-c");
                    return one_line(&if shell {
                        words[2].clone()
                    } else {
                        words.join(" ")
                    });
                }
                _ => {}
            }
        }
        // A file tool's path first, then what else it was given: the line
        // reads well and tools that look for a path find it.
        for key in ["file_path", "path", "notebook_path"] {
            if m.len() > 1
                && let Some(Value::String(p)) = m.get(key)
            {
                let mut rest = m.clone();
                rest.remove(key);
                return one_line(&format!("{p} {}", Value::Object(rest)));
            }
        }
        for key in [
            "cmd",
            "path",
            "file_path",
            "query",
            "pattern",
            "url",
            "input",
        ] {
            if m.len() == 1
                && let Some(val) = m.get(key)
            {
                return match val {
                    Value::String(s) => one_line(s),
                    Value::Array(a) => one_line(
                        &a.iter()
                            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    other => other.to_string(),
                };
            }
        }
    }
    match v {
        Value::String(s) => one_line(&s),
        Value::Null => String::new(),
        other => one_line(&other.to_string()),
    }
}
