//! A model request's usage: `<!-- usage: at=… model=… input=… output=… -->`,
//! one line per request, under the heading (and metadata line) of the phase
//! that made it. An HTML
//! comment like the phase's metadata, so renderers hide it; one line each,
//! so a phase of many requests stays a column of short lines.
//!
//! Keys: `at` (timestamp), `model`, `input`, `output`, `cache_creation`,
//! `cache_creation_1h` (the part of `cache_creation` written to the
//! one-hour cache), `cache_read`, `reasoning` (whole numbers; a missing kind
//! is 0),
//! `cost_usd` (what the source wrote), `id` (the source's request id).
//! Other keys are kept in order.

use crucible_core::{Tokens, UsageRecord};

use crate::phase_meta::{cost, for_each_pair, push_pair};

const OPEN: &str = "<!-- usage:";
const CLOSE: &str = "-->";

/// True when `line` opens a usage comment (whatever follows).
pub(crate) fn is_usage_line(line: &str) -> bool {
    line.trim_start().starts_with(OPEN)
}

/// `None` when `html` is not a usage comment; `Some(Err)` when it is one
/// but a value cannot be read.
pub(crate) fn parse(html: &str) -> Option<Result<UsageRecord, String>> {
    let inner = html.trim().strip_prefix(OPEN)?.strip_suffix(CLOSE)?;
    if inner.contains('\n') {
        return None;
    }
    let mut r = UsageRecord::default();
    let read = for_each_pair(inner.trim(), |key, value| {
        let bad = |what: &str| format!("`{key}={value}` is not {what}");
        let count = || {
            crucible_core::parse_token_count(value)
                .map_err(|why| format!("`{key}={value}` is {why}"))
        };
        match key {
            "at" => r.at = Some(value.parse().map_err(|_| bad("a timestamp"))?),
            "model" => r.model = Some(value.to_owned()),
            "input" => r.tokens.input = count()?,
            "output" => r.tokens.output = count()?,
            "cache_creation" => r.tokens.cache_creation = count()?,
            "cache_read" => r.tokens.cache_read = count()?,
            "reasoning" => r.tokens.reasoning = count()?,
            "cache_creation_1h" => r.tokens.cache_creation_1h = count()?,
            // A cost that is none is kept as written, and the tokens stand.
            "cost_usd" => match cost(value) {
                Some(c) => r.cost_usd = Some(c),
                None => r.extra.push((key.to_owned(), value.to_owned())),
            },
            "id" => r.id = Some(value.to_owned()),
            _ => r.extra.push((key.to_owned(), value.to_owned())),
        }
        Ok(())
    });
    Some(read.map(|()| r))
}

/// The comment line of one record. `input` and `output` are always
/// written; the other kinds when they are not 0.
pub(crate) fn write(r: &UsageRecord, out: &mut String) {
    out.push_str(OPEN);
    if let Some(at) = &r.at {
        push_pair(out, "at", at.as_str());
    }
    if let Some(m) = &r.model {
        push_pair(out, "model", m);
    }
    let Tokens {
        input,
        output,
        cache_creation,
        cache_read,
        reasoning,
        cache_creation_1h,
    } = r.tokens;
    push_pair(out, "input", &input.to_string());
    push_pair(out, "output", &output.to_string());
    for (key, n) in [
        ("cache_creation", cache_creation),
        ("cache_creation_1h", cache_creation_1h),
        ("cache_read", cache_read),
        ("reasoning", reasoning),
    ] {
        if n > 0 {
            push_pair(out, key, &n.to_string());
        }
    }
    if let Some(c) = r.cost_usd {
        push_pair(out, "cost_usd", &c.to_string());
    }
    if let Some(id) = &r.id {
        push_pair(out, "id", id);
    }
    for (k, v) in &r.extra {
        push_pair(out, k, v);
    }
    out.push(' ');
    out.push_str(CLOSE);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(r: &UsageRecord) -> String {
        let mut s = String::new();
        write(r, &mut s);
        s
    }

    #[test]
    fn round_trips_a_full_record() {
        let r = UsageRecord {
            at: Some("2025-06-08T11:00:15.123Z".parse().unwrap()),
            model: Some("claude-sonnet-4-20250514".into()),
            tokens: Tokens {
                input: 3,
                output: 200,
                cache_creation: 1200,
                cache_read: 15_000,
                reasoning: 7,
                cache_creation_1h: 200,
            },
            cost_usd: Some(0.0123),
            id: Some("msg_01 x-->y:req_1".into()),
            extra: vec![("speed".into(), "fast".into())],
        };
        let text = line(&r);
        assert!(!text[4..text.len() - 3].contains("-->"), "{text}");
        assert_eq!(parse(&text).unwrap().unwrap(), r);
    }

    #[test]
    fn zero_kinds_are_left_out_but_input_and_output_stay() {
        let r = UsageRecord::default();
        assert_eq!(line(&r), "<!-- usage: input=0 output=0 -->");
        assert_eq!(parse(&line(&r)).unwrap().unwrap(), r);
    }

    #[test]
    fn bad_values_say_what_was_expected() {
        let err = parse("<!-- usage: input=lots -->").unwrap().unwrap_err();
        assert_eq!(err, "`input=lots` is not a whole number");
        let err = parse("<!-- usage: at=yesterday -->").unwrap().unwrap_err();
        assert!(err.contains("timestamp"), "{err}");
        assert!(parse("<!-- phase: tokens=1 -->").is_none());
        // Counts no request has: refused, so no sum nears the largest u64.
        for n in [
            "1000000000001",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            let err = parse(&format!("<!-- usage: input={n} -->"))
                .unwrap()
                .unwrap_err();
            assert!(err.contains("more tokens than any count holds"), "{err}");
        }
        assert!(
            parse("<!-- usage: input=1000000000000 -->")
                .unwrap()
                .is_ok()
        );
        // A cost that is none leaves the tokens standing; it is kept as
        // written for the reader to name.
        for c in ["-3", "NaN", "inf", "free", "1e20"] {
            let r = parse(&format!("<!-- usage: input=5 cost_usd={c} -->"))
                .unwrap()
                .unwrap();
            assert_eq!((r.tokens.input, r.cost_usd), (5, None));
            assert_eq!(r.extra, [("cost_usd".to_owned(), c.to_owned())]);
            assert!(crate::phase_meta::not_a_cost(&r.extra).is_some());
        }
    }
}
