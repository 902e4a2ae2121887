//! The cases of one `cru session eval` run, and how they read: the table,
//! the summary line, the exit code.

use std::io::Write;

use crucible_eval::{Case, CaseOutcome, NotEvaluated, Verdict};

use crate::error::Outcome;
use crate::render::plural;
use crate::render::table::Table;

/// Everything one run found.
#[derive(Debug, Default)]
pub struct Report {
    pub cases: Vec<Case>,
    pub sessions_read: usize,
    /// Files `--all` could not read or parse, each a message naming it.
    pub skipped_files: Vec<String>,
    /// Sessions named on the command line that could not be read.
    pub unreadable_named: Vec<String>,
}

/// How many cases came out which way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub needs_judge: usize,
    pub empty: usize,
    pub result_unjudged: usize,
    pub newly_failing: usize,
    pub newly_passing: usize,
}

impl Report {
    pub fn counts(&self) -> Counts {
        let mut n = Counts::default();
        for c in &self.cases {
            match &c.outcome {
                CaseOutcome::NotEvaluated(NotEvaluated::NeedsJudge) => n.needs_judge += 1,
                CaseOutcome::NotEvaluated(NotEvaluated::Empty) => n.empty += 1,
                _ => {}
            }
            match c.verdict() {
                Some(Verdict::Passed) => n.passed += 1,
                Some(Verdict::Failed) => n.failed += 1,
                Some(Verdict::Error) => n.errors += 1,
                None => {}
            }
            n.result_unjudged += usize::from(c.result_unjudged && c.record().is_some());
            n.newly_failing += usize::from(c.newly_failing());
            n.newly_passing += usize::from(c.newly_passing());
        }
        n
    }

    /// 1 when any case failed or could not be evaluated (`error` too: a
    /// gate must not pass on a judge that never answered), or a named
    /// session could not be read; else 3 when `--all` skipped files (1 when
    /// it skipped every one); else 0.
    pub fn outcome(&self) -> Outcome {
        let n = self.counts();
        if n.failed + n.errors > 0 || !self.unreadable_named.is_empty() {
            Outcome::Failure
        } else {
            Outcome::from_files(self.sessions_read, self.skipped_files.len())
        }
    }

    /// `3 cases: 1 passed, 1 failed, 1 error; ...` for stderr.
    pub fn summary_line(&self, replay: bool) -> String {
        let n = self.counts();
        let evaluated = n.passed + n.failed + n.errors;
        let mut out = format!(
            "{evaluated} {}: {} passed, {} failed, {} {}",
            plural(evaluated, "case", "cases"),
            n.passed,
            n.failed,
            n.errors,
            plural(n.errors, "error", "errors"),
        );
        if n.errors > 0 {
            out.push_str(" (no verdict reached)");
        }
        if n.needs_judge > 0 {
            out.push_str(&format!(
                "; {} not evaluated (only `result:`, which needs --judge)",
                n.needs_judge
            ));
        }
        if n.empty > 0 {
            out.push_str(&format!("; {} not evaluated (empty [!expect])", n.empty));
        }
        if n.result_unjudged > 0 {
            out.push_str(&format!(
                "; the `result:` of {} checked {} not judged (add --judge)",
                n.result_unjudged,
                plural(n.result_unjudged, "case was", "cases were")
            ));
        }
        if !self.skipped_files.is_empty() {
            let s = self.skipped_files.len();
            out.push_str(&format!("; {s} {} skipped", plural(s, "file", "files")));
        }
        if replay {
            out.push_str(&format!(
                "\nagainst the last recorded verdicts: {} newly failing, {} newly passing",
                n.newly_failing, n.newly_passing
            ));
        }
        out
    }

    pub fn print_table(&self) -> std::io::Result<()> {
        if self.cases.is_empty() {
            return Ok(());
        }
        // Through anstream: the header's bold goes when stdout is piped.
        let mut out = anstream::stdout().lock();
        table(&mut out, &self.cases)?;
        out.flush()
    }
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

fn row(c: &Case) -> [String; 6] {
    let checks = match c.record() {
        Some(r) if !r.checks.is_empty() => r
            .checks
            .iter()
            .map(|k| format!("{} {}", k.kind.as_str(), mark(k.passed)))
            .collect::<Vec<_>>()
            .join(" "),
        _ => "–".to_owned(),
    };
    let judge = match c.record() {
        Some(r) if r.judge_error.is_some() => "error",
        Some(r) => r.judge.as_ref().map_or("–", |j| mark(j.passed)),
        None => "–",
    };
    [
        c.session.clone(),
        c.phase.clone(),
        checks,
        judge.to_owned(),
        c.was.map_or("–", Verdict::as_str).to_owned(),
        c.verdict().map_or("–", Verdict::as_str).to_owned(),
    ]
}

fn table(out: &mut impl Write, cases: &[Case]) -> std::io::Result<()> {
    let mut table = Table::new(&["session", "phase", "checks", "judge", "was", "verdict"]);
    for c in cases {
        table.push(row(c));
    }
    table.write(out)?;
    for c in cases {
        explain(out, c)?;
    }
    Ok(())
}

/// Under the table: why each case failed or has no verdict.
fn explain(out: &mut impl Write, c: &Case) -> std::io::Result<()> {
    let at = format!("{} {}", c.session, c.phase);
    match &c.outcome {
        CaseOutcome::Error(e) => writeln!(out, "\n{e}")?,
        // Counted in the summary line: one line each would drown the rest.
        CaseOutcome::NotEvaluated(_) => {}
        CaseOutcome::Evaluated(r) => {
            for k in r.checks.iter().filter(|k| !k.passed) {
                writeln!(out, "\n{at}: {} ✗ {}", k.kind.as_str(), k.detail)?;
            }
            if let Some(j) = r.judge.as_ref().filter(|j| !j.passed) {
                writeln!(out, "\n{at}: judge ✗ {}", j.reason)?;
            }
            if let Some(e) = &r.judge_error {
                writeln!(out, "\n{at}: judge error: {e}")?;
            }
        }
    }
    Ok(())
}
