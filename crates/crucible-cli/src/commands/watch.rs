//! `cru watch [--once] [SOURCE...]`: imports agents' transcripts as they
//! are written, keeps the index and the search index of the sessions
//! directory fresh, and vouches for them through a heartbeat while it runs
//! (docs/capture.md).

mod backend;
mod catch_up;
mod changes;
mod event_loop;
mod last_record;
mod live;
mod otlp_send;
mod sources;

use std::path::PathBuf;

use clap::Args;
use crucible_index::watcher::{WatchLock, WatcherError};

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

pub use sources::default_sources;

#[derive(Debug, Args)]
#[command(
    after_help = "Exit status:\n  0  stopped by Ctrl-C or SIGTERM; `--once` caught up (or another watcher runs)\n  1  another watcher runs (without `--once`); the sessions directory cannot be used; with `--once --otlp`: sessions not sent (named; the next run sends them)\n  2  a bad flag; with `--otlp`: a bad URL or OTEL_* variable"
)]
pub struct WatchArgs {
    /// Catch up once (import what changed, bring the indexes up to date)
    /// and exit: for a cron job, or after a watcher was killed.
    #[arg(long)]
    pub once: bool,
    /// Files or folders of agent transcripts to watch (any format `cru
    /// session import` reads). Without any, the default agent stores.
    #[arg(value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    /// Also send every session that changed to this OTLP/HTTP endpoint as
    /// an OpenTelemetry trace, as `cru session export --to otlp
    /// --since-last` does (docs/otel.md, "Live"): a phase reaches the
    /// engine once it closes, the session's root once it ends. Headers,
    /// protocol, compression, timeout (default 5 s here) and resource come
    /// from the OTEL_EXPORTER_OTLP_* variables, OTEL_SERVICE_NAME and
    /// OTEL_RESOURCE_ATTRIBUTES (e.g. OTEL_EXPORTER_OTLP_HEADERS=
    /// "Authorization=Bearer%20KEY"). Sending runs beside capture, never
    /// holding it up.
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
}

pub fn run(args: &WatchArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    // Captured sessions go to the user's sessions directory, not to the
    // project the watcher happens to be started in (docs/configuration.md).
    let ctx = Context::for_capture(global, None)?;
    let dir = ctx.store.dir().to_owned();
    std::fs::create_dir_all(&dir).map_err(|e| CliError::new(format!("{}: {e}", dir.display())))?;
    let lock = match WatchLock::acquire(&dir, std::process::id()) {
        Ok(lock) => lock,
        Err(e @ WatcherError::Held { .. }) if args.once => {
            // The running watcher does what this run would.
            eprintln!("{e}; nothing to do");
            return Ok(Outcome::Success);
        }
        Err(e) => return Err(CliError::new(e.to_string()).into()),
    };
    let roots = if args.sources.is_empty() {
        default_sources()
    } else {
        args.sources
            .iter()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
            .collect()
    };
    // Checked before anything is imported: a bad URL or variable is a
    // usage error now, not a warning at every change.
    let otlp = args
        .otlp
        .as_deref()
        .map(otlp_send::Target::new)
        .transpose()?;
    let mut sources = sources::Sources::new(roots);
    let mut live = live::Live::new(ctx.config.session.idle_timeout);
    if args.once {
        catch_up::everything(&ctx, &mut sources, &mut live)?;
        if let Some(target) = &otlp {
            target.send_now(&ctx)?;
        }
        return Ok(Outcome::Success);
    }
    let sending = match otlp {
        Some(target) => Some(otlp_send::start(
            Context::for_capture(global, None)?,
            target,
        )),
        None => None,
    };
    event_loop::run(&ctx, sources, live, sending)?;
    drop(lock);
    Ok(Outcome::Success)
}
