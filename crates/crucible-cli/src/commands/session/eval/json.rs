//! `cru session eval --format json`: one object, `{"version": 1,
//! "results": [...], "not_evaluated": [...], "skipped_files": [...],
//! "summary": {...}}`, documented in docs/json.md. Made for output:
//! nothing here is an internal type.

use crucible_eval::{CaseOutcome, EvalRecord, Verdict, reason};
use serde::Serialize;

use super::report::Report;

/// The version of this schema; it changes only when a field changes meaning
/// or goes away.
const VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct EvalJson<'a> {
    version: u32,
    results: Vec<ResultJson<'a>>,
    not_evaluated: Vec<NotEvaluatedJson<'a>>,
    /// Files that could not be read, each a message naming the file.
    skipped_files: Vec<&'a str>,
    summary: SummaryJson,
}

/// One evaluated case.
#[derive(Debug, Serialize)]
struct ResultJson<'a> {
    session: &'a str,
    phase: &'a str,
    verdict: &'static str,
    /// Why this verdict, in one line.
    reason: String,
    #[serde(flatten)]
    record: RecordJson,
    /// The verdict recorded before this run.
    was: Option<&'static str>,
}

/// An evaluation's outcome, also what `cru session replay --eval --format
/// json` prints.
#[derive(Debug, Serialize)]
pub struct RecordJson {
    checks: Vec<CheckJson>,
    /// Only when the judge was asked (`--judge` and a `result:`).
    judge: Option<JudgeJson>,
    /// What evaluated; `null` when nothing could be run.
    by: Option<String>,
    at: Option<String>,
}

#[derive(Debug, Serialize)]
struct CheckJson {
    kind: &'static str,
    passed: bool,
    detail: String,
}

#[derive(Debug, Serialize)]
struct JudgeJson {
    verdict: &'static str,
    reason: String,
}

#[derive(Debug, Serialize)]
struct NotEvaluatedJson<'a> {
    session: &'a str,
    phase: &'a str,
    reason: &'static str,
}

#[derive(Debug, Serialize)]
struct SummaryJson {
    cases: usize,
    pass: usize,
    fail: usize,
    error: usize,
    not_evaluated: usize,
    skipped_files: usize,
    newly_failing: usize,
    newly_passing: usize,
}

impl RecordJson {
    pub fn new(r: &EvalRecord) -> Self {
        Self {
            checks: r
                .checks
                .iter()
                .map(|c| CheckJson {
                    kind: c.kind.as_str(),
                    passed: c.passed,
                    detail: c.detail.clone(),
                })
                .collect(),
            judge: match (&r.judge, &r.judge_error) {
                (Some(j), _) => Some(JudgeJson {
                    verdict: if j.passed { "pass" } else { "fail" },
                    reason: j.reason.clone(),
                }),
                (None, Some(e)) => Some(JudgeJson {
                    verdict: Verdict::Error.as_str(),
                    reason: e.clone(),
                }),
                (None, None) => None,
            },
            by: Some(r.by.clone()),
            at: Some(r.at.to_string()),
        }
    }

    fn none() -> Self {
        Self {
            checks: Vec::new(),
            judge: None,
            by: None,
            at: None,
        }
    }
}

impl<'a> EvalJson<'a> {
    pub fn new(report: &'a Report) -> Self {
        let mut results = Vec::new();
        let mut not_evaluated = Vec::new();
        for c in &report.cases {
            let (verdict, reason, record) = match &c.outcome {
                CaseOutcome::NotEvaluated(why) => {
                    not_evaluated.push(NotEvaluatedJson {
                        session: &c.session,
                        phase: &c.phase,
                        reason: why.reason(),
                    });
                    continue;
                }
                CaseOutcome::Error(e) => (Verdict::Error, e.clone(), RecordJson::none()),
                CaseOutcome::Evaluated(r) => (r.verdict, reason(r), RecordJson::new(r)),
            };
            results.push(ResultJson {
                session: &c.session,
                phase: &c.phase,
                verdict: verdict.as_str(),
                reason,
                record,
                was: c.was.map(Verdict::as_str),
            });
        }
        let n = report.counts();
        Self {
            version: VERSION,
            summary: SummaryJson {
                cases: results.len(),
                pass: n.passed,
                fail: n.failed,
                error: n.errors,
                not_evaluated: not_evaluated.len(),
                skipped_files: report.skipped_files.len() + report.unreadable_named.len(),
                newly_failing: n.newly_failing,
                newly_passing: n.newly_passing,
            },
            results,
            not_evaluated,
            skipped_files: report
                .skipped_files
                .iter()
                .chain(&report.unreadable_named)
                .map(String::as_str)
                .collect(),
        }
    }
}
