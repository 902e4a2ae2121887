//! `cru hook codex '<json>'`: after a Codex turn, its thread's rollout is
//! imported again through the Codex importer (the session it made before
//! is updated in place).

use std::path::PathBuf;

use crucible_capture::codex::{AGENT, Notification, find_rollout};
use crucible_interop::reconcile::Reconciler;

use super::CodexArgs;
use super::failures::{Failure, log};
use crate::cli::GlobalArgs;
use crucible_core::store::lock::DirLock;

use crate::context::{CapturePolicy, Context};

/// Codex's sessions directory: `$CODEX_HOME/sessions`, else `~/.codex/sessions`.
fn codex_sessions() -> Option<PathBuf> {
    crate::commands::setup::codex::codex_home().map(|h| h.join("sessions"))
}

pub fn run(args: &CodexArgs, global: &GlobalArgs) {
    let fail = |sessions: Option<&std::path::Path>, thread: Option<&str>, message: String| {
        log(
            sessions,
            Failure::new(AGENT, Some("notify"), thread, message),
        );
    };
    let Some(payload) = args.payload.last() else {
        fail(None, None, "no notification argument".into());
        return;
    };
    let n = match Notification::from_json(payload) {
        Ok(n) => n,
        Err(e) => return fail(None, None, format!("not a Codex notification: {e}")),
    };
    if !n.is_turn_complete() {
        return;
    }
    let Some(thread) = n.thread_id.as_deref() else {
        return fail(None, None, "the notification names no thread-id".into());
    };
    let cwd = n.cwd.as_deref();
    if cwd.is_some_and(|cwd| !CapturePolicy::load().is_enabled(cwd)) {
        return;
    }
    let ctx = match Context::for_capture(global, cwd) {
        Ok(c) => c,
        Err(e) => return fail(None, Some(thread), format!("{e:#}")),
    };
    let dir = Some(ctx.store.dir());
    let Some(codex) = codex_sessions() else {
        return fail(dir, Some(thread), "no $CODEX_HOME and no $HOME".into());
    };
    let Some(rollout) = find_rollout(&codex, thread) else {
        let message = format!("no rollout of thread {thread} under {}", codex.display());
        return fail(dir, Some(thread), message);
    };
    let imported = match crucible_interop::import(&rollout, crucible_interop::Format::Codex) {
        Ok(i) => i,
        Err(e) => return fail(dir, Some(thread), e.to_string()),
    };
    // Imports run one at a time (each looks for its session before it
    // creates one); a hook waits for another a bounded time only.
    let _ = std::fs::create_dir_all(ctx.store.dir());
    let lock_file = ctx
        .store
        .dir()
        .join(crucible_core::store::names::IMPORT_LOCK);
    let _import = match DirLock::acquire_file(&lock_file, Some(crucible_capture::LOCK_WAIT)) {
        Ok(held) => held,
        Err(e) => return fail(dir, Some(thread), e.to_string()),
    };
    let stored =
        Reconciler::new(&ctx.store, false).and_then(|mut r| r.store(imported, &mut |_| {}));
    if let Err(e) = stored {
        fail(dir, Some(thread), e.to_string());
    }
}
