//! Rendering results for people.

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

/// The most characters a table cell shows: the longest session id, so an id
/// is never cut. A longer cell (a title or an agent name pasted by mistake,
/// or a hostile file) is cut with `…`; the JSON and TOON formats keep it whole.
pub const MAX_CELL_CHARS: usize = 200;

/// `text` cut to [`MAX_CELL_CHARS`], ending in `…` when it was cut.
pub fn table_cell(text: &str) -> String {
    match text.char_indices().nth(MAX_CELL_CHARS) {
        None => text.to_owned(),
        Some(_) => {
            let keep = text
                .char_indices()
                .nth(MAX_CELL_CHARS - 1)
                .map_or(text.len(), |(i, _)| i);
            format!("{}…", &text[..keep])
        }
    }
}

/// Where a cell's text sits in its column.
#[derive(Debug, Clone, Copy)]
pub enum Align {
    Left,
    Right,
}

/// Appends `text` padded with spaces to `width` characters. Padding by hand
/// rather than with `format!("{:w$}")`, whose width is kept in 16 bits and
/// panics above 65,535.
pub fn push_padded(out: &mut String, text: &str, width: usize, align: Align) {
    let pad = width.saturating_sub(text.chars().count());
    match align {
        Align::Left => {
            out.push_str(text);
            out.extend(std::iter::repeat_n(' ', pad));
        }
        Align::Right => {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(text);
        }
    }
}

/// `18420` → `18,420`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `7987000` ms → `2h 13m 7s`.
pub fn duration(ms: i64) -> String {
    let s = ms / 1000;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, _) => format!("{m}m {s}s"),
        _ => format!("{h}h {m}m {s}s"),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_durations_read_easily() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(18420), "18,420");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(duration(7_987_000), "2h 13m 7s");
        assert_eq!(duration(59_000), "59s");
        assert_eq!(duration(540_000), "9m 0s");
    }
}
