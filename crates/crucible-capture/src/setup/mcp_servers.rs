//! cru's MCP server (`cru mcp`) in an agent's MCP configuration, edited in
//! place like the hooks: Claude Code's `~/.claude.json` and a project's
//! `.mcp.json`, Gemini CLI's `~/.gemini/settings.json` (each an object
//! whose `mcpServers` maps a name to `{command, args}`), and Codex's
//! `~/.codex/config.toml` (`[mcp_servers.cru]`). Only the `cru` entry is
//! added or changed; every other byte stays as it was.

use serde_json::{Value, json};

use super::Edit;
use super::json_edit::{self, Child, Splice, Style};
use super::json_text;

/// The name the server is known by in every agent's configuration.
pub const NAME: &str = "cru";

/// What editors on Windows put before the text; kept as it was.
const BOM: &str = "\u{feff}";

#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    #[error("line {line}, column {column}: not valid JSON: {message}")]
    Invalid {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("the file is not a JSON object")]
    NotAnObject,
    #[error("`mcpServers` is not a JSON object")]
    ServersNotAnObject,
    #[error("not valid TOML: {0}")]
    Toml(String),
    #[error("`mcp_servers` is not a table")]
    ServersNotATable,
    #[error("`{0}` appears more than once; the agent reads only the last")]
    DuplicateKey(String),
    #[error(
        "the `cru` entry runs {has}, not {want}; pass --force to set its command and args \
         (its other keys are kept)"
    )]
    Customised { has: String, want: String },
}

/// The keys of the entry cru sets; any other (`env`, `cwd`, a timeout) is
/// the user's and stays.
const OURS: [&str; 3] = ["type", "command", "args"];

