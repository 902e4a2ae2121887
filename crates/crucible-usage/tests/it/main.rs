//! crucible-usage's integration tests: one binary, a module per subject.

mod claude_code_against_ccusage;
