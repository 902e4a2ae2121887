//! Token counts of a Claude Code transcript, the way ccusage counts them.
//!
//! Claude Code writes one line per content block of a streamed response,
//! every line with the response's `message.id` and `requestId` and a
//! `usage`; the `output_tokens` of the earlier lines are partial counts
//! (1, 2, 3, ...) and the last line has the final one. So a response is
//! counted once, by the line with the largest total (ccusage's rule: its
//! `should_replace_deduped_entry`); a main-chain line wins over a side
//! chain's replay of the same message. A line without `message.id` (hand
//! written, old releases) is counted on its own.

use std::collections::HashMap;

use serde_json::Value;

use crucible_core::{Phase, Tokens, UsageRecord};

use crate::requests::{record, time};

/// One API response: its record, whether it was met on a side chain, and
/// the phase of the turn it answered.
#[derive(Debug, Clone)]
struct Response {
    record: UsageRecord,
    sidechain: bool,
    phase: usize,
}

/// The responses of one conversation, each once.
#[derive(Debug, Default)]
pub(super) struct Responses {
    list: Vec<Response>,
    /// A record's id (`request_id`) → index in `list`.
    by_key: HashMap<String, usize>,
}

/// The four token kinds of a line's `message.usage`. Cache creation is the
/// sum of the 5-minute and 1-hour parts when the line splits it (what
/// ccusage reads), else `cache_creation_input_tokens`; the 1-hour part is
/// also kept apart (it is priced higher).
pub(crate) fn usage_of(u: &Value) -> Tokens {
    // A count that is no whole number of tokens (negative, a fraction, a
    // string, beyond `MAX_TOKENS`) counts 0 ([`damaged_counts`] names it).
    let n = |v: &Value, k: &str| v.get(k).and_then(count).unwrap_or(0);
    let (cache_creation, cache_creation_1h) =
        match u.get("cache_creation").filter(|c| c.is_object()) {
            Some(c) => {
                let one_hour = n(c, "ephemeral_1h_input_tokens");
                (
                    n(c, "ephemeral_5m_input_tokens").saturating_add(one_hour),
                    one_hour,
                )
            }
            None => (n(u, "cache_creation_input_tokens"), 0),
        };
    Tokens {
        input: n(u, "input_tokens"),
        output: n(u, "output_tokens"),
        cache_creation,
        cache_read: n(u, "cache_read_input_tokens"),
        reasoning: 0,
        cache_creation_1h,
    }
}

/// `v` as one request's count of one kind, if it is one.
fn count(v: &Value) -> Option<u64> {
    v.as_u64().filter(|&n| n <= crucible_core::MAX_TOKENS)
}

/// The token counts of a line's `message.usage` that are no count of
/// tokens (negative, a fraction, a string, null, beyond
/// [`crucible_core::MAX_TOKENS`]), said as `key value`: [`usage_of`] counts
/// them 0, and the import says so.
pub(crate) fn damaged_counts(v: &Value) -> Vec<String> {
    let Some(u) = v
        .get("message")
        .and_then(|m| m.get("usage"))
        .filter(|u| u.is_object())
    else {
        return Vec::new();
    };
    let cache = u.get("cache_creation").filter(|c| c.is_object());
    let counts = [
        (Some(u), "input_tokens"),
        (Some(u), "output_tokens"),
        (Some(u), "cache_read_input_tokens"),
        (Some(u), "cache_creation_input_tokens"),
        (cache, "ephemeral_5m_input_tokens"),
        (cache, "ephemeral_1h_input_tokens"),
    ];
    counts
        .into_iter()
        .filter_map(|(at, key)| {
            let value = at?.get(key)?;
            count(value).is_none().then(|| format!("{key} {value}"))
        })
        .collect()
}

/// The model a response is priced as: its `message.model`, as
/// `<model>-fast` when `usage.speed` is `"fast"` (Claude Code's fast mode,
/// the same model at a higher price; ccusage names it so too, and the price
/// table prices `<model>-fast` at the model's fast-mode rate).
pub(crate) fn priced_model(model: Option<&str>, u: &Value) -> Option<String> {
    let model = model?;
    if u.get("speed").and_then(Value::as_str) == Some("fast") {
        Some(format!("{model}-fast"))
    } else {
        Some(model.to_owned())
    }
}

