//! Integration tests: the real `cru` binary on real files.

mod codify;
mod codify_flow;
mod discovery;
mod docs_links;
mod duplicates;
mod errors;
mod eval;
mod exit_codes;
mod export;
mod hostile;
mod import;
mod import_agents;
mod import_claude_code;
mod import_codex;
mod import_connectonion;
mod import_opencode;
mod index;
mod json;
mod kiln;
mod learn;
mod record;
mod resume;
mod resume_runs;
mod show;
mod sidecar;
mod validate;
