//! How a message the server cannot take is answered: the JSON-RPC error
//! and the `id` it goes to, in words that say what to send instead.
//!
//! The SDK's parser knows only whether a line is a message it takes; these
//! look again at a line it refused, or at a method it read as unknown
//! (because its `params` had the wrong shape), to say why.

use rmcp::model::{
    CallToolRequestParams, CustomRequest, ErrorCode, ErrorData, InitializeRequestParams,
    PaginatedRequestParams, ReadResourceRequestParams, RequestId,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::stdio::IdScanner;

/// What answers a line the SDK could not read as a message: `None` for a
/// notification (no answer is due), else the error and the `id` it goes to.
pub fn of_line(line: &[u8], error: &serde_json::Error) -> Option<(Option<RequestId>, ErrorData)> {
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(not_json) => {
            let mut scanner = IdScanner::default();
            scanner.feed(line);
            let message = if not_json.to_string().starts_with("recursion limit exceeded") {
                format!(
                    "the message nests deeper than the 128 levels the server reads ({not_json})"
                )
            } else {
                format!("the message is not JSON: {not_json}")
            };
            return Some((scanner.id(), ErrorData::parse_error(message, None)));
        }
    };
    let id = value.get("id");
    if id.is_none() && value.get("method").is_some() {
        tracing::debug!("ignored a notification the server does not know: {error}");
        return None;
    }
    let readable_id = id.and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let message = match (&value, id) {
        (Value::Array(_), _) => "batches of messages are not taken: send one message a line".into(),
        (Value::Object(_), _) if value["jsonrpc"] != "2.0" => {
            format!(
                "`jsonrpc` must be \"2.0\", not {}",
                shown(value.get("jsonrpc"))
            )
        }
        (Value::Object(_), Some(id)) if readable_id.is_none() => {
            format!("`id` must be a number or a string, not {id}")
        }
        (Value::Object(_), _) if value.get("method").is_some_and(|m| !m.is_string()) => {
            "`method` must be a string".into()
        }
        (Value::Object(_), _) if value.get("params").is_some_and(|p| !p.is_object()) => {
            "`params` must be an object (its members by name)".into()
        }
        (Value::Object(_), _) => format!("not a JSON-RPC message the server knows: {error}"),
        _ => "a message is a JSON object, one a line".into(),
    };
    Some((readable_id, ErrorData::invalid_request(message, None)))
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_owned(), Value::to_string)
}

/// What answers a request the SDK did not recognise: Invalid params when
/// it names a method the server has but its `params` are not of that
/// method's shape (`tools/call` with array arguments, or none), which the
/// SDK reads as an unknown method; else Method not found, naming those the
/// server has.
pub fn unrecognised(request: &CustomRequest) -> ErrorData {
    let params = request.params.as_ref();
    let problem = match request.method.as_str() {
        "initialize" => needed::<InitializeRequestParams>(params),
        "tools/call" => needed::<CallToolRequestParams>(params),
        "resources/read" => needed::<ReadResourceRequestParams>(params),
        "ping" | "tools/list" | "resources/list" | "resources/templates/list" => {
            params.and_then(shape_error::<PaginatedRequestParams>)
        }
        _ => None,
    };
    match problem {
        Some(problem) => ErrorData::invalid_params(
            format!("`{}`: invalid params: {problem}", request.method),
            None,
        ),
        None => ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "no method `{}` here: the server answers initialize, ping, tools/list, \
                 tools/call, resources/list, resources/templates/list and resources/read",
                request.method
            ),
            None,
        ),
    }
}
/// Why `params` are not a `P`, when a `P` is needed.
fn needed<P: DeserializeOwned>(params: Option<&Value>) -> Option<String> {
    match params {
        None => Some("`params` is missing".into()),
        Some(params) => shape_error::<P>(params),
    }
}

fn shape_error<P: DeserializeOwned>(params: &Value) -> Option<String> {
    serde_json::from_value::<P>(params.clone())
        .err()
        .map(|e| e.to_string())
}
