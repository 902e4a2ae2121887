//! Learning cases from sessions (seed 004's "RL case generation").
//!
//! [`cases_of`] reads a parsed session into cases: a **puzzle** from each
//! `[!error]` (the task, what came before, the agent's actions, the failure,
//! and the fix when one was logged) and a **correction** from each `[!user]`
//! intervention (what the agent did, the user's exact words, what was done
//! after). Each case carries metadata for filtering and an id that depends
//! only on what it says, so exports are stable and duplicates drop out.
//! [`CaseWriter`] writes them as SFT/DPO/ShareGPT JSONL, markdown or the
//! puzzle format; [`Redactor`] takes secrets out first; [`check`] holds the
//! structural rules training tools apply to each JSONL line.

mod case;
pub mod check;
mod export;
mod extract;

pub use case::{Case, CaseBody, CaseKind, CaseMeta};
/// The redactor every export goes through: the one of `crucible-redact`.
pub use crucible_redact::Redactor;
pub use export::{CaseWriter, Export, Schema, Written, render};
pub use extract::{CaseFilter, cases_of, may_have_cases};

impl Case {
    /// The case with every secret in its text replaced (see [`Redactor`]).
    #[must_use]
    pub fn redacted(mut self, r: &Redactor) -> Self {
        let red = |s: &mut String| r.redact_in_place(s);
        red(&mut self.task);
        if let Some(sp) = self.system_prompt.as_mut() {
            red(sp);
        }
        self.history.iter_mut().for_each(red);
        r.redact_in_place(&mut self.meta.phase);
        let calls = |calls: &mut Vec<crucible_core::ToolCall>| {
            for c in calls {
                r.redact_in_place(&mut c.args);
                if let Some(s) = c.summary.as_mut() {
                    r.redact_in_place(s);
                }
            }
        };
        calls(&mut self.actions);
        match &mut self.body {
            CaseBody::Puzzle {
                failure, expected, ..
            } => {
                red(failure);
                if let Some(e) = expected.as_mut() {
                    red(e);
                }
            }
            CaseBody::Correction {
                user_words,
                interpretation,
                before_text,
                after_calls,
                after_text,
            } => {
                red(user_words);
                if let Some(i) = interpretation.as_mut() {
                    red(i);
                }
                before_text.iter_mut().for_each(red);
                after_text.iter_mut().for_each(red);
                calls(after_calls);
            }
        }
        self
    }
}
