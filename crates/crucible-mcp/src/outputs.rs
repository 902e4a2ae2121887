//! What each tool answers: the top-level fields of its JSON and their
//! types (`a|b` is either), for its output schema. docs/json.md describes
//! what is inside them.

use rmcp::model::JsonObject;
use serde_json::{Value, json};

pub(crate) const LIST: &[(&str, &str)] = &[
    ("sessions", "array"),
    ("total", "integer"),
    ("truncated", "boolean"),
    ("skipped", "array"),
    ("duplicates", "array"),
];
pub(crate) const SHOW: &[(&str, &str)] = &[
    ("id", "string"),
    ("path", "string"),
    ("phases", "array|null"),
    ("markdown", "string"),
];
pub(crate) const STATS: &[(&str, &str)] = &[
    ("group_by", "string"),
    ("groups", "array"),
    ("total", "object"),
    ("skipped", "array"),
    ("duplicates", "array"),
];
pub(crate) const SEARCH: &[(&str, &str)] = &[("hits", "array")];
pub(crate) const RESUME: &[(&str, &str)] = &[
    ("session", "object"),
    ("resume_at", "string|null"),
    ("budget", "integer"),
    ("estimated_tokens", "integer"),
    ("over_budget", "boolean"),
    ("phases", "array"),
    ("phases_after_resume_point", "integer"),
    ("tasks", "array"),
    ("decisions", "array"),
    ("subagents", "array"),
    ("last_error", "object|null"),
    ("prompt", "string"),
];
pub(crate) const CODIFY: &[(&str, &str)] = &[
    ("workflow", "object"),
    ("graph", "object"),
    ("problems", "array"),
];
pub(crate) const LEARN: &[(&str, &str)] = &[("cases", "array")];
pub(crate) const RECORD: &[(&str, &str)] = &[
    ("session", "string"),
    ("path", "string"),
    ("event", "string"),
];

/// `{"type": "object", "properties": {"version": integer, FIELD: {"type": T}...}}`,
/// every field required: each is in every answer (docs/json.md describes
/// what is inside them). `a|b` is either type. More fields may come in a
/// later version, so others are allowed.
pub(crate) fn schema(fields: &[(&str, &str)]) -> JsonObject {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "version".into(),
        json!({"type": "integer", "description": "the JSON schema version (docs/json.md)"}),
    );
    for (field, types) in fields {
        let types: Vec<&str> = types.split('|').collect();
        let schema = match types.as_slice() {
            [one] => json!({ "type": one }),
            many => json!({ "type": many }),
        };
        properties.insert((*field).into(), schema);
    }
    let required: Vec<&str> = std::iter::once("version")
        .chain(fields.iter().map(|(f, _)| *f))
        .collect();
    match json!({"type": "object", "properties": properties, "required": required}) {
        Value::Object(o) => o,
        _ => unreachable!("a json! object literal"),
    }
}
