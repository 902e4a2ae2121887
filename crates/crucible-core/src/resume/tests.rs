use std::collections::HashSet;

use serde_json::Value;

use super::*;
use crate::{Frontmatter, Phase, Timestamp, ToolCall};

fn session(phases: Vec<Phase>) -> SessionLog {
    let fm = Frontmatter::new(
        SessionId::new("2025-01-02-resume-test").unwrap(),
        "2025-01-02T10:00:00Z".parse::<Timestamp>().unwrap(),
    );
    let mut log = SessionLog::new(fm);
    log.preamble.push(Block::SystemPrompt {
        text: "Be careful.".into(),
    });
    log.sections = phases.into_iter().map(Section::Phase).collect();
    log
}

/// A phase with a lot of prose, a long tool-call list and one decision.
fn busy_phase(n: usize) -> Phase {
    let mut p = Phase::new(format!("Step {n}"), Some("coder@1".parse().unwrap()), None);
    p.blocks
        .push(Block::prose(format!("Working on step {n}. ").repeat(100)));
    p.blocks.push(Block::ToolCalls {
        calls: (0..20)
            .map(|i| ToolCall::new("bash", format!("make target-{n}-{i}")).with_summary("ok"))
            .collect(),
    });
    p.blocks.push(Block::Callout(Callout::decision(&format!(
        "Decision number {n}: keep going."
    ))));
    p.blocks.push(Block::Callout(Callout::new(
        "note",
        "",
        vec![format!("A note on step {n}.")],
    )));
    p
}

#[test]
fn a_session_far_over_budget_keeps_every_decision_and_fits() {
    let log = session((1..=100).map(busy_phase).collect());
    let full = ResumeContext::build(&log, u64::MAX);
    assert!(!full.trimmed());
    assert!(full.estimated_tokens > 50_000, "{}", full.estimated_tokens);

    let budget = 4_000;
    let cx = ResumeContext::build(&log, budget);
    assert!(!cx.over_budget);
    assert!(cx.estimated_tokens <= budget, "{}", cx.estimated_tokens);
    let prompt = cx.prompt();
    assert!(estimate_tokens(&prompt) <= budget);
    for n in 1..=100 {
        assert!(
            prompt.contains(&format!("Decision number {n}: keep going.")),
            "decision {n} lost"
        );
    }
    assert_eq!(cx.decisions().count(), 100);
    // The oldest phases went first; the framing stayed.
    assert!(cx.phases[0].detail > Detail::Full);
    assert!(prompt.contains("Be careful."));
    assert!(prompt.contains("Resume at phase-100: Step 100 @coder@1"));
}

#[test]
fn tool_calls_go_first_and_recent_phases_stay_whole() {
    let log = session((1..=10).map(busy_phase).collect());
    let full = ResumeContext::build(&log, u64::MAX);
    // Room for everything but a few tool-call lists.
    let cx = ResumeContext::build(&log, full.estimated_tokens - 600);
    assert!(!cx.over_budget);
    let details: Vec<Detail> = cx.phases.iter().map(|p| p.detail).collect();
    assert_eq!(details[0], Detail::Trimmed);
    assert_eq!(details[9], Detail::Full);
    assert!(details.iter().all(|d| *d <= Detail::Trimmed), "{details:?}");
    // A trimmed phase keeps its prose and says what it left out.
    let prompt = cx.prompt();
    assert!(prompt.contains("Working on step 1."));
    assert!(prompt.contains("_Left out to fit the context: 20 tool call(s)._"));
    assert!(!prompt.contains("make target-1-0"));
    assert!(prompt.contains("make target-10-0"));
}

