//! `cru mcp` checked with the official MCP Python SDK's stdio client
//! (`tests/mcp_client.py`): every tool called on a copy of the fixtures
//! and compared with the CLI's JSON, a session recorded and read back.
//! Skipped with a warning when the `mcp` package is missing, except under
//! CI (`CI` set), which installs it (`.ci/run`) and must run it.

use std::process::Command;

use crate::kiln::TestKiln;

/// Whether `python3` can import the SDK; when it cannot, `None` outside CI
/// (the test is skipped), a failure under CI.
fn sdk_python() -> Option<&'static str> {
    let found = Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("python3");
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the MCP Python SDK is missing under CI: .ci/run installs it (pip install mcp)"
    );
    eprintln!("warning: skipped: the MCP Python SDK is not installed (python3 -m pip install mcp)");
    None
}

/// `mcp_client.py` on the kiln's sessions: over stdio (it starts `cru
/// mcp` itself), or over HTTP at `url`.
fn client_script(python: &str, kiln: &TestKiln, url: Option<&str>) -> Command {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut cmd = Command::new(python);
    // The script runs cru itself (with --dir): nothing of the caller's
    // configuration may reach it.
    cmd.arg(&script)
        .arg(assert_cmd::cargo::cargo_bin("cru"))
        .arg(kiln.sessions())
        .args(url)
        .current_dir(kiln.root.path())
        .env("HOME", kiln.root.path().join("home"))
        .env_remove("CRU_SESSIONS_DIR")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME");
    cmd
}

#[test]
fn the_official_python_client_gets_the_cli_answers() {
    let Some(python) = sdk_python() else {
        return;
    };
    let kiln = TestKiln::with_fixtures();
    let out = client_script(python, &kiln, None).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_official_python_client_over_http_and_twenty_clients_at_once() {
    let Some(python) = sdk_python() else {
        return;
    };
    let kiln = TestKiln::with_fixtures();
    let server = crate::mcp::HttpServer::start(&kiln);
    let out = client_script(python, &kiln, Some(&server.url))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("20 clients recording at once lose no event"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
