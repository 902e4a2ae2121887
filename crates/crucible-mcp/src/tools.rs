//! The tools: their names, what they are for, and their inputs, named as
//! the CLI names its flags (`--max-tokens` is `max_tokens`), so that a
//! person who knows one knows the other.
//!
//! Unknown fields are refused (`deny_unknown_fields`): a misspelt filter
//! is an invalid argument, not a filter silently ignored.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::outputs;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;

/// The filters `cru session list`, `stats` and `learn` share.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Filters {
    /// Only sessions with this status: active, paused, completed or failed.
    pub status: Option<String>,
    /// Only sessions where this agent took part (name or name@version).
    pub agent: Option<String>,
    /// Only sessions in this channel.
    pub channel: Option<String>,
    /// Only sessions with this primary model.
    pub model: Option<String>,
    /// Only sessions started on or after this date or time (a timestamp,
    /// YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m).
    pub since: Option<String>,
    /// Only sessions started on or before this date or time; the same forms as `since`.
    pub until: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListInput {
    #[serde(flatten)]
    pub filters: Filters,
    /// At most this many sessions, the newest (50 unless given); the
    /// answer's `total` counts them all and `truncated` says some were left out.
    pub limit: Option<usize>,
}

/// How many sessions `list_sessions` answers unless asked for more.
pub const LIST_LIMIT: usize = 50;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowInput {
    /// A session: its id, a unique prefix of one, or the `path` list_sessions answers.
    pub id: String,
    /// Only these phases (counting from 1 in document order): `3`, or a range `2-4`.
    pub phases: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatsInput {
    #[serde(flatten)]
    pub filters: Filters,
    /// What to group by: agent (the default), channel, model, status, day, week, month, phase, ...
    pub group_by: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// Words or "a phrase", as `cru session search` takes them (field
    /// filters such as `agent:NAME` included).
    pub query: String,
    #[serde(flatten)]
    pub filters: Filters,
    /// At most this many hits (20 unless given).
    pub limit: Option<usize>,
    /// Skip this many hits first (paging).
    pub offset: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeInput {
    /// A session: its id, a unique prefix of one, or the `path` list_sessions answers.
    pub id: String,
    /// The context's budget in tokens (the configured resume budget unless given).
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodifyInput {
    /// A session: its id, a unique prefix of one, or the `path` list_sessions answers.
    pub id: String,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearnInput {
    /// One session (an id or a unique prefix); without it, every session the filters take.
    pub id: Option<String>,
    #[serde(flatten)]
    pub filters: Filters,
    /// Which cases: all (the default), puzzle (errors), or correction (user corrections).
    #[serde(rename = "type")]
    pub case_type: Option<String>,
}

/// The events `record` writes: those of `cru session start`, `log`, `pause` and `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecordEvent {
    /// Start a session (`title`, `agent`, `channel`, `model`, `prompt`); answers its id.
    Start,
    /// Start a phase (`name`, `agent`, `channel`, `nested`).
    Phase,
    /// A tool call (`tool`, `args`, `result`, `failed`, `exit_code`).
    Tool,
    /// A decision and why (`text`).
    Decision,
    /// An error (`text`, `resolution`).
    Error,
    /// A user's intervention, their exact words (`quote`, `interpretation`).
    User,
    /// Pause the session (`at`: a phase id, else the last phase).
    Pause,
    /// End the session (`status`: completed or failed; `summary`).
    End,
}

impl RecordEvent {
    pub fn name(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Phase => "phase",
            Self::Tool => "tool",
            Self::Decision => "decision",
            Self::Error => "error",
            Self::User => "user",
            Self::Pause => "pause",
            Self::End => "end",
        }
    }

    /// The fields of [`RecordInput`] this event takes, beside `event`.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Start => &["title", "agent", "channel", "model", "prompt", "cwd"],
            Self::Phase => &["session", "reopen", "name", "agent", "channel", "nested"],
            Self::Tool => &[
                "session",
                "reopen",
                "tool",
                "args",
                "result",
                "failed",
                "exit_code",
            ],
            Self::Decision => &["session", "reopen", "text"],
            Self::Error => &["session", "reopen", "text", "resolution"],
            Self::User => &["session", "reopen", "quote", "text", "interpretation"],
            Self::Pause => &["session", "at"],
            Self::End => &["session", "status", "summary"],
        }
    }
}

