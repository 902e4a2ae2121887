//! `cru session export ... --to otlp`: sessions as OpenTelemetry traces,
//! in batches, to an OTLP/HTTP endpoint. Only settled parts are sent (a
//! closed phase, a finished session's root); what reached the endpoint is
//! entered in the sent-record beside the index, so that `--since-last`
//! sends only what settled since, changed, or was not sent the last time.

use std::path::{Path, PathBuf};

use clap::Args;
use crucible_core::SessionStore;
use crucible_otel::{Exporter, RetryPolicy, SentRecord};
use crucible_parser::MarkdownCodec;

use super::otlp_batches::map_and_send;
use super::otlp_map::{MapContext, map_session};
use super::otlp_settings::{Settings, settings};
use super::otlp_summary as summary;
use crate::commands::session::query::FilterArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

/// The sent-record's file name, in the sessions directory beside the index.
pub const SENT_RECORD: &str = ".otlp-sent.json";

#[derive(Debug, Args, Default, Clone)]
pub struct OtlpArgs {
    /// With --to otlp: every session matching the filters, its settled
    /// parts (closed phases; an ended session's root) sent again whether
    /// they were sent before or not.
    #[arg(long, conflicts_with_all = ["sessions", "since_last"])]
    pub all: bool,
    /// With --to otlp: only what was not sent to this endpoint yet of the
    /// sessions (given, or matching the filters): the phases closed and the
    /// sessions ended since, and sessions changed since.
    #[arg(long)]
    pub since_last: bool,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// With --to otlp: the OTLP/HTTP endpoint, a base URL (`/v1/traces` is
    /// added to its path) or the traces URL itself. Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    /// $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// With --to otlp: a header sent with every request (repeat for more);
    /// it replaces a header of the same name (any case) from
    /// $OTEL_EXPORTER_OTLP_[TRACES_]HEADERS.
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
        self.all
            || self.since_last
            || self.endpoint.is_some()
            || !self.header.is_empty()
            || self.protocol.is_some()
            || self.no_redact
            || self.retries != 4
            || self.filters_used()
    }

    /// True when a filter was given.
    fn filters_used(&self) -> bool {
        let f = &self.filters;
        f.status.is_some()
            || f.agent.is_some()
            || f.channel.is_some()
            || f.model.is_some()
            || f.since.is_some()
            || f.until.is_some()
            || f.project.is_some()
    }
}

/// The file formats' flags would do nothing with `--to otlp`: said, not
/// ignored.
pub fn refuse_file_flags(output: bool, force: bool, redact: bool) -> Result<(), CliError> {
    let given = [
        (output, "-o/--output", ""),
        (force, "--force", ""),
        (
            redact,
            "--redact",
            " (they are redacted unless --no-redact)",
        ),
    ];
    match given.iter().find(|(g, _, _)| *g) {
        Some((_, flag, more)) => Err(CliError::usage(format!(
            "{flag} does not go with --to otlp: the spans are sent, not written{more}"
        ))),
        None => Ok(()),
    }
}

pub fn run(ctx: &Context, sessions: &[String], args: &OtlpArgs) -> anyhow::Result<Outcome> {
    let s = settings(args, &|name| std::env::var(name).ok())?;
    send(ctx, sessions, args, &s, false)
}

/// Sends what `sessions` and `args` select; `quiet`: no summary when
/// nothing was to be sent (the watcher calls this after every change).
pub(crate) fn send(
    ctx: &Context,
    sessions: &[String],
    args: &OtlpArgs,
    s: &Settings,
    quiet: bool,
) -> anyhow::Result<Outcome> {
    let selected = select(ctx, sessions, args)?;
    let record_path = ctx.store.dir().join(SENT_RECORD);
    let before = load_record(&record_path, args.since_last)?;
    let url = s.endpoint.url.clone();
    let retry = RetryPolicy {
        attempts: args.retries.saturating_add(1),
        ..RetryPolicy::default()
    };
    let exporter = Exporter::new(s.endpoint.clone(), retry).with_clock(std::time::SystemTime::now);
    let cx = MapContext {
        store: &ctx.store,
        redact: !args.no_redact,
        resource: &s.resource,
        protocol: s.endpoint.protocol,
        value_limit: s.value_limit,
        record: &before,
        url: &url,
        again: !args.since_last,
    };
    let (sent, mut tally) = map_and_send(&selected.paths, |p| map_session(&cx, p), &exporter);
    let read = selected.paths.len() - tally.unreadable;
    tally.unreadable += selected.index_skipped;
    tally.duplicates += selected.duplicates;
    // What reached the endpoint is told before the record is written: a
    // record that cannot be written does not hide it.
    let busy = !tally.exported.is_empty() || tally.unsent() > 0 || !tally.changed.is_empty();
    if !quiet || busy {
        eprintln!("{}", summary::summary(&tally, &url));
    }
    for w in summary::warnings(&tally, &url) {
        eprintln!("{w}");
    }
    save_record(&ctx.store, &record_path, sent).map_err(|e| {
        e.with_hint("the spans above reached the endpoint; until the record is written, `--since-last` sends them again")
    })?;
    if tally.unsent() > 0 {
        return Err(summary::unsent(&tally).into());
    }
    let named_unreadable = if sessions.is_empty() {
        0
    } else {
        tally.unreadable
    };
    if named_unreadable > 0 {
        return Err(CliError::new(format!(
            "{named_unreadable} of the sessions named could not be read (see the warnings above)"
        ))
        .with_hint("`cru session validate` says what is wrong with each")
        .into());
    }
    Ok(Outcome::from_files(read, tally.skipped_files()))
}

