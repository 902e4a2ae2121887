//! The doctor's capture sections: the agents' stores an import with no
//! path reads, the watcher, and the hooks — with the silent failures
//! people hit (a store never imported, hooks installed that never fired,
//! a watcher that died).

use std::path::Path;
use std::time::{Duration, SystemTime};

use crucible_capture::error_log;
use crucible_capture::setup::{claude_settings, codex_config};
use crucible_index::watcher::WatcherHeartbeat;
use crucible_interop::import_state::ImportState;
use crucible_interop::store_scan::plan_store;
use crucible_interop::stores::{Presence, agent_name, agent_stores};

use super::left_out;
use super::report::{Check, Level, Section};
use crate::commands::hook::failures::fallback_path;
use crate::commands::session::import::store_env;
use crate::commands::setup::{claude_code, codex};

/// How long ago `t` was, as a person says it.
fn ago(t: SystemTime, now: SystemTime) -> String {
    let secs = now.duration_since(t).unwrap_or(Duration::ZERO).as_secs();
    match secs {
        0..=119 => format!("{secs} s ago"),
        120..=7199 => format!("{} min ago", secs / 60),
        7200..=172_799 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
}

/// Each store: found or not, its sources, and whether they were imported
/// into `capture_dir` (the directory capture writes to).
pub fn stores(capture_dir: &Path) -> Section {
    let (state, _) = ImportState::load(capture_dir);
    let mut policy = crate::context::CapturePolicy::load();
    let mut checks = Vec::new();
    for store in agent_stores(&store_env()) {
        let name = agent_name(store.format);
        let what = format!("{name} ({})", store.root.display());
        let check = match &store.presence {
            Presence::Missing => Check::new(Level::Note, what, "not on this machine"),
            Presence::Refused(why) => Check::new(Level::Warning, what, why.clone()),
            Presence::Found => {
                let plan = plan_store(&store, &state, false);
                // Sources `[capture]` leaves out are never recorded as
                // read: they are not "new", nor "imported".
                let left = left_out::left_out(&plan.sources, &mut policy);
                found_store(what, plan.total(), plan.sources.len() - left.count, &left)
            }
        };
        checks.push(check);
    }
    Section {
        name: "agent stores",
        checks,
    }
}

/// A store found with `n` sessions, `new` of them to import, and those
/// `[capture]` leaves out.
fn found_store(what: String, n: usize, new: usize, left: &left_out::LeftOut) -> Check {
    let also = if left.count > 0 {
        format!(", {}", left.describe())
    } else {
        String::new()
    };
    let wanted = n - left.count;
    match (n, new) {
        (0, _) => Check::new(Level::Note, what, "found, no sessions yet"),
        (_, new) if new == wanted && new > 0 => Check::new(
            Level::Warning,
            what,
            format!("{n} sessions, {new} never imported here{also}"),
        )
        .hint("`cru session import` (with no path) imports them; `cru watch` keeps importing"),
        (_, 0) if left.count > 0 => Check::new(
            Level::Ok,
            what,
            format!("{n} sessions: {wanted} imported{also}"),
        ),
        (_, 0) => Check::new(Level::Ok, what, format!("{n} sessions, all imported")),
        (_, new) => Check::new(
            Level::Note,
            what,
            format!("{n} sessions, {new} new or grown since the last import{also}"),
        )
        .hint("`cru session import`"),
    }
}

/// Whether a watcher runs for `capture_dir`, and whether reads trust it.
pub fn watcher(capture_dir: &Path, now: SystemTime) -> Section {
    const WHAT: &str = "cru watch";
    let check = match WatcherHeartbeat::read(capture_dir) {
        Err(e) => Check::new(Level::Warning, WHAT, e.to_string()),
        Ok(None) => Check::new(
            Level::Note,
            WHAT,
            "not running (reads prove freshness themselves; imports happen when you run them)",
        )
        .hint("docs/capture.md shows a systemd unit and a launchd plist to run it at login"),
        Ok(Some(beat)) => {
            let since = SystemTime::UNIX_EPOCH
                + Duration::from_millis(u64::try_from(beat.started_ms).unwrap_or(0));
            let last = SystemTime::UNIX_EPOCH
                + Duration::from_millis(u64::try_from(beat.beat_ms).unwrap_or(0));
            if beat.is_trusted(now) {
                Check::new(
                    Level::Ok,
                    WHAT,
                    format!(
                        "pid {}, started {}, last beat {}",
                        beat.pid,
                        ago(since, now),
                        ago(last, now)
                    ),
                )
            } else {
                let why = if !crucible_index::watcher::pid_alive(beat.pid) {
                    format!("pid {} is gone (it died without cleaning up)", beat.pid)
                } else if beat.overflowed {
                    "its event queue overflowed; it is catching up".to_owned()
                } else if !beat.ordered {
                    "it polls (no inotify), so reads prove freshness themselves".to_owned()
                } else {
                    format!("pid {}, last beat {}: stuck", beat.pid, ago(last, now))
                };
                Check::new(Level::Warning, WHAT, format!("not trusted: {why}"))
                    .hint("restart `cru watch`; until then every read checks the files itself")
            }
        }
    };
    Section {
        name: "watcher",
        checks: vec![check],
    }
}

/// Where cru's hooks are installed, when one last fired, and the errors
/// hooks logged.
pub fn hooks(capture_dir: &Path, now: SystemTime) -> Section {
    let mut checks = Vec::new();
    let claude_files = [
        claude_code::user_settings_path().ok(),
        claude_code::project_settings_path().ok(),
    ];
    let installed: Vec<&Path> = claude_files
        .iter()
        .flatten()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| claude_settings::is_installed(&t)))
        .map(std::path::PathBuf::as_path)
        .collect();
    let last =
        crucible_capture::state::last_event(capture_dir, crucible_capture::claude_code::AGENT);
    checks.push(match (installed.first(), last) {
        (None, _) => Check::new(Level::Note, "Claude Code hooks", "not installed")
            .hint("`cru setup claude-code` records every Claude Code session as it happens"),
        (Some(file), None) => Check::new(
            Level::Warning,
            "Claude Code hooks",
            format!(
                "installed in {}, but no event has reached {}",
                file.display(),
                capture_dir.display()
            ),
        )
        .hint("start a new Claude Code session; check the hook errors below and `cru --dir`/$CRU_SESSIONS_DIR where Claude Code runs"),
        (Some(file), Some(t)) => Check::new(
            Level::Ok,
            "Claude Code hooks",
            format!("installed in {}; last event {}", file.display(), ago(t, now)),
        ),
    });
    missing_programs(&installed, &mut checks);
    if let Ok(path) = codex::config_path()
        && std::fs::read_to_string(&path).is_ok_and(|t| codex_config::is_installed(&t))
    {
        checks.push(Check::new(
            Level::Ok,
            "Codex notify",
            format!("installed in {}", path.display()),
        ));
    }
    let logs = [Some(error_log::path_in(capture_dir)), fallback_path()];
    for log in logs.iter().flatten() {
        match error_log::recent(log, 50) {
            Ok(recent) if recent.errors.is_empty() => {}
            Ok(recent) => {
                let last = &recent.errors[recent.errors.len() - 1];
                checks.push(
                    Check::new(
                        Level::Warning,
                        log.display().to_string(),
                        format!(
                            "{} hook runs failed lately; the last, at {} ({} {}): {}",
                            recent.count(),
                            last.at,
                            last.agent,
                            last.event.as_deref().unwrap_or("event"),
                            last.error
                        ),
                    )
                    .hint("the agent went on; what those events held was not recorded"),
                );
            }
            Err(e) => checks.push(Check::new(
                Level::Warning,
                log.display().to_string(),
                format!("cannot be read: {e}"),
            )),
        }
    }
    Section {
        name: "hooks",
        checks,
    }
}

/// Hooks that run a cru no longer there (moved, or a versioned folder an
/// upgrade removed) fail before they can log anything.
fn missing_programs(installed: &[&Path], checks: &mut Vec<Check>) {
    for file in installed {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for program in claude_settings::hook_programs(&text) {
            if !Path::new(&program).is_file() {
                checks.push(
                    Check::new(
                        Level::Problem,
                        "Claude Code hooks",
                        format!(
                            "{} runs {program}, which is not there: no event is recorded",
                            file.display()
                        ),
                    )
                    .hint("`cru setup claude-code` again, with the cru you use now"),
                );
            }
        }
    }
}
