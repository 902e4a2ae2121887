//! A phase's span and what happened in it: tool calls, model turns,
//! inline subagents (spans), link and embed subagents (span links),
//! callouts (events).

use crucible_core::{
    Block, Callout, CalloutKind, Phase, PhaseId, SubagentMode, ToolCall, UsageRecord,
};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

use super::{Session, error_status, figures, link_to_session, prompt_tokens};
use crate::attributes::{self as a, Attributes};
use crate::span::{Event, Span};
use crate::times::{self, Interval};

/// Appends the spans of phase `index` (0-based) to `out`.
pub(super) fn spans(
    s: &Session<'_>,
    index: usize,
    id: PhaseId,
    phase: &Phase,
    out: &mut Vec<Span>,
) {
    let iv = s.phases[index];
    let parent = s
        .log
        .phase_parent(id)
        .map_or_else(|| s.span_id(crate::ids::ROOT), |p| s.phase_span_id(p));
    let path = id.to_string();
    let mut span = s.span(&path, Some(parent), phase.name.clone(), iv);
    let model = phase
        .meta
        .model
        .as_ref()
        .or(s.log.frontmatter.model.as_ref());
    let attrs = s
        .common()
        .str(a::SPAN_KIND, "CHAIN")
        .str(a::CRU_PHASE, path.clone())
        .opt_str(a::AGENT_NAME, phase.agent.as_ref().map(|a| a.name.clone()))
        .opt_str(
            a::AGENT_VERSION,
            phase.agent.as_ref().and_then(|a| a.version.clone()),
        )
        .opt_str(a::CRU_CHANNEL, phase.channel.clone())
        .opt_str(a::REQUEST_MODEL, model.cloned())
        .opt_str(
            a::INPUT_VALUE,
            crucible_core::first_user_words(&phase.blocks),
        )
        .opt_str(a::OUTPUT_VALUE, super::last_words(phase.blocks.iter()));
    // A phase's figures without requests (`tokens=`) are the phase's own;
    // with requests they are on its `chat` spans, never on both.
    let lines = s
        .usage
        .iter()
        .filter(|l| l.phase == Some(id.number()) && l.requests == 0);
    span.attributes = figures(attrs, lines).into_vec();
    let first_child = out.len() + 1;
    out.push(span);
    let owner = Owner {
        path,
        phase_index: Some(id.index()),
        at: first_child - 1,
    };
    blocks(s, &owner, &phase.blocks, iv, out);
    chats(s, id, phase, iv, out);
    // A phase in which something failed says so in its status, so that an
    // engine's error filter finds it; the failed call is the child in error.
    let failed = out[first_child..].iter().any(|c| c.status.is_some());
    if failed {
        out[first_child - 1].status = Some(error_status("a tool call of the phase failed"));
    }
    // A call that lasted longer than the phase's share (its sidecar's
    // duration) widens the phase: a child is drawn inside its parent.
    widen_to_children(out, first_child - 1);
}

/// Widens `out[parent]` to hold every span after it.
pub(super) fn widen_to_children(out: &mut [Span], parent: usize) {
    let (head, children) = out.split_at_mut(parent + 1);
    let p = &mut head[parent];
    for c in children.iter() {
        p.start_time_unix_nano = p.start_time_unix_nano.min(c.start_time_unix_nano);
        p.end_time_unix_nano = p.end_time_unix_nano.max(c.end_time_unix_nano);
    }
}

/// The span that tool calls, subagents and callouts belong to: a phase's,
/// or the root's for those before the first phase.
pub(super) struct Owner {
    /// The owner's path in the session (`phase-2`, `root`), the stem of
    /// its children's paths.
    pub path: String,
    /// The phase's index, where the sidecar files its calls.
    pub phase_index: Option<usize>,
    /// Where the owner's span is in the list its children are added to.
    pub at: usize,
}

