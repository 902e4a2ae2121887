//! A session as a Codex rollout, for Codex's own resume to load:
//! `<YYYY>/<MM>/<DD>/rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl` below the
//! folder given (`~/.codex/sessions`), lines of `{timestamp, type, payload}`.
//!
//! What Codex looks up (codex-rs `rollout/list.rs`): its resume picker
//! walks `sessions/YYYY/MM/DD/` for `rollout-*.jsonl` names that end in a
//! UUID and lists a file when its first 10 records hold a `session_meta`
//! and an `event_msg` `user_message`; `codex resume <id>` finds the file
//! by that UUID in its name. So the file starts with `session_meta`, then
//! each turn's `turn_context`, the user's message as a response item
//! followed by its `user_message` event, and then the turn's reasoning,
//! replies (`message` + `agent_message`), calls (`function_call` /
//! `custom_tool_call` with their `call_id`) and outputs, and a
//! `token_count` per usage record of the turn (the running total after
//! it, at its time, with its model); a session with no records (totals
//! only) has one final `token_count` with the session's totals.
//!
//! The session's sidecar gives what the markdown summarises: the source's
//! `session_meta` and `turn_context` records, call ids, arguments, full
//! outputs with their exit codes, patches and reasoning. The UUID is new
//! (made from the session's id, so the same session gives the same file):
//! reusing an imported rollout's would give Codex two files for one thread.

use serde_json::{Map, Value, json};

use crucible_core::{
    Block, CallData, CalloutKind, DataRecord, Phase, SessionData, SessionLog, Timestamp, Tokens,
    UsageRecord, resume::block_text,
};

use super::Exported;

/// Writes the rollout: the day's folder and the file in it.
pub(crate) fn write(log: &SessionLog, data: &SessionData) -> Exported {
    let mut w = Writer {
        lines: Vec::new(),
        ms: log.frontmatter.started.unix_ms(),
        data,
        running: Tokens::default(),
    };
    let uuid = uuid_of(log.id().as_str());
    w.session_meta(log, &uuid);
    for (pi, (_, p)) in log.phases().enumerate() {
        w.turn(log, pi, p);
    }
    if log.usage_records().next().is_none() {
        w.token_count(log);
    }
    let start = &log.frontmatter.started;
    let stamp = start.instant().strftime("%Y-%m-%dT%H-%M-%S").to_string();
    let day = start.instant().strftime("%Y/%m/%d").to_string();
    let mut bytes = Vec::new();
    for l in &w.lines {
        bytes.extend_from_slice(l.to_string().as_bytes());
        bytes.push(b'\n');
    }
    Exported::Folder {
        name: day,
        files: vec![(format!("rollout-{stamp}-{uuid}.jsonl"), bytes)],
    }
}

