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
//! and `toolUseResult` when it has them. The session model's tokens ride on
//! its first assistant line and each other model's on a line of its own,
//! so that a re-import counts them again, by kind and model. What is
//! not written is listed in docs/interop.md.

use serde_json::{Value, json};

use crucible_core::{
    Block, CallData, CalloutKind, SessionData, SessionLog, ToolCall, resume::block_text,
};

use crate::{Provenance, fnv_hex};
use crucible_core::UsageByModel;

/// The release whose transcript shape this follows (the newest in the
/// real fixtures with this envelope).
const VERSION: &str = "2.0.29";

/// Writes the transcript.
pub(crate) fn write(log: &SessionLog, data: &SessionData) -> Vec<u8> {
    let mut w = Lines::new(log);
    for (pi, (_, phase)) in log.phases().enumerate() {
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
            other_tokens: session_usage(log),
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
                e.insert("timestamp".into(), self.timestamp.clone().into());
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

    /// An assistant line; the first from the session's model carries its
    /// tokens.
    fn assistant(&mut self, content: Vec<Value>, synthetic: bool) {
        let (model, tokens) = if synthetic {
            (Some("<synthetic>".to_owned()), None)
        } else {
            (self.model.clone(), self.first_tokens.take())
        };
        self.assistant_line(content, model, tokens.unwrap_or_default());
    }

    fn assistant_line(
        &mut self,
        content: Vec<Value>,
        model: Option<String>,
        u: crucible_core::Tokens,
    ) {
        let id = format!(
            "msg_{}",
            fnv_hex(format!("{}:{}", self.session_id, self.n).as_bytes())
        );
        let mut line = json!({"type": "assistant", "requestId": format!("req_{}", &id[4..]), "message": {
            "id": id, "type": "message", "role": "assistant",
            "content": [], "stop_reason": Value::Null, "stop_sequence": Value::Null,
            "usage": {"input_tokens": u.input, "output_tokens": u.output,
                "cache_creation_input_tokens": u.cache_creation,
                "cache_read_input_tokens": u.cache_read},
        }});
        if let Some(m) = model {
            line["message"]["model"] = m.into();
        }
        line["message"]["content"] = Value::Array(content);
        self.push(line, true);
    }

    /// Tokens no assistant line carried (a session of only prompts and
    /// notes), and other models' tokens: each on an assistant line of no
    /// content, so that a re-import counts them by model again.
    fn rest_of_tokens(&mut self) {
        if let Some(u) = self.first_tokens.take().filter(|u| !u.is_zero()) {
            self.assistant_line(Vec::new(), self.model.clone(), u);
        }
        let others = std::mem::take(&mut self.other_tokens);
        for (model, u) in others.models.into_iter().filter(|(_, u)| !u.is_zero()) {
            let model = (model != "unknown").then_some(model);
            self.assistant_line(Vec::new(), model, u);
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
