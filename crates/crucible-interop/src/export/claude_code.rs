//! A session as a Claude Code transcript (`--to claude-code`): one JSON
//! line per message with Claude Code's envelope (`type`, `uuid`,
//! `parentUuid` chaining each line to the one before, `sessionId`,
//! `timestamp`, `cwd`, `version`, `message`), the shape its `--resume`
//! reads from `~/.claude/projects/<slug>/<sessionId>.jsonl`.
//!
//! A `[!user]` callout is a user line; a reply an assistant `text` line; an
//! `[!error]` an assistant line from the `<synthetic>` model (Claude
//! Code's own placeholder for a failed request); each tool call an
//! assistant `tool_use` line and then a user line holding its
//! `tool_result` (`is_error` for ✗), with the sidecar's id, input, result
//! and `toolUseResult` when it has them. Each usage record of a phase
//! rides on one of the phase's assistant lines (its `message.id`,
//! `requestId`, time, model, tokens and `costUSD`), on a line of no
//! content when the phase has more records than lines, so that a
//! re-import gives the same records. A session without records (only
//! totals) has the session model's tokens on its first assistant line and
//! each other model's on a line of its own, so that a re-import counts
//! them again, by kind and model. What is not written is listed in
//! docs/interop.md.

use std::collections::VecDeque;

use serde_json::{Value, json};

use crucible_core::{
    Block, CallData, CalloutKind, SessionData, SessionLog, Tokens, ToolCall, UsageByModel,
    UsageRecord, resume::block_text,
};

use crate::{Provenance, fnv_hex};

/// The release whose transcript shape this follows (the newest in the
/// real fixtures with this envelope).
const VERSION: &str = "2.0.29";

/// Writes the transcript.
pub(crate) fn write(log: &SessionLog, data: &SessionData) -> Vec<u8> {
    let mut w = Lines::new(log);
    for (pi, (_, phase)) in log.phases().enumerate() {
        w.requests = phase.usage.iter().cloned().collect();
        // A user line starts every turn of a transcript: the phase's first
        // `[!user]` words, else its name.
        let opener = phase
            .blocks
            .iter()
            .position(|b| matches!(b, Block::Callout(c) if c.kind() == CalloutKind::User));
        let words = match opener.map(|i| &phase.blocks[i]) {
            Some(Block::Callout(c)) => c.user_parts().quote.unwrap_or_else(|| c.text()),
            _ => phase.name.clone(),
        };
        w.user(json!(as_typed(words.trim())), None);
        let mut call = 0;
        for (bi, b) in phase.blocks.iter().enumerate() {
            match b {
                _ if Some(bi) == opener => {}
                Block::Callout(c) if c.kind() == CalloutKind::User => {
                    let words = c.user_parts().quote.unwrap_or_else(|| c.text());
                    w.user(json!(as_typed(words.trim())), None);
                }
                Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") => {
                    w.assistant(vec![json!({"type": "text", "text": c.text()})], false);
                }
                Block::Callout(c) if c.kind() == CalloutKind::Error => {
                    w.assistant(vec![json!({"type": "text", "text": c.text()})], true);
                }
                // A subagent's run is a session of its own, exported on its own.
                Block::Callout(c) if c.kind() == CalloutKind::Subagent => {}
                Block::ToolCalls { calls } => {
                    for c in calls {
                        w.tool_call(c, data.call_at(pi, call));
                        call += 1;
                    }
                }
                Block::Rule => {}
                // Notes, decisions, prose: the agent's words.
                other => {
                    if let Some(t) = block_text(other).filter(|t| !t.trim().is_empty()) {
                        w.assistant(vec![json!({"type": "text", "text": t})], false);
                    }
                }
            }
        }
        while let Some(r) = w.requests.pop_front() {
            w.assistant_line(Vec::new(), Request::of(r));
        }
    }
    if log.phase_count() > 0 {
        w.rest_of_tokens();
    }
    w.out
}

/// The transcript being written, and the envelope every line shares.
struct Lines {
    session_id: String,
    cwd: String,
    git_branch: Option<String>,
    timestamp: String,
    model: Option<String>,
    /// The session model's tokens, for the first assistant line.
    first_tokens: Option<crucible_core::Tokens>,
    /// Other models' tokens, each on an assistant line of its own at the end.
    other_tokens: UsageByModel,
    /// The usage records of the phase being written, for its next
    /// assistant lines.
    requests: VecDeque<UsageRecord>,
    parent: Option<String>,
    n: usize,
    out: Vec<u8>,
}

