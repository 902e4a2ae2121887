//! The spans the mapping makes, in types of cru's own, and their protobuf
//! encoding.
//!
//! prost's `opentelemetry-proto` types own a `String` for every attribute
//! key and wrap every value twice (`KeyValue`, `AnyValue`): allocating,
//! copying and freeing those was about a fifth of an export's CPU. Here a
//! key is a constant (a `&'static str`, owned only when made at run time)
//! and a span is encoded straight to the bytes prost writes for the
//! matching message; [`Span::to_proto`] gives that message, for OTLP/JSON
//! and for the test that holds the two encodings equal.

use std::borrow::Cow;
use std::sync::Arc;

use opentelemetry_proto::tonic::common::v1 as proto_common;
use opentelemetry_proto::tonic::trace::v1 as proto;
use prost::Message as _;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};

pub use opentelemetry_proto::tonic::trace::v1::Status;

/// An attribute's name: mostly one of the conventions' constants.
pub type Key = Cow<'static, str>;

/// An attribute's value, of the kinds the mapping writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    /// A text every span of a session carries (its id): shared, not copied.
    Shared(Arc<str>),
    Int(i64),
    Double(f64),
}

impl Value {
    /// The text of a text value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            Value::Shared(s) => Some(s),
            Value::Int(_) | Value::Double(_) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub key: Key,
    pub value: Value,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Event {
    pub time_unix_nano: u64,
    pub name: String,
    pub attributes: Vec<Attribute>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Link {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub attributes: Vec<Attribute>,
}

/// A span, with the fields of OTLP's `Span` the mapping fills.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Span {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    /// `None` for a trace's root.
    pub parent_span_id: Option<[u8; 8]>,
    pub name: String,
    /// OTLP's `SpanKind`.
    pub kind: i32,
    pub start_time_unix_nano: u64,
    pub end_time_unix_nano: u64,
    pub attributes: Vec<Attribute>,
    pub events: Vec<Event>,
    pub links: Vec<Link>,
    pub status: Option<Status>,
}

impl Value {
    fn to_proto(&self) -> proto_common::AnyValue {
        use proto_common::any_value::Value as V;
        let value = match self {
            Value::Str(s) => V::StringValue(s.clone()),
            Value::Shared(s) => V::StringValue(s.to_string()),
            Value::Int(i) => V::IntValue(*i),
            Value::Double(d) => V::DoubleValue(*d),
        };
        proto_common::AnyValue { value: Some(value) }
    }

    fn text_len(&self) -> usize {
        self.as_str().map_or(0, str::len)
    }

    /// `AnyValue`'s bytes: its one field (a oneof's field is written even
    /// when it holds its type's default).
    fn encoded_len(&self) -> usize {
        match self {
            Value::Str(_) | Value::Shared(_) => key_len(1) + bytes_len(self.text_len()),
            Value::Int(i) => key_len(3) + encoded_len_varint(u64::from_ne_bytes(i.to_ne_bytes())),
            Value::Double(_) => key_len(4) + 8,
        }
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        match self {
            Value::Str(s) => bytes_field(1, s.as_bytes(), buf),
            Value::Shared(s) => bytes_field(1, s.as_bytes(), buf),
            Value::Int(i) => {
                encode_key(3, WireType::Varint, buf);
                encode_varint(u64::from_ne_bytes(i.to_ne_bytes()), buf);
            }
            Value::Double(d) => {
                encode_key(4, WireType::SixtyFourBit, buf);
                buf.extend_from_slice(&d.to_le_bytes());
            }
        }
    }
}

impl Attribute {
    pub fn to_proto(&self) -> proto_common::KeyValue {
        proto_common::KeyValue {
            key: self.key.clone().into_owned(),
            value: Some(self.value.to_proto()),
            ..proto_common::KeyValue::default()
        }
    }

    /// `KeyValue { key = 1, value = 2 }`.
    fn encoded_len(&self) -> usize {
        let value = self.value.encoded_len();
        opt_bytes_len(1, self.key.len()) + key_len(2) + encoded_len_varint(value as u64) + value
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        opt_bytes_field(1, self.key.as_bytes(), buf);
        encode_key(2, WireType::LengthDelimited, buf);
        encode_varint(self.value.encoded_len() as u64, buf);
        self.value.encode(buf);
    }
}

fn attributes_len(tag: u32, attributes: &[Attribute]) -> usize {
    attributes
        .iter()
        .map(|a| message_len(tag, a.encoded_len()))
        .sum()
}

fn encode_attributes(tag: u32, attributes: &[Attribute], buf: &mut Vec<u8>) {
    for a in attributes {
        encode_key(tag, WireType::LengthDelimited, buf);
        encode_varint(a.encoded_len() as u64, buf);
        a.encode(buf);
    }
}

impl Event {
    pub fn to_proto(&self) -> proto::span::Event {
        proto::span::Event {
            time_unix_nano: self.time_unix_nano,
            name: self.name.clone(),
            attributes: self.attributes.iter().map(Attribute::to_proto).collect(),
            dropped_attributes_count: 0,
        }
    }

