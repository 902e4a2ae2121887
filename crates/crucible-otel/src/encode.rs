//! OTLP/HTTP request bodies: the spans of a batch of sessions in one
//! `ExportTraceServiceRequest`, as protobuf or JSON, gzipped or not.

use std::io::Write;

use flate2::Compression as Level;
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource as OtlpResource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};
use prost::Message;

use crate::mapping::Resource;
use crate::span::Span;

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

/// One session's part of a request body, in pieces that are written one
/// after another (the wrappers, then each group of spans as it was
/// encoded): joined only by the compressor, never copied into one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Part {
    pieces: Vec<Vec<u8>>,
}

impl Part {
    /// Its bytes, uncompressed.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(Vec::is_empty)
    }

    /// Its bytes in one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        self.pieces.concat()
    }
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
    spans: &[Span],
    protocol: Protocol,
) -> Part {
    let (resource, scope) = wrappers(resource, version);
    match protocol {
        Protocol::Protobuf => request_part(&resource, &scope, vec![encode_spans(spans)]),
        Protocol::Json => Part {
            pieces: vec![json_resource_spans(resource, scope, spans)],
        },
    }
}

fn json_resource_spans(
    resource: OtlpResource,
    scope: InstrumentationScope,
    spans: &[Span],
) -> Vec<u8> {
    serde_json::to_vec(&ResourceSpans {
        resource: Some(resource),
        scope_spans: vec![ScopeSpans {
            scope: Some(scope),
            spans: spans.iter().map(Span::to_proto).collect(),
            schema_url: String::new(),
        }],
        schema_url: String::new(),
    })
    .expect("OTLP messages serialize to JSON: no map keys but strings")
}

/// A protobuf [`session_part`] of spans already encoded by
/// [`encode_spans`] (in groups, each encoded once: hashed for the
/// sent-record, then sent as they are).
pub fn session_part_encoded(resource: &Resource, version: &str, groups: Vec<EncodedSpans>) -> Part {
    let (resource, scope) = wrappers(resource, version);
    request_part(&resource, &scope, groups)
}

fn wrappers(resource: &Resource, version: &str) -> (OtlpResource, InstrumentationScope) {
    let attributes = resource
        .attributes
        .iter()
        .map(|(k, v)| KeyValue {
            key: k.clone(),
            value: Some(AnyValue {
                value: Some(Value::StringValue(v.clone())),
            }),
            ..KeyValue::default()
        })
        .collect();
    let resource = OtlpResource {
        attributes,
        ..OtlpResource::default()
    };
    let scope = InstrumentationScope {
        name: "cru".to_owned(),
        version: version.to_owned(),
        ..InstrumentationScope::default()
    };
    (resource, scope)
}

/// Spans in protobuf as the entries of `ScopeSpans.spans` (field 2, each
/// length-delimited), each sized once: prost sizes a nested message again
/// at every level it is nested in (four times for a span's attributes in a
/// request), which was a third of encoding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncodedSpans {
    pub bytes: Vec<u8>,
    pub count: usize,
}

pub fn encode_spans(spans: &[Span]) -> EncodedSpans {
    use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};
    let lens: Vec<usize> = spans.iter().map(Span::encoded_len).collect();
    let total: usize = lens
        .iter()
        .map(|&l| key_len(2) + encoded_len_varint(l as u64) + l)
        .sum();
    let mut bytes = Vec::with_capacity(total);
    for (span, &len) in spans.iter().zip(&lens) {
        encode_key(2, WireType::LengthDelimited, &mut bytes);
        encode_varint(len as u64, &mut bytes);
        span.encode_raw(&mut bytes);
    }
    EncodedSpans {
        bytes,
        count: spans.len(),
    }
}

/// `ExportTraceServiceRequest { resource_spans: [ResourceSpans { resource,
/// scope_spans: [ScopeSpans { scope, spans }] }] }` in protobuf around
/// spans already encoded, the same bytes prost writes for it. The two
/// wrappers' field numbers are those of `opentelemetry-proto`'s
/// `trace.proto` and `trace_service.proto`; the test below compares what
/// this writes with prost's own encoding.
fn request_part(
    resource: &OtlpResource,
    scope: &InstrumentationScope,
    groups: Vec<EncodedSpans>,
) -> Part {
    use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};
    let spans_len: usize = groups.iter().map(|g| g.bytes.len()).sum();
    let scope_len = scope.encoded_len();
    // ScopeSpans: scope = 1, spans = 2.
    let scope_spans_len = key_len(1) + encoded_len_varint(scope_len as u64) + scope_len + spans_len;
    let resource_len = resource.encoded_len();
    // ResourceSpans: resource = 1, scope_spans = 2.
    let resource_spans_len = key_len(1)
        + encoded_len_varint(resource_len as u64)
        + resource_len
        + key_len(2)
        + encoded_len_varint(scope_spans_len as u64)
        + scope_spans_len;
    let mut buf = Vec::with_capacity(resource_len + scope_len + 32);
    // ExportTraceServiceRequest: resource_spans = 1.
    encode_key(1, WireType::LengthDelimited, &mut buf);
    encode_varint(resource_spans_len as u64, &mut buf);
    encode_key(1, WireType::LengthDelimited, &mut buf);
    encode_varint(resource_len as u64, &mut buf);
    resource.encode_raw(&mut buf);
    encode_key(2, WireType::LengthDelimited, &mut buf);
    encode_varint(scope_spans_len as u64, &mut buf);
    encode_key(1, WireType::LengthDelimited, &mut buf);
    encode_varint(scope_len as u64, &mut buf);
    scope.encode_raw(&mut buf);
    let mut pieces = Vec::with_capacity(groups.len() + 1);
    pieces.push(buf);
    pieces.extend(groups.into_iter().map(|g| g.bytes));
    Part { pieces }
}