impl Lines {
    fn new(log: &SessionLog) -> Self {
        let fm = &log.frontmatter;
        let text = |k: &str| fm.extra.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        // The source's own session id when the session came from Claude
        // Code, so that a resume finds the conversation it knows.
        let session_id = Provenance::of(log)
            .filter(|p| p.format == "claude-code")
            .and_then(|p| p.id)
            .unwrap_or_else(|| uuid_of(fm.session_id.as_str(), 0));
        let mut w = Self {
            session_id,
            cwd: text("cwd").unwrap_or_else(|| "/".to_owned()),
            git_branch: text("git_branch"),
            timestamp: fm.started.as_str().to_owned(),
            model: fm.model.clone(),
            first_tokens: None,
            // Records carry the session's tokens: its totals are their sum.
            other_tokens: if log.usage_records().next().is_some() {
                UsageByModel::default()
            } else {
                session_usage(log)
            },
            requests: VecDeque::new(),
            parent: None,
            n: 0,
            out: Vec::new(),
        };
        let main_model = w.model.clone().unwrap_or_else(|| "unknown".to_owned());
        w.first_tokens = w.other_tokens.models.remove(&main_model);
        if let Some(t) = log.title() {
            w.push(
                json!({"type": "summary", "summary": t, "leafUuid": Value::Null}),
                false,
            );
        }
        w
    }

    /// Writes `line`; with `envelope`, Claude Code's envelope first.
    fn push(&mut self, mut line: Value, envelope: bool) {
        if envelope {
            self.n += 1;
            let uuid = uuid_of(&self.session_id, self.n);
            let mut env = json!({
                "parentUuid": self.parent,
                "isSidechain": false,
                "userType": "external",
                "cwd": self.cwd,
                "sessionId": self.session_id,
                "version": VERSION,
                "gitBranch": self.git_branch.clone().unwrap_or_default(),
            });
            if let (Some(e), Some(l)) = (env.as_object_mut(), line.as_object()) {
                e.extend(l.clone());
                e.insert("uuid".into(), uuid.clone().into());
                // A line of a request has the request's time.
                e.entry("timestamp")
                    .or_insert_with(|| self.timestamp.clone().into());
            }
            line = env;
            self.parent = Some(uuid);
        }
        serde_json::to_writer(&mut self.out, &line).expect("JSON values serialize");
        self.out.push(b'\n');
    }

    fn user(&mut self, content: Value, extra: Option<(&str, Value)>) {
        let mut line = json!({"type": "user", "message": {"role": "user"}});
        line["message"]["content"] = content;
        if let Some((k, v)) = extra {
            line[k] = v;
        }
        self.push(line, true);
    }

    /// An assistant line: it carries the phase's next usage record, or
    /// (a session with only totals) the first from the session's model
    /// carries its tokens. A `<synthetic>` line carries none.
    fn assistant(&mut self, content: Vec<Value>, synthetic: bool) {
        let request = if synthetic {
            Request::spent(Some("<synthetic>".to_owned()), Tokens::default())
        } else if let Some(r) = self.requests.pop_front() {
            Request::of(r)
        } else {
            let tokens = self.first_tokens.take().unwrap_or_default();
            Request::spent(self.model.clone(), tokens)
        };
        self.assistant_line(content, request);
    }

    fn assistant_line(&mut self, content: Vec<Value>, r: Request) {
        let made = || {
            let id = format!(
                "msg_{}",
                fnv_hex(format!("{}:{}", self.session_id, self.n).as_bytes())
            );
            let request = format!("req_{}", &id[4..]);
            (id, Some(request))
        };
        let ids = match r.ids {
            Ids::Made => Some(made()),
            Ids::Given(message, request) => Some((message, request)),
            Ids::None => None,
        };
        let u = r.tokens;
        let mut line = json!({"type": "assistant", "message": {
            "type": "message", "role": "assistant",
            "content": [], "stop_reason": Value::Null, "stop_sequence": Value::Null,
            "usage": {"input_tokens": u.input, "output_tokens": u.output,
                "cache_creation_input_tokens": u.cache_creation,
                "cache_read_input_tokens": u.cache_read},
        }});
        if u.cache_creation_1h > 0 {
            // The split Claude Code writes when part went to the 1-hour cache.
            let one_hour = u.cache_creation_1h.min(u.cache_creation);
            line["message"]["usage"]["cache_creation"] = json!({
                "ephemeral_5m_input_tokens": u.cache_creation - one_hour,
                "ephemeral_1h_input_tokens": one_hour,
            });
        }
        if let Some((message, request)) = ids {
            line["message"]["id"] = message.into();
            if let Some(request) = request {
                line["requestId"] = request.into();
            }
        }
        if let Some(m) = r.model {
            line["message"]["model"] = m.into();
        }
        if let Some(at) = r.at {
            line["timestamp"] = at.into();
        }
        if let Some(c) = r.cost_usd {
            line["costUSD"] = c.into();
        }
        line["message"]["content"] = Value::Array(content);
        self.push(line, true);
    }

