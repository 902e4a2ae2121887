//! `TestKiln`: a temporary sessions directory and a clean environment for `cru`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub struct TestKiln {
    pub root: tempfile::TempDir,
}

pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

impl TestKiln {
    /// A kiln with `.crucible/sessions` holding nothing.
    pub fn empty() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(".crucible/sessions")).unwrap();
        Self { root }
    }

    /// A kiln whose sessions are copies of `fixtures/sessions`.
    pub fn with_fixtures() -> Self {
        let kiln = Self::empty();
        let src = fixtures().join("sessions");
        for f in crucible_core::store::session_files(&src).unwrap() {
            let rel = f.strip_prefix(&src).unwrap();
            kiln.write(
                &rel.to_string_lossy(),
                &std::fs::read_to_string(&f).unwrap(),
            );
        }
        kiln
    }

    pub fn sessions(&self) -> PathBuf {
        self.root.path().join(".crucible/sessions")
    }

    /// Writes a file under the sessions directory.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.sessions().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// `cru` run from the kiln's root with nothing of the caller's
    /// environment that could change what it does.
    pub fn command(&self) -> Command {
        Command::from_std(self.std_command())
    }

    /// [`TestKiln::command`] as the standard library's, for a test that
    /// talks to `cru` while it runs (`cru mcp`).
    pub fn std_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("cru"));
        cmd.current_dir(self.root.path())
            .env("HOME", self.root.path().join("home"))
            .env_remove("CRU_SESSIONS_DIR")
            .env_remove("CRUCIBLE_CONFIG")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CRU_LOG")
            // The agents' stores and settings: those under the kiln's
            // HOME, never the caller's.
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_STATE_HOME");
        cmd
    }

    /// `cru session log tokens` into session `id`: one usage record of
    /// `model` with these input and output tokens; it must succeed.
    pub fn log_tokens(&self, id: &str, model: &str, input: &str, output: &str) {
        let out = self.run(&[
            "session",
            "log",
            "--session",
            id,
            "tokens",
            "--input",
            input,
            "--output",
            output,
            "--model",
            model,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_cmd(self.command().args(args))
    }

    pub fn run_cmd(&self, cmd: &mut Command) -> Output {
        let out = cmd.output().unwrap();
        let clean = |b: &[u8]| {
            String::from_utf8_lossy(b)
                .replace(&self.root.path().display().to_string(), "[KILN]")
                .replace(&fixtures().display().to_string(), "[FIXTURES]")
        };
        Output {
            stdout: clean(&out.stdout),
            stderr: clean(&out.stderr),
            code: out.status.code().unwrap_or(-1),
        }
    }
}

/// One chat completion served on 127.0.0.1; returns the URL and the
/// request body as the server saw it.
pub fn serve_one_completion(reply: &str) -> (String, std::thread::JoinHandle<String>) {
    let body = serde_json::json!({
        "model": "stub-1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}],
        "usage": {"prompt_tokens": 700, "completion_tokens": 80, "total_tokens": 780,
                  "prompt_tokens_details": {"cached_tokens": 500}}
    })
    .to_string();
    serve_one(200, body)
}

/// One HTTP answer with `status` and a JSON `body`, served on 127.0.0.1;
/// returns the API root URL and the request body as the server saw it.
pub fn serve_one(status: u16, body: String) -> (String, std::thread::JoinHandle<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut len = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut request = vec![0; len];
        reader.read_exact(&mut request).unwrap();
        let mut stream = stream;
        let reason = if status == 200 { "OK" } else { "Error" };
        write!(
            stream,
            "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        String::from_utf8(request).unwrap()
    });
    (url, handle)
}

/// The `sessions` of what `cru session list --format json` printed.
pub fn listed_sessions(list_json: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(list_json)
        .unwrap_or_else(|e| panic!("list --format json is not JSON ({e}): {list_json}"));
    assert_eq!(v["version"], 1, "{list_json}");
    v["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("no `sessions` array: {list_json}"))
        .clone()
}
