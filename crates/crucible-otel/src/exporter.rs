//! Posting request bodies to an OTLP/HTTP endpoint: a blocking client
//! with a timeout per attempt, retries with exponential backoff on what
//! OTLP calls retryable (429, 502, 503, 504, and no answer at all),
//! honouring `Retry-After` (seconds, or an HTTP date when the caller gave
//! a clock).

use std::time::{Duration, SystemTime};

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
    /// The certificates (PEM) of the authorities HTTPS trusts, in place of
    /// the public ones built in (`OTEL_EXPORTER_OTLP_CERTIFICATE`): an
    /// engine behind a company's own CA.
    pub ca_pem: Option<Vec<u8>>,
}

/// The certificates in `pem`, checked before anything is sent; an error
/// says what is wrong with the file's text.
pub fn certificates(pem: &[u8]) -> Result<Vec<ureq::tls::Certificate<'static>>, String> {
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(pem) {
        match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => certs.push(c),
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    if certs.is_empty() {
        return Err("no `-----BEGIN CERTIFICATE-----` block in it".to_owned());
    }
    Ok(certs)
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
    /// The time now, to read a `Retry-After` date; without one, dates are
    /// ignored (the library reads no clock of its own).
    clock: Option<fn() -> SystemTime>,
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
        let mut config = ureq::Agent::config_builder()
            .timeout_global(Some(endpoint.timeout))
            .http_status_as_error(false);
        // Checked by the caller ([`certificates`]); a file that changed
        // since leaves the built-in roots, and the request says why it fails.
        if let Some(certs) = endpoint
            .ca_pem
            .as_deref()
            .and_then(|p| certificates(p).ok())
        {
            let roots = ureq::tls::RootCerts::Specific(std::sync::Arc::new(certs));
            config = config.tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build());
        }
        let agent = config.build().into();
        Self {
            endpoint,
            retry,
            agent,
            clock: None,
        }
    }

    /// Reads `Retry-After` dates against `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: fn() -> SystemTime) -> Self {
        self.clock = Some(clock);
        self
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
            .and_then(|v| retry_after(v, self.clock));
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
        let (rejected_spans, message) = match self.endpoint.protocol {
            Protocol::Protobuf => ExportTraceServiceResponse::decode(body)
                .ok()
                .and_then(|r| r.partial_success)
                .map(|p| (p.rejected_spans, p.error_message))
                .unwrap_or_default(),
            Protocol::Json => json_partial_success(body),
        };
        Delivery {
            attempts: 0,
            rejected_spans,
            message,
        }
    }
}

/// OTLP/JSON's partial success. The proto3 JSON mapping writes an int64 as
/// a decimal string (`"rejectedSpans": "3"`); some servers write a number.
/// Either is read; an answer that is no JSON object is no partial success.
fn json_partial_success(body: &[u8]) -> (i64, String) {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) else {
        return (0, String::new());
    };
    let p = &v["partialSuccess"];
    let rejected = match &p["rejectedSpans"] {
        serde_json::Value::Number(n) => n.as_i64().unwrap_or(0),
        serde_json::Value::String(s) => s.trim().parse().unwrap_or(0),
        _ => 0,
    };
    let message = p["errorMessage"].as_str().unwrap_or_default().to_owned();
    (rejected, message)
}

/// `Retry-After`: seconds, or an HTTP date (RFC 9110) measured from
/// `clock`'s now.
fn retry_after(value: &str, clock: Option<fn() -> SystemTime>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(clock?()).unwrap_or(Duration::ZERO))
}

/// An error body as shown in a message: its text on one line (an engine's
/// line breaks would start lines of their own in cru's output), cut short.
fn shown_body(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return "(empty body)".to_owned();
    }
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_partial_success_is_read_with_its_count_as_a_string_or_a_number() {
        let spec = br#"{"partialSuccess":{"rejectedSpans":"3","errorMessage":"too old"}}"#;
        assert_eq!(json_partial_success(spec), (3, "too old".to_owned()));
        let number = br#"{"partialSuccess":{"rejectedSpans":2}}"#;
        assert_eq!(json_partial_success(number), (2, String::new()));
        assert_eq!(json_partial_success(b"{}"), (0, String::new()));
        assert_eq!(json_partial_success(b"not json"), (0, String::new()));
    }

    #[test]
    fn retry_after_takes_seconds_and_dates() {
        fn now() -> SystemTime {
            httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap()
        }
        assert_eq!(retry_after(" 3 ", None), Some(Duration::from_secs(3)));
        let date = "Wed, 21 Oct 2015 07:28:07 GMT";
        assert_eq!(retry_after(date, Some(now)), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(date, None), None);
        let past = "Wed, 21 Oct 2015 07:27:00 GMT";
        assert_eq!(retry_after(past, Some(now)), Some(Duration::ZERO));
        assert_eq!(retry_after("soon", Some(now)), None);
    }

    #[test]
    fn a_pem_file_without_certificates_is_refused() {
        assert!(
            certificates(b"hello")
                .unwrap_err()
                .contains("BEGIN CERTIFICATE")
        );
    }

    #[test]
    fn an_error_body_is_shown_on_one_line() {
        assert_eq!(shown_body(b"red\r\nfake:  line\n"), "red fake: line");
        assert_eq!(shown_body(b" \n"), "(empty body)");
    }
}
