//! OTLP/HTTP request bodies: the spans of a batch of sessions in one
//! `ExportTraceServiceRequest`, as protobuf or JSON, gzipped or not.

use std::io::Write;

use flate2::Compression as Level;
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::resource::v1::Resource as OtlpResource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

use crate::attributes::kv;
use crate::mapping::Resource;

/// OTLP/HTTP's two encodings (`OTEL_EXPORTER_OTLP_PROTOCOL`'s
/// `http/protobuf` and `http/json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Protobuf,
    Json,
}

impl Protocol {
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Protobuf => "application/x-protobuf",
            Self::Json => "application/json",
        }
    }
}

/// Whether request bodies are compressed (`OTEL_EXPORTER_OTLP_COMPRESSION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
}

/// One session's part of a request body: its spans under `resource` and
/// a scope named `cru`, encoded in `protocol`. Parts are made apart (on
/// every core) and joined by [`body`] without decoding: a protobuf message
/// is the concatenation of its repeated fields' entries, so one
/// `ExportTraceServiceRequest` per session, concatenated, is the request
/// with all their `ResourceSpans`; for JSON, each part is one
/// `ResourceSpans` object and [`body`] writes the array around them.
pub fn session_part(
    resource: &Resource,
    version: &str,
    spans: Vec<Span>,
    protocol: Protocol,
) -> Vec<u8> {
    let attributes = resource
        .attributes
        .iter()
        .map(|(k, v)| kv(k, Value::StringValue(v.clone())))
        .collect();
    let resource_spans = ResourceSpans {
        resource: Some(OtlpResource {
            attributes,
            ..OtlpResource::default()
        }),
        scope_spans: vec![ScopeSpans {
            scope: Some(InstrumentationScope {
                name: "cru".to_owned(),
                version: version.to_owned(),
                ..InstrumentationScope::default()
            }),
            spans,
            schema_url: String::new(),
        }],
        schema_url: String::new(),
    };
    match protocol {
        Protocol::Protobuf => ExportTraceServiceRequest {
            resource_spans: vec![resource_spans],
        }
        .encode_to_vec(),
        Protocol::Json => serde_json::to_vec(&resource_spans)
            .expect("OTLP messages serialize to JSON: no map keys but strings"),
    }
}

/// The request body of the sessions whose [`session_part`]s are `parts`,
/// compressed with `compression`.
pub fn body(parts: &[&[u8]], protocol: Protocol, compression: Compression) -> Vec<u8> {
    let len: usize = parts.iter().map(|p| p.len() + 1).sum::<usize>() + 20;
    let mut raw = Vec::with_capacity(len);
    match protocol {
        Protocol::Protobuf => {
            for p in parts {
                raw.extend_from_slice(p);
            }
        }
        Protocol::Json => {
            raw.extend_from_slice(b"{\"resourceSpans\":[");
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    raw.push(b',');
                }
                raw.extend_from_slice(p);
            }
            raw.extend_from_slice(b"]}");
        }
    }
    match compression {
        Compression::None => raw,
        Compression::Gzip => {
            let mut gz = GzEncoder::new(Vec::with_capacity(raw.len() / 4), Level::fast());
            gz.write_all(&raw).expect("writing to memory does not fail");
            gz.finish().expect("writing to memory does not fail")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    fn span(name: &str) -> Span {
        Span {
            trace_id: vec![1; 16],
            span_id: vec![2; 8],
            name: name.to_owned(),
            ..Span::default()
        }
    }

    #[test]
    fn joined_parts_are_one_request_in_either_encoding() {
        let r = Resource {
            attributes: vec![("service.name".to_owned(), "cru".to_owned())],
        };
        for protocol in [Protocol::Protobuf, Protocol::Json] {
            let a = session_part(&r, "1", vec![span("a")], protocol);
            let b = session_part(&r, "1", vec![span("b"), span("c")], protocol);
            let raw = body(&[&a, &b], protocol, Compression::None);
            let req: ExportTraceServiceRequest = match protocol {
                Protocol::Protobuf => ExportTraceServiceRequest::decode(&raw[..]).unwrap(),
                Protocol::Json => serde_json::from_slice(&raw).unwrap(),
            };
            let names: Vec<&str> = req
                .resource_spans
                .iter()
                .flat_map(|r| &r.scope_spans)
                .flat_map(|s| &s.spans)
                .map(|s| s.name.as_str())
                .collect();
            assert_eq!(names, ["a", "b", "c"], "{protocol:?}");
        }
    }
}
