//! One evaluation run over sessions (`cru session eval`): every phase with
//! an `[!expect]` callout is a case; the case is what the phase did, or,
//! with a replaying agent, a new run of it; each outcome is recorded in its
//! phase as an `[!eval]` callout unless the caller says not to.
//!
//! The caller chooses the sessions ([`files_with_expectations`] finds them
//! all) and the agents; [`run_eval`] returns every case and every file it
//! could not read, for the caller to render.

use std::path::{Path, PathBuf};

use crucible_agent::AgentBackend;
use crucible_core::{
    Block, EvalRecord, Expectation, PhaseId, SessionCodec, SessionId, SessionLog, SessionStore,
    StoreError, Timestamp, Verdict, expectation_of, last_verdict,
};

use crate::{Actual, Evaluator, NotEvaluated, evaluable, replay};

/// What evaluates, and how the run treats the sessions.
#[derive(Debug, Clone, Copy)]
pub struct EvalOptions<'a> {
    /// Runs each phase again; `None` evaluates what the phase did.
    pub replay: Option<&'a dyn AgentBackend>,
    /// Asked about the cases whose expectation has a `result:`.
    pub judge: Option<&'a dyn AgentBackend>,
    /// Replaces each session's system prompt in a replay.
    pub system_prompt: Option<&'a str>,
    /// The token budget of a replay's context.
    pub budget: u64,
    /// Says what evaluated besides the judge, in each record.
    pub by: &'a str,
    /// Append each outcome to its phase as an `[!eval]` callout.
    pub record: bool,
    /// The files were not named by the user (all sessions): one that
    /// cannot be read is skipped rather than a failure.
    pub skip_unreadable: bool,
}

/// One phase with an `[!expect]` callout.
#[derive(Debug)]
pub struct Case {
    pub session: String,
    pub phase: String,
    /// The last verdict recorded before this run.
    pub was: Option<Verdict>,
    /// The expectation has a `result:` that no judge looked at (no
    /// judge): the verdict comes from the checks alone.
    pub result_unjudged: bool,
    pub outcome: CaseOutcome,
}

#[derive(Debug)]
pub enum CaseOutcome {
    Evaluated(EvalRecord),
    /// No verdict could be reached before any check: the `[!expect]` cannot
    /// be read, or the agent of a replay failed. Not recorded.
    Error(String),
    /// Nothing to evaluate; neither a pass nor a failure.
    NotEvaluated(NotEvaluated),
}

impl Case {
    pub fn verdict(&self) -> Option<Verdict> {
        match &self.outcome {
            CaseOutcome::Evaluated(r) => Some(r.verdict),
            CaseOutcome::Error(_) => Some(Verdict::Error),
            CaseOutcome::NotEvaluated(_) => None,
        }
    }

    pub fn record(&self) -> Option<&EvalRecord> {
        match &self.outcome {
            CaseOutcome::Evaluated(r) => Some(r),
            _ => None,
        }
    }

    /// Passed when last recorded, failed or error now.
    pub fn newly_failing(&self) -> bool {
        self.was == Some(Verdict::Passed)
            && matches!(self.verdict(), Some(Verdict::Failed | Verdict::Error))
    }

    pub fn newly_passing(&self) -> bool {
        matches!(self.was, Some(Verdict::Failed | Verdict::Error))
            && self.verdict() == Some(Verdict::Passed)
    }
}

/// Everything one run found.
#[derive(Debug, Default)]
pub struct EvalRun {
    pub cases: Vec<Case>,
    pub sessions_read: usize,
    /// Files that could not be read and were skipped, each a message naming it.
    pub skipped_files: Vec<String>,
    /// Files the user named that could not be read (a failure, not a skip).
    pub unreadable_named: Vec<String>,
    /// Sessions named that have no `[!expect]` callout at all.
    pub nothing_to_evaluate: Vec<SessionId>,
}

