//! The pieces of `cargo xtask`, as a library so tests can run them small.

pub mod bench;
pub mod capture_bench;
pub mod claude_corpus;
pub mod cli_reference;
pub mod codex_corpus;
pub mod corpus;
pub mod cru_binary;
pub mod deps;
pub mod docs;
pub mod import_bench;
pub mod index_bench;
pub mod learn_bench;
pub mod learn_check;
pub mod mcp_bench;
pub mod messages_check;
#[cfg(test)]
mod names_spelled_once;
pub mod otlp_bench;
pub mod peer_check;
pub mod record_bench;
pub mod screenshots;
pub mod search_bench;
pub mod site_bench;
