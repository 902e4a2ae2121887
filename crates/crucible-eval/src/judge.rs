//! The LLM judge: given the expected result in words and what the agent
//! did, it answers one line, `PASS: <reason>` or `FAIL: <reason>`. Any
//! other answer is an error for that case, never a pass.

use serde_json::json;

use crucible_agent::{AgentBackend, AgentError, AgentRequest};

use crucible_core::{Expectation, JudgeVerdict, ToolPattern};

use crate::Actual;

/// Why there is no verdict.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error("the judge's answer is not one line `PASS: <reason>` or `FAIL: <reason>`: {answer:?}")]
    Unreadable { answer: String },
    #[error("the expectation says no result in words to judge against (add `result: ...`)")]
    NothingToJudge,
}

/// The judge's instructions and the case, as a prompt.
pub fn prompt(input: &str, e: &Expectation, a: &Actual) -> String {
    let tools = if a.calls.is_empty() {
        "no tools".to_owned()
    } else {
        a.calls
            .iter()
            .map(|c| {
                if c.args.is_empty() {
                    c.tool.clone()
                } else {
                    format!("{} {}", c.tool, c.args)
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut out =
        String::from("You judge whether one turn of an AI agent met what was expected of it.\n\n");
    out.push_str(&format!("The user asked:\n{}\n\n", input.trim()));
    out.push_str(&format!(
        "Expected result:\n{}\n\n",
        e.result.as_deref().unwrap_or("").trim()
    ));
    if !e.tools.is_empty() {
        let names: Vec<String> = e.tools.iter().map(ToolPattern::text).collect();
        out.push_str(&format!("Expected tools: {}\n\n", names.join(", ")));
    }
    out.push_str(&format!("The agent called: {tools}\n\n"));
    out.push_str(&format!("The agent's result:\n{}\n\n", a.result.trim()));
    out.push_str(
        "Answer with exactly one line and nothing else: `PASS: <reason>` if the result \
         meets the expected result, else `FAIL: <reason>`.\n",
    );
    out
}

/// Reads the judge's answer: exactly one line, `PASS:` or `FAIL:` (any
/// case) and a reason.
pub fn parse_answer(text: &str) -> Result<JudgeVerdict, JudgeError> {
    let unreadable = || JudgeError::Unreadable {
        answer: crucible_core::cut(text.trim(), 300),
    };
    let t = text.trim();
    if t.lines().count() != 1 {
        return Err(unreadable());
    }
    let (word, reason) = t.split_once(':').ok_or_else(unreadable)?;
    let passed = match word.trim().to_ascii_uppercase().as_str() {
        "PASS" => true,
        "FAIL" => false,
        _ => return Err(unreadable()),
    };
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(unreadable());
    }
    Ok(JudgeVerdict {
        passed,
        reason: reason.to_owned(),
    })
}

/// Asks `judge` about one case.
pub fn judge(
    judge: &dyn AgentBackend,
    input: &str,
    e: &Expectation,
    a: &Actual,
) -> Result<JudgeVerdict, JudgeError> {
    if e.result.is_none() {
        return Err(JudgeError::NothingToJudge);
    }
    // The prompt goes to another service: what the phase did may hold keys.
    let prompt = crucible_redact::Redactor::shared()
        .redact(&prompt(input, e, a))
        .into_owned();
    let messages = [
        json!({"role": "system", "content": "You are a strict evaluator. Answer in the exact format asked for."}),
        json!({"role": "user", "content": prompt}),
    ];
    let reply = judge.complete(&AgentRequest {
        prompt: &prompt,
        messages: &messages,
    })?;
    parse_answer(&reply.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_agent::AgentReply;
    use std::cell::RefCell;

    /// Keeps the prompt it was sent and passes.
    #[derive(Debug, Default)]
    struct Recording(RefCell<String>);

    impl AgentBackend for Recording {
        fn describe(&self) -> String {
            "recording".into()
        }
        fn complete(&self, request: &AgentRequest<'_>) -> Result<AgentReply, AgentError> {
            *self.0.borrow_mut() = format!("{}{}", request.prompt, json!(request.messages));
            Ok(AgentReply {
                text: "PASS: ok".into(),
                usage: None,
                model: None,
            })
        }
    }

    #[test]
    fn the_judge_prompt_holds_no_key() {
        let key = format!("sk-proj-{}", "Zx81kQ2mLp94TrW0aB3cD5eF");
        let e = Expectation {
            result: Some("the deploy works".into()),
            ..Expectation::default()
        };
        let a = Actual {
            calls: vec![crucible_core::ToolCall::new(
                "bash",
                format!("OPENAI_API_KEY={key} ./deploy"),
            )],
            result: format!("deployed with {key}"),
            tokens: None,
            duration_ms: None,
        };
        let judge_backend = Recording::default();
        judge(&judge_backend, &format!("use {key}"), &e, &a).unwrap();
        let sent = judge_backend.0.borrow();
        assert!(sent.contains("[REDACTED:"), "{sent}");
        assert!(!sent.contains(&key[..20]), "{sent}");
    }

    #[test]
    fn only_one_strict_line_is_an_answer() {
        assert_eq!(
            parse_answer("PASS: names parser.py:88\n").unwrap(),
            JudgeVerdict {
                passed: true,
                reason: "names parser.py:88".into()
            }
        );
        assert!(!parse_answer("fail: wrong file").unwrap().passed);
        for bad in [
            "",
            "PASS",
            "PASS:",
            "Yes, it passes.",
            "PASS: fine\nbut also more",
            "MAYBE: unsure",
            "**PASS**: bold",
        ] {
            assert!(
                matches!(parse_answer(bad), Err(JudgeError::Unreadable { .. })),
                "{bad:?}"
            );
        }
    }
}