/// Whether `bytes` may hold an `[!expect]` callout: `[!expect` in any
/// case, as core reads callout kinds (`[!Expect]` is one). A quick check
/// before a parse: it may let a file through that holds none, never the
/// reverse.
fn may_hold_expectation(bytes: &[u8]) -> bool {
    const KIND: &[u8] = b"expect";
    memchr::memmem::find_iter(bytes, b"[!").any(|at| {
        bytes
            .get(at + 2..at + 2 + KIND.len())
            .is_some_and(|k| k.eq_ignore_ascii_case(KIND))
    })
}

/// Every session file of `store` whose text may hold an `[!expect]`
/// callout ([`may_hold_expectation`]; the others are not even parsed), and
/// a message for each file that could not be read.
pub fn files_with_expectations<C: SessionCodec>(
    store: &SessionStore<C>,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for f in store.scan() {
        match f.and_then(|f| store.read_bytes(&f.path).map(|b| (f.path, b))) {
            Ok((path, bytes)) => {
                if may_hold_expectation(&bytes) {
                    files.push(path);
                }
            }
            Err(e) => skipped.push(e.to_string()),
        }
    }
    (files, skipped)
}

/// Evaluates every case of `files` and records the outcomes (with
/// `opts.record`), one locked write per session. A store error while
/// recording stops the run.
pub fn run_eval<C: SessionCodec>(
    store: &SessionStore<C>,
    files: &[PathBuf],
    opts: &EvalOptions<'_>,
) -> Result<EvalRun, StoreError> {
    let mut run = EvalRun::default();
    for path in files {
        let log = match store.load_path(path) {
            Ok(log) => log,
            Err(e) if opts.skip_unreadable => {
                run.skipped_files.push(e.to_string());
                continue;
            }
            Err(e) => {
                // A session the user named and that cannot be read is a
                // failure, not a skip: they asked for it.
                run.unreadable_named.push(e.to_string());
                continue;
            }
        };
        run.sessions_read += 1;
        let cases = cases_of(opts, path, &log);
        if cases.is_empty() && !opts.skip_unreadable {
            run.nothing_to_evaluate.push(log.id().clone());
        }
        let records: Vec<(usize, &EvalRecord)> = cases
            .iter()
            .filter_map(|(index, case)| case.record().map(|r| (*index, r)))
            .collect();
        if !records.is_empty() && opts.record {
            store.update(path, |log| record_into(log, &records))?;
        }
        run.cases.extend(cases.into_iter().map(|(_, c)| c));
    }
    Ok(run)
}

/// Every case of one session, with its phase's index.
fn cases_of(opts: &EvalOptions<'_>, path: &Path, log: &SessionLog) -> Vec<(usize, Case)> {
    let mut out = Vec::new();
    for (id, phase) in log.phases() {
        let Some(expect) = expectation_of(phase) else {
            continue;
        };
        let (result_unjudged, outcome) = match expect {
            Err(e) => (
                false,
                CaseOutcome::Error(format!("{}: {id}: {e}", path.display())),
            ),
            Ok(e) => (
                e.asks_judge() && opts.judge.is_none(),
                evaluate(opts, log, id, &e),
            ),
        };
        out.push((
            id.index(),
            Case {
                session: log.id().to_string(),
                phase: id.to_string(),
                was: last_verdict(phase),
                result_unjudged,
                outcome,
            },
        ));
    }
    out
}

/// One case: the phase as recorded, or a new run of it; its checks and,
/// where the expectation asks for it, the judge's answer.
fn evaluate(opts: &EvalOptions<'_>, log: &SessionLog, id: PhaseId, e: &Expectation) -> CaseOutcome {
    let Some(phase) = log.phase(id) else {
        return CaseOutcome::Error(format!("{}: no {id}", log.id()));
    };
    // Nothing runs (no replay, no judge) for a case that cannot be evaluated.
    if let Err(why) = evaluable(e, opts.judge.is_some()) {
        return CaseOutcome::NotEvaluated(why);
    }
    let actual = match opts.replay {
        None => Actual::of_phase(phase),
        Some(agent) => {
            match replay::run_phase(agent, log, id.index(), opts.system_prompt, opts.budget) {
                Ok(run) => run.actual,
                Err(err) => {
                    return CaseOutcome::Error(format!(
                        "{}: {id}: the agent failed: {err}",
                        log.id()
                    ));
                }
            }
        }
    };
    let evaluator = Evaluator {
        judge: opts.judge,
        by: opts.by,
    };
    let input = replay::input_of(phase);
    match evaluator.evaluate(e, &input, &actual, Timestamp::now()) {
        Ok(record) => CaseOutcome::Evaluated(record),
        Err(why) => CaseOutcome::NotEvaluated(why),
    }
}

