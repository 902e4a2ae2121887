//! `cru session export ... --to otlp`: sessions as OpenTelemetry traces,
//! in batches, to an OTLP/HTTP endpoint; what reached it is entered in the
//! sent-record beside the index, so that `--since-last` sends only what is
//! new, changed, or was not sent the last time.

use std::path::{Path, PathBuf};

use clap::Args;
use crucible_core::SessionStore;
use crucible_otel::{Exporter, RetryPolicy, SentRecord};
use crucible_parser::MarkdownCodec;

use super::otlp_settings::settings;
use crate::commands::session::query::FilterArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

/// The sent-record's file name, in the sessions directory beside the index.
pub const SENT_RECORD: &str = ".otlp-sent.json";

/// A request holds the spans of whole sessions, about this many at most
/// (a session with more goes alone): small enough for any engine's request
/// limit, large enough that requests are few.
const BATCH_SPANS: usize = 2_048;

/// How many sessions the readers may map ahead of the sender.
const WINDOW: usize = 1_024;

#[derive(Debug, Args, Default, Clone)]
pub struct OtlpArgs {
    /// With --to otlp: every session matching the filters, sent again
    /// whether it was sent before or not.
    #[arg(long, conflicts_with = "sessions")]
    pub all: bool,
    /// With --to otlp: only the sessions (given, or matching the filters)
    /// not sent to this endpoint yet, or changed since they were.
    #[arg(long)]
    pub since_last: bool,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// With --to otlp: the OTLP/HTTP endpoint, a base URL (`/v1/traces` is
    /// added) or the traces URL itself. Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    /// $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// With --to otlp: a header sent with every request (repeat for more),
    /// after those of $OTEL_EXPORTER_OTLP_HEADERS.
    #[arg(long, value_name = "KEY=VALUE")]
    pub header: Vec<String>,
    /// With --to otlp: the encoding. Default: $OTEL_EXPORTER_OTLP_PROTOCOL,
    /// else http/protobuf.
    #[arg(long, value_name = "PROTOCOL", value_parser = ["http/protobuf", "http/json"])]
    pub protocol: Option<String>,
    /// With --to otlp: how many times a request is tried again after a
    /// 429, 502, 503, 504, a timeout or a refused connection (waiting
    /// 0.5 s, then twice as long each time, or what `Retry-After` says).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub retries: u32,
    /// With --to otlp: keep secrets (API keys, tokens, passwords) as they
    /// are. Redaction is on by default for OTLP: the spans leave the machine.
    #[arg(long)]
    pub no_redact: bool,
}

impl OtlpArgs {
    /// True when a flag that only OTLP reads was given.
    pub fn is_used(&self) -> bool {
        let f = &self.filters;
        self.all
            || self.since_last
            || self.endpoint.is_some()
            || !self.header.is_empty()
            || self.protocol.is_some()
            || self.no_redact
            || self.retries != 4
            || f.status.is_some()
            || f.agent.is_some()
            || f.channel.is_some()
            || f.model.is_some()
            || f.since.is_some()
            || f.until.is_some()
            || f.project.is_some()
    }
}

impl Tally {
    fn add(&mut self, o: Self) {
        self.exported.extend(o.exported);
        self.spans += o.spans;
        self.requests += o.requests;
        self.unchanged += o.unchanged;
        self.unreadable += o.unreadable;
        self.failed.extend(o.failed);
        self.rejected_spans += o.rejected_spans;
    }
}

/// One session, mapped, encoded and hashed, ready to send.
struct Mapped {
    id: String,
    spans: usize,
    part: Vec<u8>,
    hash: String,
}

/// What the run did, session by session.
#[derive(Default)]
struct Tally {
    exported: Vec<String>,
    spans: usize,
    requests: usize,
    unchanged: usize,
    unreadable: usize,
    failed: Vec<(String, String)>,
    rejected_spans: i64,
}

pub fn run(ctx: &Context, sessions: &[String], args: &OtlpArgs) -> anyhow::Result<Outcome> {
    send(ctx, sessions, args, false)
}