#[test]
fn decisions_over_budget_are_kept_and_flagged() {
    let log = session((1..=30).map(busy_phase).collect());
    let cx = ResumeContext::build(&log, 50);
    assert!(cx.over_budget);
    assert!(cx.estimated_tokens > 50);
    assert!(cx.phases.iter().all(|p| p.detail == Detail::Decisions));
    let prompt = cx.prompt();
    for n in 1..=30 {
        assert!(prompt.contains(&format!("Decision number {n}:")));
    }
    let messages = serde_json::to_string(&cx.messages()).unwrap();
    assert!(messages.contains("Decision number 30:"));
    assert!(cx.summary_text().contains("over budget"));
}

#[test]
fn phases_after_the_resume_point_stay_out() {
    let mut log = session((1..=4).map(busy_phase).collect());
    log.frontmatter.status = SessionStatus::Paused;
    log.frontmatter.resume_point = Some(PhaseId::new(2).unwrap());
    let cx = ResumeContext::build(&log, u64::MAX);
    assert_eq!(cx.phases.len(), 2);
    assert_eq!(cx.phases_after_resume_point, 2);
    assert_eq!(cx.resume_at, PhaseId::new(2));
    let prompt = cx.prompt();
    assert!(!prompt.contains("Step 3"));
    assert!(prompt.contains("2 later phase(s)"));
    assert!(
        cx.summary_text()
            .contains("Stops at: phase-2 Step 2 @coder@1")
    );
}

#[test]
fn an_empty_session_is_resumable() {
    let log = session(Vec::new());
    let cx = ResumeContext::build(&log, 1000);
    assert!(cx.phases.is_empty());
    assert_eq!(cx.resume_at, None);
    assert!(cx.prompt().contains("No work has been recorded yet."));
    let m = cx.messages();
    assert_eq!(m.len(), 3);
    assert_eq!(m[0]["content"], "Be careful.");
    assert!(cx.summary_text().contains("nothing recorded yet"));
}

/// Checks the rules an OpenAI-compatible endpoint enforces on a message array.
fn assert_valid_messages(m: &[Value]) {
    assert_eq!(m[0]["role"], "system");
    let mut pending: HashSet<String> = HashSet::new();
    for msg in m {
        let role = msg["role"].as_str().unwrap();
        assert!(
            ["system", "user", "assistant", "tool"].contains(&role),
            "{role}"
        );
        if role == "tool" {
            let id = msg["tool_call_id"].as_str().unwrap();
            assert!(pending.remove(id), "tool message for unknown call {id}");
            assert!(msg["content"].is_string());
            continue;
        }
        assert!(pending.is_empty(), "tool calls not answered: {pending:?}");
        if let Some(calls) = msg.get("tool_calls") {
            assert_eq!(role, "assistant");
            for c in calls.as_array().unwrap() {
                assert_eq!(c["type"], "function");
                let args = c["function"]["arguments"].as_str().unwrap();
                serde_json::from_str::<Value>(args).expect("arguments are JSON");
                assert!(pending.insert(c["id"].as_str().unwrap().to_owned()));
            }
        } else {
            assert!(msg["content"].is_string(), "{msg}");
        }
    }
    assert!(pending.is_empty());
    assert_eq!(m.last().unwrap()["role"], "user");
}

#[test]
fn messages_pair_every_tool_call_with_its_result() {
    let mut p = busy_phase(1);
    p.blocks.insert(
        1,
        Block::Callout(Callout::user("Use the fast path", Some("agreed"))),
    );
    p.blocks.push(Block::ToolCalls {
        calls: vec![ToolCall::new("read", "a.rs").with_summary("boom").failed()],
    });
    let log = session(vec![p, busy_phase(2)]);
    let cx = ResumeContext::build(&log, u64::MAX);
    let m = cx.messages();
    assert_valid_messages(&m);
    let text = serde_json::to_string(&m).unwrap();
    assert!(text.contains(r#"{"role":"user","content":"Use the fast path"}"#));
    assert!(text.contains(r#""content":"error: boom""#));
    // Trimmed contexts stay valid too.
    let small = ResumeContext::build(&log, 200);
    assert_valid_messages(&small.messages());
}