    /// `Event { time_unix_nano = 1, name = 2, attributes = 3 }`.
    fn encoded_len(&self) -> usize {
        opt_fixed64_len(1, self.time_unix_nano)
            + opt_bytes_len(2, self.name.len())
            + attributes_len(3, &self.attributes)
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        opt_fixed64_field(1, self.time_unix_nano, buf);
        opt_bytes_field(2, self.name.as_bytes(), buf);
        encode_attributes(3, &self.attributes, buf);
    }
}

impl Link {
    pub fn to_proto(&self) -> proto::span::Link {
        proto::span::Link {
            trace_id: self.trace_id.to_vec(),
            span_id: self.span_id.to_vec(),
            attributes: self.attributes.iter().map(Attribute::to_proto).collect(),
            ..proto::span::Link::default()
        }
    }

    /// `Link { trace_id = 1, span_id = 2, attributes = 4 }`.
    fn encoded_len(&self) -> usize {
        opt_bytes_len(1, self.trace_id.len())
            + opt_bytes_len(2, self.span_id.len())
            + attributes_len(4, &self.attributes)
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        opt_bytes_field(1, &self.trace_id, buf);
        opt_bytes_field(2, &self.span_id, buf);
        encode_attributes(4, &self.attributes, buf);
    }
}

impl Span {
    /// The `opentelemetry-proto` message (for OTLP/JSON).
    pub fn to_proto(&self) -> proto::Span {
        proto::Span {
            trace_id: self.trace_id.to_vec(),
            span_id: self.span_id.to_vec(),
            parent_span_id: self.parent_span_id.map(|p| p.to_vec()).unwrap_or_default(),
            name: self.name.clone(),
            kind: self.kind,
            start_time_unix_nano: self.start_time_unix_nano,
            end_time_unix_nano: self.end_time_unix_nano,
            attributes: self.attributes.iter().map(Attribute::to_proto).collect(),
            events: self.events.iter().map(Event::to_proto).collect(),
            links: self.links.iter().map(Link::to_proto).collect(),
            status: self.status.clone(),
            ..proto::Span::default()
        }
    }

    /// The string value of attribute `key`.
    pub fn string_attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.key == key)
            .and_then(|a| a.value.as_str())
    }

    /// The length of [`Span::encode_raw`]'s bytes.
    pub fn encoded_len(&self) -> usize {
        let status = self
            .status
            .as_ref()
            .map_or(0, |s| message_len(15, s.encoded_len()));
        opt_bytes_len(1, self.trace_id.len())
            + opt_bytes_len(2, self.span_id.len())
            + self.parent_span_id.map_or(0, |p| opt_bytes_len(4, p.len()))
            + opt_bytes_len(5, self.name.len())
            + if self.kind == 0 {
                0
            } else {
                key_len(6) + encoded_len_varint(kind_bits(self.kind))
            }
            + opt_fixed64_len(7, self.start_time_unix_nano)
            + opt_fixed64_len(8, self.end_time_unix_nano)
            + attributes_len(9, &self.attributes)
            + self
                .events
                .iter()
                .map(|e| message_len(11, e.encoded_len()))
                .sum::<usize>()
            + self
                .links
                .iter()
                .map(|l| message_len(13, l.encoded_len()))
                .sum::<usize>()
            + status
    }

    /// The message's fields, in the order prost writes them (the order
    /// `trace.proto` declares them), so the bytes are prost's.
    pub fn encode_raw(&self, buf: &mut Vec<u8>) {
        opt_bytes_field(1, &self.trace_id, buf);
        opt_bytes_field(2, &self.span_id, buf);
        if let Some(parent) = &self.parent_span_id {
            opt_bytes_field(4, parent, buf);
        }
        opt_bytes_field(5, self.name.as_bytes(), buf);
        if self.kind != 0 {
            encode_key(6, WireType::Varint, buf);
            encode_varint(kind_bits(self.kind), buf);
        }
        opt_fixed64_field(7, self.start_time_unix_nano, buf);
        opt_fixed64_field(8, self.end_time_unix_nano, buf);
        encode_attributes(9, &self.attributes, buf);
        for e in &self.events {
            encode_key(11, WireType::LengthDelimited, buf);
            encode_varint(e.encoded_len() as u64, buf);
            e.encode(buf);
        }
        for l in &self.links {
            encode_key(13, WireType::LengthDelimited, buf);
            encode_varint(l.encoded_len() as u64, buf);
            l.encode(buf);
        }
        if let Some(status) = &self.status {
            encode_key(15, WireType::LengthDelimited, buf);
            encode_varint(status.encoded_len() as u64, buf);
            status.encode_raw(buf);
        }
    }
}

