//! `cru session search QUERY [filters] [--kind K] [--limit N] [--offset N]
//! [--sort relevance|newest] [--per-session N] [--format table|json] [--open]`.

mod open;

use std::io::Write;

use clap::{Args, ValueEnum};
use crucible_search::{Filter, Hit, Kind, Request, Sort};
use serde::Serialize;

use super::query::{FilterArgs, parse_bound};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::{output, style};

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words (all must match), "phrases", -word, a OR b, pars*, and
    /// field:value for status, agent, channel, model, project, kind, since,
    /// until (docs/search.md).
    /// Several arguments are one query, joined by spaces; a query that
    /// starts with `-` comes after `--` (`cru session search -- -windows`).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Search only this kind of text (repeat for several).
    #[arg(long, value_enum)]
    pub kind: Vec<KindArg>,
    /// At most this many hits; 0 for all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Skip this many hits first.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// The order of hits.
    #[arg(long, value_enum, default_value_t = SortArg::Relevance)]
    pub sort: SortArg,
    /// Hits kept per session, the best first.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub per_session: u16,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = SearchFormat::Table)]
    pub format: SearchFormat,
    /// Start $VISUAL (else $EDITOR, else vi) at the best hit's file and
    /// line (`EDITOR +LINE FILE`; through `sh -c` when the variable holds
    /// arguments), instead of printing the hits.
    #[arg(long, conflicts_with = "format")]
    pub open: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    /// Headings, prose, tasks, other callouts.
    Text,
    /// Tool calls: name, arguments, result summary.
    Tool,
    /// [!decision] callouts.
    Decision,
    /// [!error] callouts.
    Error,
    /// [!user] callouts and the prompt.
    User,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SortArg {
    /// Best match first (BM25).
    Relevance,
    /// Newest session first.
    Newest,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SearchFormat {
    /// One hit per entry: id#phase, file:line, the snippet.
    Table,
    /// `{"version": 1, "hits": [...]}` (docs/json.md).
    Json,
}

/// What `--format json` prints (and `cru mcp` gives).
#[derive(Debug, Serialize)]
pub struct SearchAnswer {
    hits: Vec<JsonHit>,
}

impl SearchAnswer {
    fn of(hits: &[Hit]) -> Self {
        Self {
            hits: hits
                .iter()
                .map(|h| JsonHit {
                    id: h.id.clone(),
                    phase: phase_of(h),
                    file: h.file.display().to_string(),
                    line: h.line,
                    snippet: h.snippet.clone(),
                    score: h.score,
                    subagent: h.subagent.clone(),
                    parent: h.parent.clone(),
                })
                .collect(),
        }
    }
}

/// The hits `args` asks for, as `--format json` prints them, and whether
/// files were skipped.
pub fn answer(ctx: &Context, args: &SearchArgs) -> anyhow::Result<(SearchAnswer, bool)> {
    let request = request(args)?;
    let (mut answers, skipped) = hits(ctx, std::slice::from_ref(&request))?;
    Ok((
        SearchAnswer::of(&answers.pop().unwrap_or_default()),
        skipped,
    ))
}

#[derive(Debug, Serialize)]
struct JsonHit {
    id: String,
    /// `ID#phase-N`; the session id alone outside any phase.
    phase: String,
    file: String,
    line: u64,
    snippet: String,
    score: f32,
    /// The subagent whose text this is (docs/search.md), when it is one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    subagent: Option<String>,
    /// The session that subagent works for.
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<String>,
}

pub(super) fn phase_of(hit: &Hit) -> String {
    if hit.phase == 0 {
        hit.id.clone()
    } else {
        format!("{}#phase-{}", hit.id, hit.phase)
    }
}

fn bad_query(query: &str, e: &crucible_search::QueryError) -> CliError {
    CliError::usage(format!(
        "bad query at column {}: {}\n  {query}\n  {}^",
        e.column,
        e.message,
        " ".repeat(e.column.saturating_sub(1))
    ))
}

fn request(args: &SearchArgs) -> anyhow::Result<Request> {
    let query = args.query.join(" ");
    let parsed = crucible_search::parse(&query).map_err(|e| bad_query(&query, &e))?;
    let f = args.filters.filter()?;
    let mut filter = Filter {
        status: args.filters.status.map(|s| s.as_str().to_owned()),
        agent: f.agent,
        channel: f.channel,
        model: f.model,
        project: f.project,
        kinds: args
            .kind
            .iter()
            .map(|k| match k {
                KindArg::Text => Kind::Text,
                KindArg::Tool => Kind::Tool,
                KindArg::Decision => Kind::Decision,
                KindArg::Error => Kind::Error,
                KindArg::User => Kind::User,
            })
            .collect(),
        since_ms: f.since_ms,
        until_ms: f.until_ms,
    };
    filter
        .add_query_filters(&parsed, &parse_bound)
        .map_err(|e| bad_query(&query, &e))?;
    Ok(Request {
        query: parsed,
        filter,
        limit: args.limit,
        offset: args.offset,
        sort: match args.sort {
            SortArg::Relevance => Sort::Relevance,
            SortArg::Newest => Sort::Newest,
        },
        per_session: usize::from(args.per_session),
    })
}

/// The hits of each of `requests`, the index made fresh once first (or
/// rebuilt when it cannot be read); its warnings on stderr. Also whether
/// files were skipped.
pub(super) fn hits(ctx: &Context, requests: &[Request]) -> anyhow::Result<(Vec<Vec<Hit>>, bool)> {
    let dir = ctx.store.dir();
    let max = ctx.store.max_file_bytes();
    let fail = |e: crucible_search::SearchError| CliError::new(e.to_string());
    // A running watcher that answers its fence vouches for the committed
    // index: no session file is `stat`ed (crucible-index's `watcher`).
    let vouched = crucible_index::watcher::trusted(dir, std::time::SystemTime::now());
    let open = if vouched {
        tracing::debug!("search index vouched for by the running watcher");
        crucible_search::open_vouched
    } else {
        crucible_search::open
    };
    let mut opened = open(dir, max).map_err(fail)?;
    let ask = |opened: &crucible_search::Opened| {
        requests
            .iter()
            .map(|r| crucible_search::search(opened, dir, r))
            .collect::<Result<Vec<_>, _>>()
    };
    let hits = match ask(&opened) {
        Ok(hits) => hits,
        // A segment that cannot be read: the index is rebuilt and asked again,
        // once the manifest being written beside the query is in place
        // (its thread holds the search index's lock until then, and the
        // rebuild needs it).
        Err(e) => {
            let _ = opened.finish();
            opened = crucible_search::index::rebuild_now(dir, max, format!("cannot be read ({e})"))
                .map_err(fail)?;
            ask(&opened).map_err(fail)?
        }
    };
    let mut err = anstream::stderr();
    // The manifest written beside the query, after a folder was listed: a
    // derived file, so one that cannot be written (a read-only `.search`)
    // costs the next search a listing, not this answer.
    if let Err(e) = opened.finish() {
        writeln!(
            err,
            "warning: search index not saved ({e}); the answer is right, and the next search lists the folders again"
        )?;
    }
    let mut skipped = false;
    for w in &opened.warnings {
        skipped |= matches!(w, crucible_search::IndexWarning::Skipped { .. });
        writeln!(err, "warning: {w}")?;
    }
    Ok((hits, skipped))
}

/// `query` read as `cru session search QUERY` reads it, with no flags.
pub(super) fn query_request(query: &str) -> anyhow::Result<Request> {
    let parsed = crucible_search::parse(query).map_err(|e| bad_query(query, &e))?;
    let mut filter = Filter::default();
    filter
        .add_query_filters(&parsed, &parse_bound)
        .map_err(|e| bad_query(query, &e))?;
    Ok(Request {
        query: parsed,
        filter,
        limit: 0,
        offset: 0,
        sort: Sort::Relevance,
        per_session: 1,
    })
}

pub fn run(ctx: &Context, args: &SearchArgs) -> anyhow::Result<Outcome> {
    let request = request(args)?;
    let (mut answers, skipped) = hits(ctx, std::slice::from_ref(&request))?;
    let hits = answers.pop().unwrap_or_default();
    if args.open {
        return open_best(&hits, skipped);
    }
    match args.format {
        SearchFormat::Json => output::print_json(&SearchAnswer::of(&hits))?,
        SearchFormat::Table => table(&hits)?,
    }
    Ok(if skipped {
        Outcome::Skipped
    } else {
        Outcome::Success
    })
}

/// `--open`: the editor at the first hit; none is "no sessions match".
fn open_best(hits: &[Hit], skipped: bool) -> anyhow::Result<Outcome> {
    let Some(best) = hits.first() else {
        return table(hits).map(|()| Outcome::Success).map_err(Into::into);
    };
    let editor = open::editor(std::env::var_os("VISUAL"), std::env::var_os("EDITOR"));
    eprintln!(
        "opening {} ({}:{})",
        phase_of(best),
        best.file.display(),
        best.line
    );
    open::open(&editor, best)?;
    Ok(if skipped {
        Outcome::Skipped
    } else {
        Outcome::Success
    })
}

/// Each hit as `ID#phase-N  FILE:LINE` and its snippet, the matches in bold
/// on a terminal (anstream drops the style when piped). A subagent's hit
/// is shown under a line naming its parent session, indented, with the
/// subagent's name.
fn table(hits: &[Hit]) -> std::io::Result<()> {
    let mut out = anstream::stdout().lock();
    if hits.is_empty() {
        writeln!(out, "no sessions match")?;
        return out.flush();
    }
    let mark = style::FAILED.bold();
    let (phase_on, phase_off) = (style::PHASE.render(), style::PHASE.render_reset());
    let mut under: Option<&str> = None;
    for h in hits {
        let mut indent = "    ";
        if let (Some(name), Some(parent)) = (&h.subagent, &h.parent) {
            // Consecutive hits under one parent share its line.
            if under != Some(parent.as_str()) {
                writeln!(out, "{phase_on}{parent}{phase_off}")?;
            }
            under = Some(parent.as_str());
            writeln!(
                out,
                "  ↳ subagent {name}  {phase_on}{}{phase_off}  {}:{}",
                phase_of(h),
                h.file.display(),
                h.line
            )?;
            indent = "      ";
        } else {
            under = None;
            writeln!(
                out,
                "{phase_on}{}{phase_off}  {}:{}",
                phase_of(h),
                h.file.display(),
                h.line
            )?;
        }
        let mut line = String::from(indent);
        let mut at = 0;
        for &(a, b) in &h.ranges {
            line.push_str(&h.snippet[at..a]);
            line.push_str(&format!(
                "{}{}{}",
                mark.render(),
                &h.snippet[a..b],
                mark.render_reset()
            ));
            at = b;
        }
        line.push_str(&h.snippet[at..]);
        writeln!(out, "{line}")?;
    }
    out.flush()
}
