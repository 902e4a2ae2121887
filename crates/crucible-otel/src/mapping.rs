//! One session, one trace: the mapping `docs/otel.md` describes.

mod phase;

use crucible_core::{
    Block, CalloutKind, PhaseId, Section, SessionData, SessionLog, SessionStatus, UsageLine,
};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;

use crate::attributes::{self as a, Attributes};
use crate::ids;
use crate::span::{Link, Span, Status};
use crate::times::{self, Interval, PhaseClock};

/// The resource every exported span belongs to: `service.name` and the
/// rest of what the caller read from `OTEL_SERVICE_NAME` and
/// `OTEL_RESOURCE_ATTRIBUTES`, in order.
#[derive(Debug, Clone, Default)]
pub struct Resource {
    pub attributes: Vec<(String, String)>,
}

/// A session's trace cut where its parts settle: the root (with what
/// happened before the first phase) and each phase with what happened in
/// it. A part that is not settled yet will still change (an open phase's
/// end, the root's end and status); an engine that keeps the first copy
/// of a span (Phoenix) must not be sent it before it settles.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The root span, then the spans of what came before the first phase.
    pub root: Vec<Span>,
    /// The session is over (paused, completed or failed): the root's end,
    /// status and figures are final unless it is resumed.
    pub root_settled: bool,
    pub phases: Vec<PhaseSpans>,
}

/// One phase's span followed by its children's.
#[derive(Debug, Clone, Default)]
pub struct PhaseSpans {
    pub spans: Vec<Span>,
    /// A phase is closed once another phase follows it or the session is
    /// over.
    pub closed: bool,
}

/// `log`'s trace in its parts ([`Trace`]): the root first, then each phase
/// followed by what happened in it. `data` (the session's sidecar) gives
/// tool calls their source's ids and durations where it has them.
pub fn session_trace(log: &SessionLog, data: Option<&SessionData>) -> Trace {
    let session = Session::new(log, data);
    let over = log.frontmatter.status != SessionStatus::Active;
    let n = log.phases().count();
    let phases: Vec<PhaseSpans> = log
        .phases()
        .enumerate()
        .map(|(i, (id, phase))| {
            let mut spans = Vec::new();
            phase::spans(&session, i, id, phase, &mut spans);
            PhaseSpans {
                spans,
                closed: over || i + 1 < n,
            }
        })
        .collect();
    // The session's last words are its last phase's that has any (the
    // phases' spans hold them already), else those before the phases.
    let output = phases
        .iter()
        .rev()
        .find_map(|p| {
            p.spans
                .first()
                .and_then(|s| s.string_attribute(a::OUTPUT_VALUE))
                .map(str::to_owned)
        })
        .or_else(|| last_words(log.preamble.iter()));
    let mut root = vec![session.root_span(output)];
    session.own_blocks(&mut root);
    // The root holds every phase, and what lasted longer than its share.
    for p in &phases {
        if let Some(first) = p.spans.first() {
            root[0].start_time_unix_nano =
                root[0].start_time_unix_nano.min(first.start_time_unix_nano);
            root[0].end_time_unix_nano = root[0].end_time_unix_nano.max(first.end_time_unix_nano);
        }
    }
    phase::widen_to_children(&mut root, 0);
    Trace {
        root,
        root_settled: over,
        phases,
    }
}

/// What every span of one session needs.
struct Session<'a> {
    log: &'a SessionLog,
    data: Option<&'a SessionData>,
    id: &'a str,
    /// The id again, for the attributes every span carries.
    shared_id: std::sync::Arc<str>,
    trace_id: [u8; 16],
    interval: Interval,
    phases: Vec<Interval>,
    usage: Vec<UsageLine>,
}

impl<'a> Session<'a> {
    fn new(log: &'a SessionLog, data: Option<&'a SessionData>) -> Self {
        let fm = &log.frontmatter;
        let clocks: Vec<PhaseClock> = log
            .phases()
            .map(|(_, p)| {
                let responses = p
                    .usage
                    .iter()
                    .filter_map(|r| r.at.as_ref())
                    .map(crucible_core::Timestamp::unix_ms);
                PhaseClock {
                    level: p.level,
                    started_ms: p
                        .meta
                        .started
                        .as_ref()
                        .map(crucible_core::Timestamp::unix_ms),
                    duration_ms: p.meta.duration_ms,
                    first_record_ms: responses.clone().min(),
                    last_record_ms: responses.max(),
                }
            })
            .collect();
        let interval = times::session_interval(
            fm.started.unix_ms(),
            fm.ended.as_ref().map(crucible_core::Timestamp::unix_ms),
            &clocks,
        );
        let phases = times::phase_intervals(interval, &clocks);
        let interval = times::enclosing(interval, &phases);
        let id = log.id().as_str();
        Self {
            log,
            data,
            id,
            shared_id: id.into(),
            trace_id: ids::trace_id(id),
            interval,
            phases,
            usage: log.usage_lines(),
        }
    }