/// The request body of the sessions whose [`session_part`]s are `parts`,
/// compressed with `compression`: the pieces go straight into the
/// compressor (or the buffer), one copy in all.
pub fn body(parts: &[&Part], protocol: Protocol, compression: Compression) -> Vec<u8> {
    let len: usize = parts.iter().map(|p| p.len() + 1).sum::<usize>() + 20;
    match compression {
        Compression::None => {
            let mut raw = Vec::with_capacity(len);
            write_body(&mut raw, parts, protocol).expect("writing to memory does not fail");
            raw
        }
        Compression::Gzip => {
            let mut gz = GzEncoder::new(Vec::with_capacity(len / 4), Level::fast());
            write_body(&mut gz, parts, protocol).expect("writing to memory does not fail");
            gz.finish().expect("writing to memory does not fail")
        }
    }
}

fn write_body(out: &mut impl Write, parts: &[&Part], protocol: Protocol) -> std::io::Result<()> {
    match protocol {
        Protocol::Protobuf => {
            for p in parts {
                for piece in &p.pieces {
                    out.write_all(piece)?;
                }
            }
        }
        Protocol::Json => {
            out.write_all(b"{\"resourceSpans\":[")?;
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                for piece in &p.pieces {
                    out.write_all(piece)?;
                }
            }
            out.write_all(b"]}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;

    fn span(name: &str) -> Span {
        Span {
            trace_id: [1; 16],
            span_id: [2; 8],
            name: name.to_owned(),
            ..Span::default()
        }
    }

    /// The wrappers written by hand are the bytes prost writes.
    #[test]
    fn a_part_is_what_prost_writes_for_the_request() {
        let r = Resource {
            attributes: vec![("service.name".to_owned(), "cru".to_owned())],
        };
        let spans = spans_again();
        let part = session_part(&r, "1.2", &spans, Protocol::Protobuf);
        let expected = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(OtlpResource {
                    attributes: vec![KeyValue {
                        key: "service.name".to_owned(),
                        value: Some(AnyValue {
                            value: Some(Value::StringValue("cru".to_owned())),
                        }),
                        ..KeyValue::default()
                    }],
                    ..OtlpResource::default()
                }),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "cru".to_owned(),
                        version: "1.2".to_owned(),
                        ..InstrumentationScope::default()
                    }),
                    spans: spans.iter().map(Span::to_proto).collect(),
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        };
        assert_eq!(part.to_vec(), expected.encode_to_vec());
        // The same spans encoded in groups: the same bytes.
        let r2 = Resource {
            attributes: vec![("service.name".to_owned(), "cru".to_owned())],
        };
        let grouped = session_part_encoded(
            &r2,
            "1.2",
            vec![
                encode_spans(&spans_again()[..1]),
                encode_spans(&spans_again()[1..]),
            ],
        );
        assert_eq!(grouped.to_vec(), expected.encode_to_vec());
        // Gzipped, the body is the same bytes.
        let gz = body(&[&grouped, &part], Protocol::Protobuf, Compression::Gzip);
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut raw).unwrap();
        assert_eq!(
            raw,
            body(&[&grouped, &part], Protocol::Protobuf, Compression::None)
        );
    }

    fn spans_again() -> Vec<Span> {
        let mut big = span("big");
        big.attributes = (0..300)
            .map(|i| crate::span::Attribute {
                key: format!("k{i}").into(),
                value: crate::span::Value::Str("v".repeat(i)),
            })
            .collect();
        vec![span("a"), big, span("")]
    }

    #[test]
    fn joined_parts_are_one_request_in_either_encoding() {
        let r = Resource {
            attributes: vec![("service.name".to_owned(), "cru".to_owned())],
        };
        for protocol in [Protocol::Protobuf, Protocol::Json] {
            let a = session_part(&r, "1", &[span("a")], protocol);
            let b = session_part(&r, "1", &[span("b"), span("c")], protocol);
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
