//! An OpenAI-compatible `/chat/completions` endpoint, over blocking HTTP.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{AgentBackend, AgentError, AgentReply, AgentRequest, TokenUsage, tail};

/// How much of an error body a message shows.
const BODY_SHOWN: usize = 1_000;

/// Posts `{"model", "messages"}` to `<base_url>/chat/completions`.
#[derive(Clone)]
pub struct OpenAiBackend {
    /// E.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer ...` when set. Never shown.
    pub api_key: Option<String>,
    pub timeout: Duration,
}

// By hand, so that no debug print can show the key.
impl std::fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiBackend")
            .field("base_url", &self.shown(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl OpenAiBackend {
    /// The URL requests go to.
    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// `text` as an error or a description may show it: a URL's password
    /// and the key are taken out (see [`crate::scrub`]).
    fn shown(&self, text: &str) -> String {
        crate::scrub(text, self.api_key.as_deref())
    }
}

impl AgentBackend for OpenAiBackend {
    fn describe(&self) -> String {
        format!("{} at {}", self.model, self.shown(&self.base_url))
    }

    fn complete(&self, request: &AgentRequest<'_>) -> Result<AgentReply, AgentError> {
        let url = self.url();
        // Errors name the URL as it may be shown, never with its password.
        let shown_url = self.shown(&url);
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let body = json!({"model": self.model, "messages": request.messages}).to_string();
        let mut req = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let http_error = |e: ureq::Error| match e {
            ureq::Error::Timeout(_) => AgentError::HttpTimeout {
                url: shown_url.clone(),
                timeout: self.timeout,
            },
            other => AgentError::Http {
                url: shown_url.clone(),
                message: self.shown(&other.to_string()),
            },
        };
        let response = req.send(body.as_str()).map_err(http_error)?;
        let status = response.status().as_u16();
        let text = response.into_body().read_to_string().map_err(http_error)?;
        if !(200..300).contains(&status) {
            return Err(AgentError::HttpStatus {
                url: shown_url,
                status,
                body: self.shown(&error_message(&text)),
            });
        }
        read_completion(&text).map_err(|message| AgentError::BadResponse {
            url: shown_url.clone(),
            message: self.shown(&message),
        })
    }
}

/// The `error.message` of an OpenAI-style error body, else the body's end.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("error"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| tail(body, BODY_SHOWN))
}

/// The reply text, usage and model of a chat-completion body.
fn read_completion(body: &str) -> Result<AgentReply, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| {
        format!(
            "{e} (the body starts: {:?})",
            body.chars().take(80).collect::<String>()
        )
    })?;
    let message = v
        .pointer("/choices/0/message")
        .ok_or("it has no choices[0].message")?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Content parts: the text ones, in order.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    if text.trim().is_empty() {
        return Err("choices[0].message has no text content".into());
    }
    Ok(AgentReply {
        text: text.trim_end().to_owned(),
        usage: v.get("usage").map(read_usage),
        model: v.get("model").and_then(Value::as_str).map(str::to_owned),
    })
}

/// A completion's `usage`, with the cache fields of whichever spelling the
/// server uses: OpenAI's `prompt_tokens_details.cached_tokens` (and
/// `cache_write_tokens`), or the Anthropic names that gateways pass on
/// (`cache_read_input_tokens`, `cache_creation_input_tokens`).
fn read_usage(usage: &Value) -> TokenUsage {
    let first = |paths: &[&str]| {
        paths
            .iter()
            .find_map(|p| usage.pointer(p).and_then(Value::as_u64))
            .unwrap_or(0)
    };
    let prompt_tokens = first(&["/prompt_tokens"]);
    let completion_tokens = first(&["/completion_tokens"]);
    TokenUsage {
        prompt_tokens,
        completion_tokens,
        total_tokens: usage
            .get("total_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(prompt_tokens + completion_tokens),
        cache_read_tokens: first(&[
            "/prompt_tokens_details/cached_tokens",
            "/cache_read_input_tokens",
        ]),
        cache_creation_tokens: first(&[
            "/cache_creation_input_tokens",
            "/prompt_tokens_details/cache_creation_input_tokens",
            "/prompt_tokens_details/cache_write_tokens",
        ]),
        reasoning_tokens: first(&["/completion_tokens_details/reasoning_tokens"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_usage_and_model() {
        let r = read_completion(
            r#"{"model":"m1","choices":[{"message":{"role":"assistant","content":"hi"}}],
                "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#,
        )
        .unwrap();
        assert_eq!(r.text, "hi");
        assert_eq!(r.model.as_deref(), Some("m1"));
        assert_eq!(r.usage.unwrap().total_tokens, 5);
    }

    #[test]
    fn content_parts_and_missing_totals() {
        let r = read_completion(
            r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}],
                "usage":{"prompt_tokens":3,"completion_tokens":2}}"#,
        )
        .unwrap();
        assert_eq!(r.text, "ab");
        assert_eq!(r.usage.unwrap().total_tokens, 5);
    }

    #[test]
    fn cache_fields_in_either_spelling_are_parts_of_the_prompt() {
        let openai = read_completion(
            r#"{"choices":[{"message":{"content":"a"}}],
                "usage":{"prompt_tokens":1000,"completion_tokens":50,"total_tokens":1050,
                         "prompt_tokens_details":{"cached_tokens":800},
                         "completion_tokens_details":{"reasoning_tokens":20}}}"#,
        )
        .unwrap()
        .usage
        .unwrap();
        assert_eq!(
            (openai.cache_read_tokens, openai.cache_creation_tokens),
            (800, 0)
        );
        assert_eq!(openai.uncached_prompt_tokens(), 200);
        assert_eq!(openai.reasoning_tokens, 20);
        let gateway = read_completion(
            r#"{"choices":[{"message":{"content":"a"}}],
                "usage":{"prompt_tokens":1000,"completion_tokens":50,
                         "cache_read_input_tokens":600,"cache_creation_input_tokens":300}}"#,
        )
        .unwrap()
        .usage
        .unwrap();
        assert_eq!(
            (gateway.cache_read_tokens, gateway.cache_creation_tokens),
            (600, 300)
        );
        assert_eq!(gateway.uncached_prompt_tokens(), 100);
        assert_eq!(gateway.total_tokens, 1050);
        // Cache figures larger than the prompt: a server that counts them
        // apart, whose prompt is the uncached part.
        let apart = TokenUsage {
            prompt_tokens: 5,
            cache_read_tokens: 900,
            ..TokenUsage::default()
        };
        assert_eq!(apart.uncached_prompt_tokens(), 5);
    }

    #[test]
    fn what_is_not_a_completion_says_why() {
        assert!(read_completion("{").unwrap_err().contains("body starts"));
        assert!(read_completion("{}").unwrap_err().contains("choices[0]"));
        assert!(
            read_completion(r#"{"choices":[{"message":{"tool_calls":[]}}]}"#)
                .unwrap_err()
                .contains("no text")
        );
    }

    #[test]
    fn error_bodies_show_their_message() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad key","type":"x"}}"#),
            "bad key"
        );
        assert_eq!(
            error_message(r#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(error_message("plain text"), "plain text");
    }

    #[test]
    fn debug_output_hides_the_key() {
        let b = OpenAiBackend {
            base_url: "http://x".into(),
            model: "m".into(),
            api_key: Some("sk-secret".into()),
            timeout: Duration::from_secs(1),
        };
        assert!(!format!("{b:?}").contains("sk-secret"));
        assert_eq!(b.url(), "http://x/chat/completions");
    }
}