/// True for a session id a record id can name: not empty, and without an
/// `@`, so that the id splits back at its last `@` (Claude Code's are
/// UUIDs).
fn is_session_id(s: &str) -> bool {
    !s.is_empty() && !s.contains('@')
}

/// A record id of a response without a request id, split into its message
/// id and its session (`<message.id>@<sessionId>`, [`request_id`]); `None`
/// for an id without an `@`. (A message id that holds an `@` of its own,
/// from a line that names no session, is split too: no real one does.)
pub(crate) fn message_in_session(id: &str) -> Option<(&str, &str)> {
    id.rsplit_once('@')
        .filter(|(m, s)| !m.is_empty() && is_session_id(s))
}

/// The id a response's record carries: `<message.id>:<requestId>`; for a
/// line without a request id, `<message.id>@<sessionId>` (the Claude Code
/// session the line belongs to), or the message's id alone when the line
/// names no session (or a `sessionId` that cannot be one: holding an `@`).
///
/// Both forms with a separator are compared across files
/// (`request_owners.rs`). ccusage counts a response without a
/// request id once per Claude Code session, however many transcripts hold
/// it (a session's snapshots, a resume), and twice when two sessions hold
/// it (gateways reuse message ids across sessions).
fn request_id(message_id: &str, request: Option<&str>, session: Option<&str>) -> String {
    match (request, session.filter(|s| is_session_id(s))) {
        (Some(r), _) => format!("{message_id}:{r}"),
        (None, Some(s)) => format!("{message_id}@{s}"),
        (None, None) => message_id.to_owned(),
    }
}

/// The record id ([`request_id`]) of the response on transcript line `v`;
/// `None` when its message has no id.
pub(crate) fn record_id_of(v: &Value) -> Option<String> {
    let id = v.pointer("/message/id").and_then(Value::as_str)?;
    let text = |k: &str| v.get(k).and_then(Value::as_str);
    Some(request_id(id, text("requestId"), text("sessionId")))
}

/// A record id split into its message id and request id, as the line it
/// came from had them ([`request_id`]).
pub(crate) fn ids_of_record(id: &str) -> (&str, Option<&str>) {
    if let Some((message, _session)) = message_in_session(id) {
        return (message, None);
    }
    match id.split_once(':') {
        Some((message, request)) => (message, Some(request)),
        None => (id, None),
    }
}

impl Responses {
    /// Counts the usage of line `v`, met in phase `phase` (a no-op for a
    /// line without one). A streamed response's later line replaces its
    /// record (time, tokens, cost) but not its phase: the response
    /// answered the turn its first line was in.
    pub(super) fn add(&mut self, v: &Value, phase: usize) {
        let Some(msg) = v.get("message") else { return };
        let Some(u) = msg.get("usage").filter(|u| u.is_object()) else {
            return;
        };
        let model = priced_model(msg.get("model").and_then(Value::as_str), u);
        let mut r = record(
            time(v.get("timestamp").and_then(Value::as_str)),
            model.as_deref(),
            usage_of(u),
            record_id_of(v),
        );
        // A cost written that no request has (negative, not a number, over
        // a million dollars) is not believed: the request is priced from its tokens.
        r.cost_usd = v
            .get("costUSD")
            .and_then(Value::as_f64)
            .filter(|&c| crucible_core::is_cost(c));
        let candidate = Response {
            record: r,
            sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
            phase,
        };
        // A response is its record's id: message and request id, or for a
        // line without a request id, message id and session (the same
        // response in two sessions is two, as across files).
        let Some(key) = candidate.record.id.clone() else {
            self.list.push(candidate);
            return;
        };
        if let Some(&i) = self.by_key.get(&key) {
            if replaces(&candidate, &self.list[i]) {
                let phase = self.list[i].phase;
                self.list[i] = Response { phase, ..candidate };
            }
        } else {
            self.by_key.insert(key, self.list.len());
            self.list.push(candidate);
        }
    }

    /// Each response's record into the phase it answered, in the order
    /// the responses came. A response that spent no token has none: a
    /// `<synthetic>` one is Claude Code's placeholder for a failed request,
    /// and a line of zeros adds nothing but a model to the totals (nor do
    /// the real transcripts hold one that is not `<synthetic>`).
    pub(super) fn into_phases(self, phases: &mut [Phase]) {
        for r in self.list {
            if r.record.tokens.is_zero() {
                continue;
            }
            if let Some(p) = phases.get_mut(r.phase) {
                p.usage.push(r.record);
            }
        }
    }
}