/// The fields of a `record` call that its event does not take: a field
/// meant for another event is a slip to refuse, not to drop (a `null` one
/// is as good as not given).
pub fn stray_fields(event: RecordEvent, arguments: &JsonObject) -> Vec<String> {
    arguments
        .iter()
        .filter(|(k, v)| *k != "event" && !v.is_null() && !event.fields().contains(&k.as_str()))
        .map(|(k, _)| k.clone())
        .collect()
}

/// One event, with the fields the matching `cru session` command takes,
/// named as its flags are.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordInput {
    pub event: RecordEvent,
    /// The session (an id or a unique prefix); every event but `start` needs it.
    pub session: Option<String>,
    /// Log to a session that already ended, making it active again.
    #[serde(default)]
    pub reopen: bool,
    /// start: the session's title.
    pub title: Option<String>,
    /// start, phase: the agent, as name or name@version.
    pub agent: Option<String>,
    /// start, phase: the channel.
    pub channel: Option<String>,
    /// start: the model.
    pub model: Option<String>,
    /// start: the user's prompt.
    pub prompt: Option<String>,
    /// start: the working directory the session records (the server's unless given).
    pub cwd: Option<String>,
    /// phase: its name.
    pub name: Option<String>,
    /// phase: nest it in the current phase.
    #[serde(default)]
    pub nested: bool,
    /// tool: the tool's name (bash, read, edit, ...).
    pub tool: Option<String>,
    /// tool: its arguments, as one string.
    pub args: Option<String>,
    /// tool: its result (summarised to one line).
    pub result: Option<String>,
    /// tool: the call failed.
    #[serde(default)]
    pub failed: bool,
    /// tool: its exit code; anything but 0 marks the call failed.
    pub exit_code: Option<i64>,
    /// decision, error: the text.
    pub text: Option<String>,
    /// error: how it was resolved.
    pub resolution: Option<String>,
    /// user: the user's exact words.
    pub quote: Option<String>,
    /// user: what was made of them.
    pub interpretation: Option<String>,
    /// pause: the phase to resume after (phase-N).
    pub at: Option<String>,
    /// end: completed (the default) or failed.
    pub status: Option<String>,
    /// end: a summary of the outcome.
    pub summary: Option<String>,
}

/// The tools' names.
pub const LIST_SESSIONS: &str = "list_sessions";
pub const SHOW_SESSION: &str = "show_session";
pub const SESSION_STATS: &str = "session_stats";
pub const SEARCH_SESSIONS: &str = "search_sessions";
pub const RESUME_CONTEXT: &str = "resume_context";
pub const RECORD: &str = "record";
pub const CODIFY_SESSION: &str = "codify_session";
pub const LEARNING_CASES: &str = "learning_cases";

/// Every tool; without those that write when `read_only`.
pub fn all(read_only: bool) -> Vec<Tool> {
    let reading = ToolAnnotations::new().read_only(true).open_world(false);
    let mut tools = vec![
        tool::<ListInput>(
            LIST_SESSIONS,
            "The sessions, newest first, with their status, agents, phases and tokens: \
             `cru session list --format json`, at most `limit` of them (50 unless given), \
             with `total` and `truncated`.",
            outputs::LIST,
        ),
        tool::<ShowInput>(
            SHOW_SESSION,
            "One session as its markdown (phases, tool calls, decisions, errors, user \
             interventions), or only some of its phases: `cru session show ID --format markdown`.",
            outputs::SHOW,
        ),
        tool::<StatsInput>(
            SESSION_STATS,
            "Sessions, phases, tool calls, errors, tokens and cost by agent, channel, model, \
             day, ...: `cru session stats --format json`.",
            outputs::STATS,
        ),
        tool::<SearchInput>(
            SEARCH_SESSIONS,
            "Full-text search over every session (has this been done before, what was \
             decided, where did it fail): hits by session and phase, best first, with a \
             snippet: `cru session search --format json`.",
            outputs::SEARCH,
        ),
        tool::<ResumeInput>(
            RESUME_CONTEXT,
            "A paused session's context to go on from: what was done, decisions, open tasks, \
             the last error, where it stopped, within `max_tokens`: \
             `cru session resume ID --format json`.",
            outputs::RESUME,
        ),
        tool::<CodifyInput>(
            CODIFY_SESSION,
            "A session as a workflow: its steps, the data flowing between them, and the \
             problems found: `cru session codify ID --format json` (its markup is the \
             resource `cru://workflow/ID`).",
            outputs::CODIFY,
        ),
        tool::<LearnInput>(
            LEARNING_CASES,
            "Learning cases from sessions: errors as puzzles, user corrections as preference \
             pairs: the lines of `cru session learn --export jsonl`, as `cases`.",
            outputs::LEARN,
        ),
    ]
    .into_iter()
    .map(|t| t.with_annotations(reading.clone()))
    .collect::<Vec<_>>();
    if !read_only {
        tools.push(
            tool::<RecordInput>(
                RECORD,
                "Record what you do into a session: `start` one (answers its id), then \
                 `phase`, `tool`, `decision`, `error`, `user`, `pause`, `end`; the same \
                 events and fields as `cru session start`/`log`/`pause`/`end`.",
                outputs::RECORD,
            )
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(false)
                    .destructive(false)
                    .idempotent(false)
                    .open_world(false),
            ),
        );
    }
    tools
}

