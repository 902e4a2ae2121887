//! Claude Code's `settings.json`: a hook for each event cru records
//! (`"hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type": "command",
//! "command": "<cru> hook claude-code"}]}]}`, the shape of the hooks
//! reference's "Configuration"). Other keys and other tools' hooks keep
//! their place (serde_json keeps key order in this workspace).

use serde_json::{Value, json};

use super::json_edit::{self, Child, Splice, Style};
use super::json_text::{self, Node};
use super::{Edit, hook_program, hook_words, shell_join, shell_split};
use crate::HookEvent;

/// The agent cru's hook command names.
const AGENT: &str = "claude-code";

/// Events whose hooks take a tool-name matcher.
const TOOL_EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// What editors on Windows put before the text; kept as it was.
const BOM: &str = "\u{feff}";

/// Why a settings file cannot be edited.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("line {line}, column {column}: not valid JSON: {message}")]
    Invalid {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("the settings file is not a JSON object (Claude Code reads one object of settings)")]
    NotASettingsObject,
    #[error("`{0}` is not a JSON object where Claude Code expects one")]
    NotAnObject(String),
    #[error("`{0}` is not a JSON array where Claude Code expects one (a list of matcher groups)")]
    NotAnArray(String),
}

/// The hook command for the cru binary at `program`, recording into the
/// sessions directory `dir` when one is given (else the one cru finds).
pub fn command(program: &str, dir: Option<&str>) -> String {
    shell_join(&hook_words(program, dir, AGENT))
}

/// The program of a hook command that is cru's (by its shape, whatever
/// the program is called).
fn program_of(command: &str) -> Option<String> {
    let words = shell_split(command)?;
    hook_program(&words, AGENT).map(str::to_owned)
}

/// True for a hook command cru wrote (from any path of its binary, with
/// or without `--dir`).
pub fn is_ours(command: &str) -> bool {
    program_of(command).is_some()
}

/// Every hook command in the settings (a value already read).
fn commands(settings: &Value) -> impl Iterator<Item = &str> {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
}

/// The cru programs the settings `text` runs as hooks (each once), as
/// paths: for `cru doctor`, which checks that each is still there.
pub fn hook_programs(text: &str) -> Vec<String> {
    let Ok(settings) = serde_json::from_str::<Value>(text.strip_prefix(BOM).unwrap_or(text)) else {
        return Vec::new();
    };
    let mut programs: Vec<String> = Vec::new();
    for program in commands(&settings).filter_map(program_of) {
        if !programs.contains(&program) {
            programs.push(program);
        }
    }
    programs
}

/// Whether the settings `text` runs cru's hook on every event cru
/// records (for `cru doctor`); text that is not JSON runs none.
pub fn is_installed(text: &str) -> bool {
    let Ok(settings) = serde_json::from_str::<Value>(text.strip_prefix(BOM).unwrap_or(text)) else {
        return false;
    };
    HookEvent::INSTALLED.iter().all(|event| {
        settings["hooks"][*event]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter_map(|h| h.get("command").and_then(Value::as_str))
            .any(is_ours)
    })
}

/// The settings text split from its byte-order mark, checked as JSON, and
/// the places of its values.
fn read(text: &str) -> Result<(&str, &str, Node), SettingsError> {
    let (bom, body) = match text.strip_prefix(BOM) {
        Some(body) => (BOM, body),
        None => ("", text),
    };
    let invalid = |e: &serde_json::Error| SettingsError::Invalid {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let value: Value = serde_json::from_str(body).map_err(|e| invalid(&e))?;
    if !value.is_object() {
        return Err(SettingsError::NotASettingsObject);
    }
    let root = json_text::parse(body).ok_or(SettingsError::Invalid {
        line: 1,
        column: 1,
        message: "cannot find its values".to_owned(),
    })?;
    Ok((bom, body, root))
}

/// The matcher group that runs `command` at `event`.
fn group(event: &str, command: &str) -> Value {
    let hook = json!({"type": "command", "command": command});
    if TOOL_EVENTS.contains(&event) {
        json!({"matcher": "*", "hooks": [hook]})
    } else {
        json!({"hooks": [hook]})
    }
}

/// `"<event>": [<group>]` for each of `events`.
fn event_members<'a>(events: impl Iterator<Item = &'a str>, command: &str) -> Vec<Child> {
    events
        .map(|e| Child::Member(e.to_owned(), Value::Array(vec![group(e, command)])))
        .collect()
}