/// ccusage's rule: the main chain's line over a side chain's, else the
/// larger total (the final count of a streamed response).
fn replaces(candidate: &Response, existing: &Response) -> bool {
    if candidate.sidechain != existing.sidechain {
        return existing.sidechain;
    }
    candidate.record.tokens.total() > existing.record.tokens.total()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, output: u64) -> Value {
        serde_json::json!({"type": "assistant", "requestId": "r1", "message": {
            "id": id, "model": "m", "usage": {"input_tokens": 3, "output_tokens": output,
            "cache_creation_input_tokens": 5, "cache_read_input_tokens": 7}}})
    }

    #[test]
    fn a_count_that_is_no_count_of_tokens_is_zero() {
        let u = serde_json::json!({"input_tokens": -1000, "output_tokens": 61.7,
            "cache_read_input_tokens": u64::MAX, "cache_creation": {
                "ephemeral_5m_input_tokens": u64::MAX, "ephemeral_1h_input_tokens": 10}});
        let t = usage_of(&u);
        assert_eq!((t.input, t.output, t.cache_read), (0, 0, 0));
        assert_eq!((t.cache_creation, t.cache_creation_1h), (10, 10));
        let u = serde_json::json!({"input_tokens": "61", "output_tokens": null,
            "cache_creation": {"ephemeral_5m_input_tokens": crucible_core::MAX_TOKENS,
            "ephemeral_1h_input_tokens": crucible_core::MAX_TOKENS}});
        let t = usage_of(&u);
        assert_eq!(t.total(), 2 * crucible_core::MAX_TOKENS);
    }

    #[test]
    fn a_written_cost_no_request_has_is_not_believed() {
        for (cost, kept) in [
            (serde_json::json!(-3.0), None),
            (serde_json::json!("free"), None),
            (serde_json::json!(1e20), None),
            (serde_json::json!(0.25), Some(0.25)),
        ] {
            let mut v = line("a", 1);
            v["costUSD"] = cost;
            let mut r = Responses::default();
            r.add(&v, 0);
            assert_eq!(r.list[0].record.cost_usd, kept);
        }
    }

    #[test]
    fn a_streamed_response_counts_once_with_its_final_output() {
        let mut r = Responses::default();
        for (id, out, phase) in [("a", 1, 0), ("a", 2, 0), ("a", 40, 1), ("b", 9, 1)] {
            r.add(&line(id, out), phase);
        }
        let mut phases = vec![Phase::new("one", None, None), Phase::new("two", None, None)];
        r.into_phases(&mut phases);
        let outputs = |p: &Phase| p.usage.iter().map(|u| u.tokens.output).collect::<Vec<_>>();
        // The response began in the first phase: its final count is kept there.
        assert_eq!(outputs(&phases[0]), [40]);
        assert_eq!(outputs(&phases[1]), [9]);
        assert_eq!(phases[0].usage[0].id.as_deref(), Some("a:r1"));
    }

    #[test]
    fn a_fast_mode_response_is_priced_as_the_models_fast_mode() {
        let mut r = Responses::default();
        let mut fast = line("f", 9);
        fast["message"]["usage"]["speed"] = "fast".into();
        let mut standard = line("s", 9);
        standard["message"]["usage"]["speed"] = "standard".into();
        r.add(&fast, 0);
        r.add(&standard, 0);
        let mut phases = vec![Phase::new("one", None, None)];
        r.into_phases(&mut phases);
        let models: Vec<_> = phases[0].usage.iter().map(|u| u.model.as_deref()).collect();
        assert_eq!(models, [Some("m-fast"), Some("m")]);
    }

    #[test]
    fn a_response_that_spent_nothing_is_no_request() {
        let mut r = Responses::default();
        r.add(
            &serde_json::json!({"type": "assistant", "message": {"id": "s", "model": "<synthetic>",
                "usage": {"input_tokens": 0, "output_tokens": 0}}}),
            0,
        );
        r.add(&line("a", 2), 0);
        let mut phases = vec![Phase::new("one", None, None)];
        r.into_phases(&mut phases);
        assert_eq!(phases[0].usage.len(), 1);
    }
}
