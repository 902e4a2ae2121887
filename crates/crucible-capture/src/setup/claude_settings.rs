//! Claude Code's `settings.json`: a hook for each event cru records
//! (`"hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type": "command",
//! "command": "<cru> hook claude-code"}]}]}`, the shape of the hooks
//! reference's "Configuration"). Other keys and other tools' hooks keep
//! their place (serde_json keeps key order in this workspace).

use serde_json::{Map, Value, json};

use super::{Edit, is_cru_program};
use crate::HookEvent;

/// The arguments every cru hook command ends with.
const HOOK_ARGS: &str = "hook claude-code";

/// Events whose hooks take a tool-name matcher.
const TOOL_EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// Why a settings file cannot be edited.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("line {line}, column {column}: not valid JSON: {message}")]
    Invalid {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("`{0}` is not a JSON object where Claude Code expects one; fix it by hand")]
    NotAnObject(&'static str),
}

/// The hook command for the cru binary at `program` (a shell word).
pub fn command(program: &str) -> String {
    format!("{} {HOOK_ARGS}", super::shell_word(program))
}

/// True for a hook command cru wrote (from any path of its binary).
pub fn is_ours(command: &str) -> bool {
    command
        .trim()
        .strip_suffix(HOOK_ARGS)
        .is_some_and(|program| program.ends_with(' ') && is_cru_program(program))
}

/// The cru programs the settings `text` runs as hooks (each once), as
/// paths: for `cru doctor`, which checks that each is still there.
pub fn hook_programs(text: &str) -> Vec<String> {
    let Ok(settings) = parse(text) else {
        return Vec::new();
    };
    let mut programs: Vec<String> = Vec::new();
    let commands = settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str));
    for command in commands.filter(|c| is_ours(c)) {
        let word = command.trim().trim_end_matches(HOOK_ARGS).trim();
        let program = match word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
            Some(quoted) => quoted.replace(r"'\''", "'"),
            None => word.to_owned(),
        };
        if !programs.contains(&program) {
            programs.push(program);
        }
    }
    programs
}

/// Whether the settings `text` runs cru's hook on every event cru
/// records (for `cru doctor`); text that is not JSON runs none.
pub fn is_installed(text: &str) -> bool {
    let Ok(settings) = parse(text) else {
        return false;
    };
    HookEvent::INSTALLED.iter().all(|event| {
        settings
            .get("hooks")
            .and_then(|h| h.get(*event))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_ours)
            })
    })
}

fn parse(text: &str) -> Result<Map<String, Value>, SettingsError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(SettingsError::NotAnObject("the settings file")),
        Err(e) => Err(SettingsError::Invalid {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }),
    }
}

fn render(settings: &Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(settings).expect("JSON values serialize");
    text.push('\n');
    text
}

/// `text` (the file's, `None` when there is none) with cru's hook on
/// every event it records; a cru hook of another path is pointed at
/// `command`.
pub fn install(text: Option<&str>, command: &str) -> Result<Edit, SettingsError> {
    let mut settings = parse(text.unwrap_or(""))?;
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(SettingsError::NotAnObject("hooks"))?;
    let mut changed = text.is_none();
    for event in HookEvent::INSTALLED {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or(SettingsError::NotAnObject("hooks.<event>"))?;
        changed |= install_in(groups, event, command);
    }
    Ok(if changed {
        Edit::Changed(render(&settings))
    } else {
        Edit::Unchanged
    })
}

/// Puts cru's hook into an event's matcher groups; true when that changed them.
fn install_in(groups: &mut Vec<Value>, event: &str, command: &str) -> bool {
    let mut found = false;
    let mut changed = false;
    for entry in groups
        .iter_mut()
        .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
        .flatten()
    {
        let Some(cmd) = entry.get("command").and_then(Value::as_str) else {
            continue;
        };
        if is_ours(cmd) {
            found = true;
            if cmd != command {
                entry["command"] = Value::String(command.to_owned());
                changed = true;
            }
        }
    }
    if !found {
        let hook = json!({"type": "command", "command": command});
        groups.push(if TOOL_EVENTS.contains(&event) {
            json!({"matcher": "*", "hooks": [hook]})
        } else {
            json!({"hooks": [hook]})
        });
        changed = true;
    }
    changed
}

