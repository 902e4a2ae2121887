//! The stdio transport: one JSON-RPC message a line, read by cru itself so
//! that every line a client sends is answered.
//!
//! rmcp's own line transport drops, without a word, a line past its 16 MiB
//! limit, a line that is not JSON and JSON nested deeper than serde reads; a
//! client waiting on such a request would wait for ever. Here each line is
//! scanned as it is read ([`LineScan`]: its `id`, depth and size) and judged
//! ([`refusal`]) before the SDK sees it: what the server cannot take gets a
//! JSON-RPC error carrying the request's `id` whenever it can be read, and
//! a notification that is not understood gets no answer, as JSON-RPC asks.

use std::collections::VecDeque;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::json;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{Mutex, Semaphore};

use crate::refusal::{self, Judged};
use crate::scan::LineScan;

/// The longest message read, line end apart: rmcp's own transport's limit
/// (and the size of an event its HTTP client accepts).
pub const MAX_LINE: usize = 16 << 20;

/// How many error answers may wait on a stalled client at once.
const ERRORS_IN_FLIGHT: usize = 64;

/// How long closing waits for error answers still being written.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// A server transport over a reader and a writer, one message a line.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far (never much past `max_line`).
    line: Vec<u8>,
    /// The line read so far, scanned.
    scan: LineScan,
    /// Set while the rest of an oversized line is skipped: its length so far.
    skipping: Option<usize>,
    max_line: usize,
    write: Arc<Mutex<W>>,
    /// Messages read but not yet given to the SDK (a batch's members).
    ready: VecDeque<RxJsonRpcMessage<RoleServer>>,
    /// Error answers not yet handed to a writing task.
    unsent: VecDeque<(Option<RequestId>, ErrorData)>,
    /// Error answers being written at once. A client that sends broken
    /// lines without reading the answers would otherwise make the server
    /// keep every answer in memory; with all permits taken, stdin is not
    /// read until one is written.
    writing: Arc<Semaphore>,
    /// A request has gone to the SDK: until then it takes only requests
    /// (a notification or a response ends its wait for `initialize`).
    started: bool,
}

/// What one read gave.
enum Read {
    /// A whole line is in `line`.
    Line,
    /// A line past the limit went by: its length.
    Oversized(usize),
    /// The client closed its end, or reading failed.
    End,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> From<(R, W)> for LineTransport<R, W> {
    fn from((read, write): (R, W)) -> Self {
        Self::with_max_line(read, write, MAX_LINE)
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    pub fn with_max_line(read: R, write: W, max_line: usize) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            scan: LineScan::default(),
            skipping: None,
            max_line,
            write: Arc::new(Mutex::new(write)),
            ready: VecDeque::new(),
            unsent: VecDeque::new(),
            writing: Arc::new(Semaphore::new(ERRORS_IN_FLIGHT)),
            started: false,
        }
    }

    /// Reads up to the end of a line. Cancel-safe, as `receive` must be (it
    /// is polled in a `select!`): bytes are taken from the buffer and kept
    /// (in `line` and the scan) with no await in between, so a read dropped
    /// half-way resumes where it stopped.
    async fn read_line(&mut self) -> Read {
        // Room for the line's end (`\r\n`), which the limit does not count.
        let room = self.max_line + 2;
        loop {
            let available = match self.read.fill_buf().await {
                // The client's last message may lack its newline.
                Ok([]) if !self.line.is_empty() => return Read::Line,
                Ok([]) => return self.skipping.take().map_or(Read::End, Read::Oversized),
                Ok(available) => available,
                Err(e) => {
                    tracing::error!("cannot read the client's messages: {e}");
                    return Read::End;
                }
            };
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let piece = &available[..take];
            self.scan.feed(piece);
            if let Some(length) = &mut self.skipping {
                *length += take;
            } else if self.line.len() + take > room {
                self.skipping = Some(self.line.len() + take);
                // Give the memory back: the next line is usually small.
                self.line = Vec::new();
            } else {
                self.line.extend_from_slice(piece);
            }
            self.read.consume(take);
            if newline.is_some() {
                return self.skipping.take().map_or(Read::Line, Read::Oversized);
            }
        }
    }

    /// Hands unsent error answers to tasks of their own while fewer than
    /// [`ERRORS_IN_FLIGHT`] are being written (`receive` must not wait on
    /// the writer itself: cancelled half-way, it would leave half a line on
    /// stdout). Cancel-safe: an answer stays unsent until a permit is had.
    async fn send_unsent(&mut self)
    where
        W: Send + 'static,
    {
        while !self.unsent.is_empty() {
            let Ok(permit) = self.writing.clone().acquire_owned().await else {
                return;
            };
            if let Some((id, error)) = self.unsent.pop_front() {
                let write = self.write.clone();
                tokio::spawn(async move {
                    let _ = write_line(write, error_answer(id.as_ref(), &error)).await;
                    drop(permit);
                });
            }
        }
    }

    /// What the line just read holds, judged; the line's buffer kept.
    fn judge_line(&mut self, oversized: Option<usize>) -> Vec<Judged> {
        let scan = std::mem::take(&mut self.scan);
        let line = std::mem::take(&mut self.line);
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        let length = oversized.unwrap_or(text.len());
        let judged = if length > self.max_line {
            vec![refusal::oversized(&scan, length, self.max_line)]
        } else if text.iter().all(u8::is_ascii_whitespace) {
            Vec::new()
        } else {
            refusal::judge(text, &scan)
        };
        self.line = reuse(line);
        judged
    }
}

