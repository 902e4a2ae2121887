//! Span attributes: a small builder over the spans' [`Attribute`]s, and the names
//! the mapping uses (GenAI semantic conventions, OpenInference, cru's own).

use std::borrow::Cow;
use std::sync::Arc;

use crate::span::{Attribute, Value};

/// Attributes in the order they were added; a key is added once.
#[derive(Debug, Default)]
pub struct Attributes(Vec<Attribute>);

impl Attributes {
    /// Room for `n` attributes, so that a span's list is allocated once.
    pub fn with_capacity(n: usize) -> Self {
        Self(Vec::with_capacity(n))
    }

    fn push(mut self, key: &'static str, value: Value) -> Self {
        self.0.push(Attribute {
            key: Cow::Borrowed(key),
            value,
        });
        self
    }

    pub fn str(self, key: &'static str, value: impl Into<String>) -> Self {
        self.push(key, Value::Str(value.into()))
    }

    /// A text many spans carry, shared among them.
    pub fn shared(self, key: &'static str, value: &Arc<str>) -> Self {
        self.push(key, Value::Shared(Arc::clone(value)))
    }

    pub fn opt_str(self, key: &'static str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(v) => self.str(key, v),
            None => self,
        }
    }

    /// A non-empty text; an empty one says nothing and is left out.
    pub fn text(self, key: &'static str, value: &str) -> Self {
        if value.is_empty() {
            self
        } else {
            self.str(key, value)
        }
    }

    pub fn int(self, key: &'static str, value: u64) -> Self {
        self.push(key, Value::Int(i64::try_from(value).unwrap_or(i64::MAX)))
    }

    pub fn double(self, key: &'static str, value: f64) -> Self {
        self.push(key, Value::Double(value))
    }

    pub fn into_vec(self) -> Vec<Attribute> {
        self.0
    }
}

// OpenTelemetry GenAI semantic conventions.
pub const OPERATION: &str = "gen_ai.operation.name";
pub const AGENT_NAME: &str = "gen_ai.agent.name";
pub const AGENT_VERSION: &str = "gen_ai.agent.version";
pub const CONVERSATION: &str = "gen_ai.conversation.id";
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
pub const PROVIDER: &str = "gen_ai.provider.name";
pub const RESPONSE_ID: &str = "gen_ai.response.id";
pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
pub const CACHE_READ_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
pub const CACHE_CREATION_TOKENS: &str = "gen_ai.usage.cache_creation.input_tokens";
pub const TOOL_NAME: &str = "gen_ai.tool.name";
pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";

// OpenInference (what Arize Phoenix reads).
pub const SPAN_KIND: &str = "openinference.span.kind";
pub const SESSION_ID: &str = "session.id";
pub const INPUT_VALUE: &str = "input.value";
pub const OUTPUT_VALUE: &str = "output.value";
pub const LLM_MODEL: &str = "llm.model_name";
pub const LLM_PROMPT_TOKENS: &str = "llm.token_count.prompt";
pub const LLM_COMPLETION_TOKENS: &str = "llm.token_count.completion";
pub const LLM_TOTAL_TOKENS: &str = "llm.token_count.total";
pub const LLM_CACHE_READ: &str = "llm.token_count.prompt_details.cache_read";
pub const LLM_CACHE_WRITE: &str = "llm.token_count.prompt_details.cache_write";
pub const LLM_REASONING: &str = "llm.token_count.completion_details.reasoning";
pub const LLM_COST_TOTAL: &str = "llm.cost.total";
pub const OI_TOOL_NAME: &str = "tool.name";
pub const AGENT_NAME_OI: &str = "agent.name";

// cru's own.
pub const CRU_SESSION_TITLE: &str = "cru.session.title";
pub const CRU_SESSION_STATUS: &str = "cru.session.status";
pub const CRU_CHANNEL: &str = "cru.channel";
pub const CRU_PHASE: &str = "cru.phase.id";
pub const CRU_PARENT_SESSION: &str = "cru.session.parent";
pub const CRU_SUBAGENT_MODE: &str = "cru.subagent.mode";
pub const CRU_UNTYPED_TOKENS: &str = "cru.usage.untyped_tokens";
pub const CRU_CALLOUT_TEXT: &str = "cru.callout.text";
