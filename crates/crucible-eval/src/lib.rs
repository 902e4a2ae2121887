//! Evaluating sessions (seeds 000 and 001: "after changing this prompt,
//! what is different?"): a phase says what it should do in an `[!expect]`
//! callout ([`Expectation`]); [`check`] compares what the phase did (its
//! tool calls and its result, [`Actual`]) without any model; a judge
//! (any [`crucible_agent::AgentBackend`]) compares the result with the
//! expected one in words and must answer in a strict form ([`judge`]),
//! asked only where an expectation has a `result:` ([`Evaluator`]); an
//! [`EvalRecord`] goes back into the phase as an `[!eval]` callout, so the
//! history of evaluations stays with the session. [`run_eval`] is one run
//! over sessions (`cru session eval`). [`replay`] builds the context to run
//! one turn again and compares the new run with the old.
//!
//! Nothing here prints or reads the environment; the CLI does both.

mod actual;
mod check;
mod evaluate;
pub mod judge;
pub mod replay;
mod run;
mod run_output;

pub use actual::Actual;
pub use check::check;
pub use evaluate::{Evaluator, NotEvaluated, evaluable};
pub use judge::JudgeError;
pub use run::{
    Case, CaseOutcome, EvalOptions, EvalRun, files_with_expectations, newly_changed_first, reason,
    record_into, run_eval,
};
pub use run_output::run_output;

// The callout types live in crucible-core so that readers of session files
// need not build the evaluator; they are re-exported for users of this crate.
pub use crucible_core::{
    Check, CheckKind, EvalRecord, ExpectError, Expectation, JudgeVerdict, Order, ToolPattern,
    Verdict, expectation_of, last_verdict,
};