/// Sends what `sessions` and `args` select; `quiet`: no summary when
/// nothing was to be sent (the watcher calls this after every change).
fn send(
    ctx: &Context,
    sessions: &[String],
    args: &OtlpArgs,
    quiet: bool,
) -> anyhow::Result<Outcome> {
    let (endpoint, resource) = settings(args, &|name| std::env::var(name).ok())?;
    let (paths, index_skipped) = select(ctx, sessions, args)?;
    let record_path = ctx.store.dir().join(SENT_RECORD);
    let before = SentRecord::load(&record_path).map_err(|e| CliError::new(e.to_string()))?;
    let url = endpoint.url.clone();
    let retry = RetryPolicy {
        attempts: args.retries.saturating_add(1),
        ..RetryPolicy::default()
    };
    let exporter = Exporter::new(endpoint, retry);
    let redact = !args.no_redact;
    let protocol = exporter.endpoint().protocol;
    let map = |p: &PathBuf| map_session(&ctx.store, p, redact, &resource, protocol);
    let is_sent = |m: &Mapped| args.since_last && before.is_sent(&url, &m.id, &m.hash);
    let (sent, tally) = map_and_send(&paths, map, is_sent, &exporter);
    save_record(&ctx.store, &record_path, sent)?;
    if !quiet || !tally.exported.is_empty() || !tally.failed.is_empty() {
        eprintln!("{}", summary(&tally, &url));
    }
    if !tally.failed.is_empty() {
        return Err(unsent(&tally).into());
    }
    Ok(Outcome::from_files(
        tally.exported.len() + tally.unchanged,
        tally.unreadable + index_skipped,
    ))
}

/// Maps the sessions on the reading threads while a thread of its own
/// joins, compresses and posts the batches: the compression of one batch
/// overlaps the reading of the next.
fn map_and_send(
    paths: &[PathBuf],
    map: impl Fn(&PathBuf) -> Result<Mapped, String> + Sync,
    is_sent: impl Fn(&Mapped) -> bool,
    exporter: &Exporter,
) -> (SentRecord, Tally) {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Mapped>>(2);
    std::thread::scope(|scope| {
        let sender = scope.spawn(move || {
            let mut sent = SentRecord::default();
            let mut tally = Tally::default();
            for mut batch in rx {
                send_batch(exporter, &mut batch, &mut sent, &mut tally);
            }
            (sent, tally)
        });
        let mut tally = Tally::default();
        let mut batch: Vec<Mapped> = Vec::new();
        let mut spans = 0;
        crate::in_order::map_in_order(paths, WINDOW, map, |_, mapped| {
            match mapped {
                Ok(m) if is_sent(&m) => tally.unchanged += 1,
                Ok(m) => {
                    spans += m.spans;
                    batch.push(m);
                    if spans >= BATCH_SPANS {
                        spans = 0;
                        // The sender gone (it panicked) is seen at the join.
                        let _ = tx.send(std::mem::take(&mut batch));
                    }
                }
                Err(e) => {
                    tally.unreadable += 1;
                    eprintln!("warning: skipped {e}");
                }
            }
            true
        });
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        let (sent, sender_tally) = sender.join().expect("the sender does not panic");
        tally.add(sender_tally);
        (sent, tally)
    })
}

/// `cru watch --otlp URL`: every session not sent to `url` yet or changed
/// since, as `export --to otlp --since-last` sends them. A failure is a
/// warning (the watcher goes on; the next call sends what this one could
/// not); false then.
pub fn send_changed(ctx: &Context, url: &str) -> bool {
    let args = OtlpArgs {
        since_last: true,
        endpoint: Some(url.to_owned()),
        retries: 2,
        ..OtlpArgs::default()
    };
    match send(ctx, &[], &args, true) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("warning: OTLP: {e:#}");
            false
        }
    }
}

/// The files to send: the sessions named, else those the filters select
/// (with `--all` or `--since-last`), oldest first.
fn select(
    ctx: &Context,
    sessions: &[String],
    args: &OtlpArgs,
) -> anyhow::Result<(Vec<PathBuf>, usize)> {
    if !sessions.is_empty() {
        let paths = sessions
            .iter()
            .map(|q| ctx.store.resolve(q).map_err(CliError::from))
            .collect::<Result<_, _>>()?;
        return Ok((paths, 0));
    }
    if !args.all && !args.since_last {
        return Err(CliError::usage("--to otlp needs sessions to send")
            .with_hint("name them, or pass --all (every session matching the filters) or --since-last (those not sent yet or changed)")
            .into());
    }
    let filter = args.filters.filter()?;
    crate::commands::session::query::oldest_first_paths(ctx, &filter)
}

