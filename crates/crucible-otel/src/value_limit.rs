//! String values cut at a length, as OpenTelemetry SDKs cut them
//! (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`): a 20 MiB tool result or note
//! would otherwise make a request no engine takes (the OpenTelemetry
//! Collector refuses bodies over 20 MiB) and fail every session batched
//! with it, every run. Done on the spans as mapped, before they are
//! hashed and encoded, so that the record hashes what was sent.

use std::borrow::Cow;

use crate::mapping::Trace;
use crate::span::{Attribute, Span, Value};

/// The attribute that says how long a cut value was, in characters:
/// `cru.original_length.<key>` beside the cut `<key>`.
pub const ORIGINAL_LENGTH_PREFIX: &str = "cru.original_length.";

/// Cuts every string value of `trace`'s spans longer than `limit`
/// characters (span, event and link attributes, status messages) to
/// `limit` characters, the last one `…`, and records the original length
/// beside it. Returns how many values were cut.
pub fn cut_long_values(trace: &mut Trace, limit: usize) -> usize {
    let limit = limit.max(1);
    let spans = trace
        .root
        .iter_mut()
        .chain(trace.phases.iter_mut().flat_map(|p| p.spans.iter_mut()));
    spans.map(|s| cut_span(s, limit)).sum()
}

fn cut_span(span: &mut Span, limit: usize) -> usize {
    let mut cut = cut_attributes(&mut span.attributes, limit);
    for e in &mut span.events {
        cut += cut_attributes(&mut e.attributes, limit);
    }
    for l in &mut span.links {
        cut += cut_attributes(&mut l.attributes, limit);
    }
    if let Some(status) = span.status.as_mut()
        && let Some(len) = cut_string(&mut status.message, limit)
    {
        span.attributes
            .push(length_attribute("otel.status_description", len));
        cut += 1;
    }
    cut
}

fn cut_attributes(attributes: &mut Vec<Attribute>, limit: usize) -> usize {
    let mut lengths = Vec::new();
    for a in attributes.iter_mut() {
        if let Value::Shared(s) = &a.value
            && s.len() > limit
        {
            a.value = Value::Str(s.to_string());
        }
        if let Value::Str(s) = &mut a.value
            && let Some(len) = cut_string(s, limit)
        {
            lengths.push(length_attribute(&a.key, len));
        }
    }
    let n = lengths.len();
    attributes.extend(lengths);
    n
}

/// The original length in characters when `s` was cut.
fn cut_string(s: &mut String, limit: usize) -> Option<usize> {
    // Bytes bound characters from above: most values end here.
    if s.len() <= limit {
        return None;
    }
    let (end, _) = s.char_indices().nth(limit)?;
    let len = limit + s[end..].chars().count();
    let (keep, _) = s
        .char_indices()
        .nth(limit - 1)
        .expect("the string has more than `limit` characters");
    s.truncate(keep);
    s.push('…');
    Some(len)
}

fn length_attribute(key: &str, len: usize) -> Attribute {
    Attribute {
        key: Cow::Owned(format!("{ORIGINAL_LENGTH_PREFIX}{key}")),
        value: Value::Int(i64::try_from(len).unwrap_or(i64::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::PhaseSpans;
    use crate::span::Event;

    fn text_kv(key: &'static str, v: &str) -> Attribute {
        Attribute {
            key: Cow::Borrowed(key),
            value: Value::Str(v.to_owned()),
        }
    }

    #[test]
    fn long_values_are_cut_with_their_length_beside_them() {
        let long = "é".repeat(10);
        let span = Span {
            attributes: vec![
                text_kv("input.value", &long),
                text_kv("tool.name", "bash"),
                Attribute {
                    key: Cow::Borrowed("session.id"),
                    value: Value::Shared("é".repeat(5).into()),
                },
            ],
            events: vec![Event {
                attributes: vec![text_kv("cru.callout.text", &long)],
                ..Event::default()
            }],
            ..Span::default()
        };
        let mut trace = Trace {
            root: vec![Span::default()],
            root_settled: true,
            phases: vec![PhaseSpans {
                spans: vec![span],
                closed: true,
            }],
        };
        assert_eq!(cut_long_values(&mut trace, 4), 3);
        let s = &trace.phases[0].spans[0];
        let text = |a: &Attribute| match &a.value {
            Value::Str(_) | Value::Shared(_) => a.value.as_str().unwrap_or_default().to_owned(),
            Value::Int(n) => n.to_string(),
            Value::Double(_) => String::new(),
        };
        let attrs: Vec<(String, String)> = s
            .attributes
            .iter()
            .map(|a| (a.key.to_string(), text(a)))
            .collect();
        assert_eq!(
            attrs,
            [
                ("input.value".to_owned(), "ééé…".to_owned()),
                ("tool.name".to_owned(), "bash".to_owned()),
                ("session.id".to_owned(), "ééé…".to_owned()),
                (
                    "cru.original_length.input.value".to_owned(),
                    "10".to_owned()
                ),
                ("cru.original_length.session.id".to_owned(), "5".to_owned()),
            ]
        );
        assert_eq!(text(&s.events[0].attributes[0]), "ééé…");
        // Exactly at the limit: left alone.
        let mut at = "abcd".to_owned();
        assert_eq!(cut_string(&mut at, 4), None);
        assert_eq!(at, "abcd");
    }
}
