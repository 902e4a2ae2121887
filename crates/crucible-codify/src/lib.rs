//! Sessions into reusable workflows.
//!
//! [`codify`] turns one or more parsed sessions into a [`Workflow`] in the
//! markup of `shared/specs/workflow-markup.md`: each phase a step, the
//! phase's decisions as its prose and its errors as guidance, data flow
//! inferred from the tool calls (see [`dataflow`]), and each session's run
//! as a `session-toon` execution row. Sessions of the same task merge into
//! one workflow, steps matched by name; [`task`] tells which sessions are
//! runs of the same task. [`mermaid`] draws any workflow. [`refine`] is
//! the prompt that asks an agent to refine a workflow and the checks its
//! reply must pass (the agent itself is the caller's).

pub mod dataflow;
mod extract;
mod mermaid;
pub mod refine;
pub mod task;

pub use extract::{CodifyError, Source, codify, codify_sources};
pub use mermaid::mermaid;

pub use crucible_core::workflow::Workflow;
