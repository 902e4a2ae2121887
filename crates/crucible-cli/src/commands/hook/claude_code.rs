//! `cru hook claude-code`: one event from stdin into its session.

use std::io::Read;

use crucible_capture::claude_code::AGENT;
use crucible_capture::{Capture, CaptureOptions, HookInput};
use crucible_core::Timestamp;

use super::ClaudeCodeArgs;
use super::failures::{Failure, log};
use crate::cli::GlobalArgs;
use crate::context::{CapturePolicy, Context};

/// The most a hook input may be: Claude Code sends a tool's whole input
/// and result, which may be large, but not this large.
const MAX_INPUT: u64 = 256 * 1024 * 1024;

pub fn run(args: &ClaudeCodeArgs, global: &GlobalArgs) {
    let mut bytes = Vec::new();
    // An input that cannot be read names no project: its failure goes to
    // the user's sessions directory (the fallback only when that is broken).
    let user_dir = || {
        Context::for_capture(global, None)
            .ok()
            .map(|c| c.store.dir().to_owned())
    };
    if let Err(e) = std::io::stdin().take(MAX_INPUT).read_to_end(&mut bytes) {
        log(
            user_dir().as_deref(),
            Failure::new(AGENT, None, None, format!("reading stdin: {e}")),
        );
        return;
    }
    let input = match HookInput::from_json(&bytes) {
        Ok(i) => i,
        Err(e) => {
            let message = format!("the hook input is not a Claude Code event: {e}");
            log(
                user_dir().as_deref(),
                Failure::new(AGENT, None, None, message),
            );
            return;
        }
    };
    let event = input.event.name();
    // A project may opt out of capture ([capture] enabled = false): its
    // sessions are not recorded, and that is no failure.
    let cwd = input.cwd.as_deref();
    if cwd.is_some_and(|cwd| !CapturePolicy::load().is_enabled(cwd)) {
        return;
    }
    let ctx = match Context::for_capture(global, cwd) {
        Ok(c) => c,
        Err(e) => {
            let message = format!("{e:#}");
            log(
                None,
                Failure::new(AGENT, Some(event), Some(&input.session_id), message),
            );
            return;
        }
    };
    let options = CaptureOptions {
        payload_limit: args.payload_limit,
    };
    let store = ctx
        .store
        .clone()
        .with_lock_wait(crucible_capture::LOCK_WAIT);
    let message = match Capture::new(&store, options).record(&input, &Timestamp::now()) {
        Err(e) => e.to_string(),
        // A damaged state, rebuilt: recorded, and said once.
        Ok(crucible_capture::Recorded::Session {
            rebuilt: Some(why), ..
        }) => why,
        Ok(_) => return,
    };
    log(
        Some(ctx.store.dir()),
        Failure::new(AGENT, Some(event), Some(&input.session_id), message),
    );
}
