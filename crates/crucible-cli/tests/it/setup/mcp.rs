//! `cru setup claude-code|codex|gemini --mcp` on copies of real shapes of
//! the agents' MCP configurations (fixtures/setup/README.md).

use std::path::Path;

use super::setup;
use crate::kiln::fixtures;

fn copy(fixture: &str, to: &Path) -> String {
    let text = std::fs::read_to_string(fixtures().join("setup").join(fixture)).unwrap();
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(to, &text).unwrap();
    text
}

/// The text before the `"cru"` entry is the file's own, untouched; the
/// file parses; its `mcpServers.cru` runs `cru mcp` by an absolute path.
fn check_json(before: Option<&str>, path: &Path, typed: bool) -> serde_json::Value {
    let after = std::fs::read_to_string(path).unwrap();
    let at = after.find("\"cru\"").expect("a cru entry");
    if let Some(before) = before {
        // Up to the comma that now follows the entry before cru's.
        let kept = after[..at].trim_end().trim_end_matches(',');
        assert!(before.starts_with(kept), "{after}");
    }
    let v: serde_json::Value = serde_json::from_str(&after).unwrap();
    let cru = &v["mcpServers"]["cru"];
    assert!(cru["command"].as_str().unwrap().starts_with('/'), "{cru}");
    assert_eq!(cru["args"], serde_json::json!(["mcp"]));
    assert_eq!(cru.get("type").is_some(), typed, "{cru}");
    v
}

#[test]
fn claude_code_user_scope_gains_the_server_beside_the_others_once() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".claude.json");
    let before = copy("claude-code/claude.json", &path);
    setup(home.path(), &["claude-code", "--mcp"])
        .assert()
        .success();
    let v = check_json(Some(&before), &path, true);
    assert_eq!(v["mcpServers"]["github"]["type"], "http");
    assert_eq!(v["numStartups"], 42);
    assert!(v["projects"]["/home/me/work/api"]["mcpServers"]["postgres"].is_object());
    assert_eq!(
        std::fs::read_to_string(home.path().join(".claude.json.bak-cru")).unwrap(),
        before
    );
    let again = setup(home.path(), &["claude-code", "--mcp"])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    assert!(said.contains("already in"), "{said}");
}

#[test]
fn claude_code_project_scope_writes_a_new_mcp_json() {
    let home = tempfile::tempdir().unwrap();
    setup(home.path(), &["claude-code", "--mcp", "--project"])
        .assert()
        .success();
    let v = check_json(None, &home.path().join(".mcp.json"), true);
    assert_eq!(v.as_object().unwrap().len(), 1);
}

#[test]
fn gemini_settings_keep_their_indent_and_other_servers() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".gemini/settings.json");
    let before = copy("gemini/settings.json", &path);
    setup(home.path(), &["gemini", "--mcp"]).assert().success();
    let v = check_json(Some(&before), &path, false);
    assert_eq!(v["mcpServers"]["filesystem"]["timeout"], 30000);
    assert_eq!(v["checkpointing"]["enabled"], true);
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.contains("\n        \"cru\": {"), "{after}");
}

#[test]
fn codex_config_gains_mcp_servers_cru_in_its_line_ends() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".codex/config.toml");
    let before = copy("codex/crlf.toml", &path);
    setup(home.path(), &["codex", "--mcp"]).assert().success();
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(&before), "{after}");
    let added = &after[before.len()..];
    assert!(
        added.contains("[mcp_servers.cru]\r\ncommand = \"/"),
        "{added:?}"
    );
    assert!(added.ends_with("args = [\"mcp\"]\r\n"), "{added:?}");
    assert!(!added.replace("\r\n", "").contains('\n'), "{added:?}");
}

#[test]
fn a_broken_file_is_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".gemini/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{\"theme\": \n").unwrap();
    let out = setup(home.path(), &["gemini", "--mcp"]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("settings.json:2:"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"theme\": \n");
}

