//! The answers `cru mcp` gives: each tool calls the function its `cru
//! session` command prints with `--format json`, with the command's own
//! arguments built from the tool's input, so a tool and its command give
//! the same answer. One [`Context`] serves every call.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use crucible_mcp::{
    Answer, Backend, CodifyInput, Filters, LearnInput, ListInput, RecordInput, ResumeInput,
    SearchInput, SessionEntry, ShowInput, StatsInput, ToolError, WorkflowEntry,
};
use serde_json::{Value, json};

use crate::commands::session::{codify, learn, list, query, resume, search, show, stats};
use crate::context::Context;
use crate::error::CliError;
use crate::render::output;

pub struct CliBackend {
    pub(super) ctx: Context,
    /// What `record` writes through: the store as `cru session log` has
    /// it, trusting that `<id>.md` is the session `id` (one file read to
    /// find it, not every file's head: `record` is called once per event).
    pub(super) writer: Context,
}

impl CliBackend {
    pub fn new(ctx: Context, mut writer: Context) -> Self {
        writer.store = writer.store.trusting_file_names();
        Self { ctx, writer }
    }

    /// The file of the session `query` names, in the served directory
    /// only ([`super::scope`]).
    pub(super) fn resolve(&self, query: &str) -> Result<PathBuf, ToolError> {
        super::scope::resolve(&self.ctx.store, query)
    }
}

/// A command's error as the model reads it: the message, then the hint.
pub(super) fn failure(e: anyhow::Error) -> ToolError {
    match e.downcast::<CliError>() {
        Ok(CliError {
            message,
            hint: Some(hint),
            ..
        }) => ToolError::new(format!("{message}\nhint: {hint}")),
        Ok(e) => ToolError::new(e.message),
        Err(e) => ToolError::new(format!("{e:#}")),
    }
}

fn to_json(body: &impl serde::Serialize) -> Answer {
    output::to_json(body).map_err(|e| ToolError::new(e.to_string()))
}

/// An optional text as given: an empty one is not given. Models often
/// fill every optional field with `""`, and a filter of `""` would match
/// nothing and read as "nothing was ever done".
fn given(text: Option<&String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty()).cloned()
}

/// The tool's filters as the CLI's flags, checked here so that a bad one
/// is named as the tool names it (`since`, not `--since`).
fn filter_args(f: &Filters) -> Result<query::FilterArgs, ToolError> {
    let status = given(f.status.as_ref())
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: crucible_core::UnknownStatus| ToolError::new(e.to_string()))?;
    let args = query::FilterArgs {
        status,
        agent: given(f.agent.as_ref()),
        channel: given(f.channel.as_ref()),
        model: given(f.model.as_ref()),
        since: given(f.since.as_ref()),
        until: given(f.until.as_ref()),
        project: None,
    };
    args.filter()
        .map_err(|e| ToolError::new(e.message.trim_start_matches("--")))?;
    Ok(args)
}

/// `2-4` or `3` as the phases from and to (from 1), checked against `log`.
fn phase_range(log: &crucible_core::SessionLog, typed: &str) -> Result<(usize, usize), ToolError> {
    let (a, b) = typed.split_once('-').unwrap_or((typed, typed));
    let number = |s: &str| show::phase_number(log, s.trim()).map_err(|e| ToolError::new(e.message));
    let (from, to) = (number(a)?, number(b)?);
    if from > to {
        return Err(ToolError::new(format!(
            "phases `{typed}`: the range runs backwards (expected FROM-TO, FROM ≤ TO)"
        )));
    }
    Ok((from, to))
}

/// Writes a command's output to a file in a fresh temporary directory,
/// then reads it back: `codify` and `learn` write their answers where
/// `--output` says, and so are called exactly as a person calls them.
fn through_file(
    name: &str,
    write: impl FnOnce(PathBuf) -> anyhow::Result<crate::error::Outcome>,
) -> Result<String, ToolError> {
    let dir =
        tempfile::tempdir().map_err(|e| ToolError::new(format!("temporary directory: {e}")))?;
    let path = dir.path().join(name);
    write(path.clone()).map_err(failure)?;
    std::fs::read_to_string(&path).map_err(|e| ToolError::new(format!("{}: {e}", path.display())))
}

impl CliBackend {
    fn codified(&self, id: &str, format: codify::CodifyFormat) -> Result<String, ToolError> {
        let path = self.resolve(id)?;
        through_file("workflow", |out| {
            codify::run(
                &self.ctx,
                &codify::CodifyArgs {
                    sessions: vec![path.display().to_string()],
                    merge: false,
                    output: Some(out),
                    force: true,
                    refine: false,
                    agent_cmd: None,
                    interactive: false,
                    format,
                    no_redact: false,
                    quiet: true,
                },
            )
        })
    }
}

impl Backend for CliBackend {
    fn list_sessions(&self, input: &ListInput) -> Answer {
        let args = list::ListArgs {
            filters: filter_args(&input.filters)?,
            limit: None,
            format: query::DataFormat::Json,
        };
        let mut listed = list::listed(&self.ctx, &args).map_err(failure)?;
        // A model's context is not a terminal: the newest few, and how many
        // more there are, unless it asks for more.
        let total = listed.rows.len();
        let limit = input.limit.unwrap_or(crucible_mcp::tools::LIST_LIMIT);
        listed.rows.truncate(limit);
        let mut answer = to_json(&listed.answer())?;
        answer["total"] = json!(total);
        answer["truncated"] = json!(total > limit);
        Ok(answer)
    }

