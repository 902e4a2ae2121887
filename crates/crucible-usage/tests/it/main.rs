//! crucible-usage's integration tests: one binary, a module per subject.

mod claude_code_against_ccusage;
mod report_blocks;
mod report_ccusage;
mod report_json;
mod report_periods;
mod report_session;
mod report_support;
