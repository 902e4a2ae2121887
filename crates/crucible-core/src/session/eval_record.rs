//! An evaluation's outcome, kept in the phase as an `[!eval]` callout:
//!
//! ```markdown
//! > [!eval] failed
//! > tools: ✗ missing run(blame) (called: grep)
//! > pattern: ✓ /parser\.py/ matches
//! > judge: ✗ the reply names the wrong file
//! > by: judge command `./judge.sh`
//! > at: 2026-11-22T05:30:00Z
//! ```
//!
//! The record and its parts ([`Check`], [`JudgeVerdict`]) are plain data kept
//! with the other callouts; `crucible-eval` produces them.

use super::{Block, Callout, Phase, Timestamp};

/// Which rule a check applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    Tools,
    Forbid,
    Pattern,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Forbid => "forbid",
            Self::Pattern => "pattern",
        }
    }
}

/// One check's outcome, with what it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub kind: CheckKind,
    pub passed: bool,
    pub detail: String,
}

/// The judge's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeVerdict {
    pub passed: bool,
    pub reason: String,
}

/// The outcome of one case, exactly one of three:
///
/// - `Passed`: every check passed and the judge, when it was asked, said PASS;
/// - `Failed`: a check failed or the judge said FAIL (a judge's answer of
///   FAIL is a verdict, not an error);
/// - `Error`: no verdict could be reached: the judge was unreachable, timed
///   out, exited non-zero or answered out of form (and no check failed), or
///   the phase could not be run or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    Error,
}

impl Verdict {
    /// The word in output for people and programs: `pass`, `fail`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Passed => "pass",
            Self::Failed => "fail",
            Self::Error => "error",
        }
    }

    /// The title of an `[!eval]` callout: `passed`, `failed`, `error` (the
    /// session format; [`Verdict::parse`] reads both spellings).
    pub fn callout_title(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "passed" | "pass" => Some(Self::Passed),
            "failed" | "fail" => Some(Self::Failed),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

/// One evaluation of one phase.
#[derive(Debug, Clone)]
pub struct EvalRecord {
    pub verdict: Verdict,
    pub checks: Vec<Check>,
    pub judge: Option<JudgeVerdict>,
    /// Why there is no verdict from the judge, when it was asked.
    pub judge_error: Option<String>,
    /// What evaluated: `checks`, or the judge's description.
    pub by: String,
    pub at: Timestamp,
}

impl EvalRecord {
    /// The verdict of these checks and this judge's outcome (if asked). A
    /// failed check fails the case whatever the judge did: an unreachable
    /// judge cannot make a wrong tool call right.
    pub fn new(
        checks: Vec<Check>,
        judge: Option<Result<JudgeVerdict, String>>,
        by: String,
        at: Timestamp,
    ) -> Self {
        let (judge, judge_error) = match judge {
            None => (None, None),
            Some(Ok(v)) => (Some(v), None),
            Some(Err(e)) => (None, Some(e)),
        };
        let failed = checks.iter().any(|c| !c.passed) || judge.as_ref().is_some_and(|j| !j.passed);
        let verdict = if failed {
            Verdict::Failed
        } else if judge_error.is_some() {
            Verdict::Error
        } else {
            Verdict::Passed
        };
        Self {
            verdict,
            checks,
            judge,
            judge_error,
            by,
            at,
        }
    }

    pub fn to_callout(&self) -> Callout {
        let mark = |ok: bool| if ok { "✓" } else { "✗" };
        let mut body: Vec<String> = self
            .checks
            .iter()
            .map(|c| format!("{}: {} {}", c.kind.as_str(), mark(c.passed), c.detail))
            .collect();
        if let Some(j) = &self.judge {
            body.push(format!(
                "judge: {} {}",
                mark(j.passed),
                super::one_line(&j.reason)
            ));
        }
        if let Some(e) = &self.judge_error {
            body.push(format!("judge: error {}", super::one_line(e)));
        }
        body.push(format!("by: {}", super::one_line(&self.by)));
        body.push(format!("at: {}", self.at));
        Callout::new("eval", self.verdict.callout_title(), body)
    }
}

/// The verdict of the phase's last `[!eval]` callout.
pub fn last_verdict(p: &Phase) -> Option<Verdict> {
    p.blocks.iter().rev().find_map(|b| match b {
        Block::Callout(c) if c.kind.eq_ignore_ascii_case("eval") => {
            Verdict::parse(c.title.split_whitespace().next().unwrap_or(""))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(passed: bool) -> Check {
        Check {
            kind: CheckKind::Tools,
            passed,
            detail: "called grep".into(),
        }
    }

    #[test]
    fn the_verdict_takes_every_check_and_the_judge() {
        let at: Timestamp = "2026-11-22T05:00:00Z".parse().unwrap();
        let judge = |passed| {
            Some(Ok(JudgeVerdict {
                passed,
                reason: "r".into(),
            }))
        };
        let v = |checks, j| EvalRecord::new(checks, j, "checks".into(), at.clone()).verdict;
        assert_eq!(v(vec![check(true)], None), Verdict::Passed);
        assert_eq!(v(vec![check(true), check(false)], None), Verdict::Failed);
        assert_eq!(v(vec![check(true)], judge(false)), Verdict::Failed);
        assert_eq!(v(Vec::new(), judge(true)), Verdict::Passed);
        assert_eq!(
            v(vec![check(true)], Some(Err("unreadable".into()))),
            Verdict::Error
        );
        assert_eq!(v(Vec::new(), Some(Err("timed out".into()))), Verdict::Error);
        // A failed check is a failure even when the judge could not answer.
        assert_eq!(
            v(vec![check(false)], Some(Err("unreadable".into()))),
            Verdict::Failed
        );
    }

    #[test]
    fn the_callout_reads_back_as_the_phases_last_verdict() {
        let at: Timestamp = "2026-11-22T05:00:00Z".parse().unwrap();
        let r = EvalRecord::new(vec![check(false)], None, "checks".into(), at);
        let c = r.to_callout();
        assert_eq!(c.title, "failed");
        assert_eq!(
            c.body,
            [
                "tools: ✗ called grep",
                "by: checks",
                "at: 2026-11-22T05:00:00Z"
            ]
        );
        let mut p = Phase::new("x", None, None);
        assert_eq!(last_verdict(&p), None);
        p.blocks
            .push(Block::Callout(Callout::new("eval", "passed", Vec::new())));
        p.blocks.push(Block::Callout(c));
        assert_eq!(last_verdict(&p), Some(Verdict::Failed));
    }
}