    fn show_session(&self, input: &ShowInput) -> Answer {
        let path = self.resolve(&input.id)?;
        let log = self
            .ctx
            .store
            .load_path(&path)
            .map_err(|e| failure(CliError::from(e).into()))?;
        let (markdown, phases) = match &given(input.phases.as_ref()) {
            None => (crucible_parser::write_session(&log), Value::Null),
            Some(typed) => {
                let (from, to) = phase_range(&log, typed)?;
                let parts: Vec<String> =
                    (from..=to).map(|n| show::phase_markdown(&log, n)).collect();
                (parts.join("\n"), json!([from, to]))
            }
        };
        Ok(json!({
            "version": output::VERSION,
            "id": log.id().as_str(),
            "path": path.display().to_string(),
            "phases": phases,
            "markdown": markdown,
        }))
    }

    fn session_stats(&self, input: &StatsInput) -> Answer {
        let group_by = given(input.group_by.as_ref());
        let name = group_by.as_deref().unwrap_or("agent");
        let group_by = crucible_index::GroupBy::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = crucible_index::GroupBy::ALL
                .iter()
                .map(|g| g.name())
                .collect();
            ToolError::new(format!(
                "group_by: `{name}` is not one of {}",
                names.join(", ")
            ))
        })?;
        let args = stats::StatsArgs {
            group_by,
            filters: filter_args(&input.filters)?,
            mode: crate::commands::usage::Mode::Auto,
            format: query::DataFormat::Json,
        };
        let computed = stats::computed(&self.ctx, &args).map_err(failure)?;
        to_json(&computed.answer(&args))
    }

    fn search_sessions(&self, input: &SearchInput) -> Answer {
        let args = search::SearchArgs {
            query: vec![input.query.clone()],
            filters: filter_args(&input.filters)?,
            kind: Vec::new(),
            limit: input.limit.unwrap_or(20),
            offset: input.offset.unwrap_or(0),
            sort: search::SortArg::Relevance,
            per_session: 1,
            format: search::SearchFormat::Json,
            open: false,
        };
        let (answer, _skipped) = search::answer(&self.ctx, &args).map_err(failure)?;
        to_json(&answer)
    }

    fn resume_context(&self, input: &ResumeInput) -> Answer {
        let path = self.resolve(&input.id)?;
        resume::context_json(&self.ctx, &path.display().to_string(), input.max_tokens)
            .map_err(failure)
    }

    fn record(&self, input: &RecordInput) -> Answer {
        super::record::record(self, input)
    }

    fn codify_session(&self, input: &CodifyInput) -> Answer {
        let text = self.codified(&input.id, codify::CodifyFormat::Json)?;
        serde_json::from_str(&text).map_err(|e| ToolError::new(e.to_string()))
    }

    fn learning_cases(&self, input: &LearnInput) -> Answer {
        let sessions = match &input.id {
            Some(id) => vec![self.resolve(id)?.display().to_string()],
            None => Vec::new(),
        };
        let case_type = match given(input.case_type.as_ref()).as_deref().unwrap_or("all") {
            "all" => learn::CaseType::All,
            "puzzle" => learn::CaseType::Puzzle,
            "correction" => learn::CaseType::Correction,
            other => {
                return Err(ToolError::new(format!(
                    "type: `{other}` is not one of all, puzzle, correction"
                )));
            }
        };
        let args = |out| learn::LearnArgs {
            all: sessions.is_empty(),
            sessions: sessions.clone(),
            filters: filter_args(&input.filters).unwrap_or_default(),
            case_type,
            export: Some(learn::ExportFormat::Jsonl),
            schema: learn::SchemaArg::Sft,
            output: Some(out),
            no_redact: false,
            quiet: true,
        };
        filter_args(&input.filters)?;
        let text = through_file("cases.jsonl", |out| learn::run(&self.ctx, &args(out)))?;
        let cases = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect::<Result<Vec<Value>, _>>()
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(json!({"version": output::VERSION, "cases": cases}))
    }

    fn sessions(&self) -> Result<Vec<SessionEntry>, ToolError> {
        let args = list::ListArgs {
            filters: query::FilterArgs::default(),
            limit: None,
            format: query::DataFormat::Json,
        };
        let listed = list::listed(&self.ctx, &args).map_err(failure)?;
        // An id two files declare is one resource: its note names the
        // files, whose paths read either (`cru://session/<path>`).
        let duplicates = listed.answer().duplicates;
        let mut seen = std::collections::HashSet::new();
        Ok(listed
            .rows
            .into_iter()
            .filter(|r| seen.insert(r.id.clone()))
            .map(|r| {
                let note = duplicates.iter().find(|d| d.id == r.id).map(|d| {
                    format!(
                        "the id of {} files: {}; read one as cru://session/<path>",
                        d.paths.len(),
                        d.paths.join(", ")
                    )
                });
                SessionEntry {
                    id: r.id,
                    title: r.title,
                    note,
                }
            })
            .collect())
    }

    fn session_markdown(&self, id: &str) -> Result<String, ToolError> {
        let path = self.resolve(id)?;
        let log = self
            .ctx
            .store
            .load_path(&path)
            .map_err(|e| failure(CliError::from(e).into()))?;
        Ok(crucible_parser::write_session(&log))
    }

    fn workflows(&self) -> Result<Vec<WorkflowEntry>, ToolError> {
        // Every session has a workflow (`cru://workflow/<id>`, its codified
        // markup); listing them all would list every session twice.
        Ok(Vec::new())
    }

    fn workflow_markdown(&self, id: &str) -> Result<String, ToolError> {
        self.codified(id, codify::CodifyFormat::Markdown)
    }

    fn fingerprint(&self) -> u64 {
        // The list changes when a session file comes or goes: the names
        // alone are read (no file is opened), which stays cheap on a
        // directory of 100,000 sessions.
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        if let Ok(tree) = crucible_core::store::session_tree(self.ctx.store.dir()) {
            tree.files.hash(&mut hasher);
        }
        hasher.finish()
    }
}
