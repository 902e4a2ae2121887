//! What an OTLP export did, session by session, and how it is told: the
//! summary line, the warnings about changed and partly dropped sessions,
//! and the error that names the sessions not sent with a hint that fits
//! why.

use crucible_otel::SendError;

use crate::error::CliError;
use crate::render::plural;

/// How many ids a message names before it says how many more.
const NAMED: usize = 3;

/// What the run did.
#[derive(Default)]
pub struct Tally {
    pub exported: Vec<String>,
    pub spans: usize,
    pub requests: usize,
    pub unchanged: usize,
    /// Files that could not be read: by the index, or by the mapping.
    pub unreadable: usize,
    /// Files left out for declaring an id another file declares.
    pub duplicates: usize,
    /// Batches refused, each with its sessions.
    pub failures: Vec<(Vec<String>, SendError)>,
    /// Sessions not tried after a failure that would recur.
    pub not_tried: Vec<String>,
    /// Sessions in a batch the endpoint took only partly.
    pub partial: Vec<String>,
    pub rejected_spans: i64,
    /// Sessions sent again because a part sent before changed.
    pub changed: Vec<String>,
    pub open_phases: usize,
    pub running: usize,
}

impl Tally {
    pub fn add(&mut self, o: Self) {
        self.exported.extend(o.exported);
        self.spans += o.spans;
        self.requests += o.requests;
        self.unchanged += o.unchanged;
        self.unreadable += o.unreadable;
        self.duplicates += o.duplicates;
        self.failures.extend(o.failures);
        self.not_tried.extend(o.not_tried);
        self.partial.extend(o.partial);
        self.rejected_spans += o.rejected_spans;
        self.changed.extend(o.changed);
        self.open_phases += o.open_phases;
        self.running += o.running;
    }

    pub fn unsent(&self) -> usize {
        self.failures
            .iter()
            .map(|(ids, _)| ids.len())
            .sum::<usize>()
            + self.not_tried.len()
    }

    pub fn skipped_files(&self) -> usize {
        self.unreadable + self.duplicates
    }
}

/// `a, b, c and 12 more`.
pub fn some_ids(ids: &[String]) -> String {
    let shown: Vec<&str> = ids.iter().take(NAMED).map(String::as_str).collect();
    match ids.len().saturating_sub(NAMED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The line on stderr that says what was exported, skipped, held back.
pub fn summary(t: &Tally, url: &str) -> String {
    let n = t.exported.len();
    let mut s = format!(
        "exported {n} {} ({} {}) to {url} in {} {}",
        plural(n, "session", "sessions"),
        t.spans,
        plural(t.spans, "span", "spans"),
        t.requests,
        plural(t.requests, "request", "requests"),
    );
    if t.unchanged > 0 {
        s.push_str(&format!(
            "; {} skipped (sent before, unchanged)",
            t.unchanged
        ));
    }
    if t.unreadable > 0 {
        s.push_str(&format!("; {} skipped (unreadable)", t.unreadable));
    }
    if t.duplicates > 0 {
        s.push_str(&format!("; {} skipped (id of another file)", t.duplicates));
    }
    if t.open_phases > 0 || t.running > 0 {
        s.push_str(&format!(
            "; held back: {} open {} of {} running {} (sent when they close)",
            t.open_phases,
            plural(t.open_phases, "phase", "phases"),
            t.running,
            plural(t.running, "session", "sessions"),
        ));
    }
    if !t.partial.is_empty() {
        s.push_str(&format!(
            "; {} partly dropped by the endpoint (not recorded as sent)",
            t.partial.len()
        ));
    }
    let unsent = t.unsent();
    if unsent > 0 {
        s.push_str(&format!("; {unsent} not sent"));
    }
    s
}

/// Warnings the summary does not hold: sessions sent again over an older
/// copy, batches taken only in part.
pub fn warnings(t: &Tally, url: &str) -> Vec<String> {
    let mut w = Vec::new();
    if !t.changed.is_empty() {
        w.push(format!(
            "warning: {} {} changed since {} sent to {url} ({}): their settled parts were sent again, but an engine that keeps the first copy of a span (Phoenix) still shows the old one (docs/otel.md, \"Ids\")",
            t.changed.len(),
            plural(t.changed.len(), "session", "sessions"),
            plural(t.changed.len(), "it was", "they were"),
            some_ids(&t.changed),
        ));
    }
    if !t.partial.is_empty() {
        w.push(format!(
            "warning: {url} dropped {} {} of the batches of {} {} ({}): not recorded as sent, so `--since-last` sends them again",
            t.rejected_spans,
            plural(usize::try_from(t.rejected_spans).unwrap_or(2), "span", "spans"),
            t.partial.len(),
            plural(t.partial.len(), "session", "sessions"),
            some_ids(&t.partial),
        ));
    }
    w
}

/// The error naming the sessions not sent, why, and what to do.
pub fn unsent(t: &Tally) -> CliError {
    let mut parts: Vec<String> = t
        .failures
        .iter()
        .map(|(ids, e)| format!("{} ({e}): {}", ids.len(), some_ids(ids)))
        .collect();
    if !t.not_tried.is_empty() {
        parts.push(format!(
            "{} not tried after that: {}",
            t.not_tried.len(),
            some_ids(&t.not_tried)
        ));
    }
    let n = t.unsent();
    CliError::new(format!(
        "{n} {} not sent: {}",
        plural(n, "session", "sessions"),
        parts.join("; ")
    ))
    .with_hint(hint(t.failures.last().map(|(_, e)| e)))
}

/// What to do, by how the endpoint failed.
fn hint(e: Option<&SendError>) -> String {
    let resend = "nothing was lost: `cru session export --to otlp --since-last` sends them";
    match e.and_then(SendError::status) {
        Some(401 | 403) => format!(
            "the endpoint refused the credentials: check --header or $OTEL_EXPORTER_OTLP_HEADERS (docs/otel.md, \"Engines\"); {resend} once they are accepted"
        ),
        Some(413) => format!(
            "a session is too large for the endpoint even alone: a lower $OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts long values shorter; {resend} then"
        ),
        Some(s) if (400..500).contains(&s) && s != 408 && s != 429 => format!(
            "the endpoint refused the request itself: sending it again fails the same way until the endpoint or the settings change; {resend} then"
        ),
        _ => format!("{resend} once the endpoint answers"),
    }
}
