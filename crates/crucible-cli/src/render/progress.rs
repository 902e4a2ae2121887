//! Progress bars for long work, only on a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Set while a full-screen view owns the terminal (the picker): a bar
/// drawn on stderr would write over it.
static SILENCED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// No bar from now on (see [`SILENCED`]).
pub fn silence() {
    SILENCED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A hidden bar unless stderr is a terminal: piped output stays clean.
pub fn bar(what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() || SILENCED.load(std::sync::atomic::Ordering::Relaxed) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(what.to_owned());
    bar
}

/// Worth drawing only for work that takes a while.
pub fn update(bar: &ProgressBar, done: usize, total: usize) {
    update_from(bar, done, total, 2_000);
}

/// Drawn when there are at least `many` items.
pub fn update_from(bar: &ProgressBar, done: usize, total: usize, many: usize) {
    if total >= many {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    }
}

pub fn finish(bar: &ProgressBar) {
    bar.finish_and_clear();
}
