//! A chat-completions endpoint on 127.0.0.1 that answers a fixed script:
//! real TCP, real HTTP/1.1, real JSON. It serves as many requests as the
//! script has answers, then stops.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// One answer of the script.
#[derive(Debug, Clone)]
pub enum Answer {
    /// 200 with this JSON body.
    Json(String),
    /// This status and body.
    Status(u16, String),
    /// Nothing for this long, then a 200 (too late for the client).
    Stall(Duration),
}

/// A request as the server saw it.
#[derive(Debug)]
pub struct Seen {
    pub request_line: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct StubServer {
    pub base_url: String,
    pub seen: mpsc::Receiver<Seen>,
    handle: Option<JoinHandle<()>>,
}

impl StubServer {
    pub fn start(script: Vec<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let (tx, seen) = mpsc::channel();
        let handle = std::thread::spawn(move || {
            for answer in script {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                stream
                    .set_read_timeout(Some(Duration::from_secs(10)))
                    .unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let mut headers = Vec::new();
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':') {
                        headers.push((k.trim().to_owned(), v.trim().to_owned()));
                    }
                }
                let len: usize = headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(0);
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                let _ = tx.send(Seen {
                    request_line: request_line.trim_end().to_owned(),
                    headers,
                    body: String::from_utf8_lossy(&body).into_owned(),
                });
                let (status, body) = match answer {
                    Answer::Json(b) => (200, b),
                    Answer::Status(s, b) => (s, b),
                    Answer::Stall(d) => {
                        std::thread::sleep(d);
                        (200, "{}".to_owned())
                    }
                };
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Self {
            base_url,
            seen,
            handle: Some(handle),
        }
    }
}

impl Drop for StubServer {
    fn drop(&mut self) {
        // The script is served by now, or the test failed before it was.
        if let Some(h) = self.handle.take()
            && h.is_finished()
        {
            let _ = h.join();
        }
    }
}
