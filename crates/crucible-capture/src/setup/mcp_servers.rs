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
/// set to `server`: added when missing, replaced when it says otherwise.
pub fn install_json(text: Option<&str>, server: &Value) -> Result<Edit, McpConfigError> {
    let Some(text) = text.filter(|t| !t.trim_start_matches(BOM).trim().is_empty()) else {
        return Ok(Edit::Changed(Style::new_file(
            &json!({"mcpServers": {NAME: server}}),
        )));
    };
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
    let style = Style::of(body, &root);
    let splice = match root.get("mcpServers") {
        None => json_edit::append(
            body,
            &style,
            &root,
            &[Child::Member(
                "mcpServers".to_owned(),
                json!({NAME: server}),
            )],
        ),
        Some(servers) => match servers.get(NAME) {
            _ if servers.members().is_none() => return Err(McpConfigError::ServersNotAnObject),
            None => json_edit::append(
                body,
                &style,
                servers,
                &[Child::Member(NAME.to_owned(), server.clone())],
            ),
            Some(_) if value["mcpServers"][NAME] == *server => return Ok(Edit::Unchanged),
            Some(ours) => Splice::replace(ours, compact(server)),
        },
    };
    Ok(Edit::Changed(format!(
        "{bom}{}",
        json_edit::apply(body, vec![splice])
    )))
}

/// A replaced entry on one line: its old lines' indent is not known here.
fn compact(v: &Value) -> String {
    serde_json::to_string(v).expect("a JSON value serializes")
}

/// Codex's `config.toml` with `[mcp_servers.cru]` holding `command` and
/// `args`; comments, order and every other table kept (toml_edit).
pub fn install_toml(text: &str, command: &str, args: &[String]) -> Result<Edit, McpConfigError> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| McpConfigError::Toml(e.to_string()))?;
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
    let want_args: toml_edit::Array = args.iter().map(String::as_str).collect();
    let same = servers
        .get(NAME)
        .and_then(toml_edit::Item::as_table_like)
        .is_some_and(|t| {
            t.get("command").and_then(toml_edit::Item::as_str) == Some(command)
                && t.get("args")
                    .and_then(toml_edit::Item::as_array)
                    .is_some_and(|a| {
                        a.iter()
                            .map(toml_edit::Value::as_str)
                            .eq(args.iter().map(|s| Some(s.as_str())))
                    })
        });
    if same {
        return Ok(Edit::Unchanged);
    }
    let mut ours = toml_edit::Table::new();
    ours.insert("command", toml_edit::value(command));
    ours.insert("args", toml_edit::value(want_args));
    servers.insert(NAME, toml_edit::Item::Table(ours));
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
        let after = changed(install_json(Some(before), &server).unwrap());
        assert!(after.starts_with("{\n  \"numStartups\": 3,\n  \"projects\": {\"/w\": {\"history\": []}},\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"cru\": {"), "{after}");
        let v: Value = serde_json::from_str(&after).unwrap();
        assert_eq!(v["mcpServers"]["cru"], server);
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(
            install_json(Some(&after), &server).unwrap(),
            Edit::Unchanged
        );
        let moved = changed(install_json(Some(&after), &entry("/opt/cru", None, true)).unwrap());
        let v: Value = serde_json::from_str(&moved).unwrap();
        assert_eq!(v["mcpServers"]["cru"]["command"], "/opt/cru");
        // Only the entry changed.
        let entry_at = after.find("\"cru\": {").unwrap();
        assert_eq!(moved[..entry_at], after[..entry_at]);
    }

    #[test]
    fn a_file_without_servers_or_no_file_at_all() {
        let server = entry("cru", Some("/s"), false);
        let none = changed(install_json(None, &server).unwrap());
        let v: Value = serde_json::from_str(&none).unwrap();
        assert_eq!(
            v["mcpServers"]["cru"]["args"],
            json!(["--dir", "/s", "mcp"])
        );
        let theme = changed(install_json(Some("{\"theme\": \"dark\"}"), &server).unwrap());
        let v: Value = serde_json::from_str(&theme).unwrap();
        assert_eq!(v["theme"], "dark");
        assert_eq!(v["mcpServers"]["cru"], server);
        assert!(matches!(
            install_json(Some("{\"mcpServers\": []}"), &server),
            Err(McpConfigError::ServersNotAnObject)
        ));
        assert!(matches!(
            install_json(Some("{oops"), &server),
            Err(McpConfigError::Invalid { line: 1, .. })
        ));
    }

    #[test]
    fn codex_config_gains_a_table_and_keeps_comments() {
        let before =
            "# my settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # keep\n";
        let args = vec!["mcp".to_owned()];
        let after = changed(install_toml(before, "/usr/bin/cru", &args).unwrap());
        assert!(after.starts_with(before), "{after}");
        assert!(
            after.contains("[mcp_servers.cru]\ncommand = \"/usr/bin/cru\"\nargs = [\"mcp\"]\n"),
            "{after}"
        );
        assert_eq!(
            install_toml(&after, "/usr/bin/cru", &args).unwrap(),
            Edit::Unchanged
        );
        let fresh = changed(install_toml("", "cru", &args).unwrap());
        assert_eq!(
            fresh,
            "[mcp_servers.cru]\ncommand = \"cru\"\nargs = [\"mcp\"]\n"
        );
    }
}