/// An entry's command and args, as a message shows them.
fn runs(entry: &Value) -> String {
    let command = entry["command"].as_str().unwrap_or("(no command)");
    let args: Vec<&str> = entry["args"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    format!(
        "`{}`",
        std::iter::once(command)
            .chain(args)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// Whether `has` already says what `want` says, in the keys cru sets.
/// An entry without `type` is a stdio one, as the agents read it.
fn same_entry(has: &Value, want: &Value) -> bool {
    OURS.iter()
        .all(|&k| has.get(k) == want.get(k) || (k == "type" && has.get(k).is_none()))
}

/// Refuses a file where `key` appears twice in `node`: which one the
/// agent reads is not the one an edit would find.
fn once(node: &json_text::Node, key: &str) -> Result<(), McpConfigError> {
    let n = node
        .members()
        .map_or(0, |m| m.iter().filter(|m| m.key == key).count());
    if n > 1 {
        return Err(McpConfigError::DuplicateKey(key.to_owned()));
    }
    Ok(())
}

/// The server's entry: `{"command": program, "args": [..., "mcp"]}`, with
/// `"type": "stdio"` where the agent's format names the transport.
pub fn entry(program: &str, dir: Option<&str>, typed: bool) -> Value {
    let mut args: Vec<String> = Vec::new();
    if let Some(dir) = dir {
        args.extend(["--dir".to_owned(), dir.to_owned()]);
    }
    args.push("mcp".to_owned());
    if typed {
        json!({"type": "stdio", "command": program, "args": args})
    } else {
        json!({"command": program, "args": args})
    }
}

/// `text` (the file's; `None` when there is none) with `mcpServers.cru`
/// set to `server`: added when missing. One there already that runs
/// something else is refused, unless `force`, which sets its `command` and
/// `args` and keeps its other keys.
pub fn install_json(
    text: Option<&str>,
    server: &Value,
    force: bool,
) -> Result<Edit, McpConfigError> {
    let Some(text) = text.filter(|t| !t.trim_start_matches(BOM).trim().is_empty()) else {
        return Ok(Edit::Changed(Style::new_file(
            &json!({"mcpServers": {NAME: server}}),
        )));
    };
    let (bom, body, value, root) = parsed(text)?;
    once(&root, "mcpServers")?;
    let style = Style::of(body, &root);
    let splices = match root.get("mcpServers") {
        None => vec![json_edit::append(
            body,
            &style,
            &root,
            &[Child::Member(
                "mcpServers".to_owned(),
                json!({NAME: server}),
            )],
        )],
        Some(servers) if servers.members().is_none() => {
            return Err(McpConfigError::ServersNotAnObject);
        }
        Some(servers) => {
            once(servers, NAME)?;
            match servers.get(NAME) {
                None => vec![json_edit::append(
                    body,
                    &style,
                    servers,
                    &[Child::Member(NAME.to_owned(), server.clone())],
                )],
                Some(_) if same_entry(&value["mcpServers"][NAME], server) => {
                    return Ok(Edit::Unchanged);
                }
                Some(_) if !force => {
                    return Err(McpConfigError::Customised {
                        has: runs(&value["mcpServers"][NAME]),
                        want: runs(server),
                    });
                }
                Some(ours) => set_ours(body, &style, ours, server),
            }
        }
    };
    Ok(Edit::Changed(format!(
        "{bom}{}",
        json_edit::apply(body, splices)
    )))
}

/// The file's BOM, its text after it, its value, and where its values are.
fn parsed(text: &str) -> Result<(&str, &str, Value, json_text::Node), McpConfigError> {
    let (bom, body) = text
        .strip_prefix(BOM)
        .map_or(("", text), |body| (BOM, body));
    let value: Value = serde_json::from_str(body).map_err(|e| McpConfigError::Invalid {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let root = json_text::parse(body)
        .filter(|_| value.is_object())
        .ok_or(McpConfigError::NotAnObject)?;
    Ok((bom, body, value, root))
}

/// The edits that make the entry `ours` say what `server` says in the keys
/// cru sets, leaving its others; an entry that is not an object is
/// replaced whole.
fn set_ours(
    body: &str,
    style: &Style,
    ours: &json_text::Node,
    server: &Value,
) -> Vec<json_edit::Splice> {
    if ours.members().is_none() {
        return vec![Splice::replace(ours, compact(server))];
    }
    let mut splices = Vec::new();
    let mut missing = Vec::new();
    for key in OURS {
        match (ours.get(key), server.get(key)) {
            (Some(node), Some(v)) => splices.push(Splice::replace(node, compact(v))),
            (None, Some(v)) => missing.push(Child::Member(key.to_owned(), v.clone())),
            // A `type` cru does not write for this agent: the user's.
            (_, None) => {}
        }
    }
    if !missing.is_empty() {
        splices.push(json_edit::append(body, style, ours, &missing));
    }
    splices
}

/// `text` without `mcpServers.cru`; every other byte kept. A file without
/// it is left unchanged.
pub fn remove_json(text: Option<&str>) -> Result<Edit, McpConfigError> {
    let Some(text) = text.filter(|t| !t.trim_start_matches(BOM).trim().is_empty()) else {
        return Ok(Edit::Unchanged);
    };
    let (bom, body, _, root) = parsed(text)?;
    once(&root, "mcpServers")?;
    let Some(servers) = root.get("mcpServers") else {
        return Ok(Edit::Unchanged);
    };
    let Some(members) = servers.members() else {
        return Err(McpConfigError::ServersNotAnObject);
    };
    let gone: Vec<bool> = members.iter().map(|m| m.key == NAME).collect();
    if !gone.contains(&true) {
        return Ok(Edit::Unchanged);
    }
    Ok(Edit::Changed(format!(
        "{bom}{}",
        json_edit::apply(body, json_edit::remove(servers, &gone))
    )))
}

/// A replaced entry on one line: its old lines' indent is not known here.
fn compact(v: &Value) -> String {
    serde_json::to_string(v).expect("a JSON value serializes")
}

/// Codex's `config.toml` with `[mcp_servers.cru]` holding `command` and
/// `args`; comments, order and every other table kept (toml_edit). An
/// entry that runs something else is refused unless `force`, which sets
/// those two keys and keeps its others (`env`, `startup_timeout_sec`, ...).
pub fn install_toml(
    text: &str,
    command: &str,
    args: &[String],
    force: bool,
) -> Result<Edit, McpConfigError> {
    let mut doc = toml_doc(text)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            // `[mcp_servers.cru]` alone, no empty `[mcp_servers]` above it.
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or(McpConfigError::ServersNotATable)?;
    let want = json!({"command": command, "args": args});
    if let Some(has) = servers.get(NAME).and_then(toml_edit::Item::as_table_like) {
        let has_value = json!({
            "command": has.get("command").and_then(toml_edit::Item::as_str),
            "args": has.get("args").and_then(toml_edit::Item::as_array).map(|a| {
                a.iter().map(toml_edit::Value::as_str).collect::<Vec<_>>()
            }),
        });
        if same_entry(&has_value, &want) {
            return Ok(Edit::Unchanged);
        }
        if !force {
            return Err(McpConfigError::Customised {
                has: runs(&has_value),
                want: runs(&want),
            });
        }
    }
    let want_args: toml_edit::Array = args.iter().map(String::as_str).collect();
    if let Some(ours) = servers
        .get_mut(NAME)
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        set_value(ours, "command", command.into());
        set_value(ours, "args", want_args.into());
    } else {
        let mut ours = toml_edit::Table::new();
        ours.insert("command", toml_edit::value(command));
        ours.insert("args", toml_edit::value(want_args));
        servers.insert(NAME, toml_edit::Item::Table(ours));
    }
    Ok(super::codex_config::written(&doc, text))
}

/// `key = value` in `table`, the comments around the key and its value
/// kept where it was there already.
fn set_value(table: &mut dyn toml_edit::TableLike, key: &str, value: toml_edit::Value) {
    match table.get_mut(key).and_then(toml_edit::Item::as_value_mut) {
        Some(old) => {
            let decor = old.decor().clone();
            *old = value;
            *old.decor_mut() = decor;
        }
        None => {
            table.insert(key, toml_edit::Item::Value(value));
        }
    }
}

fn toml_doc(text: &str) -> Result<toml_edit::DocumentMut, McpConfigError> {
    text.parse()
        .map_err(|e: toml_edit::TomlError| McpConfigError::Toml(e.to_string()))
}

/// Codex's `config.toml` without `[mcp_servers.cru]`; the rest kept.
pub fn remove_toml(text: &str) -> Result<Edit, McpConfigError> {
    let mut doc = toml_doc(text)?;
    let Some(servers) = doc
        .get_mut("mcp_servers")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Ok(Edit::Unchanged);
    };
    if servers.remove(NAME).is_none() {
        return Ok(Edit::Unchanged);
    }
    Ok(super::codex_config::written(&doc, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(e: Edit) -> String {
        match e {
            Edit::Changed(t) => t,
            Edit::Unchanged => panic!("expected a change"),
        }
    }

    #[test]
    fn claude_json_gains_the_server_and_keeps_every_other_byte() {
        let before = "{\n  \"numStartups\": 3,\n  \"projects\": {\"/w\": {\"history\": []}},\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
        let server = entry("/usr/bin/cru", None, true);
        let after = changed(install_json(Some(before), &server, false).unwrap());
        assert!(after.starts_with("{\n  \"numStartups\": 3,\n  \"projects\": {\"/w\": {\"history\": []}},\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"cru\": {"), "{after}");
        let v: Value = serde_json::from_str(&after).unwrap();
        assert_eq!(v["mcpServers"]["cru"], server);
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(
            install_json(Some(&after), &server, false).unwrap(),
            Edit::Unchanged
        );
        let moved =
            changed(install_json(Some(&after), &entry("/opt/cru", None, true), true).unwrap());
        let v: Value = serde_json::from_str(&moved).unwrap();
        assert_eq!(v["mcpServers"]["cru"]["command"], "/opt/cru");
        // Only the entry changed.
        let entry_at = after.find("\"cru\": {").unwrap();
        assert_eq!(moved[..entry_at], after[..entry_at]);
    }

    #[test]
    fn a_file_without_servers_or_no_file_at_all() {
        let server = entry("cru", Some("/s"), false);
        let none = changed(install_json(None, &server, false).unwrap());
        let v: Value = serde_json::from_str(&none).unwrap();
        assert_eq!(
            v["mcpServers"]["cru"]["args"],
            json!(["--dir", "/s", "mcp"])
        );
        let theme = changed(install_json(Some("{\"theme\": \"dark\"}"), &server, false).unwrap());
        let v: Value = serde_json::from_str(&theme).unwrap();
        assert_eq!(v["theme"], "dark");
        assert_eq!(v["mcpServers"]["cru"], server);
        assert!(matches!(
            install_json(Some("{\"mcpServers\": []}"), &server, false),
            Err(McpConfigError::ServersNotAnObject)
        ));
        assert!(matches!(
            install_json(Some("{oops"), &server, false),
            Err(McpConfigError::Invalid { line: 1, .. })
        ));
    }

    #[test]
    fn codex_config_gains_a_table_and_keeps_comments() {
        let before =
            "# my settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # keep\n";
        let args = vec!["mcp".to_owned()];
        let after = changed(install_toml(before, "/usr/bin/cru", &args, false).unwrap());
        assert!(after.starts_with(before), "{after}");
        assert!(
            after.contains("[mcp_servers.cru]\ncommand = \"/usr/bin/cru\"\nargs = [\"mcp\"]\n"),
            "{after}"
        );
        assert_eq!(
            install_toml(&after, "/usr/bin/cru", &args, false).unwrap(),
            Edit::Unchanged
        );
        let fresh = changed(install_toml("", "cru", &args, false).unwrap());
        assert_eq!(
            fresh,
            "[mcp_servers.cru]\ncommand = \"cru\"\nargs = [\"mcp\"]\n"
        );
    }

    #[test]
    fn a_customised_entry_is_refused_then_kept_but_for_command_and_args() {
        let before = "{\n  \"mcpServers\": {\n    \"cru\": {\n      \"command\": \"cru\",\n      \"args\": [\"mcp\", \"--read-only\"],\n      \"env\": {\"CRU_SESSIONS_DIR\": \"/x\"}\n    }\n  }\n}\n";
        let server = entry("/usr/bin/cru", None, true);
        let refused = install_json(Some(before), &server, false).unwrap_err();
        assert!(
            refused.to_string().contains("`cru mcp --read-only`"),
            "{refused}"
        );
        let forced = changed(install_json(Some(before), &server, true).unwrap());
        let v: Value = serde_json::from_str(&forced).unwrap();
        assert_eq!(
            v["mcpServers"]["cru"]["env"]["CRU_SESSIONS_DIR"], "/x",
            "{forced}"
        );
        assert_eq!(v["mcpServers"]["cru"]["command"], "/usr/bin/cru");
        assert_eq!(v["mcpServers"]["cru"]["args"], json!(["mcp"]));
        assert_eq!(v["mcpServers"]["cru"]["type"], "stdio");
        assert_eq!(
            install_json(Some(&forced), &server, false).unwrap(),
            Edit::Unchanged
        );
        let toml = "[mcp_servers.cru]\n# my note\ncommand = \"cru\"\nargs = [\"mcp\", \"--read-only\"]\nenv = { CRU_SESSIONS_DIR = \"/data\" }\nstartup_timeout_sec = 30\n";
        let args = vec!["mcp".to_owned()];
        assert!(install_toml(toml, "/usr/bin/cru", &args, false).is_err());
        let forced = changed(install_toml(toml, "/usr/bin/cru", &args, true).unwrap());
        assert!(forced.contains("# my note"), "{forced}");
        assert!(forced.contains("startup_timeout_sec = 30"), "{forced}");
        assert!(forced.contains("CRU_SESSIONS_DIR = \"/data\""), "{forced}");
        assert!(forced.contains("command = \"/usr/bin/cru\""), "{forced}");
    }

    #[test]
    fn removal_takes_out_the_entry_alone_and_duplicates_are_refused() {
        let before = "{\n  \"theme\": 1,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"o\"},\n    \"cru\": {\"command\": \"cru\", \"args\": [\"mcp\"]}\n  }\n}\n";
        let after = changed(remove_json(Some(before)).unwrap());
        assert_eq!(
            after,
            "{\n  \"theme\": 1,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"o\"}\n  }\n}\n"
        );
        assert_eq!(remove_json(Some(&after)).unwrap(), Edit::Unchanged);
        assert_eq!(remove_json(None).unwrap(), Edit::Unchanged);
        let toml = "model = \"o3\"\n\n[mcp_servers.cru]\ncommand = \"cru\"\nargs = [\"mcp\"]\n";
        let after = changed(remove_toml(toml).unwrap());
        assert!(!after.contains("cru"), "{after}");
        assert!(after.contains("model = \"o3\""), "{after}");
        assert_eq!(remove_toml(&after).unwrap(), Edit::Unchanged);
        let twice = "{\"mcpServers\": {\"a\": 1}, \"mcpServers\": {\"b\": 2}}";
        assert!(matches!(
            install_json(Some(twice), &entry("cru", None, true), false),
            Err(McpConfigError::DuplicateKey(_))
        ));
    }
}