/// An enum's value as protobuf writes it (an `int32`: negative ones in ten
/// bytes).
fn kind_bits(kind: i32) -> u64 {
    u64::from_ne_bytes(i64::from(kind).to_ne_bytes())
}

fn bytes_len(len: usize) -> usize {
    encoded_len_varint(len as u64) + len
}

fn message_len(tag: u32, len: usize) -> usize {
    key_len(tag) + bytes_len(len)
}

/// A `string` or `bytes` field, left out when empty (proto3's default).
fn opt_bytes_len(tag: u32, len: usize) -> usize {
    if len == 0 { 0 } else { message_len(tag, len) }
}

fn bytes_field(tag: u32, bytes: &[u8], buf: &mut Vec<u8>) {
    encode_key(tag, WireType::LengthDelimited, buf);
    encode_varint(bytes.len() as u64, buf);
    buf.extend_from_slice(bytes);
}

fn opt_bytes_field(tag: u32, bytes: &[u8], buf: &mut Vec<u8>) {
    if !bytes.is_empty() {
        bytes_field(tag, bytes, buf);
    }
}

fn opt_fixed64_len(tag: u32, v: u64) -> usize {
    if v == 0 { 0 } else { key_len(tag) + 8 }
}

fn opt_fixed64_field(tag: u32, v: u64, buf: &mut Vec<u8>) {
    if v != 0 {
        encode_key(tag, WireType::SixtyFourBit, buf);
        buf.extend_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(key: &'static str, value: Value) -> Attribute {
        Attribute {
            key: Cow::Borrowed(key),
            value,
        }
    }

    /// A span with every field the mapping fills, and the values whose
    /// encodings differ: empty strings, zero and negative numbers.
    fn full_span() -> Span {
        Span {
            trace_id: [1; 16],
            span_id: [2; 8],
            parent_span_id: Some([3; 8]),
            name: "execute_tool bash".into(),
            kind: 3,
            start_time_unix_nano: 1_735_774_656_635_000_000,
            end_time_unix_nano: 1_735_774_706_215_000_000,
            attributes: vec![
                attr("session.id", Value::Str("s".repeat(300))),
                attr(
                    "gen_ai.conversation.id",
                    Value::Shared("conversation".into()),
                ),
                attr("empty", Value::Str(String::new())),
                attr("zero", Value::Int(0)),
                attr("negative", Value::Int(-5)),
                attr("cost", Value::Double(0.25)),
                Attribute {
                    key: Cow::Owned("cru.original_length.x".into()),
                    value: Value::Int(i64::MAX),
                },
            ],
            events: vec![
                Event {
                    time_unix_nano: 7,
                    name: "decision".into(),
                    attributes: vec![attr("cru.callout.text", Value::Str("é".into()))],
                },
                Event::default(),
            ],
            links: vec![Link {
                trace_id: [4; 16],
                span_id: [5; 8],
                attributes: vec![attr("cru.link.relation", Value::Str("parent".into()))],
            }],
            status: Some(Status {
                message: "failed".into(),
                code: 2,
            }),
        }
    }

    fn same_as_prost(span: &Span) {
        let mut ours = Vec::new();
        span.encode_raw(&mut ours);
        let theirs = span.to_proto().encode_to_vec();
        assert_eq!(ours, theirs, "{span:?}");
        assert_eq!(span.encoded_len(), theirs.len());
    }

    #[test]
    fn spans_encode_to_the_bytes_prost_writes() {
        same_as_prost(&full_span());
        same_as_prost(&Span::default());
        let mut root = full_span();
        root.parent_span_id = None;
        root.kind = 0;
        root.status = None;
        root.start_time_unix_nano = 0;
        same_as_prost(&root);
    }
}
