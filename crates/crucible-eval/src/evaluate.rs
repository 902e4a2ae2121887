//! One case from start to verdict: the checks that need no model, and the
//! judge only where the expectation asks for it (a `result:` line).

use crucible_agent::AgentBackend;
use crucible_core::Timestamp;

use crate::{Actual, EvalRecord, Expectation, check, judge};

/// Why a case has no verdict at all (it is neither passed nor failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotEvaluated {
    /// Only `result:`, and no judge was given.
    NeedsJudge,
    /// The `[!expect]` callout says nothing.
    Empty,
}

impl NotEvaluated {
    pub fn reason(self) -> &'static str {
        match self {
            Self::NeedsJudge => "its [!expect] has only `result:`, which needs a judge (--judge)",
            Self::Empty => "its [!expect] callout is empty",
        }
    }
}

/// Whether a case can be evaluated, with or without a judge; `Err` says
/// why not. Checked before a replay, so that nothing runs for nothing.
pub fn evaluable(e: &Expectation, with_judge: bool) -> Result<(), NotEvaluated> {
    if e.has_checks() || (with_judge && e.asks_judge()) {
        Ok(())
    } else if e.asks_judge() {
        Err(NotEvaluated::NeedsJudge)
    } else {
        Err(NotEvaluated::Empty)
    }
}

/// What evaluates a case.
#[derive(Debug, Clone, Copy)]
pub struct Evaluator<'a> {
    /// Asked only about cases whose expectation has a `result:`.
    pub judge: Option<&'a dyn AgentBackend>,
    /// What else evaluated (`checks`, `replay with ...`), for the record;
    /// the judge is added when it was asked.
    pub by: &'a str,
}

impl Evaluator<'_> {
    /// Evaluates what a phase did (`actual`, after the user's words
    /// `input`) against `e`.
    pub fn evaluate(
        &self,
        e: &Expectation,
        input: &str,
        actual: &Actual,
        at: Timestamp,
    ) -> Result<EvalRecord, NotEvaluated> {
        evaluable(e, self.judge.is_some())?;
        let judge = self.judge.filter(|_| e.asks_judge());
        let judged =
            judge.map(|j| judge::judge(j, input, e, actual).map_err(|err| err.to_string()));
        let by = match judge {
            Some(j) => format!("{}, judge {}", self.by, j.describe()),
            None => self.by.to_owned(),
        };
        Ok(EvalRecord::new(check(e, actual), judged, by, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;
    use crucible_agent::{AgentError, AgentReply, AgentRequest};
    use crucible_core::{Callout, ToolCall};
    use std::cell::Cell;

    /// Answers `answer` and counts how often it was asked.
    #[derive(Debug)]
    struct Scripted {
        answer: &'static str,
        asked: Cell<usize>,
    }

    impl AgentBackend for Scripted {
        fn describe(&self) -> String {
            "scripted".into()
        }
        fn complete(&self, _: &AgentRequest<'_>) -> Result<AgentReply, AgentError> {
            self.asked.set(self.asked.get() + 1);
            Ok(AgentReply {
                text: self.answer.into(),
                usage: None,
                model: None,
            })
        }
    }

    fn expect(lines: &[&str]) -> Expectation {
        let body = lines.iter().map(|s| (*s).to_owned()).collect();
        Expectation::from_callout(&Callout::new("expect", "", body)).unwrap()
    }

    fn at() -> Timestamp {
        "2026-11-23T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn the_judge_is_asked_only_where_a_result_is_expected() {
        let judge = Scripted {
            answer: "FAIL: wrong file",
            asked: Cell::new(0),
        };
        let ev = Evaluator {
            judge: Some(&judge),
            by: "checks",
        };
        let actual = Actual {
            calls: vec![ToolCall::new("grep", "x")],
            ..Actual::default()
        };
        let only_checks = ev
            .evaluate(&expect(&["tools: grep"]), "q", &actual, at())
            .unwrap();
        assert_eq!(only_checks.verdict, Verdict::Passed);
        assert_eq!(only_checks.by, "checks");
        assert_eq!(judge.asked.get(), 0);
        let judged = ev
            .evaluate(
                &expect(&["tools: grep", "result: the file"]),
                "q",
                &actual,
                at(),
            )
            .unwrap();
        assert_eq!(judge.asked.get(), 1);
        assert_eq!(judged.verdict, Verdict::Failed);
        assert_eq!(judged.by, "checks, judge scripted");
    }

    #[test]
    fn a_case_with_nothing_to_evaluate_has_no_verdict() {
        let no_judge = Evaluator {
            judge: None,
            by: "checks",
        };
        let a = Actual::default();
        assert_eq!(
            no_judge
                .evaluate(&expect(&["result: words"]), "q", &a, at())
                .unwrap_err(),
            NotEvaluated::NeedsJudge
        );
        let judge = Scripted {
            answer: "PASS: fine",
            asked: Cell::new(0),
        };
        let with_judge = Evaluator {
            judge: Some(&judge),
            by: "checks",
        };
        assert_eq!(
            with_judge
                .evaluate(&expect(&[]), "q", &a, at())
                .unwrap_err(),
            NotEvaluated::Empty
        );
        assert_eq!(judge.asked.get(), 0);
    }
}