/// Tool calls, subagents and callouts, each at its place in the phase: the
/// phase's interval is shared evenly among its blocks in document order
/// (docs/otel.md, "Times"); a call whose sidecar has its duration lasts
/// that long.
pub(super) fn blocks(
    s: &Session<'_>,
    owner: &Owner,
    blocks: &[Block],
    iv: Interval,
    out: &mut Vec<Span>,
) {
    let slots = blocks.len();
    let mut call = 0;
    let mut subagent = 0;
    for (b, block) in blocks.iter().enumerate() {
        let slot = iv.slot(b, slots);
        match block {
            Block::ToolCalls { calls } => {
                for (k, c) in calls.iter().enumerate() {
                    let at = slot.slot(k, calls.len());
                    let parent = out[owner.at].span_id;
                    out.push(tool_span(s, owner, parent, call, c, at));
                    call += 1;
                }
            }
            Block::Callout(c) if c.kind() == CalloutKind::Subagent => {
                subagent += 1;
                subagent_span(s, owner, subagent, c, slot, out);
            }
            Block::Callout(c) => out[owner.at].events.push(callout_event(c, slot.start)),
            _ => {}
        }
    }
}

fn tool_span(
    s: &Session<'_>,
    owner: &Owner,
    parent: [u8; 8],
    call: usize,
    c: &ToolCall,
    slot: Interval,
) -> Span {
    let data = owner
        .phase_index
        .and_then(|i| s.data.and_then(|d| d.call_at(i, call)));
    let path = format!("{}/tool-{}", owner.path, call + 1);
    let mut iv = slot;
    if let Some(d) = data.and_then(|d| d.duration_ms) {
        iv.end = iv.start.saturating_add(d as i64);
    }
    let mut span = s.span(&path, Some(parent), format!("execute_tool {}", c.tool), iv);
    let call_id = data
        .and_then(|d| d.id.clone())
        .unwrap_or_else(|| format!("{}#{path}", s.id));
    span.attributes = s
        .common()
        .str(a::OPERATION, "execute_tool")
        .str(a::SPAN_KIND, "TOOL")
        .str(a::TOOL_NAME, c.tool.clone())
        .str(a::OI_TOOL_NAME, c.tool.clone())
        .str(a::TOOL_CALL_ID, call_id)
        .text(a::INPUT_VALUE, &c.args)
        .opt_str(a::OUTPUT_VALUE, c.summary.clone())
        .into_vec();
    if c.failed {
        span.status = Some(error_status(
            c.summary.as_deref().unwrap_or("the call failed"),
        ));
    }
    span
}

/// An inline subagent is a span of the phase; a `link` or `embed` one is a
/// session of its own, so its own trace, which the phase's span links to.
fn subagent_span(
    s: &Session<'_>,
    owner: &Owner,
    n: usize,
    c: &Callout,
    slot: Interval,
    out: &mut Vec<Span>,
) {
    let parent = out[owner.at].span_id;
    let Ok(sub) = c.subagent() else {
        // Unreadable: kept as what it is, a callout.
        out[owner.at].events.push(callout_event(c, slot.start));
        return;
    };
    if let (SubagentMode::Link | SubagentMode::Embed, Some(target)) = (sub.mode, &sub.target) {
        let p = &mut out[owner.at];
        let mut link = link_to_session(target.as_str(), "subagent");
        link.attributes.extend(
            Attributes::default()
                .str(a::CRU_SUBAGENT_MODE, sub.mode.as_str())
                .into_vec(),
        );
        p.links.push(link);
        // Also an event, for engines that drop span links (Phoenix): its
        // text names the child session.
        p.events.push(callout_event(c, slot.start));
        return;
    }
    let agent = sub.agent.as_ref().map_or("subagent", |a| a.name.as_str());
    let path = format!("{}/subagent-{n}", owner.path);
    let mut span = s.span(&path, Some(parent), format!("invoke_agent {agent}"), slot);
    let output = sub
        .summary
        .clone()
        .or_else(|| (!sub.content.is_empty()).then(|| sub.content.join("\n")));
    span.attributes = s
        .common()
        .str(a::OPERATION, "invoke_agent")
        .str(a::SPAN_KIND, "AGENT")
        .opt_str(a::AGENT_NAME, sub.agent.as_ref().map(|a| a.name.clone()))
        .opt_str(
            a::AGENT_VERSION,
            sub.agent.as_ref().and_then(|a| a.version.clone()),
        )
        .opt_str(a::REQUEST_MODEL, sub.model.clone())
        .str(a::CRU_SUBAGENT_MODE, sub.mode.as_str())
        .text(a::INPUT_VALUE, &sub.description.join("\n"))
        .opt_str(a::OUTPUT_VALUE, output)
        .into_vec();
    out.push(span);
}

