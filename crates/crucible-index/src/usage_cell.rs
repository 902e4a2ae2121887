//! A session's (or a phase's) usage lines in one index cell.
//!
//! Reports of tokens and cost are index queries, so each session row holds
//! its [`UsageLine`]s (merged over phases: agent, channel, model, UTC hour)
//! and each phase row its own. One cell keeps the tables' shapes and the
//! files' plumbing as they were; the encoding is compact because `usage
//! monthly` over 100,000 sessions reads every one:
//!
//! ```text
//! line (';' between lines) := agent|channel|model|hour|first|last|requests
//!                             |input|output|cache_creation|cache_read|reasoning
//!                             |cache_creation_1h|untyped|cost|above
//! ```
//!
//! `hour` counts hours since the epoch; `first`/`last` are milliseconds
//! into it; `cost` is `-` when the source wrote none, else the dollars it
//! wrote (Rust's shortest exact form); `above` is `threshold:in:out:cc:cr`
//! items (`threshold:in:out:cc:cr:cc1h`) joined by `+`. Texts are `%XX`-escaped where they hold `%|;,"\`
//! or a control character, so the cell never needs TOON quoting; `None` is
//! empty and an empty text is a lone `%`.

mod decode;

use std::fmt::Write as _;

use crucible_core::UsageLine;

/// Writes `lines` as one cell's text (empty for none).
pub fn encode(lines: &[UsageLine]) -> String {
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        text(&mut out, l.agent.as_deref());
        out.push('|');
        text(&mut out, l.channel.as_deref());
        out.push('|');
        text(&mut out, l.model.as_deref());
        let hour = l.hour.div_euclid(3_600);
        let base_ms = hour * 3_600_000;
        let t = l.tokens;
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "|{hour}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|",
            l.first_ms - base_ms,
            l.last_ms - base_ms,
            l.requests,
            t.input,
            t.output,
            t.cache_creation,
            t.cache_read,
            t.reasoning,
            t.cache_creation_1h,
            l.untyped,
        );
        if l.recorded {
            let _ = write!(out, "{}", l.recorded_cost_usd);
        } else {
            out.push('-');
        }
        out.push('|');
        for (j, (threshold, a)) in l.above.iter().enumerate() {
            if j > 0 {
                out.push('+');
            }
            let _ = write!(
                out,
                "{threshold}:{}:{}:{}:{}:{}",
                a.input, a.output, a.cache_creation, a.cache_read, a.cache_creation_1h
            );
        }
    }
    out
}

pub use decode::decode;
pub(crate) use decode::untext;

pub(crate) fn text(out: &mut String, s: Option<&str>) {
    let Some(s) = s else { return };
    if s.is_empty() {
        out.push('%');
        return;
    }
    for c in s.chars() {
        if matches!(c, '%' | '|' | ';' | ',' | '"' | '\\') || c.is_control() {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::Tokens;
    use proptest::prelude::*;

    fn opt_text() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(prop_oneof![
            Just(String::new()),
            "[a-z@.0-9-]{1,12}",
            "\\PC{0,8}",
            Just("a|b;c,d\"e\\f%g\n".to_owned()),
        ])
    }

    fn tokens() -> impl Strategy<Value = Tokens> {
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
            any::<u16>(),
            any::<u16>(),
        )
            .prop_map(|(a, b, c, d, e, f)| Tokens {
                input: a.into(),
                output: b.into(),
                cache_creation: c.into(),
                cache_read: d,
                reasoning: e.into(),
                cache_creation_1h: f.into(),
            })
    }

    fn usage_line() -> impl Strategy<Value = UsageLine> {
        (
            (opt_text(), opt_text(), opt_text()),
            -400_000i64..900_000,
            0i64..3_600_000,
            0i64..3_600_000,
            (tokens(), any::<u32>(), any::<u32>()),
            proptest::option::of((0u32..1_000_000).prop_map(|c| f64::from(c) / 7.0)),
            proptest::collection::vec(tokens(), 0..3),
        )
            .prop_map(
                |((agent, channel, model), hour, a, b, (tokens, req, untyped), cost, above)| {
                    let base = hour * 3_600_000;
                    let mut above: Vec<(u64, Tokens)> = above
                        .into_iter()
                        .zip(crucible_core::TIER_THRESHOLDS)
                        .map(|(mut t, at)| {
                            t.reasoning = 0;
                            (at, t)
                        })
                        .collect();
                    above.sort_by_key(|(t, _)| *t);
                    UsageLine {
                        phase: None,
                        agent,
                        channel,
                        model,
                        hour: hour * 3_600,
                        first_ms: base + a.min(b),
                        last_ms: base + a.max(b),
                        requests: req.into(),
                        tokens,
                        untyped: untyped.into(),
                        recorded: cost.is_some(),
                        recorded_cost_usd: cost.unwrap_or(0.0),
                        above,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn lines_round_trip_through_the_cell(lines in proptest::collection::vec(usage_line(), 0..4)) {
            let cell = encode(&lines);
            prop_assert!(!cell.contains(',') && !cell.contains('"') && !cell.contains('\n'));
            prop_assert_eq!(decode(&cell).unwrap(), lines);
        }
    }

    #[test]
    fn a_damaged_cell_is_an_error_not_a_panic() {
        for bad in [
            "x",
            "a|b|c|1|2|3",
            "|||h|0|0|1|1|1|1|1|0|0|-|",
            "|||1|0|0|1|1|1|1|1|0|0|-|9:1",
            "%zz||m|1|0|0|1|1|1|1|1|0|0|-|",
        ] {
            assert!(decode(bad).is_err(), "{bad}");
        }
    }
}