    fn span_id(&self, path: &str) -> [u8; 8] {
        ids::span_id(self.id, path)
    }

    fn phase_span_id(&self, id: PhaseId) -> [u8; 8] {
        self.span_id(&id.to_string())
    }

    /// A span of this trace with the times and ids filled in; `parent` is
    /// `None` for the root.
    fn span(&self, path: &str, parent: Option<[u8; 8]>, name: String, iv: Interval) -> Span {
        Span {
            trace_id: self.trace_id,
            span_id: self.span_id(path),
            parent_span_id: parent,
            name,
            kind: SpanKind::Internal as i32,
            start_time_unix_nano: times::nanos(iv.start),
            end_time_unix_nano: times::nanos(iv.end),
            ..Span::default()
        }
    }

    /// Attributes every span of the session carries, so that an engine
    /// groups any one of them with its session.
    fn common(&self) -> Attributes {
        // Room for a `chat` span's, the most any span has.
        Attributes::with_capacity(18)
            .shared(a::SESSION_ID, &self.shared_id)
            .shared(a::CONVERSATION, &self.shared_id)
    }

    /// The root span; `output` is the session's last words.
    fn root_span(&self, output: Option<String>) -> Span {
        let fm = &self.log.frontmatter;
        let agent = fm.participants.first();
        let name = format!("invoke_agent {}", agent.map_or("cru", |a| a.name.as_str()));
        let mut span = self.span(ids::ROOT, None, name, self.interval);
        let mut attrs = self
            .common()
            .str(a::OPERATION, "invoke_agent")
            .str(a::SPAN_KIND, "AGENT")
            .opt_str(a::AGENT_NAME, agent.map(|a| a.name.clone()))
            .opt_str(a::AGENT_NAME_OI, agent.map(|a| a.name.clone()))
            .opt_str(a::AGENT_VERSION, agent.and_then(|a| a.version.clone()))
            .opt_str(a::REQUEST_MODEL, fm.model.clone())
            .opt_str(a::LLM_MODEL, fm.model.clone())
            .opt_str(a::PROVIDER, fm.model.as_deref().and_then(provider))
            .opt_str(a::INPUT_VALUE, self.prompt())
            .opt_str(a::OUTPUT_VALUE, output)
            .opt_str(a::CRU_SESSION_TITLE, self.log.title())
            .str(a::CRU_SESSION_STATUS, fm.status.as_str())
            .opt_str(a::CRU_CHANNEL, fm.channel.clone())
            .opt_str(
                a::CRU_PARENT_SESSION,
                fm.parent.as_ref().map(ToString::to_string),
            );
        // Figures the session holds only in its frontmatter (no phase has
        // any) are the root's: the attribution rule credits them to the
        // session, and no other span carries them.
        attrs = figures(attrs, self.usage.iter().filter(|l| l.phase.is_none()));
        span.attributes = attrs.into_vec();
        if let Some(parent) = &fm.parent {
            span.links.push(link_to_session(parent.as_str(), "parent"));
        }
        if fm.status == SessionStatus::Failed {
            span.status = Some(error_status("the session failed"));
        }
        span
    }

    /// What the session holds outside its phases (before the first, or
    /// in sections that are not phases): tool calls as spans of the root,
    /// callouts as its events, in the time before the first phase.
    fn own_blocks(&self, root: &mut Vec<Span>) {
        let own: Vec<Block> = self
            .log
            .preamble
            .iter()
            .chain(
                self.log
                    .sections
                    .iter()
                    .filter_map(|s| match s {
                        Section::Plain(p) => Some(&p.blocks),
                        Section::Phase(_) => None,
                    })
                    .flatten(),
            )
            .filter(|b| matches!(b, Block::ToolCalls { .. } | Block::Callout(_)))
            .cloned()
            .collect();
        if own.is_empty() {
            return;
        }
        let window = Interval {
            start: self.interval.start,
            end: self
                .phases
                .first()
                .map_or(self.interval.end, |p| p.start)
                .max(self.interval.start),
        };
        let owner = phase::Owner {
            path: ids::ROOT.to_owned(),
            phase_index: None,
            at: 0,
        };
        phase::blocks(self, &owner, &own, window, root);
        if root[0].status.is_none() && root[1..].iter().any(|c| c.status.is_some()) {
            root[0].status = Some(error_status("a tool call of the session failed"));
        }
    }

