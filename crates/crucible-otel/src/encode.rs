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

/// The request that carries `spans` (the spans of one or more sessions)
/// under `resource`, in one scope named `cru`.
pub fn request(resource: &Resource, version: &str, spans: Vec<Span>) -> ExportTraceServiceRequest {
    let attributes = resource
        .attributes
        .iter()
        .map(|(k, v)| kv(k, Value::StringValue(v.clone())))
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
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
        }],
    }
}

/// The body of `request` in `protocol`, compressed with `compression`.
pub fn encode(
    request: &ExportTraceServiceRequest,
    protocol: Protocol,
    compression: Compression,
) -> Vec<u8> {
    let raw = match protocol {
        Protocol::Protobuf => request.encode_to_vec(),
        Protocol::Json => serde_json::to_vec(request)
            .expect("OTLP messages serialize to JSON: no map keys but strings"),
    };
    match compression {
        Compression::None => raw,
        Compression::Gzip => {
            let mut gz = GzEncoder::new(Vec::with_capacity(raw.len() / 4), Level::fast());
            gz.write_all(&raw).expect("writing to memory does not fail");
            gz.finish().expect("writing to memory does not fail")
        }
    }
}
