//! `cru session validate --format json`.

use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct ValidateAnswer {
    pub files: Vec<ValidatedFile>,
    /// How many files are valid and invalid, as the closing line says.
    pub valid: usize,
    pub invalid: usize,
}

/// One file checked (or a target that named no file, or a sidecar).
#[derive(Debug, Serialize)]
pub struct ValidatedFile {
    pub path: String,
    /// No errors (warnings allowed).
    pub valid: bool,
    pub problems: Vec<ValidationProblem>,
}

#[derive(Debug, Serialize)]
pub struct ValidationProblem {
    /// `null` when the problem is the whole file (it cannot be read).
    pub line: Option<usize>,
    /// `error` or `warning`.
    pub severity: &'static str,
    pub message: String,
}