    /// The request the session started from: its `prompt` block, else its
    /// title (what the task was), else the first words a user said in it,
    /// else the name of its first phase
    /// (what an engine's session list shows as the session's first input;
    /// a `[!user]` correction halfway through is a poor name for a task).
    fn prompt(&self) -> Option<String> {
        self.log
            .blocks()
            .find_map(|b| match b {
                Block::Prompt { text } => Some(text.clone()),
                _ => None,
            })
            .or_else(|| self.log.title().map(str::to_owned))
            .or_else(|| {
                self.log
                    .phases()
                    .find_map(|(_, p)| crucible_core::first_user_words(&p.blocks))
            })
            // What the first phase set out to do.
            .or_else(|| self.log.phases().next().map(|(_, p)| p.name.clone()))
    }
}

/// The last words written in `blocks`: a paragraph (an agent's reply), a
/// callout other than a user's (a decision, a summary), else the result of
/// the last tool call: what an engine shows as a span's output.
fn last_words<'b>(blocks: impl DoubleEndedIterator<Item = &'b Block>) -> Option<String> {
    let text = |t: &str| {
        let t = t.trim();
        (!t.is_empty()).then(|| t.to_owned())
    };
    blocks.rev().find_map(|b| match b {
        Block::Prose { text: t } => text(t),
        Block::Callout(c) if !matches!(c.kind(), CalloutKind::User) => {
            text(&c.text()).or_else(|| text(&c.title))
        }
        Block::ToolCalls { calls } => calls
            .last()
            .and_then(|c| c.summary.as_deref())
            .and_then(text),
        _ => None,
    })
}

/// The GenAI conventions' `gen_ai.provider.name` of a model, where its
/// name says it.
fn provider(model: &str) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    if m.starts_with("claude") {
        Some("anthropic")
    } else if m.starts_with("gpt")
        || m.starts_with("o1")
        || m.starts_with("o3")
        || m.starts_with("o4")
        || m.contains("codex")
    {
        Some("openai")
    } else if m.starts_with("gemini") {
        Some("gcp.gemini")
    } else if m.starts_with("mistral") || m.starts_with("codestral") {
        Some("mistral_ai")
    } else if m.starts_with("deepseek") {
        Some("deepseek")
    } else if m.starts_with("grok") {
        Some("x_ai")
    } else {
        None
    }
}

/// Token figures without requests (a phase's `tokens=`, a frontmatter's
/// totals): OpenInference's counts where the kinds are known, the untyped
/// rest as cru's own attribute and in the total.
/// Nothing is added when the lines hold no token.
fn figures<'l>(attrs: Attributes, lines: impl Iterator<Item = &'l UsageLine>) -> Attributes {
    let mut tokens = crucible_core::Tokens::default();
    let mut untyped = 0u64;
    for line in lines {
        tokens.add(line.tokens);
        untyped = untyped.saturating_add(line.untyped);
    }
    let mut attrs = attrs;
    if !tokens.is_zero() {
        attrs = attrs
            .int(a::LLM_PROMPT_TOKENS, prompt_tokens(tokens))
            .int(a::LLM_COMPLETION_TOKENS, tokens.output);
    }
    if untyped > 0 {
        attrs = attrs.int(a::CRU_UNTYPED_TOKENS, untyped);
    }
    let total = tokens.total().saturating_add(untyped);
    if total > 0 {
        attrs = attrs.int(a::LLM_TOTAL_TOKENS, total);
    }
    attrs
}

/// The prompt as OpenInference and the GenAI conventions count it: the
/// input with its cached parts.
fn prompt_tokens(t: crucible_core::Tokens) -> u64 {
    t.input
        .saturating_add(t.cache_read)
        .saturating_add(t.cache_creation)
}

/// A link to the root span of another session's trace.
fn link_to_session(session_id: &str, relation: &str) -> Link {
    Link {
        trace_id: ids::trace_id(session_id),
        span_id: ids::span_id(session_id, ids::ROOT),
        attributes: Attributes::default()
            .str("cru.link.relation", relation)
            .str(a::SESSION_ID, session_id)
            .into_vec(),
    }
}

fn error_status(message: &str) -> Status {
    Status {
        message: message.to_owned(),
        code: StatusCode::Error as i32,
    }
}