/// The record, or with `--all` and named sessions (which do not need it
/// to choose) an empty one when it is damaged, with a warning.
fn load_record(path: &Path, needed: bool) -> Result<SentRecord, CliError> {
    match SentRecord::load(path) {
        Ok(r) => Ok(r),
        Err(e) if needed => Err(CliError::new(e.to_string()).with_hint(format!(
            "the record can be deleted (`rm {}`): the next `--since-last` then sends every settled part again, which an engine keying spans on their ids absorbs",
            path.display()
        ))),
        Err(e) => {
            eprintln!("warning: {e}; it is written anew after this run");
            Ok(SentRecord::default())
        }
    }
}

/// `cru watch --otlp URL`: every session not sent to `url` yet or changed
/// since, as `export --to otlp --since-last` sends them, with the other
/// settings from the `OTEL_*` variables. A failure is a warning (the
/// watcher goes on; the next call sends what this one could not); false
/// then.
pub fn send_changed(ctx: &Context, args: &OtlpArgs, s: &Settings) -> bool {
    match send(ctx, &[], args, s, true) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("warning: OTLP: {e:#}");
            false
        }
    }
}

/// The files `select` chose, and what it left out.
struct Selected {
    paths: Vec<PathBuf>,
    /// Files the index could not read.
    index_skipped: usize,
    /// Files left out for declaring an id an earlier file declares.
    duplicates: usize,
}

/// The files to send: the sessions named (each once; the filters go with
/// `--all`/`--since-last` alone), else those the filters select (with
/// `--all` or `--since-last`), oldest first.
fn select(ctx: &Context, sessions: &[String], args: &OtlpArgs) -> anyhow::Result<Selected> {
    if !sessions.is_empty() {
        if args.filters_used() {
            return Err(CliError::usage(
                "the filters (--status, --agent, --channel, --model, --since, --until, --project) choose sessions for --all or --since-last; they do not go with sessions named",
            )
            .with_hint("name the sessions, or pass the filters without them")
            .into());
        }
        let mut paths: Vec<PathBuf> = Vec::new();
        for q in sessions {
            let p = ctx.store.resolve(q).map_err(CliError::from)?;
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
        return Ok(Selected {
            paths,
            index_skipped: 0,
            duplicates: 0,
        });
    }
    if !args.all && !args.since_last {
        return Err(CliError::usage("--to otlp needs sessions to send")
            .with_hint("name them, or pass --all (every session matching the filters) or --since-last (those not sent yet or changed)")
            .into());
    }
    let filter = args.filters.filter()?;
    let (rows, index_skipped) = crate::commands::session::query::oldest_first_rows(ctx, &filter)?;
    let mut ids = crucible_index::DuplicateIds::default();
    for r in &rows {
        ids.add(&r.id, &r.path);
    }
    let dups = ids.finish();
    let left_out = left_out(ctx, &dups);
    let paths = rows
        .iter()
        .filter(|r| !left_out.contains(&r.path))
        .map(|r| ctx.store.dir().join(&r.path))
        .collect();
    Ok(Selected {
        paths,
        index_skipped,
        duplicates: left_out.len(),
    })
}

/// Of the files that share an id, every one but the first by path: two
/// traces with one id would be one trace of both in the engine.
fn left_out(ctx: &Context, dups: &[crucible_index::Duplicate]) -> Vec<String> {
    let mut out = Vec::new();
    for d in crate::render::output::DuplicateId::all(dups) {
        let full = |p: &String| ctx.store.dir().join(p).display().to_string();
        let (kept, rest) = d.paths.split_first().expect("a duplicate has two paths");
        eprintln!(
            "warning: session id `{}` is used by {} files: {} is sent, {} left out (give one file another id to send both)",
            d.id,
            d.paths.len(),
            full(kept),
            rest.iter().map(full).collect::<Vec<_>>().join(", ")
        );
        out.extend(rest.iter().cloned());
    }
    out
}

/// Folds what this run sent into the record on disk, under the store's
/// lock, so that two runs at once both keep what they sent.
fn save_record(
    store: &SessionStore<MarkdownCodec>,
    path: &Path,
    sent: SentRecord,
) -> Result<(), CliError> {
    if sent.is_empty() {
        return Ok(());
    }
    let _lock = store.lock().map_err(CliError::from)?;
    // A damaged record was warned of when read: this run's entries replace it.
    let mut record = SentRecord::load(path).unwrap_or_default();
    record.merge(sent);
    record.save(path).map_err(|e| CliError::new(e.to_string()))
}