    /// Tokens no assistant line carried (a session of only prompts and
    /// notes), and other models' tokens: each on an assistant line of no
    /// content, so that a re-import counts them by model again.
    fn rest_of_tokens(&mut self) {
        if let Some(u) = self.first_tokens.take().filter(|u| !u.is_zero()) {
            self.assistant_line(Vec::new(), Request::spent(self.model.clone(), u));
        }
        let others = std::mem::take(&mut self.other_tokens);
        for (model, u) in others.models.into_iter().filter(|(_, u)| !u.is_zero()) {
            let model = (model != crucible_core::UNKNOWN_MODEL).then_some(model);
            self.assistant_line(Vec::new(), Request::spent(model, u));
        }
    }

    /// The call's `tool_use` line and its `tool_result` line.
    fn tool_call(&mut self, c: &ToolCall, whole: Option<&CallData>) {
        let id = whole.and_then(|w| w.id.clone()).unwrap_or_else(|| {
            format!(
                "toolu_{}",
                fnv_hex(format!("{}:{}", self.session_id, self.n).as_bytes())
            )
        });
        let input = match whole.and_then(|w| w.arguments.clone()) {
            Some(Value::String(s)) => serde_json::from_str(&s).unwrap_or(json!({"input": s})),
            Some(v) => v,
            None => super::turns::arguments(c),
        };
        let tool_use = json!({"type": "tool_use", "id": id, "name": c.tool, "input": input});
        self.assistant(vec![tool_use], false);
        let content = match whole.and_then(|w| w.result.clone()) {
            Some(r) => r,
            None => json!(c.summary.clone().unwrap_or_default()),
        };
        let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": content});
        if c.failed {
            result["is_error"] = true.into();
        }
        let extra = whole
            .and_then(|w| w.extra.get("toolUseResult").cloned())
            .map(|v| ("toolUseResult", v));
        self.user(json!([result]), extra);
    }
}

/// What an assistant line says of the model request it stands for.
struct Request {
    model: Option<String>,
    tokens: Tokens,
    ids: Ids,
    /// The request's time; else the session's start.
    at: Option<String>,
    cost_usd: Option<f64>,
}

/// A line's `message.id` and `requestId`.
enum Ids {
    /// Made from the line's place in the transcript.
    Made,
    /// A record's (`<message.id>:<requestId>`, or a message id alone).
    Given(String, Option<String>),
    /// None: the record had no id, and a re-import gives it none.
    None,
}

impl Request {
    /// Tokens spent by `model`, on a line of made-up ids.
    fn spent(model: Option<String>, tokens: Tokens) -> Self {
        Self {
            model,
            tokens,
            ids: Ids::Made,
            at: None,
            cost_usd: None,
        }
    }

    /// A usage record, as the line it was read from.
    fn of(r: UsageRecord) -> Self {
        let ids = match r.id {
            Some(id) => {
                let (message, request) = crate::claude_code::ids_of_record(&id);
                Ids::Given(message.to_owned(), request.map(str::to_owned))
            }
            None => Ids::None,
        };
        Self {
            model: r.model,
            tokens: r.tokens,
            ids,
            at: r.at.map(|t| t.as_str().to_owned()),
            cost_usd: r.cost_usd,
        }
    }
}

/// The session's tokens by kind; a session that has only a total
/// (`tokens_used`, as native sessions do) gives it as input tokens, the
/// one place a transcript has for a count it cannot split.
fn session_usage(log: &SessionLog) -> UsageByModel {
    if let Some(u) = UsageByModel::of(&log.frontmatter) {
        return u;
    }
    let mut u = UsageByModel::default();
    if let Some(total) = log.frontmatter.tokens_used.filter(|t| *t > 0) {
        let usage = crucible_core::Tokens {
            input: total,
            ..crucible_core::Tokens::default()
        };
        u.add(log.frontmatter.model.as_deref(), usage);
    }
    u
}

/// The user's words as Claude Code writes them: a slash command (`/review
/// src/`, all Claude Code reads from a line that starts with `/`) in its
/// `<command-name>` form, anything else as it is.
fn as_typed(words: &str) -> String {
    if !words.starts_with('/') || words.contains('\n') {
        return words.to_owned();
    }
    let (name, args) = words.split_once(' ').unwrap_or((words, ""));
    format!(
        "<command-message>{}</command-message>\n<command-name>{name}</command-name>\n<command-args>{}</command-args>",
        name.trim_start_matches('/'),
        args.trim()
    )
}

/// A UUID-shaped id, the same for the same `seed` and `n`.
fn uuid_of(seed: &str, n: usize) -> String {
    let a = fnv_hex(format!("{seed}:{n}:a").as_bytes());
    let b = fnv_hex(format!("{seed}:{n}:b").as_bytes());
    format!(
        "{}-{}-4{}-8{}-{}",
        &a[..8],
        &a[8..12],
        &a[13..16],
        &b[..3],
        &b[4..16]
    )
}
