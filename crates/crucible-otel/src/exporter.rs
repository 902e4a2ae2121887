//! Posting request bodies to an OTLP/HTTP endpoint: a blocking client
//! with a timeout per attempt, retries with exponential backoff on what
//! OTLP calls retryable (429, 502, 503, 504, and no answer at all),
//! honouring `Retry-After`.

use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;

use crate::SendError;
use crate::encode::{Compression, Protocol};

/// Where and how to send.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The traces URL, `.../v1/traces`.
    pub url: String,
    /// Extra headers (authorization, tenant), sent on every request.
    pub headers: Vec<(String, String)>,
    pub protocol: Protocol,
    pub compression: Compression,
    /// How long one attempt may take, connecting and answering included.
    pub timeout: Duration,
}

/// How often and how patiently to try again.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The wait before the second attempt; it doubles for each next one.
    pub backoff: Duration,
    /// No wait is longer, whatever `Retry-After` asks.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 5,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(30),
        }
    }
}

/// Sends request bodies to one endpoint.
#[derive(Debug)]
pub struct Exporter {
    endpoint: Endpoint,
    retry: RetryPolicy,
    agent: ureq::Agent,
}

/// What an accepted request came back with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivery {
    pub attempts: u32,
    /// Spans the endpoint said it dropped (OTLP's partial success).
    pub rejected_spans: i64,
    pub message: String,
}

/// One attempt's failure, and whether it is worth another.
struct Failed {
    error: SendError,
    retry: bool,
    retry_after: Option<Duration>,
}

impl Exporter {
    pub fn new(endpoint: Endpoint, retry: RetryPolicy) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(endpoint.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Self {
            endpoint,
            retry,
            agent,
        }
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Posts `body` (encoded as the endpoint's protocol and compression
    /// say) until it is accepted or the attempts run out.
    pub fn send(&self, body: &[u8]) -> Result<Delivery, SendError> {
        let mut wait = self.retry.backoff;
        let mut attempt = 1;
        loop {
            match self.attempt(body, attempt) {
                Ok(mut d) => {
                    d.attempts = attempt;
                    return Ok(d);
                }
                Err(f) if !f.retry || attempt >= self.retry.attempts => return Err(f.error),
                Err(f) => {
                    let pause = f.retry_after.unwrap_or(wait).min(self.retry.max_wait);
                    std::thread::sleep(pause);
                    wait = wait.saturating_mul(2);
                    attempt += 1;
                }
            }
        }
    }

    fn attempt(&self, body: &[u8], attempts: u32) -> Result<Delivery, Failed> {
        let e = &self.endpoint;
        let mut req = self
            .agent
            .post(&e.url)
            .header("Content-Type", e.protocol.content_type());
        if e.compression == Compression::Gzip {
            req = req.header("Content-Encoding", "gzip");
        }
        for (k, v) in &e.headers {
            req = req.header(k, v);
        }
        let url = e.url.clone();
        let response = req
            .send(body)
            .map_err(|err| self.transport(err, attempts))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let bytes = response
            .into_body()
            .with_config()
            .limit(1 << 20)
            .read_to_vec()
            .map_err(|err| self.transport(err, attempts))?;
        if (200..300).contains(&status) {
            return Ok(self.delivery(&bytes));
        }
        Err(Failed {
            error: SendError::Status {
                url,
                status,
                body: shown_body(&bytes),
                attempts,
            },
            retry: matches!(status, 429 | 502 | 503 | 504),
            retry_after,
        })
    }

    fn transport(&self, err: ureq::Error, attempts: u32) -> Failed {
        let url = self.endpoint.url.clone();
        let error = match err {
            ureq::Error::Timeout(_) => SendError::Timeout {
                url,
                timeout_ms: self.endpoint.timeout.as_millis(),
                attempts,
            },
            other => SendError::Connect {
                url,
                message: other.to_string(),
                attempts,
            },
        };
        Failed {
            error,
            retry: true,
            retry_after: None,
        }
    }

    /// The partial success an accepting endpoint may report.
    fn delivery(&self, body: &[u8]) -> Delivery {
        let response = match self.endpoint.protocol {
            Protocol::Protobuf => ExportTraceServiceResponse::decode(body).ok(),
            Protocol::Json => serde_json::from_slice::<ExportTraceServiceResponse>(body).ok(),
        };
        let partial = response.and_then(|r| r.partial_success).unwrap_or_default();
        Delivery {
            attempts: 0,
            rejected_spans: partial.rejected_spans,
            message: partial.error_message,
        }
    }
}

/// An error body as shown in a message: its text, cut short.
fn shown_body(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".to_owned();
    }
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}
