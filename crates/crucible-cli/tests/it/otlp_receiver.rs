//! A minimal OTLP/HTTP receiver for the export tests: std's TcpListener,
//! HTTP/1.1 one request per connection, bodies gunzipped and decoded with
//! the OpenTelemetry project's own types (prost for protobuf, serde for
//! JSON). Each request is answered as the test scripted: a status (with
//! `Retry-After`), or no answer at all (a hung engine).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// How the receiver answers one request.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    Status(u16, Option<u64>),
    /// A status with a JSON body (an OTLP/JSON partial success).
    Json(u16, &'static str),
    /// Reads the request and never answers (the connection stays open).
    Hang,
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request target: path and query.
    pub path: String,
    pub content_type: String,
    pub content_encoding: Option<String>,
    pub headers: Vec<(String, String)>,
    /// The body, gunzipped.
    pub body: Vec<u8>,
    pub request: ExportTraceServiceRequest,
}

impl Received {
    /// Every span of the request, in order.
    pub fn spans(&self) -> Vec<Span> {
        self.request
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| s.spans.clone())
            .collect()
    }
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    /// Bodies larger than this (gunzipped) get a 413, as the OpenTelemetry
    /// Collector's `max_request_body_size` gives them.
    refuse_over: Option<usize>,
    received: Vec<Received>,
    hung: Vec<TcpStream>,
}

pub struct Receiver {
    pub url: String,
    state: Arc<Mutex<State>>,
}

impl Receiver {
    /// A receiver on a free port of 127.0.0.1 that answers 200 to anything
    /// not scripted; it runs until the test process ends.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        Self::on(listener)
    }

    /// A receiver on `listener` (one bound earlier, for a port known before).
    pub fn on(listener: TcpListener) -> Self {
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                serve(stream, &shared);
            }
        });
        Self { url, state }
    }

    /// The next requests are answered so, in order.
    pub fn script(&self, replies: &[Reply]) {
        self.state.lock().unwrap().script.extend(replies);
    }

    /// Requests whose body is larger than `bytes` are answered 413.
    pub fn refuse_over(&self, bytes: usize) {
        self.state.lock().unwrap().refuse_over = Some(bytes);
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// Every span of every request received, in order.
    pub fn spans(&self) -> Vec<Span> {
        self.received()
            .into_iter()
            .flat_map(|r| r.request.resource_spans)
            .flat_map(|r| r.scope_spans)
            .flat_map(|s| s.spans)
            .collect()
    }
}

/// Headers, names in lower case.
type Headers = Vec<(String, String)>;

/// The request line's target, the headers and the body as sent; `None`
/// for a connection closed without a request.
fn read_request(stream: &TcpStream) -> Option<(String, Headers, Vec<u8>)> {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut headers = Vec::new();
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return None;
    }
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let len: usize = header(&headers, "content-length").map_or(0, |v| v.parse().unwrap());
    let mut raw = vec![0; len];
    reader.read_exact(&mut raw).unwrap();
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    Some((path, headers, raw))
}

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn serve(mut stream: TcpStream, state: &Mutex<State>) {
    let Some((path, headers, raw)) = read_request(&stream) else {
        return;
    };
    let content_encoding = header(&headers, "content-encoding");
    let body = if content_encoding.as_deref() == Some("gzip") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        raw
    };
    let content_type = header(&headers, "content-type").unwrap_or_default();
    let too_large = {
        let s = state.lock().unwrap();
        s.refuse_over.is_some_and(|limit| body.len() > limit)
    };
    if too_large {
        answer(&mut stream, 413, "", "");
        return;
    }
    let request = if content_type == "application/x-protobuf" {
        ExportTraceServiceRequest::decode(&body[..]).expect("a protobuf ExportTraceServiceRequest")
    } else {
        serde_json::from_slice(&body).expect("an OTLP/JSON ExportTraceServiceRequest")
    };
    let mut s = state.lock().unwrap();
    s.received.push(Received {
        path,
        content_type,
        content_encoding,
        headers,
        body,
        request,
    });
    let reply = s.script.pop_front().unwrap_or(Reply::Status(200, None));
    match reply {
        Reply::Hang => s.hung.push(stream),
        Reply::Json(status, body) => {
            drop(s);
            answer(
                &mut stream,
                status,
                "Content-Type: application/json\r\n",
                body,
            );
        }
        Reply::Status(status, retry_after) => {
            drop(s);
            let extra = retry_after
                .map(|r| format!("Retry-After: {r}\r\n"))
                .unwrap_or_default();
            answer(&mut stream, status, &extra, "");
        }
    }
}

/// An HTTP answer with `extra` headers (each ending in CRLF) and `body`.
fn answer(stream: &mut TcpStream, status: u16, extra: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}