/// Review of issue 24, F13: a `cru` entry the user changed (env, extra
/// args, comments) is not replaced by a second run; --force sets only its
/// command and args and keeps what was there beside the first backup.
#[test]
fn a_customised_entry_is_refused_then_forced_keeping_its_other_keys() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".codex/config.toml");
    let before = "[mcp_servers.cru]\n# my note\ncommand = \"cru\"\nargs = [\"mcp\", \"--read-only\"]\nenv = { CRU_SESSIONS_DIR = \"/data\" }\nstartup_timeout_sec = 30\n";
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, before).unwrap();
    let out = setup(home.path(), &["codex", "--mcp"]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("`cru mcp --read-only`") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    setup(home.path(), &["codex", "--mcp", "--force"])
        .assert()
        .success();
    let after = std::fs::read_to_string(&path).unwrap();
    for kept in [
        "# my note",
        "startup_timeout_sec = 30",
        "CRU_SESSIONS_DIR = \"/data\"",
    ] {
        assert!(after.contains(kept), "{kept}: {after}");
    }
    assert!(after.contains("args = [\"mcp\"]"), "{after}");
    let kept = home.path().join(".codex/config.toml.bak-cru-replaced");
    assert_eq!(std::fs::read_to_string(kept).unwrap(), before);

    let claude = home.path().join(".claude.json");
    let custom = "{\"mcpServers\": {\"cru\": {\"type\": \"stdio\", \"command\": \"cru\", \"args\": [\"mcp\", \"--read-only\"], \"env\": {\"A\": \"1\"}}}}";
    std::fs::write(&claude, custom).unwrap();
    setup(home.path(), &["claude-code", "--mcp"])
        .assert()
        .failure();
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), custom);
    setup(home.path(), &["claude-code", "--mcp", "--force"])
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&claude).unwrap()).unwrap();
    assert_eq!(v["mcpServers"]["cru"]["env"]["A"], "1");
    assert_eq!(v["mcpServers"]["cru"]["args"], serde_json::json!(["mcp"]));
}

/// F16: `--mcp --remove` takes the entry out of each agent's file, and
/// says so when there is none; the other servers stay.
#[test]
fn remove_takes_the_server_out_of_every_agent() {
    let home = tempfile::tempdir().unwrap();
    let gemini = home.path().join(".gemini/settings.json");
    let before = copy("gemini/settings.json", &gemini);
    for agent in ["claude-code", "codex", "gemini"] {
        setup(home.path(), &[agent, "--mcp"]).assert().success();
        setup(home.path(), &[agent, "--mcp", "--remove"])
            .assert()
            .success();
        let again = setup(home.path(), &[agent, "--mcp", "--remove"])
            .assert()
            .success();
        let said = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
        assert!(said.contains("not in"), "{agent}: {said}");
    }
    assert_eq!(std::fs::read_to_string(&gemini).unwrap(), before);
    let claude = std::fs::read_to_string(home.path().join(".claude.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&claude).unwrap();
    assert_eq!(v["mcpServers"], serde_json::json!({}), "{claude}");
    let codex = std::fs::read_to_string(home.path().join(".codex/config.toml")).unwrap();
    assert!(!codex.contains("[mcp_servers.cru]"), "{codex}");
}

/// F17: two `mcpServers` keys: the agent reads the last, an edit would
/// find the first; refused, naming the key.
#[test]
fn a_duplicate_mcp_servers_key_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".claude.json");
    let twice = "{\"mcpServers\":{\"a\":1},\"mcpServers\":{\"b\":2}}";
    std::fs::write(&path, twice).unwrap();
    let out = setup(home.path(), &["claude-code", "--mcp"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("`mcpServers` appears more than once"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), twice);
}

/// F14: Gemini CLI reads settings.json with comments; cru refuses to edit
/// one (it would lose them), says the place once, and says what to do.
#[test]
fn settings_with_comments_are_refused_with_the_way_round() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".gemini/settings.json");
    let text = "{\n  // my theme\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\"other\": {\"command\": \"o\"}}\n}\n";
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    let out = setup(home.path(), &["gemini", "--mcp"]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("settings.json:2:3: not valid JSON"), "{err}");
    assert!(!err.contains("line 2, column 3"), "{err}");
    assert!(err.contains("by hand"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}
