//! Rendering results for people.

pub mod held;
pub mod output;
pub mod progress;

/// Standard output for machine formats (JSON, TOON, markdown): buffered, and
/// not through anstream, which would scan every byte for colour codes.
pub fn data_out() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock())
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = data_out();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints `value` as TOON on stdout (small results: toon-format is fine here).
pub fn print_toon(value: &serde_json::Value) -> anyhow::Result<()> {
    use std::io::Write;
    let text = toon_format::encode_default(value)
        .map_err(|e| crate::error::CliError::new(e.to_string()))?;
    let mut out = data_out();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}
pub mod session_text;
pub mod style;
pub mod table;

pub use crucible_core::figures::{duration, thousands};

/// `one` or `many` for a count.
pub fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The closing line of a check over several files, on stderr:
/// `9 files checked: 8 valid, 1 invalid (2 errors, 0 warnings)`.
pub fn checked_summary(
    noun: (&str, &str),
    checked: usize,
    invalid: usize,
    errors: usize,
    warnings: usize,
) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(
        anstream::stderr(),
        "{checked} {} checked: {} valid, {invalid} invalid ({errors} {}, {warnings} {})",
        plural(checked, noun.0, noun.1),
        checked - invalid,
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
    )
}
