//! `cru session export --to otlp` into a real Arize Phoenix (`phoenix
//! serve` on 127.0.0.1, a free port, a temporary working directory), read
//! back through Phoenix's GraphQL API: traces, spans per trace, sessions,
//! tokens against `cru session stats`, a second export that changes no
//! count, and a stopped Phoenix that gets what it missed once it is back.
//! Skipped with a warning when Phoenix is not installed (`phoenix` on the
//! PATH, or `$CRU_PHOENIX`); a failure when `CI` is set (CI installs it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::kiln::{Output, TestKiln, fixtures};
use crate::otlp::attr_str;
use crate::otlp_receiver::Receiver;

/// A `phoenix serve` of the test's own, stopped when dropped.
struct Phoenix {
    child: Child,
    url: String,
    log: PathBuf,
}

fn phoenix_program() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CRU_PHOENIX") {
        return Some(PathBuf::from(p));
    }
    let found = Command::new("phoenix")
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    found.then(|| PathBuf::from("phoenix"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Phoenix {
    /// Starts Phoenix on `port` with its data in `dir`, and waits (up to
    /// 5 minutes: a first start migrates its database, and the whole test
    /// suite may be running beside it) until it answers.
    fn start(program: &Path, port: u16, dir: &Path) -> Self {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("phoenix.log"))
            .unwrap();
        let child = Command::new(program)
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir)
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", free_port().to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            // Its log unbuffered: what it said is there when it fails to start.
            .env("PYTHONUNBUFFERED", "1")
            .env_remove("PHOENIX_COLLECTOR_ENDPOINT")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let p = Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log: dir.join("phoenix.log"),
        };
        let start = Instant::now();
        while p
            .graphql("{ projects { edges { node { name } } } }")
            .is_none()
        {
            let log = std::fs::read_to_string(dir.join("phoenix.log")).unwrap_or_default();
            assert!(
                start.elapsed() < Duration::from_secs(180),
                "Phoenix did not start:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        p
    }

    fn graphql(&self, query: &str) -> Option<Value> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(20)))
            .build()
            .into();
        let body = json!({ "query": query }).to_string();
        let mut response = agent
            .post(&format!("{}/graphql", self.url))
            .header("Content-Type", "application/json")
            .send(body.as_str())
            .ok()?;
        let text = response.body_mut().read_to_string().ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        Some(v["data"].clone())
    }

    /// Every session of the `default` project: session id → (traces, tokens,
    /// spans of each trace).
    fn sessions(&self) -> BTreeMap<String, (u64, f64, Vec<u64>)> {
        let data = self
            .graphql(
                "{ projects { edges { node { name sessions(first: 1000) { edges { node {
                   sessionId numTraces tokenUsage { total }
                   traces(first: 10) { edges { node { numSpans } } } } } } } } } }",
            )
            .unwrap();
        let mut out = BTreeMap::new();
        for p in data["projects"]["edges"].as_array().unwrap() {
            for s in p["node"]["sessions"]["edges"].as_array().unwrap() {
                let s = &s["node"];
                let spans = s["traces"]["edges"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["node"]["numSpans"].as_u64().unwrap())
                    .collect();
                out.insert(
                    s["sessionId"].as_str().unwrap().to_owned(),
                    (
                        s["numTraces"].as_u64().unwrap(),
                        s["tokenUsage"]["total"].as_f64().unwrap(),
                        spans,
                    ),
                );
            }
        }
        out
    }

    /// The sessions once Phoenix has stored `spans` spans in all (it takes
    /// spans in on a queue of its own), waiting up to 4 minutes.
    fn sessions_once(&self, spans: u64) -> BTreeMap<String, (u64, f64, Vec<u64>)> {
        let start = Instant::now();
        loop {
            let s = self.sessions();
            let stored: u64 = s.values().flat_map(|(_, _, t)| t).sum();
            if stored >= spans {
                return s;
            }
            if start.elapsed() > Duration::from_secs(240) {
                let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                panic!("Phoenix holds {stored} of {spans} spans:\n{s:?}\n{log}");
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Phoenix {
    /// SIGTERM first, so that Phoenix shuts its server and database down
    /// and a Phoenix started after it on the same port and directory finds
    /// both free; SIGKILL after 20 s.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn export(kiln: &TestKiln, url: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "session",
        "export",
        "--to",
        "otlp",
        "--endpoint",
        url,
        "--retries",
        "1",
    ];
    args.extend_from_slice(extra);
    kiln.run_cmd(
        kiln.command()
            .args(&args)
            .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL"),
    )
}

/// The shipped fixtures and the imported Claude Code fixtures.
fn kiln() -> TestKiln {
    let kiln = TestKiln::with_fixtures();
    let src = fixtures().join("real/claude-code");
    let out = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert!(out.code == 0 || out.code == 3, "{}", out.stderr);
    kiln
}

#[test]
fn phoenix_shows_each_session_with_its_spans_and_tokens() {
    let Some(program) = phoenix_program() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "Phoenix is not installed, and CI must run this test (pip install arize-phoenix)"
        );
        eprintln!(
            "warning: Phoenix (`phoenix`, or $CRU_PHOENIX) is not installed; the Phoenix test is skipped"
        );
        return;
    };
    let kiln = kiln();
    // What cru sends, trace by trace, seen first by a receiver of the test's own.
    let rx = Receiver::start();
    assert_eq!(export(&kiln, &rx.url, &["--all"]).code, 0);
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for s in rx.spans() {
        *expected
            .entry(attr_str(&s, "session.id").unwrap().to_owned())
            .or_default() += 1;
    }
    let total_spans: u64 = expected.values().sum();
    let work = tempfile::tempdir().unwrap();
    let port = free_port();
    let phoenix = Phoenix::start(&program, port, work.path());
    let out = export(&kiln, &phoenix.url, &["--since-last"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let seen = phoenix.sessions_once(total_spans);
    // One Phoenix session per cru session, each one trace of the spans cru sent.
    let got: BTreeMap<String, u64> = seen
        .iter()
        .map(|(k, (_, _, t))| (k.clone(), t.iter().sum()))
        .collect();
    assert_eq!(got, expected);
    assert!(seen.values().all(|(traces, _, _)| *traces == 1));
    // Tokens: Phoenix's prompt plus completion are cru's typed tokens.
    let stats = kiln.run(&["session", "stats", "--format", "json"]);
    let v: Value = serde_json::from_str(&stats.stdout).unwrap();
    let typed = v["total"]["tokens"].as_f64().unwrap() - v["total"]["untyped"].as_f64().unwrap();
    let phoenix_tokens: f64 = seen.values().map(|(_, t, _)| t).sum();
    assert!(typed > 0.0);
    assert!(
        (phoenix_tokens - typed).abs() < 0.5,
        "Phoenix {phoenix_tokens}, cru {typed}"
    );
    again_changes_nothing(&kiln, &phoenix, &seen, total_spans);
    drop(phoenix);
    a_stopped_phoenix_gets_what_it_missed(&kiln, &program, port, work.path());
}

/// `--all` sends everything again; Phoenix keys spans on their ids, so no
/// count moves. A new session sent after it is the marker that Phoenix
/// has taken in what came before.
fn again_changes_nothing(
    kiln: &TestKiln,
    phoenix: &Phoenix,
    before: &BTreeMap<String, (u64, f64, Vec<u64>)>,
    spans: u64,
) {
    let out = export(kiln, &phoenix.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    kiln.write(
        "marker.md",
        "---\ntype: session\nsession_id: marker\nstarted: 2026-01-01T10:00:00Z\nstatus: completed\n---\n\n## Mark @tester\n",
    );
    assert_eq!(export(kiln, &phoenix.url, &["marker"]).code, 0);
    let mut after = phoenix.sessions_once(spans + 2);
    assert_eq!(after.remove("marker").map(|m| m.2), Some(vec![2]));
    assert_eq!(&after, before);
}

fn a_stopped_phoenix_gets_what_it_missed(kiln: &TestKiln, program: &Path, port: u16, dir: &Path) {
    kiln.write(
        "late.md",
        "---\ntype: session\nsession_id: late\nstarted: 2026-01-02T10:00:00Z\nstatus: completed\n---\n\n## Late @tester\n",
    );
    let url = format!("http://127.0.0.1:{port}");
    let down = export(kiln, &url, &["--since-last"]);
    assert_eq!(down.code, 1, "{}", down.stderr);
    assert!(
        down.stderr.contains("1 session not sent"),
        "{}",
        down.stderr
    );
    assert!(down.stderr.contains(": late\n"), "{}", down.stderr);
    let phoenix = Phoenix::start(program, port, dir);
    let up = export(kiln, &url, &["--since-last"]);
    assert_eq!(up.code, 0, "{}", up.stderr);
    assert!(
        up.stderr.starts_with("exported 1 session "),
        "{}",
        up.stderr
    );
    let start = Instant::now();
    while !phoenix.sessions().contains_key("late") {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the late session never reached Phoenix"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}
