//! `cru mcp --http` with clients that come and go: the server checks its
//! directory once per `--poll`, whatever the number of clients, and
//! forgets a client once it is gone (review of issue 24, F20).

use std::io::{Read, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::kiln::TestKiln;

const PATIENCE: Duration = Duration::from_secs(60);

/// `cru mcp --http 127.0.0.1:0 --poll 1`, its debug log read line by line.
struct Server {
    child: Child,
    authority: String,
    log: Receiver<String>,
}

impl Server {
    fn start(kiln: &TestKiln) -> Self {
        let mut child = kiln
            .std_command()
            .args(["mcp", "--http", "127.0.0.1:0", "--poll", "1"])
            .env("CRU_LOG", "crucible_mcp=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = crate::mcp::line_channel(stderr);
        let deadline = Instant::now() + PATIENCE;
        let authority = loop {
            let line = log
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("cru mcp --http never said where it listens");
            if let Some(url) = line.split(" at http://").nth(1) {
                break url.split('/').next().unwrap().to_owned();
            }
        };
        Self {
            child,
            authority,
            log,
        }
    }

    /// One request: the status and the response's `Mcp-Session-Id`.
    fn send(&self, method: &str, body: &str, session: Option<&str>) -> (u16, Option<String>) {
        let mut stream = std::net::TcpStream::connect(&self.authority).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\nMCP-Protocol-Version: 2025-06-18\r\n",
            self.authority,
            body.len()
        );
        if let Some(id) = session {
            request.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        let status = response
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let id = response.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_owned())
        });
        (status, id)
    }

    /// A client that initializes, and the session id it was given.
    fn client(&self) -> String {
        let init = crate::mcp::initialize();
        let (status, id) = self.send("POST", &init.to_string(), None);
        assert_eq!(status, 200);
        let id = id.expect("a session id");
        let initialized = crate::mcp::initialized();
        let (status, _) = self.send("POST", &initialized.to_string(), Some(&id));
        assert_eq!(status, 202);
        id
    }

    /// The checks logged within `window`: how many clients each was for.
    fn checks(&self, window: Duration) -> Vec<usize> {
        let until = Instant::now() + window;
        let mut seen = Vec::new();
        loop {
            match self
                .log
                .recv_timeout(until.saturating_duration_since(Instant::now()))
            {
                Ok(line) if line.contains("checked the sessions") => {
                    let clients = line
                        .split("clients=")
                        .nth(1)
                        .and_then(|n| n.trim().parse().ok())
                        .unwrap_or(0);
                    seen.push(clients);
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return seen,
                Err(RecvTimeoutError::Disconnected) => panic!("cru mcp exited"),
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn one_watcher_serves_every_http_client_and_forgets_those_gone() {
    let kiln = TestKiln::with_fixtures();
    let server = Server::start(&kiln);
    let clients: Vec<String> = (0..12).map(|_| server.client()).collect();
    // Drain what was logged while they came.
    server.checks(Duration::from_millis(1100));
    let checks = server.checks(Duration::from_secs(3));
    // One check a second (and a little slack for a busy machine), not one
    // per client a second.
    assert!(
        !checks.is_empty() && checks.len() <= 5,
        "{} checks in 3 s: {checks:?}",
        checks.len()
    );
    assert!(checks.iter().all(|&n| n == 12), "{checks:?}");
    for id in &clients[..8] {
        let (status, _) = server.send("DELETE", "", Some(id));
        assert!(status == 200 || status == 202 || status == 204, "{status}");
    }
    // The clients that left are forgotten at the next check; once all
    // have, nothing is checked any more.
    let deadline = Instant::now() + PATIENCE;
    while !server.checks(Duration::from_millis(1100)).contains(&4) {
        assert!(Instant::now() < deadline, "the gone clients are still told");
    }
    for id in &clients[8..] {
        server.send("DELETE", "", Some(id));
    }
    let deadline = Instant::now() + PATIENCE;
    while !server.checks(Duration::from_millis(2500)).is_empty() {
        assert!(Instant::now() < deadline, "checks go on with no client");
    }
}
