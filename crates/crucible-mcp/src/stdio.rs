//! The stdio transport: one JSON-RPC message a line, read by cru itself so
//! that every line a client sends is answered.
//!
//! rmcp's own line transport drops, without a word, a line past its 16 MiB
//! limit, a line that is not JSON and JSON nested deeper than serde reads; a
//! client waiting on such a request would wait for ever. Here each of those
//! gets a JSON-RPC error, carrying the request's `id` whenever it can be read
//! (an oversized line's `id` is found by [`IdScanner`] as the line streams
//! past, without keeping the line). A notification (no `id`) that is not
//! understood gets no answer, as JSON-RPC asks.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, JsonRpcError, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::refusal;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{Mutex, Semaphore};

/// The longest line read as a message, as rmcp's own transport allows (and
/// the size of an event its HTTP client accepts).
pub const MAX_LINE: usize = 16 << 20;

/// A server transport over a reader and a writer, one message a line.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far (never past `max_line`).
    line: Vec<u8>,
    /// Set while the rest of an oversized line is skipped: its length so far
    /// and the scan for its `id`.
    skipping: Option<(usize, IdScanner)>,
    max_line: usize,
    write: Arc<Mutex<W>>,
    /// An error answer not yet handed to a writing task.
    unsent: Option<TxJsonRpcMessage<RoleServer>>,
    /// Error answers being written at once. A client that sends broken
    /// lines without reading the answers would otherwise make the server
    /// keep every answer in memory; with all permits taken, stdin is not
    /// read until one is written.
    writing: Arc<Semaphore>,
}

/// How many error answers may wait on a stalled client at once.
const ERRORS_IN_FLIGHT: usize = 64;

/// How long closing waits for error answers still being written.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What one read gave.
enum Read {
    /// A whole line is in `line`.
    Line,
    /// A line past the limit went by: its length and its `id`, if read.
    Oversized(usize, Option<RequestId>),
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
            skipping: None,
            max_line,
            write: Arc::new(Mutex::new(write)),
            unsent: None,
            writing: Arc::new(Semaphore::new(ERRORS_IN_FLIGHT)),
        }
    }

    /// Reads up to the end of a line. Cancel-safe, as `receive` must be (it
    /// is polled in a `select!`): bytes are taken from the buffer and kept
    /// (in `line` or the scanner) with no await in between, so a read
    /// dropped half-way resumes where it stopped.
    async fn read_line(&mut self) -> Read {
        loop {
            let available = match self.read.fill_buf().await {
                // The client's last message may lack its newline.
                Ok([]) if !self.line.is_empty() => return Read::Line,
                Ok([]) => {
                    return match self.skipping.take() {
                        Some((length, scanner)) => Read::Oversized(length, scanner.id()),
                        None => Read::End,
                    };
                }
                Ok(available) => available,
                Err(e) => {
                    tracing::error!("cannot read the client's messages: {e}");
                    return Read::End;
                }
            };
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let piece = &available[..take];
            let mut done = None;
            if let Some((length, scanner)) = &mut self.skipping {
                *length += take;
                scanner.feed(piece);
            } else if self.line.len() + take > self.max_line {
                let mut scanner = IdScanner::default();
                scanner.feed(&self.line);
                scanner.feed(piece);
                let length = self.line.len() + take;
                // Give the memory back: the next line is usually small.
                self.line = Vec::new();
                self.skipping = Some((length, scanner));
            } else {
                self.line.extend_from_slice(piece);
                if newline.is_some() {
                    done = Some(Read::Line);
                }
            }
            if newline.is_some()
                && let Some((length, scanner)) = self.skipping.take()
            {
                done = Some(Read::Oversized(length, scanner.id()));
            }
            self.read.consume(take);
            if let Some(done) = done {
                return done;
            }
        }
    }

    /// Keeps an error answer to be sent before the next line is read.
    fn answer_error(&mut self, id: Option<RequestId>, error: ErrorData) {
        tracing::warn!("answered a message with an error: {}", error.message);
        self.unsent = Some(JsonRpcMessage::Error(JsonRpcError::new(id, error)));
    }

    /// Hands the unsent error answer to a task of its own once fewer than
    /// [`ERRORS_IN_FLIGHT`] are being written (`receive` must not wait on
    /// the writer itself: cancelled half-way, it would leave half a line on
    /// stdout). Cancel-safe: the answer stays unsent until a permit is had.
    async fn send_unsent(&mut self)
    where
        W: Send + 'static,
    {
        if self.unsent.is_none() {
            return;
        }
        let Ok(permit) = self.writing.clone().acquire_owned().await else {
            return;
        };
        if let Some(message) = self.unsent.take() {
            let write = self.write.clone();
            tokio::spawn(async move {
                let _ = write_message(write, message).await;
                drop(permit);
            });
        }
    }
}

