//! What can be wrong with a price list.

/// A price list cru cannot use, and why.
#[derive(Debug, thiserror::Error)]
pub enum PricingError {
    #[error("the price list is empty")]
    Empty,
    #[error("the price list is not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("the price list should be a JSON object of models, found {found}")]
    NotAnObject { found: &'static str },
    #[error("model `{model}`: expected an object of prices, found {found}")]
    NotAModel { model: String, found: &'static str },
    #[error("model `{model}`: `{key}` should be a number, found {found}")]
    NotANumber {
        model: String,
        key: String,
        found: &'static str,
    },
    #[error("model `{model}`: `{key}` is {value}, not a price (expected 0 or more)")]
    NotAPrice {
        model: String,
        key: String,
        value: f64,
    },
    #[error(
        "the price list prices no model per token (no entry has both `input_cost_per_token` and `output_cost_per_token`)"
    )]
    NoPricedModel,
    #[error("not a cru price table: {0}")]
    NotATable(String),
    #[error("model `{model}` is not in the price table, so it needs both `input` and `output`")]
    IncompleteModel { model: String },
}

/// A JSON value's kind, for messages.
pub(super) fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
