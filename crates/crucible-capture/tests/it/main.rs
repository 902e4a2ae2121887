//! crucible-capture's integration tests: hook events applied to a real
//! store, as `cru hook claude-code` applies them.

mod claude_code;
mod one_session;