fn callout_event(c: &Callout, at_ms: i64) -> Event {
    let mut text = c.title.clone();
    if !c.body.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&c.text());
    }
    Event {
        time_unix_nano: times::nanos(at_ms),
        name: c.kind().as_str().to_owned(),
        attributes: Attributes::default()
            .text(a::CRU_CALLOUT_TEXT, &text)
            .into_vec(),
    }
}

/// A `chat` span per model request the phase recorded: from the previous
/// response (or the phase's start) to this one.
fn chats(s: &Session<'_>, id: PhaseId, phase: &Phase, iv: Interval, out: &mut Vec<Span>) {
    let parent = s.phase_span_id(id);
    let n = phase.usage.len();
    let mut previous = iv.start;
    for (k, r) in phase.usage.iter().enumerate() {
        let end =
            r.at.as_ref()
                .map_or_else(|| iv.slot(k, n).end, crucible_core::Timestamp::unix_ms);
        let start = previous.min(end);
        previous = end;
        let model = r.model.as_ref().or(phase.meta.model.as_ref()).or(s
            .log
            .frontmatter
            .model
            .as_ref());
        let path = format!("{id}/chat-{}", k + 1);
        // The conventions' name is `chat {model}`, plain `chat` without one.
        let name = model.map_or_else(|| "chat".to_owned(), |m| format!("chat {m}"));
        let mut span = s.span(&path, Some(parent), name, Interval { start, end });
        span.kind = SpanKind::Client as i32;
        span.attributes = chat_attributes(s.common(), r, model).into_vec();
        out.push(span);
    }
}

fn chat_attributes(attrs: Attributes, r: &UsageRecord, model: Option<&String>) -> Attributes {
    let t = r.tokens;
    let mut attrs = attrs
        .str(a::OPERATION, "chat")
        .str(a::SPAN_KIND, "LLM")
        .opt_str(a::REQUEST_MODEL, model.cloned())
        .opt_str(a::PROVIDER, model.and_then(|m| super::provider(m)))
        .opt_str(a::LLM_MODEL, model.cloned())
        .opt_str(a::RESPONSE_ID, r.id.clone())
        .int(a::INPUT_TOKENS, prompt_tokens(t))
        .int(a::OUTPUT_TOKENS, t.output)
        .int(a::CACHE_READ_TOKENS, t.cache_read)
        .int(a::CACHE_CREATION_TOKENS, t.cache_creation)
        .int(a::LLM_PROMPT_TOKENS, prompt_tokens(t))
        .int(a::LLM_COMPLETION_TOKENS, t.output)
        .int(a::LLM_TOTAL_TOKENS, t.total())
        .int(a::LLM_CACHE_READ, t.cache_read)
        .int(a::LLM_CACHE_WRITE, t.cache_creation);
    if t.reasoning > 0 {
        attrs = attrs.int(a::LLM_REASONING, t.reasoning);
    }
    if let Some(cost) = r.cost_usd {
        attrs = attrs.double(a::LLM_COST_TOTAL, cost);
    }
    attrs
}
