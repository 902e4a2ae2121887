//! Integration tests: the real `cru` binary on real files.

mod codify;
mod discovery;
mod eval;
mod export;
mod hostile;
mod import;
mod import_agents;
mod import_claude_code;
mod import_codex;
mod import_connectonion;
mod import_opencode;
mod index;
mod kiln;
mod learn;
mod record;
mod resume;
mod seed_commands;
mod show;
mod sidecar;
mod validate;
