//! crucible-search on real files: the tokenizer's properties, and a search
//! that must answer while another process holds the writer lock.

mod check;
mod locked;
mod subagents;
mod tokenizer;
