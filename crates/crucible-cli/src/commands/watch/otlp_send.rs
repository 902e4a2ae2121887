//! `cru watch --otlp URL`: sessions sent to an OTLP engine as they change,
//! on a thread of its own. Capture must never wait on the engine: a hung
//! one would hold imports, index catch-ups and readers' fences for every
//! attempt's timeout. One send runs at a time; changes made meanwhile are
//! coalesced into the one send that follows it.

use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::commands::session::export::otlp::{self, OtlpArgs};
use crate::commands::session::export::otlp_settings::{Settings, settings};
use crate::context::Context;
use crate::error::CliError;

/// How long one attempt may take unless `OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT`
/// says otherwise: shorter than an export's, since the next change brings
/// another send anyway.
const WATCH_TIMEOUT_MS: &str = "5000";

/// How long sessions an engine did not take wait, without a change, to be
/// sent again.
const RETRY_EVERY: Duration = Duration::from_secs(30);

/// Where and how the watcher sends: `--otlp URL` with the `OTEL_*`
/// variables (headers, protocol, compression, timeout, resource), as
/// `cru session export --to otlp --since-last --endpoint URL` reads them.
pub struct Target {
    args: OtlpArgs,
    settings: Settings,
}

impl Target {
    /// Checked before the watcher starts: a bad URL or variable is a usage
    /// error, not a warning at every change.
    pub fn new(url: &str) -> Result<Self, CliError> {
        let args = OtlpArgs {
            since_last: true,
            endpoint: Some(url.to_owned()),
            retries: 2,
            ..OtlpArgs::default()
        };
        let timeout_set = [
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
            "OTEL_EXPORTER_OTLP_TIMEOUT",
        ]
        .iter()
        .any(|n| std::env::var(n).is_ok_and(|v| !v.trim().is_empty()));
        let env = |name: &str| match std::env::var(name) {
            Ok(v) => Some(v),
            Err(_) if name == "OTEL_EXPORTER_OTLP_TIMEOUT" && !timeout_set => {
                Some(WATCH_TIMEOUT_MS.to_owned())
            }
            Err(_) => None,
        };
        Ok(Self {
            settings: settings(&args, &env)?,
            args,
        })
    }

    /// One send, here and now (`--once`): its error is the caller's.
    pub fn send_now(&self, ctx: &Context) -> anyhow::Result<()> {
        otlp::send(ctx, &[], &self.args, &self.settings, true).map(|_| ())
    }
}

/// The handle the event loop asks for sends through.
pub struct Sending {
    wanted: SyncSender<()>,
    failed_at: Arc<Mutex<Option<Instant>>>,
}

/// Starts the sending thread with a context of its own. It is not waited
/// for: a watcher stopped during a send to a hung engine exits at once
/// (the record is written atomically, and what was not entered is sent by
/// the next run).
pub fn start(ctx: Context, target: Target) -> Sending {
    // One send waiting at most: a change while one waits is in it already.
    let (wanted, rx) = sync_channel::<()>(1);
    let failed_at = Arc::new(Mutex::new(None));
    let failed = Arc::clone(&failed_at);
    std::thread::spawn(move || {
        for () in rx {
            let ok = otlp::send_changed(&ctx, &target.args, &target.settings);
            *failed.lock().expect("no thread panics holding it") = (!ok).then(Instant::now);
        }
    });
    Sending { wanted, failed_at }
}

impl Sending {
    /// Sends what changed, soon: after the send running now, if any.
    pub fn request(&self) {
        // Full: a send is already waiting, and takes this change too.
        let _ = self.wanted.try_send(());
    }

    /// Sends again what the engine did not take, once [`RETRY_EVERY`]
    /// passed without a change.
    pub fn retry_if_due(&self, now: Instant) {
        let mut failed = self.failed_at.lock().expect("no thread panics holding it");
        if failed.is_some_and(|t| now >= t + RETRY_EVERY) {
            *failed = None;
            drop(failed);
            self.request();
        }
    }
}