/// `{"<event>": [<group>], …}` for every event cru records.
fn every_event(command: &str) -> Value {
    HookEvent::INSTALLED
        .iter()
        .map(|e| ((*e).to_owned(), Value::Array(vec![group(e, command)])))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// `text` (the file's, `None` when there is none) with cru's hook on
/// every event it records, once: a cru hook of another path or sessions
/// directory is pointed at `command`, and a second one of cru's in an
/// event is taken out. Only those bytes change.
pub fn install(text: Option<&str>, command: &str) -> Result<Edit, SettingsError> {
    let Some(text) = text.filter(|t| !t.trim_start_matches(BOM).trim().is_empty()) else {
        let settings = json!({"hooks": every_event(command)});
        let bom = text.filter(|t| t.starts_with(BOM)).map_or("", |_| BOM);
        return Ok(Edit::Changed(format!(
            "{bom}{}",
            Style::new_file(&settings)
        )));
    };
    let (bom, body, root) = read(text)?;
    let style = Style::of(body, &root);
    let splices = match root.get("hooks") {
        None => vec![json_edit::append(
            body,
            &style,
            &root,
            &[Child::Member("hooks".to_owned(), every_event(command))],
        )],
        Some(hooks) => install_in(body, &style, hooks, command)?,
    };
    Ok(if splices.is_empty() {
        Edit::Unchanged
    } else {
        Edit::Changed(format!("{bom}{}", json_edit::apply(body, splices)))
    })
}

/// The splices that put cru's hook once into each event of `hooks`.
fn install_in(
    body: &str,
    style: &Style,
    hooks: &Node,
    command: &str,
) -> Result<Vec<Splice>, SettingsError> {
    if hooks.members().is_none() {
        return Err(SettingsError::NotAnObject("hooks".to_owned()));
    }
    let mut splices = Vec::new();
    let mut missing = Vec::new();
    for event in HookEvent::INSTALLED {
        let Some(groups) = hooks.get(event) else {
            missing.push(event);
            continue;
        };
        if groups.elements().is_none() {
            return Err(SettingsError::NotAnArray(format!("hooks.{event}")));
        }
        let ours = our_hooks(groups);
        match ours.first() {
            None => splices.push(json_edit::append(
                body,
                style,
                groups,
                &[Child::Element(group(event, command))],
            )),
            Some(&(g, h)) => {
                let first = command_node(groups, g, h).expect("found as cru's hook");
                if first.as_str() != Some(command) {
                    splices.push(Splice::replace(first, Value::from(command).to_string()));
                }
                let extra = &ours[1..];
                splices.extend(removal(groups, |g, h| extra.contains(&(g, h))).0);
            }
        }
    }
    if !missing.is_empty() {
        let members = event_members(missing.into_iter(), command);
        splices.push(json_edit::append(body, style, hooks, &members));
    }
    Ok(splices)
}

/// The hooks of `groups` (an event's matcher groups) by group and place.
fn hook_entries(groups: &Node) -> impl Iterator<Item = (usize, usize, &Node)> {
    groups
        .elements()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .flat_map(|(g, group)| {
            let list = group
                .get("hooks")
                .and_then(Node::elements)
                .unwrap_or_default();
            list.iter().enumerate().map(move |(h, hook)| (g, h, hook))
        })
}

/// The command of the `h`th hook of the `g`th group.
fn command_node(groups: &Node, g: usize, h: usize) -> Option<&Node> {
    hook_entries(groups)
        .find(|&(gi, hi, _)| (gi, hi) == (g, h))
        .and_then(|(_, _, hook)| hook.get("command"))
}

/// Where cru's hooks are among an event's groups, in order.
fn our_hooks(groups: &Node) -> Vec<(usize, usize)> {
    hook_entries(groups)
        .filter(|(_, _, hook)| {
            hook.get("command")
                .and_then(Node::as_str)
                .is_some_and(is_ours)
        })
        .map(|(g, h, _)| (g, h))
        .collect()
}

/// The splices that take the hooks `gone(group, hook)` out of an event's
/// `groups`; a group left with no hook goes too. True when no group is
/// left (the caller takes the event out instead).
fn removal(groups: &Node, gone: impl Fn(usize, usize) -> bool) -> (Vec<Splice>, bool) {
    let list = groups.elements().unwrap_or_default();
    let mut splices = Vec::new();
    let mut groups_gone = vec![false; list.len()];
    for (g, group) in list.iter().enumerate() {
        let Some(hooks) = group.get("hooks") else {
            continue;
        };
        let hooks_gone: Vec<bool> = (0..hooks.elements().map_or(0, <[Node]>::len))
            .map(|h| gone(g, h))
            .collect();
        if !hooks_gone.contains(&true) {
            continue;
        }
        if hooks_gone.iter().all(|x| *x) {
            groups_gone[g] = true;
        } else {
            splices.extend(json_edit::remove(hooks, &hooks_gone));
        }
    }
    if !list.is_empty() && groups_gone.iter().all(|x| *x) {
        return (Vec::new(), true);
    }
    if groups_gone.contains(&true) {
        splices.extend(json_edit::remove(groups, &groups_gone));
    }
    (splices, false)
}

/// `text` without cru's hooks (of any path): a matcher group left with no
/// hook goes, and so does an event left with no group, and `hooks` left
/// empty. Nothing else changes, so what `install` added is taken out to
/// the byte.
pub fn remove(text: &str) -> Result<Edit, SettingsError> {
    if text.trim_start_matches(BOM).trim().is_empty() {
        return Ok(Edit::Unchanged);
    }
    let (bom, body, root) = read(text)?;
    let Some(hooks) = root.get("hooks") else {
        return Ok(Edit::Unchanged);
    };
    let members = hooks
        .members()
        .ok_or_else(|| SettingsError::NotAnObject("hooks".to_owned()))?;
    let mut splices = Vec::new();
    let mut events_gone = vec![false; members.len()];
    for (i, member) in members.iter().enumerate() {
        if member.value.elements().is_none() {
            continue;
        }
        let ours = our_hooks(&member.value);
        let (s, all) = removal(&member.value, |g, h| ours.contains(&(g, h)));
        splices.extend(s);
        events_gone[i] = all;
    }
    if splices.is_empty() && !events_gone.contains(&true) {
        return Ok(Edit::Unchanged);
    }
    if events_gone.iter().all(|x| *x) {
        let hooks_gone: Vec<bool> = root
            .members()
            .unwrap_or_default()
            .iter()
            .map(|m| m.key == "hooks")
            .collect();
        splices = json_edit::remove(&root, &hooks_gone);
    } else if events_gone.contains(&true) {
        splices.extend(json_edit::remove(hooks, &events_gone));
    }
    Ok(Edit::Changed(format!(
        "{bom}{}",
        json_edit::apply(body, splices)
    )))
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
        assert_eq!(removed, before, "the same bytes back");
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
        assert!(is_ours("cru-dev --dir /x hook claude-code"));
        assert!(!is_ours("notcru other hook claude-code"));
    }
}

#[cfg(test)]
mod program_tests {
    use super::*;

    #[test]
    fn the_programs_hooks_run_are_read_back_unquoted() {
        let Edit::Changed(text) = install(None, &command("/opt/my tools/cru", None)).unwrap()
        else {
            panic!("installed");
        };
        assert_eq!(hook_programs(&text), ["/opt/my tools/cru"]);
        let with_dir = command("/opt/cru-dev", Some("/srv/my sessions"));
        assert_eq!(
            with_dir,
            "/opt/cru-dev --dir '/srv/my sessions' hook claude-code"
        );
        let Edit::Changed(text) = install(Some(&text), &with_dir).unwrap() else {
            panic!("repointed");
        };
        assert_eq!(hook_programs(&text), ["/opt/cru-dev"]);
        assert!(is_installed(&text));
        assert!(hook_programs("not json").is_empty());
    }
}