/// Reads a session (its journal applied) and its sidecar, redacts both
/// unless told not to, maps them to spans and encodes those: all of it on
/// the reading threads, so that the sender only joins parts and sends.
fn map_session(
    store: &SessionStore<MarkdownCodec>,
    path: &Path,
    redact: bool,
    resource: &crucible_otel::Resource,
    protocol: crucible_otel::Protocol,
) -> Result<Mapped, String> {
    let mut log = store.load_path(path).map_err(|e| e.to_string())?;
    // A sidecar that does not match its session is left out (its records
    // would go on the wrong calls); the markdown alone is still a trace.
    let mut data = match store.load_data_for(path, &log) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("warning: {e}; {} sent without its sidecar", log.id());
            None
        }
    };
    if redact {
        let r = crucible_redact::Redactor::shared();
        log.redact(r);
        if let Some(d) = data.as_mut() {
            d.redact(r);
        }
    }
    let spans = crucible_otel::session_spans(&log, data.as_ref());
    let n = spans.len();
    let part = crucible_otel::session_part(resource, env!("CARGO_PKG_VERSION"), spans, protocol);
    Ok(Mapped {
        id: log.id().to_string(),
        spans: n,
        hash: crucible_otel::content_hash(&part),
        part,
    })
}

/// Sends the batch as one request; its sessions are entered in `sent`
/// when the endpoint accepted it, and listed as failed when it did not.
fn send_batch(
    exporter: &Exporter,
    batch: &mut Vec<Mapped>,
    sent: &mut SentRecord,
    tally: &mut Tally,
) {
    if batch.is_empty() {
        return;
    }
    let n_spans: usize = batch.iter().map(|m| m.spans).sum();
    let e = exporter.endpoint();
    let parts: Vec<&[u8]> = batch.iter().map(|m| m.part.as_slice()).collect();
    let body = crucible_otel::body(&parts, e.protocol, e.compression);
    let batch = std::mem::take(batch);
    match exporter.send(&body) {
        Ok(delivery) => {
            tally.requests += 1;
            tally.rejected_spans += delivery.rejected_spans;
            if delivery.rejected_spans > 0 {
                eprintln!(
                    "warning: {} dropped {} of {n_spans} spans: {}",
                    e.url, delivery.rejected_spans, delivery.message
                );
            }
            for m in &batch {
                sent.mark_sent(&e.url, &m.id, &m.hash);
            }
            tally.spans += n_spans;
            tally.exported.extend(batch.into_iter().map(|m| m.id));
        }
        Err(err) => {
            let why = err.to_string();
            tally
                .failed
                .extend(batch.into_iter().map(|m| (m.id, why.clone())));
        }
    }
}

/// Folds what this run sent into the record on disk, under the store's
/// lock, so that two runs at once both keep what they sent.
fn save_record(
    store: &SessionStore<MarkdownCodec>,
    path: &Path,
    sent: SentRecord,
) -> anyhow::Result<()> {
    if sent == SentRecord::default() {
        return Ok(());
    }
    let _lock = store.lock().map_err(CliError::from)?;
    let mut record = SentRecord::load(path).map_err(|e| CliError::new(e.to_string()))?;
    record.merge(sent);
    record
        .save(path)
        .map_err(|e| CliError::new(e.to_string()))?;
    Ok(())
}

fn summary(t: &Tally, url: &str) -> String {
    let plural = crate::render::plural;
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
    if !t.failed.is_empty() {
        s.push_str(&format!("; {} failed", t.failed.len()));
    }
    s
}

/// The error naming every session not sent, and why.
fn unsent(t: &Tally) -> CliError {
    let mut why: Vec<&str> = t.failed.iter().map(|(_, w)| w.as_str()).collect();
    why.dedup();
    let ids: Vec<&str> = t.failed.iter().map(|(id, _)| id.as_str()).collect();
    CliError::new(format!(
        "{} {} not sent ({}): {}",
        ids.len(),
        crate::render::plural(ids.len(), "session", "sessions"),
        why.join("; "),
        ids.join(", ")
    ))
    .with_hint("nothing was lost: `cru session export --to otlp --since-last` sends them once the endpoint answers")
}
