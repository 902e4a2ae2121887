//! The file-system watcher: the platform's own (inotify on Linux, FSEvents
//! on macOS, ReadDirectoryChangesW on Windows), or polling when the system
//! refuses more watches.

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::{PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};

/// How often the polling fallback looks at every watched file.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// Where Linux keeps the limit a user's watches run into.
const WATCH_LIMIT: &str = "/proc/sys/fs/inotify/max_user_watches";

pub type Events = Sender<notify::Result<notify::Event>>;

/// A running watcher, and whether its events come in the order the changes
/// were made (inotify's do; a poll's do not), which readers' trust needs.
pub struct Running {
    watcher: Box<dyn Watcher>,
    pub ordered: bool,
}

impl Running {
    /// Watches one more folder (an agent's store made after the start).
    pub fn watch(&mut self, path: &std::path::Path, mode: RecursiveMode) -> notify::Result<()> {
        self.watcher.watch(path, mode)
    }
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running")
            .field("ordered", &self.ordered)
            .finish_non_exhaustive()
    }
}

/// Watches `targets` with the platform's watcher, else (the watch limit
/// reached, or no watcher to be had) by polling, saying so.
pub fn start(events: &Events, targets: &[(PathBuf, RecursiveMode)]) -> anyhow::Result<Running> {
    let native = RecommendedWatcher::new(events.clone(), notify::Config::default())
        .map_err(|e| (e, None))
        .and_then(|mut w| match watch_all(&mut w, targets) {
            Ok(()) => Ok(w),
            Err(e) => Err(e),
        });
    match native {
        Ok(w) => Ok(Running {
            watcher: Box::new(w),
            ordered: cfg!(target_os = "linux"),
        }),
        Err((e, path)) => {
            let limit = matches!(e.kind, notify::ErrorKind::MaxFilesWatch)
                || matches!(&e.kind, notify::ErrorKind::Io(io) if io.raw_os_error() == Some(28) || io.raw_os_error() == Some(24));
            let at = path
                .map(|p| format!(" at {}", p.display()))
                .unwrap_or_default();
            if limit {
                eprintln!(
                    "warning: the system's limit of file watches is reached{at} (see {WATCH_LIMIT}; raise it with `sysctl fs.inotify.max_user_watches=N`); polling every {}s instead",
                    POLL_EVERY.as_secs()
                );
            } else {
                eprintln!(
                    "warning: no file-system watcher{at} ({e}); polling every {}s instead",
                    POLL_EVERY.as_secs()
                );
            }
            poll(events, targets)
        }
    }
}

fn watch_all<W: Watcher>(
    w: &mut W,
    targets: &[(PathBuf, RecursiveMode)],
) -> Result<(), (notify::Error, Option<PathBuf>)> {
    for (path, mode) in targets {
        w.watch(path, *mode).map_err(|e| (e, Some(path.clone())))?;
    }
    Ok(())
}

/// The polling fallback.
pub fn poll(events: &Events, targets: &[(PathBuf, RecursiveMode)]) -> anyhow::Result<Running> {
    let config = notify::Config::default().with_poll_interval(POLL_EVERY);
    let mut w = PollWatcher::new(events.clone(), config)?;
    watch_all(&mut w, targets).map_err(|(e, p)| {
        anyhow::anyhow!(
            "{}: {e}",
            p.map_or_else(|| ".".into(), |p| p.display().to_string())
        )
    })?;
    Ok(Running {
        watcher: Box::new(w),
        ordered: false,
    })
}
