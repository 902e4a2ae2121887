//! Agent backends: what `cru session resume` hands a session's context to,
//! and later what `codify --refine` and the eval judge ask.
//!
//! Two kinds, one trait ([`AgentBackend`]):
//!
//! - [`CommandBackend`] runs any agent program (`claude -p`, `codex exec`,
//!   `llm`, `ollama run ...`, a script) with the prompt on stdin and the
//!   message array in a file named by `CRU_MESSAGES_FILE`, and takes its
//!   stdout as the reply.
//! - [`OpenAiBackend`] posts the message array to an OpenAI-compatible
//!   `/chat/completions` endpoint (OpenAI, Ollama, llama.cpp's server, vLLM)
//!   over blocking HTTP and reads the reply and its token usage.
//!
//! Nothing here reads the environment or prints: the caller passes the API
//! key itself (read from the variable its configuration names) and renders
//! the typed [`AgentError`]s.

mod command;
mod error;
mod openai;

pub use command::{CommandBackend, MESSAGES_FILE_VAR};
pub use error::AgentError;
pub use openai::OpenAiBackend;

use serde_json::Value;

/// What an agent is asked: a markdown prompt (for programs that read text)
/// and the same context as chat-completions messages (for endpoints, and for
/// programs that want structure).
#[derive(Debug, Clone, Copy)]
pub struct AgentRequest<'a> {
    pub prompt: &'a str,
    pub messages: &'a [Value],
}

/// Tokens a reply cost, as the endpoint reported them, in the
/// chat-completions sense: `prompt_tokens` counts every input token, the
/// cached ones included (OpenAI's definition, which gateways serving
/// Anthropic models keep by adding the cache fields into it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// Of the prompt tokens, those read from a cache.
    pub cache_read_tokens: u64,
    /// Of the prompt tokens, those written to a cache.
    pub cache_creation_tokens: u64,
    /// Of the completion tokens, those spent reasoning.
    pub reasoning_tokens: u64,
}

impl TokenUsage {
    /// The prompt tokens neither read from nor written to a cache: what is
    /// priced at the plain input rate. Cache figures larger than the whole
    /// prompt can only have been counted apart from it (Anthropic's own
    /// way), so then the prompt is all uncached.
    pub fn uncached_prompt_tokens(&self) -> u64 {
        let cached = self
            .cache_read_tokens
            .saturating_add(self.cache_creation_tokens);
        self.prompt_tokens
            .checked_sub(cached)
            .unwrap_or(self.prompt_tokens)
    }

    /// The usage as the session format's kinds: the prompt split into its
    /// uncached and cached parts, reasoning as the part of the output it is.
    pub fn by_kind(&self) -> crucible_core::Tokens {
        crucible_core::Tokens {
            input: self.uncached_prompt_tokens(),
            output: self.completion_tokens,
            cache_read: self.cache_read_tokens,
            cache_creation: self.cache_creation_tokens,
            reasoning: self.reasoning_tokens.min(self.completion_tokens),
            ..crucible_core::Tokens::default()
        }
    }
}

/// An agent's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentReply {
    pub text: String,
    /// Known for endpoints that report it; a command's is not.
    pub usage: Option<TokenUsage>,
    /// The model that answered, when the backend says.
    pub model: Option<String>,
}

/// Something that answers a request.
pub trait AgentBackend: std::fmt::Debug {
    /// A short description for messages: the command, or the model and URL.
    fn describe(&self) -> String;

    fn complete(&self, request: &AgentRequest<'_>) -> Result<AgentReply, AgentError>;
}

/// The last `max` characters of a program's or server's output, for an
/// error message; empty when there is nothing to show.
fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let skip = count - max;
    let rest: String = text.chars().skip(skip).collect();
    format!("…{rest}")
}

/// `text` fit for an error message: every secret the redactor knows taken
/// out, and `key` (the key this backend sends) too, whatever its shape,
/// since servers echo the key they were given ("Incorrect API key
/// provided: ...").
fn scrub(text: &str, key: Option<&str>) -> String {
    let mut out = crucible_redact::Redactor::shared()
        .redact(text)
        .into_owned();
    if let Some(k) = key.filter(|k| !k.is_empty()) {
        out = out.replace(k, "[REDACTED:api-key]");
        // A server may show only part of the key: its first characters.
        if let Some(head) = k.get(..k.len().min(12))
            && head.len() >= 8
        {
            out = out.replace(head, "[REDACTED:api-key]");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_end() {
        assert_eq!(tail("  short \n", 10), "short");
        assert_eq!(tail("abcdefghij", 4), "…ghij");
        assert_eq!(tail("", 4), "");
    }
}