/// An error answer as JSON-RPC 2.0 writes it: `"id": null` when the
/// request's id could not be read (the official Python SDK refuses an
/// error without an `id` at all).
fn error_answer(id: Option<&RequestId>, error: &ErrorData) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// Writes one message and its newline, holding the writer so that two
/// messages never interleave.
async fn write_line<W: AsyncWrite + Unpin>(
    write: Arc<Mutex<W>>,
    message: impl serde::Serialize,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(&message).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&bytes).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        write_line(self.write.clone(), item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.send_unsent().await;
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            let judged = match self.read_line().await {
                Read::End => return None,
                Read::Oversized(length) => self.judge_line(Some(length)),
                Read::Line => self.judge_line(None),
            };
            let mut refused = false;
            for judged in judged {
                match judged {
                    Judged::Message(message) if self.takes(&message) => {
                        self.ready.push_back(*message);
                    }
                    Judged::Message(_) | Judged::Ignored => {}
                    Judged::Refused(id, error) => {
                        tracing::debug!("answered a message with an error: {}", error.message);
                        self.unsent.push_back((id, error));
                        refused = true;
                    }
                }
            }
            if refused {
                // A flood of broken lines must not keep the calls already
                // read from being answered.
                tokio::task::yield_now().await;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Error answers still being written go out first, unless the client
        // has stopped reading them (then nothing more can reach it).
        let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
        let all = u32::try_from(ERRORS_IN_FLIGHT).unwrap_or(u32::MAX);
        let written = tokio::time::timeout_at(deadline, self.writing.acquire_many(all)).await;
        drop(written);
        let shut = async { self.write.lock().await.shutdown().await };
        tokio::time::timeout_at(deadline, shut)
            .await
            .unwrap_or(Ok(()))
    }
}

impl<R, W> LineTransport<R, W> {
    /// Whether the SDK is given `message`: until a request has gone to it,
    /// a notification or a response would end its wait for `initialize`
    /// (and the server with it), so they are set aside.
    fn takes(&mut self, message: &RxJsonRpcMessage<RoleServer>) -> bool {
        if self.started {
            return true;
        }
        if let JsonRpcMessage::Request(request) = message {
            // A ping before `initialize` is answered, and the SDK waits on.
            self.started |= request.request.method() != "ping";
            true
        } else {
            tracing::debug!("set aside a message sent before `initialize`");
            false
        }
    }
}

/// The line's buffer, emptied for the next line (its memory kept unless a
/// long line made it large).
fn reuse(mut line: Vec<u8>) -> Vec<u8> {
    line.clear();
    if line.capacity() > 1 << 20 {
        line.shrink_to(64 << 10);
    }
    line
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;

    use super::*;

    /// Drives `receive` until the input ends, counting the messages it gives.
    fn receiving<R, W>(mut t: LineTransport<R, W>) -> tokio::task::JoinHandle<usize>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        tokio::spawn(async move {
            let mut n = 0;
            while t.receive().await.is_some() {
                n += 1;
            }
            t.close().await.unwrap();
            n
        })
    }

    async fn answers(from: impl AsyncRead + Unpin) -> Vec<serde_json::Value> {
        let mut lines = BufReader::new(from).lines();
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            out.push(serde_json::from_str(&line).unwrap());
        }
        out
    }

    #[tokio::test]
    async fn an_oversized_line_is_answered_and_the_next_one_read() {
        let (mut client, input) = tokio::io::duplex(1 << 16);
        let (output, replies) = tokio::io::duplex(1 << 16);
        let server = receiving(LineTransport::with_max_line(input, output, 64));
        let long = format!(
            r#"{{"method":"ping","params":{{"x":"{}"}},"id":"z"}}"#,
            "y".repeat(200)
        );
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        // The last line without its newline is read all the same.
        let text = format!("{long}\r\n{ping}");
        client.write_all(text.as_bytes()).await.unwrap();
        drop(client);
        assert_eq!(server.await.unwrap(), 1, "the ping");
        let answers = answers(replies).await;
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["id"], "z");
        assert!(
            answers[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("bytes, over")
        );
    }

    #[tokio::test]
    async fn a_client_that_reads_no_answer_stops_being_read() {
        let (mut client, input) = tokio::io::duplex(1 << 12);
        let (output, mut replies) = tokio::io::duplex(1 << 10);
        let server = receiving(LineTransport::from((input, output)));
        let sending = tokio::spawn(async move {
            for i in 0..2_000 {
                let line = format!("{{\"id\":{i}, not json}}\n");
                client.write_all(line.as_bytes()).await.unwrap();
            }
        });
        // With nobody reading the answers, the server stops reading lines:
        // the client's writes block instead of answers piling up in memory.
        let stalled = tokio::time::timeout(std::time::Duration::from_millis(300), sending).await;
        let Err(_) = stalled else {
            panic!("every line was read with no answer read");
        };
        let mut got = Vec::new();
        replies.read_to_end(&mut got).await.unwrap();
        assert_eq!(server.await.unwrap(), 0);
        let ids: Vec<i64> = got
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                serde_json::from_slice::<serde_json::Value>(l).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        assert_eq!(ids.len(), 2_000);
    }

    #[tokio::test]
    async fn the_limit_counts_the_message_not_its_line_end() {
        let (mut client, input) = tokio::io::duplex(1 << 16);
        let (output, replies) = tokio::io::duplex(1 << 16);
        let server = receiving(LineTransport::with_max_line(input, output, 64));
        let at_limit = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":"{}"}}}}"#,
            "x".repeat(6)
        );
        assert_eq!(at_limit.len(), 64);
        let over = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"a":"{}"}}}}"#,
            "x".repeat(7)
        );
        let text = format!("{at_limit}\r\n{over}\n");
        client.write_all(text.as_bytes()).await.unwrap();
        drop(client);
        assert_eq!(server.await.unwrap(), 1, "the message of 64 bytes");
        let answers = answers(replies).await;
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["id"], 2);
    }
}
