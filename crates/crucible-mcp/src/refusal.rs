//! Which lines the server takes, and how the rest are answered: the
//! JSON-RPC error, the `id` it goes to, and words that say what to send
//! instead.
//!
//! The SDK's parser knows only whether a line is a message it takes (its
//! error for the rest is "unrecognized JSON-RPC message"), and reads a
//! method it has with `params` of the wrong shape as an unknown method.
//! These look again at what it refused to say why.

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ErrorCode, ErrorData, InitializeRequestParams, JsonRpcMessage,
    PaginatedRequestParams, ReadResourceRequestParams, RequestId,
};
use rmcp::service::RxJsonRpcMessage;
use serde::Deserialize as _;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::scan::LineScan;

/// The deepest nesting read: serde_json's own limit (it refuses the 128th
/// level).
pub const MAX_DEPTH: u32 = 127;

/// The most values a message may hold. A parsed value costs a hundred
/// bytes or more, in the SDK and again here: a 16 MiB array of zeros would
/// take gigabytes. Arguments of a hundred thousand values are far past any
/// tool's.
pub const MAX_VALUES: u64 = 100_000;

/// The methods the server answers.
pub const METHODS: [&str; 7] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// What became of one message.
#[derive(Debug)]
pub enum Judged {
    /// For the SDK.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answered with this error (to this id, or `null`).
    Refused(Option<RequestId>, ErrorData),
    /// A notification nobody answers.
    Ignored,
}

/// A line over the limit, never parsed.
pub fn oversized(scan: &LineScan, length: usize, max: usize) -> Judged {
    let message = format!(
        "the message is {length} bytes, over the {} MiB a line may hold; nothing in it \
         was done: send its text in smaller parts",
        max >> 20
    );
    Judged::Refused(scan.id(), ErrorData::invalid_request(message, None))
}

/// A line within the limit: its message, or a batch's members one by one
/// (each answered on its own, by its id), or why it is refused.
pub fn judge(text: &[u8], scan: &LineScan) -> Vec<Judged> {
    if scan.max_depth() > MAX_DEPTH {
        let message = format!(
            "the message nests {} levels deep, past the {MAX_DEPTH} the server reads: nothing \
             in it was done",
            scan.max_depth()
        );
        return vec![Judged::Refused(
            scan.id(),
            ErrorData::parse_error(message, None),
        )];
    }
    if scan.values() > MAX_VALUES {
        let message = format!(
            "the message holds more than {MAX_VALUES} JSON values, more than the server \
             reads at once: nothing in it was done"
        );
        return vec![Judged::Refused(
            scan.id(),
            ErrorData::invalid_request(message, None),
        )];
    }
    if let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
        return vec![served(message)];
    }
    match serde_json::from_slice::<Value>(text) {
        Err(e) => vec![not_json(scan, &e)],
        Ok(Value::Array(members)) if members.is_empty() => vec![Judged::Refused(
            None,
            ErrorData::invalid_request("an empty batch: send one message a line", None),
        )],
        Ok(Value::Array(members)) => members.iter().map(judge_value).collect(),
        // The SDK refused it already, read from the same text.
        Ok(value) => vec![misshapen(&value)],
    }
}

fn not_json(scan: &LineScan, e: &serde_json::Error) -> Judged {
    let why = e.to_string();
    let hint = if why.starts_with("trailing characters") {
        "send one message a line"
    } else {
        "send one JSON-RPC message a line, as UTF-8 JSON"
    };
    let message = format!("the line is not JSON ({why}): {hint}");
    Judged::Refused(scan.id(), ErrorData::parse_error(message, None))
}

fn judge_value(value: &Value) -> Judged {
    match RxJsonRpcMessage::<RoleServer>::deserialize(value) {
        Ok(message) => served(message),
        Err(_) => misshapen(value),
    }
}

/// A message the SDK read: for it, unless it asks for a method the server
/// does not answer, or one it has with `params` of the wrong shape (which
/// the SDK reads as an unknown method).
fn served(message: RxJsonRpcMessage<RoleServer>) -> Judged {
    if let JsonRpcMessage::Request(request) = &message {
        let method = request.request.method();
        let custom = match &request.request {
            rmcp::model::ClientRequest::CustomRequest(custom) => Some(custom.params.as_ref()),
            _ => None,
        };
        if !METHODS.contains(&method) || custom.is_some() {
            let error = unrecognised(method, custom.flatten());
            return Judged::Refused(Some(request.id.clone()), error);
        }
    }
    Judged::Message(Box::new(message))
}

/// Why a JSON value is not a message the server takes; a notification
/// (a `method`, no `id`) gets no answer.
fn misshapen(value: &Value) -> Judged {
    let Value::Object(fields) = value else {
        let error = ErrorData::invalid_request("a message is a JSON object, one a line", None);
        return Judged::Refused(None, error);
    };
    let id = fields.get("id");
    let method = fields.get("method");
    if id.is_none() && method.is_some() {
        tracing::debug!("ignored a notification the server does not take: {value}");
        return Judged::Ignored;
    }
    let readable_id = id.and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let invalid = |message: String| {
        Judged::Refused(
            readable_id.clone(),
            ErrorData::invalid_request(message, None),
        )
    };
    if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let given = fields
            .get("jsonrpc")
            .map_or("missing".into(), Value::to_string);
        return invalid(format!("`jsonrpc` must be \"2.0\", not {given}"));
    }
    if let Some(id) = id
        && readable_id.is_none()
    {
        return invalid(format!(
            "`id` must be a string or a whole number that fits in 64 bits, not {id}"
        ));
    }
    let answer = fields.contains_key("result") || fields.contains_key("error");
    match method {
        Some(_) if answer => invalid(
            "a message is a request (`method`) or an answer (`result` or `error`), not both".into(),
        ),
        None if !answer => invalid(
            "a message needs a `method` (a request), or a `result` or `error` (an answer)".into(),
        ),
        None => invalid(
            "an answer the server cannot read: `result` or `error` of the wrong shape".into(),
        ),
        Some(Value::String(method)) => match fields.get("params") {
            Some(params) if !params.is_object() => Judged::Refused(
                readable_id,
                ErrorData::invalid_params("`params` must be an object (its members by name)", None),
            ),
            params => Judged::Refused(readable_id, unrecognised(method, params)),
        },
        Some(_) => invalid("`method` must be a string".into()),
    }
}

/// The answer to a request the server does not take: Invalid params when
/// it names a method the server has but its `params` are not of that
/// method's shape, saying what is wrong; else Method not found, naming the
/// methods there are.
pub fn unrecognised(method: &str, params: Option<&Value>) -> ErrorData {
    let problem = match method {
        "initialize" => needed::<InitializeRequestParams>(params),
        "tools/call" => needed::<CallToolRequestParams>(params),
        "resources/read" => needed::<ReadResourceRequestParams>(params),
        "ping" | "tools/list" | "resources/list" | "resources/templates/list" => {
            params.and_then(shape_error::<PaginatedRequestParams>)
        }
        _ => None,
    };
    match problem {
        Some(problem) => {
            ErrorData::invalid_params(format!("`{method}`: invalid params: {problem}"), None)
        }
        None => ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "no method `{method}` here: the server answers {}",
                METHODS.join(", ")
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
    P::deserialize(params).err().map(|e| e.to_string())
}