/// A UUID-shaped id (version 7's layout) made from `seed`.
fn uuid_of(seed: &str) -> String {
    let a = crate::fnv_hex(seed.as_bytes());
    let b = crate::fnv_hex(format!("{seed}\u{1}").as_bytes());
    let hex: String = format!("{a}{b}")
        .chars()
        .filter(char::is_ascii_hexdigit)
        .collect();
    let h = format!("{hex:0<32}");
    format!(
        "{}-{}-7{}-8{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

struct Writer<'a> {
    lines: Vec<Value>,
    /// The time of the next line: each line a millisecond after the last,
    /// from the session's (or the phase's) start.
    ms: i64,
    data: &'a SessionData,
    /// The records written so far, summed: the running total the next
    /// `token_count` adds to.
    running: Tokens,
}

impl Writer<'_> {
    fn push(&mut self, kind: &str, payload: Value) {
        let stamp = stamp_of(self.ms);
        self.ms += 1;
        self.push_stamped(stamp, kind, payload);
    }

    fn push_stamped(&mut self, stamp: String, kind: &str, payload: Value) {
        let mut line = Map::new();
        line.insert("timestamp".into(), stamp.into());
        line.insert("type".into(), kind.into());
        line.insert("payload".into(), payload);
        self.lines.push(Value::Object(line));
    }

    /// The source's record of `kind` kept in the sidecar (the first one at
    /// or before phase `phase` when given).
    fn kept(&self, kind: &str, phase: Option<usize>) -> Option<&Value> {
        self.data
            .records
            .iter()
            .filter_map(|r| match r {
                DataRecord::Source(s) if s.record["type"] == kind => Some(s),
                _ => None,
            })
            .rfind(|s| phase.is_none_or(|p| s.phase.is_none_or(|sp| sp <= p)))
            .map(|s| &s.record["payload"])
    }

    fn session_meta(&mut self, log: &SessionLog, uuid: &str) {
        let fm = &log.frontmatter;
        let text = |k: &str| {
            fm.extra
                .get(k)
                .and_then(crucible_core::yaml::Value::as_str)
                .map(str::to_owned)
        };
        let mut meta = match self.kept("session_meta", None) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        meta.insert("id".into(), uuid.into());
        meta.insert("timestamp".into(), fm.started.as_str().into());
        for (key, default) in [
            ("cwd", "."),
            ("originator", "cru"),
            ("cli_version", "0.0.0"),
        ] {
            if !meta.contains_key(key) {
                meta.insert(
                    key.into(),
                    text(key).unwrap_or_else(|| default.into()).into(),
                );
            }
        }
        meta.entry("instructions")
            .or_insert_with(|| log.system_prompt().map_or(Value::Null, Value::from));
        meta.entry("source").or_insert_with(|| "cli".into());
        self.push("session_meta", Value::Object(meta));
    }

    fn turn_context(&mut self, log: &SessionLog, pi: usize, p: &Phase) {
        let mut ctx = match self.kept("turn_context", Some(pi)) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        let model = p
            .meta
            .model
            .clone()
            .or_else(|| log.frontmatter.model.clone());
        if let Some(m) = model {
            ctx.insert("model".into(), m.into());
        }
        let cwd = log
            .frontmatter
            .extra
            .get("cwd")
            .and_then(crucible_core::yaml::Value::as_str);
        ctx.entry("cwd")
            .or_insert_with(|| cwd.unwrap_or(".").into());
        ctx.entry("approval_policy")
            .or_insert_with(|| "on-request".into());
        ctx.entry("sandbox_policy")
            .or_insert_with(|| json!({"mode": "workspace-write"}));
        ctx.entry("summary").or_insert_with(|| "auto".into());
        self.push("turn_context", Value::Object(ctx));
    }

    fn turn(&mut self, log: &SessionLog, pi: usize, p: &Phase) {
        if let Some(t) = &p.meta.started {
            self.ms = self.ms.max(t.unix_ms());
        }
        self.contexts(pi);
        self.turn_context(log, pi, p);
        let words = crucible_core::first_user_words(&p.blocks)
            .unwrap_or_else(|| p.name.clone())
            .trim()
            .to_owned();
        // Every turn starts with the user's words: Codex's turns do, and an
        // empty message would be read back as no turn at all.
        let words = if words.is_empty() {
            format!("Turn {}", pi + 1)
        } else {
            words
        };
        self.user(&words);
        self.reasoning(pi);
        let mut seen_user = false;
        let mut call = 0;
        for b in &p.blocks {
            match b {
                Block::Callout(c) if c.kind() == CalloutKind::User && !seen_user => {
                    seen_user = true;
                }
                Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") => {
                    self.assistant(&c.text());
                }
                Block::ToolCalls { calls } => {
                    for c in calls {
                        let whole = self.data.call_at(pi, call).cloned();
                        self.call(c, whole.as_ref());
                        call += 1;
                    }
                }
                Block::Rule => {}
                other => {
                    if let Some(t) = block_text(other) {
                        self.assistant(&t);
                    }
                }
            }
        }
        for r in &p.usage {
            self.request(r);
        }
    }

    /// The context Codex had injected as user messages before this turn
    /// (its environment, instructions, AGENTS.md), written back in place.
    fn contexts(&mut self, pi: usize) {
        let before = |phase: Option<usize>| match phase {
            None => pi == 0,
            Some(p) => p + 1 == pi,
        };
        let texts: Vec<String> = self
            .data
            .records
            .iter()
            .filter_map(|r| match r {
                DataRecord::Context(c)
                    if before(c.phase)
                        && matches!(
                            c.label.as_str(),
                            "environment_context" | "user_instructions" | "agents_md"
                        ) =>
                {
                    Some(c.text.clone())
                }
                _ => None,
            })
            .collect();
        for t in texts {
            self.push("response_item", message("user", "input_text", &t));
        }
    }

    fn user(&mut self, words: &str) {
        self.push("response_item", message("user", "input_text", words));
        self.push(
            "event_msg",
            json!({"type": "user_message", "message": words, "kind": "plain"}),
        );
    }

    fn assistant(&mut self, text: &str) {
        self.push("response_item", message("assistant", "output_text", text));
        self.push(
            "event_msg",
            json!({"type": "agent_message", "message": text}),
        );
    }

    fn reasoning(&mut self, pi: usize) {
        let items: Vec<Value> = self
            .data
            .records
            .iter()
            .filter_map(|r| match r {
                DataRecord::Thinking(t) if t.phase == Some(pi) => {
                    let mut item = Map::new();
                    item.insert("type".into(), "reasoning".into());
                    item.insert(
                        "summary".into(),
                        json!([{"type": "summary_text", "text": t.text}]),
                    );
                    item.extend(t.extra.clone());
                    Some(Value::Object(item))
                }
                _ => None,
            })
            .collect();
        for item in items {
            self.push("response_item", item);
        }
    }

    fn call(&mut self, c: &crucible_core::ToolCall, whole: Option<&CallData>) {
        let id = whole
            .and_then(|w| w.id.clone())
            .unwrap_or_else(|| format!("call_{}", self.lines.len()));
        let arguments = whole
            .and_then(|w| w.arguments.clone())
            .unwrap_or_else(|| super::turns::arguments(c));
        let item_type = whole.and_then(|w| w.extra.get("item_type"));
        if item_type.is_some_and(|t| t == "web_search_call") {
            // A search Codex ran itself: no call id, no output item.
            let mut item = json!({"type": "web_search_call"});
            if let Some(status) = whole.and_then(|w| w.extra.get("status")) {
                item["status"] = status.clone();
            }
            if !arguments.is_null() {
                item["action"] = arguments;
            }
            self.push("response_item", item);
            return;
        }
        let custom = item_type.is_some_and(|t| t == "custom_tool_call");
        let as_text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if custom {
            self.push(
                "response_item",
                json!({"type": "custom_tool_call", "status": "completed", "call_id": id,
                       "name": c.tool, "input": as_text(&arguments)}),
            );
        } else {
            self.push(
                "response_item",
                json!({"type": "function_call", "name": c.tool,
                       "arguments": as_text(&arguments), "call_id": id}),
            );
        }
        // A call the source never answered (its turn was cut off) stays so.
        if whole.is_some_and(|w| w.result.is_none()) {
            return;
        }
        let kind = if custom {
            "custom_tool_call_output"
        } else {
            "function_call_output"
        };
        self.push(
            "response_item",
            json!({"type": kind, "call_id": id, "output": output_of(c, whole)}),
        );
    }

    /// A usage record of the turn as the `token_count` that follows its
    /// request: the running total with it added, at its time.
    fn request(&mut self, r: &UsageRecord) {
        self.running.add(r.tokens);
        let mut info = json!({"total_token_usage": codex_counts(self.running),
                              "last_token_usage": codex_counts(r.tokens)});
        if let Some(m) = &r.model {
            info["model"] = m.clone().into();
        }
        let stamp = if let Some(t) = &r.at {
            stamp_of(t.unix_ms())
        } else {
            self.ms += 1;
            stamp_of(self.ms - 1)
        };
        self.push_stamped(
            stamp,
            "event_msg",
            json!({"type": "token_count", "info": info}),
        );
    }

    /// The session's tokens as one last running total, in Codex's kinds.
    fn token_count(&mut self, log: &SessionLog) {
        // A session that counts tokens without their kinds (written by
        // hand, or by an agent that gave one number) writes them as input.
        let fm = &log.frontmatter;
        let Some(u) = crucible_core::UsageByModel::of(fm)
            .map(|u| u.total())
            .or_else(|| {
                fm.tokens_used.map(|n| crucible_core::Tokens {
                    input: n,
                    ..crucible_core::Tokens::default()
                })
            })
        else {
            return;
        };
        let totals = codex_counts(u);
        self.push(
            "event_msg",
            json!({"type": "token_count",
                   "info": {"total_token_usage": totals, "last_token_usage": totals}}),
        );
    }
}

