//! Integration tests: the real `cru` binary on real files.

mod codify;
mod discovery;
mod eval;
mod export;
mod hostile;
mod import;
mod index;
mod kiln;
mod learn;
mod real_claude_code;
mod record;
mod resume;
mod show;
mod validate;
