//! cru sessions as OpenTelemetry traces, sent over OTLP/HTTP.
//!
//! [`session_trace`] maps one session to the spans of one trace, cut into
//! the parts that settle apart (the mapping is written down in
//! `docs/otel.md`): a root `invoke_agent` span, a span per phase, `execute_tool` and `chat` spans under their phase,
//! callouts as span events, subagent sessions joined by span links. Ids are
//! derived from the session and phase ids ([`ids`]), so sending a session
//! twice gives an engine that keys on ids the same spans.
//!
//! [`session_part`] encodes one session's spans (protobuf or JSON) and
//! [`body`] joins the parts of a batch into one OTLP request body (gzip); [`Exporter`] posts it with retries and a
//! timeout; [`SentRecord`] remembers which settled parts of a trace
//! reached which endpoint, so that a later run sends only what settled
//! since, changed, or was not sent ([`SentRecord::plan`]); an open phase
//! or a running session's root is never sent. [`cut_long_values`] keeps
//! attribute values under an engine's limits.
//!
//! The library reads neither the environment nor the clock: the CLI passes
//! the endpoint, headers and resource attributes in.

mod attributes;
mod encode;
mod error;
mod exporter;
pub mod ids;
mod mapping;
mod sent;
mod span;
mod times;
mod value_limit;

pub use encode::{
    Compression, EncodedSpans, Part, Protocol, body, encode_spans, session_part,
    session_part_encoded,
};
pub use error::{SendError, SentRecordError};
pub use exporter::{Delivery, Endpoint, Exporter, RetryPolicy, certificates};
pub use mapping::{PhaseSpans, Resource, Trace, session_trace};
pub use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
pub use sent::{PartHashes, Plan, Sent, SentParts, SentRecord};
pub use span::{Attribute, Event, Link, Span, Value};
pub use value_limit::cut_long_values;
