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

use crucible_core::{Tokens, UsageByModel};

/// One API response: its model, its tokens, whether it was met on a side chain.
#[derive(Debug, Clone)]
struct Response {
    model: Option<String>,
    usage: Tokens,
    sidechain: bool,
}

/// The responses of one conversation, each once.
#[derive(Debug, Default)]
pub(super) struct Responses {
    list: Vec<Response>,
    /// (`message.id`, `requestId`) → index in `list`.
    by_key: HashMap<(String, Option<String>), usize>,
}

/// The four token kinds of a line's `message.usage`. Cache creation is the
/// sum of the 5-minute and 1-hour parts when the line splits it (what
/// ccusage reads), else `cache_creation_input_tokens`.
pub(crate) fn usage_of(u: &Value) -> Tokens {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cache_creation = match u.get("cache_creation").filter(|c| c.is_object()) {
        Some(c) => n(c, "ephemeral_5m_input_tokens") + n(c, "ephemeral_1h_input_tokens"),
        None => n(u, "cache_creation_input_tokens"),
    };
    Tokens {
        input: n(u, "input_tokens"),
        output: n(u, "output_tokens"),
        cache_creation,
        cache_read: n(u, "cache_read_input_tokens"),
        reasoning: 0,
    }
}

impl Responses {
    /// Counts the usage of line `v` (a no-op for a line without one).
    pub(super) fn add(&mut self, v: &Value) {
        let Some(msg) = v.get("message") else { return };
        let Some(u) = msg.get("usage").filter(|u| u.is_object()) else {
            return;
        };
        let candidate = Response {
            model: msg.get("model").and_then(Value::as_str).map(str::to_owned),
            usage: usage_of(u),
            sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
        };
        let Some(id) = msg.get("id").and_then(Value::as_str) else {
            self.list.push(candidate);
            return;
        };
        let request = v
            .get("requestId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(&i) = self.by_key.get(&(id.to_owned(), request.clone())) {
            if replaces(&candidate, &self.list[i]) {
                self.list[i] = candidate;
            }
        } else {
            self.by_key
                .insert((id.to_owned(), request), self.list.len());
            self.list.push(candidate);
        }
    }

    /// The tokens by model (responses that spent nothing are left out, so
    /// a `<synthetic>` placeholder is not a model of the session).
    pub(super) fn by_model(&self) -> UsageByModel {
        let mut out = UsageByModel::default();
        for r in self.list.iter().filter(|r| !r.usage.is_zero()) {
            out.add(r.model.as_deref(), r.usage);
        }
        out
    }
}

/// ccusage's rule: the main chain's line over a side chain's, else the
/// larger total (the final count of a streamed response).
fn replaces(candidate: &Response, existing: &Response) -> bool {
    if candidate.sidechain != existing.sidechain {
        return existing.sidechain;
    }
    candidate.usage.total() > existing.usage.total()
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
    fn a_streamed_response_counts_once_with_its_final_output() {
        let mut r = Responses::default();
        for (id, out) in [("a", 1), ("a", 2), ("a", 40), ("b", 9)] {
            r.add(&line(id, out));
        }
        let t = r.by_model().total();
        assert_eq!(
            (t.input, t.output, t.cache_creation, t.cache_read),
            (6, 49, 10, 14)
        );
    }
}