/// `text` without cru's hooks (of any path): a matcher group left with no
/// hook goes, and so does an event left with no group, and `hooks` left
/// empty. Everything else stays.
pub fn remove(text: &str) -> Result<Edit, SettingsError> {
    let mut settings = parse(text)?;
    let Some(hooks) = settings.get_mut("hooks") else {
        return Ok(Edit::Unchanged);
    };
    let hooks = hooks
        .as_object_mut()
        .ok_or(SettingsError::NotAnObject("hooks"))?;
    let mut changed = false;
    for groups in hooks.values_mut().filter_map(Value::as_array_mut) {
        for group in groups.iter_mut() {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            let before = list.len();
            list.retain(|h| {
                !h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_ours)
            });
            if list.len() != before {
                changed = true;
                if list.is_empty() {
                    *group = Value::Null;
                }
            }
        }
        groups.retain(|g| !g.is_null());
    }
    if !changed {
        return Ok(Edit::Unchanged);
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    if hooks.is_empty() {
        settings.remove("hooks");
    }
    Ok(Edit::Changed(render(&settings)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/opt/cru/bin/cru hook claude-code";

    fn changed(e: Edit) -> String {
        match e {
            Edit::Changed(t) => t,
            Edit::Unchanged => panic!("expected a change"),
        }
    }

    #[test]
    fn install_keeps_other_keys_in_order_and_is_idempotent_and_remove_undoes_it() {
        let before = r#"{
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ]
  },
  "env": {"A": "1"}
}
"#;
        let after = changed(install(Some(before), CMD).unwrap());
        let v: Value = serde_json::from_str(&after).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "hooks", "env"]);
        let post = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(post.len(), 2, "the other tool's group stays first");
        assert_eq!(post[0]["hooks"][0]["command"], "prettier --write");
        assert_eq!(post[1]["matcher"], "*");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], CMD);
        assert!(v["hooks"]["Stop"][0].get("matcher").is_none());
        assert_eq!(install(Some(&after), CMD).unwrap(), Edit::Unchanged);
        assert!(is_installed(&after) && !is_installed(before));
        let removed = changed(remove(&after).unwrap());
        let back: Value = serde_json::from_str(&removed).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(before).unwrap());
        assert_eq!(remove(&removed).unwrap(), Edit::Unchanged);
    }

    #[test]
    fn a_moved_binary_is_repointed_and_invalid_json_names_its_place() {
        let old = changed(install(None, "/old/cru hook claude-code").unwrap());
        let new = changed(install(Some(&old), CMD).unwrap());
        assert!(!new.contains("/old/cru"));
        assert_eq!(new.matches(CMD).count(), HookEvent::INSTALLED.len());
        let Err(SettingsError::Invalid { line, column, .. }) =
            install(Some("{\n  \"a\": 1,\n}"), CMD)
        else {
            panic!("invalid JSON accepted")
        };
        assert_eq!((line, column), (3, 1));
        assert!(is_ours("'/x y/cru' hook claude-code"));
        assert!(!is_ours("notcru hook claude-code"));
    }
}

#[cfg(test)]
mod program_tests {
    use super::*;

    #[test]
    fn the_programs_hooks_run_are_read_back_unquoted() {
        let Edit::Changed(text) = install(None, &command("/opt/my tools/cru")).unwrap() else {
            panic!("installed");
        };
        assert_eq!(hook_programs(&text), ["/opt/my tools/cru"]);
        assert!(hook_programs("not json").is_empty());
    }
}