/// Tokens in Codex's kinds. Codex has no kind for cache writes: they were
/// input the model read, so they go in `input_tokens` and the total
/// survives the trip (`cru` and ccusage read them back as uncached input).
fn codex_counts(u: Tokens) -> Value {
    let input = u.input + u.cache_creation;
    json!({
        "input_tokens": input + u.cache_read,
        "cached_input_tokens": u.cache_read,
        "output_tokens": u.output,
        "reasoning_output_tokens": u.reasoning,
        "total_tokens": input + u.cache_read + u.output,
    })
}

/// A line's `timestamp`: the millisecond `ms`, in UTC.
fn stamp_of(ms: i64) -> String {
    let t = Timestamp::from_unix_ms(ms).instant();
    t.checked_add(millis_within_second(ms))
        .unwrap_or(t)
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// No shift: [`Writer::push`] keeps the millisecond that
/// [`Timestamp::from_unix_ms`] cuts to the second.
fn millis_within_second(ms: i64) -> std::time::Duration {
    std::time::Duration::from_millis(ms.rem_euclid(1000).unsigned_abs())
}

fn message(role: &str, part: &str, text: &str) -> Value {
    json!({"type": "message", "role": role, "content": [{"type": part, "text": text}]})
}

/// A call's output as Codex writes it: the full text, in the
/// `{"output", "metadata"}` wrapper when the source had one or the call
/// failed (so that the exit code says so).
fn output_of(c: &crucible_core::ToolCall, whole: Option<&CallData>) -> String {
    let text = match whole.and_then(|w| w.result.as_ref()) {
        Some(r) => crate::transcript::text_of(r),
        None => super::turns::result_text(c),
    };
    // The source's wrapper as it was; else one for what the call record
    // knows (an exec stream's exit code).
    let metadata = whole.and_then(|w| {
        w.extra.get("metadata").cloned().or_else(|| {
            w.exit_code.map(|code| match w.duration_ms {
                Some(ms) => json!({"exit_code": code, "duration_seconds": ms as f64 / 1000.0}),
                None => json!({"exit_code": code}),
            })
        })
    });
    match metadata {
        Some(m) => json!({"output": text, "metadata": m}).to_string(),
        None if c.failed && !crate::codex::Output::read(&Value::String(text.clone())).failed => {
            json!({"output": text, "metadata": {"exit_code": 1}}).to_string()
        }
        None => text,
    }
}