/// Appends each record to its phase (by 0-based index).
pub fn record_into(log: &mut SessionLog, records: &[(usize, &EvalRecord)]) {
    let mut phases: Vec<&mut crucible_core::Phase> = log.phases_mut().collect();
    for (index, r) in records {
        if let Some(p) = phases.get_mut(*index) {
            p.blocks.push(Block::Callout(r.to_callout()));
        }
    }
}

/// What changed first: newly failing, then newly passing, then new
/// failures; the order is otherwise kept.
pub fn newly_changed_first(cases: &mut [Case]) {
    cases.sort_by_key(|c| {
        if c.newly_failing() {
            0
        } else if c.newly_passing() {
            1
        } else if c.was.is_none() && matches!(c.verdict(), Some(Verdict::Failed | Verdict::Error)) {
            2
        } else {
            3
        }
    });
}

/// Why a record has its verdict, in one line: the failed checks and the
/// judge's word for a failure, the judge's error for an error, what passed
/// for a pass.
pub fn reason(r: &EvalRecord) -> String {
    let mut parts: Vec<String> = Vec::new();
    match r.verdict {
        Verdict::Failed => {
            for c in r.checks.iter().filter(|c| !c.passed) {
                parts.push(format!("{}: {}", c.kind.as_str(), c.detail));
            }
            if let Some(j) = r.judge.as_ref().filter(|j| !j.passed) {
                parts.push(format!("judge: {}", j.reason));
            }
        }
        Verdict::Error => {
            if let Some(e) = &r.judge_error {
                parts.push(format!("judge: {e}"));
            }
        }
        Verdict::Passed => {
            if !r.checks.is_empty() {
                let kinds: Vec<&str> = r.checks.iter().map(|c| c.kind.as_str()).collect();
                parts.push(format!("{} passed", kinds.join(", ")));
            }
            if let Some(j) = &r.judge {
                parts.push(format!("judge: {}", j.reason));
            }
        }
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{Callout, Check, CheckKind, JudgeVerdict, Phase, Section, ToolCall};

    #[test]
    fn the_quick_check_finds_expect_in_any_case() {
        for text in ["> [!expect]", "> [!Expect]\n", "x [!EXPECT]-", "[![!eXpEcT"] {
            assert!(may_hold_expectation(text.as_bytes()), "{text}");
        }
        for text in ["> [!note]", "[!expec", "[! expect]", "expect", ""] {
            assert!(!may_hold_expectation(text.as_bytes()), "{text}");
        }
    }

    fn at() -> Timestamp {
        "2026-11-22T05:00:00Z".parse().unwrap()
    }

    fn check(kind: CheckKind, passed: bool, detail: &str) -> Check {
        Check {
            kind,
            passed,
            detail: detail.into(),
        }
    }

    /// A session of two phases: the first expects `grep` and called it,
    /// the second expects `grep` and called `write`.
    fn session() -> SessionLog {
        let mut log = SessionLog::new(crucible_core::Frontmatter::new(
            "2026-11-22-eval".parse().unwrap(),
            at(),
        ));
        for (name, tool) in [("find", "grep"), ("fix", "write")] {
            let mut p = Phase::new(name, None, None);
            p.blocks
                .push(Block::Callout(Callout::user("find the TODO", None)));
            p.blocks.push(Block::Callout(Callout::new(
                "expect",
                "",
                vec!["tools: grep".into()],
            )));
            p.blocks.push(Block::ToolCalls {
                calls: vec![ToolCall::new(tool, "src/")],
            });
            log.sections.push(Section::Phase(p));
        }
        log
    }

    fn opts() -> EvalOptions<'static> {
        EvalOptions {
            replay: None,
            judge: None,
            system_prompt: None,
            budget: 1000,
            by: "checks",
            record: true,
            skip_unreadable: false,
        }
    }

    #[test]
    fn each_phase_with_an_expectation_is_a_case_with_its_verdict() {
        let log = session();
        let cases = cases_of(&opts(), Path::new("s.md"), &log);
        let verdicts: Vec<_> = cases.iter().map(|(i, c)| (*i, c.verdict())).collect();
        assert_eq!(
            verdicts,
            [(0, Some(Verdict::Passed)), (1, Some(Verdict::Failed))]
        );
        assert_eq!(cases[1].1.phase, "phase-2");
    }

    #[test]
    fn records_go_back_into_their_phases_and_become_the_last_verdict() {
        let mut log = session();
        let cases = cases_of(&opts(), Path::new("s.md"), &log);
        let records: Vec<(usize, &EvalRecord)> = cases
            .iter()
            .filter_map(|(i, c)| c.record().map(|r| (*i, r)))
            .collect();
        record_into(&mut log, &records);
        let was: Vec<_> = log.phases().map(|(_, p)| last_verdict(p)).collect();
        assert_eq!(was, [Some(Verdict::Passed), Some(Verdict::Failed)]);
        // A second run compares with what the first recorded.
        let again = cases_of(&opts(), Path::new("s.md"), &log);
        assert_eq!(again[1].1.was, Some(Verdict::Failed));
        assert!(!again[1].1.newly_failing());
    }

    #[test]
    fn an_unreadable_expectation_is_an_error_naming_file_and_phase() {
        let mut log = session();
        let p = log.phases_mut().next().unwrap();
        p.blocks[1] = Block::Callout(Callout::new("expect", "", vec!["when: later".into()]));
        let cases = cases_of(&opts(), Path::new("s.md"), &log);
        match &cases[0].1.outcome {
            CaseOutcome::Error(e) => assert!(e.starts_with("s.md: phase-1: line 1"), "{e}"),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn changes_come_first() {
        let case = |was, passed| Case {
            session: "s".into(),
            phase: format!("{was:?} {passed}"),
            was,
            result_unjudged: false,
            outcome: CaseOutcome::Evaluated(EvalRecord::new(
                vec![check(CheckKind::Tools, passed, "")],
                None,
                "checks".into(),
                at(),
            )),
        };
        let mut cases = vec![
            case(Some(Verdict::Passed), true),
            case(None, false),
            case(Some(Verdict::Failed), true),
            case(Some(Verdict::Passed), false),
        ];
        newly_changed_first(&mut cases);
        let order: Vec<_> = cases.iter().map(|c| c.phase.as_str()).collect();
        assert_eq!(
            order,
            [
                "Some(Passed) false",
                "Some(Failed) true",
                "None false",
                "Some(Passed) true"
            ]
        );
    }

    #[test]
    fn the_reason_names_what_decided_the_verdict() {
        let r = EvalRecord::new(
            vec![
                check(CheckKind::Tools, true, "called grep"),
                check(CheckKind::Pattern, false, "/x/ not found"),
            ],
            Some(Ok(JudgeVerdict {
                passed: false,
                reason: "wrong file".into(),
            })),
            "checks".into(),
            at(),
        );
        assert_eq!(reason(&r), "pattern: /x/ not found; judge: wrong file");
        let r = EvalRecord::new(
            vec![check(CheckKind::Tools, true, "called grep")],
            Some(Err("timed out".into())),
            "checks".into(),
            at(),
        );
        assert_eq!(reason(&r), "judge: timed out");
        let r = EvalRecord::new(
            vec![check(CheckKind::Tools, true, "called grep")],
            None,
            "checks".into(),
            at(),
        );
        assert_eq!(reason(&r), "tools passed");
    }
}