/// Writes one message and its newline, holding the writer so that two
/// messages never interleave.
async fn write_message<W: AsyncWrite + Unpin>(
    write: Arc<Mutex<W>>,
    message: TxJsonRpcMessage<RoleServer>,
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
        write_message(self.write.clone(), item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.send_unsent().await;
            match self.read_line().await {
                Read::End => return None,
                Read::Oversized(length, id) => {
                    let message = format!(
                        "the message is {length} bytes, over the {} MiB a line may hold; \
                         nothing in it was done: send its text in smaller parts",
                        self.max_line >> 20
                    );
                    self.answer_error(id, ErrorData::invalid_request(message, None));
                    continue;
                }
                Read::Line => {}
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                self.line = reuse(line);
                continue;
            }
            let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text);
            let refused = parsed
                .as_ref()
                .err()
                .and_then(|e| refusal::of_line(text, e));
            self.line = reuse(line);
            match (parsed, refused) {
                (Ok(message), _) => return Some(message),
                (Err(_), Some((id, error))) => self.answer_error(id, error),
                (Err(_), None) => {}
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

/// The line's buffer, emptied for the next line (its memory kept unless a
/// long line made it large).
fn reuse(mut line: Vec<u8>) -> Vec<u8> {
    line.clear();
    if line.capacity() > 1 << 20 {
        line.shrink_to(64 << 10);
    }
    line
}

/// Finds the `id` member of a JSON object fed to it in pieces, without
/// keeping the text: what an oversized or broken message is answered with.
/// Only the outermost object's members count; the first `id` wins.
#[derive(Debug, Default)]
pub struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The object member name being read (only its first bytes matter).
    key: Option<Vec<u8>>,
    /// The member name just read was `id`: its value follows the colon.
    id_key: bool,
    /// The `id`'s value as written, while it is read.
    value: Option<Vec<u8>>,
    value_in_string: bool,
    found: Option<Vec<u8>>,
    given_up: bool,
}

impl IdScanner {
    /// The longest `id` value read (a number or a string).
    const MAX_ID: usize = 1024;

    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() || self.given_up {
                return;
            }
            if self.value.is_some() {
                self.value_byte(b);
            } else if self.in_string {
                self.string_byte(b);
            } else {
                self.structure_byte(b);
            }
        }
    }

    /// The `id`, if one was read whole and is a number or a string.
    pub fn id(&self) -> Option<RequestId> {
        let raw = self.found.as_ref()?;
        serde_json::from_slice(raw).ok()
    }

    fn string_byte(&mut self, b: u8) {
        if self.escaped {
            self.escaped = false;
        } else if b == b'\\' {
            self.escaped = true;
        } else if b == b'"' {
            self.in_string = false;
            if let Some(key) = self.key.take() {
                self.id_key = key == b"id";
                return;
            }
        }
        if let Some(key) = &mut self.key
            && key.len() < 3
        {
            key.push(b);
        }
    }

    fn structure_byte(&mut self, b: u8) {
        match b {
            b'"' => {
                self.in_string = true;
                // A string where a member name may stand is read as one.
                self.key = (self.depth == 1).then(Vec::new);
            }
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b':' if self.depth == 1 && self.id_key => self.value = Some(Vec::new()),
            _ => {}
        }
        if !b.is_ascii_whitespace() && b != b'"' {
            self.id_key = false;
        }
    }

    fn value_byte(&mut self, b: u8) {
        let value = self.value.as_mut().expect("reading a value");
        if value.is_empty() && b.is_ascii_whitespace() {
            return;
        }
        let ends = !self.value_in_string && matches!(b, b',' | b'}' | b'\n');
        if ends {
            self.found = self.value.take();
            return;
        }
        if (matches!(b, b'{' | b'[') && !self.value_in_string) || value.len() >= Self::MAX_ID {
            self.given_up = true;
            return;
        }
        if self.value_in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.value_in_string = false;
            }
        } else if b == b'"' {
            self.value_in_string = true;
        }
        value.push(b);
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;

    use super::*;

    fn id_of(pieces: &[&str]) -> Option<RequestId> {
        let mut scanner = IdScanner::default();
        for piece in pieces {
            scanner.feed(piece.as_bytes());
        }
        scanner.id()
    }

    #[test]
    fn the_outer_id_is_found_wherever_it_stands() {
        let number = RequestId::Number(7);
        assert_eq!(
            id_of(&[r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#]),
            Some(number.clone())
        );
        // The TypeScript SDK writes the id last, after the params.
        assert_eq!(
            id_of(&[r#"{"method":"x","params":{"id":1,"s":"\"id\":2"},"id" : 7 }"#]),
            Some(number.clone())
        );
        assert_eq!(
            id_of(&[r#"{"id":"a,\"b}"#, r#"","x":1}"#]),
            Some(RequestId::String("a,\"b}".into()))
        );
        // Cut anywhere, the same.
        let text = r#"{"params":{"text":"{[\"id\":"},"id":42}"#;
        for cut in 0..text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(id_of(&[a, b]), Some(RequestId::Number(42)), "cut at {cut}");
        }
    }

    #[test]
    fn no_id_or_one_of_the_wrong_kind_is_none() {
        assert_eq!(id_of(&[r#"{"method":"notifications/x"}"#]), None);
        assert_eq!(id_of(&[r#"{"id":{"a":1},"method":"x"}"#]), None);
        assert_eq!(id_of(&[r#"{"id":null}"#]), None);
        assert_eq!(id_of(&[r#"{"idx":3,"params":{"id":4}}"#]), None);
        assert_eq!(id_of(&[r#"[{"id":3}]"#]), None);
        assert_eq!(id_of(&[r#"{"id":12"#]), None, "not read whole");
    }

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
}