/// A tool with its input's schema, and an output schema giving the type
/// of every top-level field of its answer (every answer carries `version`).
fn tool<I: JsonSchema + 'static>(
    name: &'static str,
    about: &'static str,
    fields: &[(&str, &str)],
) -> Tool {
    let mut tool = Tool::new(name, about, Arc::new(JsonObject::new())).with_input_schema::<I>();
    tool.input_schema = Arc::new(plain_schema(&tool.input_schema));
    tool.with_raw_output_schema(Arc::new(outputs::schema(fields)))
}

/// The closed sets of values some text inputs take, as the code checks them.
const CLOSED: [(&str, &[&str]); 2] = [
    ("status", &["active", "paused", "completed", "failed"]),
    ("type", &["all", "puzzle", "correction"]),
];

/// `schema` as every client reads it: each `$ref` replaced by the
/// definition it points to, no `$defs` and no `$schema` (some clients,
/// Gemini CLI among them, fail on either and drop the server's tools), and
/// the closed sets of values as `enum`s.
fn plain_schema(schema: &JsonObject) -> JsonObject {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut out = schema.clone();
    out.remove("$defs");
    out.remove("$schema");
    let mut value = Value::Object(out);
    inline_refs(&mut value, &defs);
    let Value::Object(mut out) = value else {
        unreachable!("an object stays one")
    };
    if let Some(Value::Object(properties)) = out.get_mut("properties") {
        for (field, values) in CLOSED {
            if let Some(Value::Object(p)) = properties.get_mut(field) {
                let mut values: Vec<Value> = values.iter().map(|v| json!(v)).collect();
                // An optional field may be `null`, as its type says.
                if p.get("type").is_some_and(Value::is_array) {
                    values.push(Value::Null);
                }
                p.insert("enum".into(), Value::Array(values));
            }
        }
    }
    out
}

fn inline_refs(value: &mut Value, defs: &JsonObject) {
    match value {
        Value::Object(o) => {
            let target = o
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name))
                .and_then(Value::as_object)
                .cloned();
            if let Some(def) = target {
                o.remove("$ref");
                for (k, v) in def {
                    o.entry(k).or_insert(v);
                }
            }
            for v in o.values_mut() {
                inline_refs(v, defs);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|v| inline_refs(v, defs)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_hides_record() {
        let names = |ro| all(ro).into_iter().map(|t| t.name).collect::<Vec<_>>();
        assert!(names(false).iter().any(|n| n == RECORD));
        assert!(!names(true).iter().any(|n| n == RECORD));
        assert_eq!(names(true).len(), 7);
    }

    #[test]
    fn inputs_use_the_cli_names_and_refuse_others() {
        let list: ListInput =
            serde_json::from_value(json!({"status": "paused", "limit": 3})).unwrap();
        assert_eq!(list.filters.status.as_deref(), Some("paused"));
        assert!(serde_json::from_value::<ListInput>(json!({"state": "paused"})).is_err());
        let schema = all(false)
            .into_iter()
            .find(|t| t.name == RESUME_CONTEXT)
            .unwrap()
            .input_schema;
        assert!(
            schema["properties"].get("max_tokens").is_some(),
            "{schema:?}"
        );
        assert_eq!(schema["required"], json!(["id"]));
    }

    #[test]
    fn input_schemas_have_no_refs_and_name_closed_sets() {
        for t in all(false) {
            let text = serde_json::to_string(&t.input_schema).unwrap();
            assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
            assert!(!text.contains("$schema"), "{text}");
        }
        let record = all(false).into_iter().find(|t| t.name == RECORD).unwrap();
        let event = &record.input_schema["properties"]["event"];
        assert_eq!(event["oneOf"][0]["const"], "start", "{event}");
        let list = all(false)
            .into_iter()
            .find(|t| t.name == LIST_SESSIONS)
            .unwrap();
        assert_eq!(
            list.input_schema["properties"]["status"]["enum"][0],
            "active"
        );
    }
}
