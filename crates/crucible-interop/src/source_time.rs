//! Times as other tools write them, read through jiff: ISO-8601 with a
//! zone (core's `Timestamp`), or a civil date and time with no zone, read
//! as UTC. A value that names no real instant (a 30th of February, an
//! offset of 25 hours) is an error with the text, never a time shifted to
//! fit.

use crucible_core::Timestamp;

/// `text` as an instant: ISO-8601, or a civil `format` (jiff's strptime
/// directives) read as UTC.
pub(crate) fn parse(text: &str, civil: &[&str]) -> Result<Timestamp, String> {
    let text = text.trim();
    // The civil forms first: the session then holds the instant in
    // ISO-8601, whatever the source's spelling.
    for format in civil {
        if let Ok(dt) = jiff::civil::DateTime::strptime(format, text) {
            return dt
                .to_zoned(jiff::tz::TimeZone::UTC)
                .map(|z| Timestamp::from_unix_ms(z.timestamp().as_millisecond()))
                .map_err(|e| format!("`{text}` is not a valid time ({e})"));
        }
    }
    if let Ok(t) = text.parse::<Timestamp>() {
        return Ok(t);
    }
    // jiff says what is wrong with it (a day the month lacks, an offset out
    // of range), where core's parse only says no.
    let why = match jiff::Timestamp::strptime("%Y-%m-%dT%H:%M:%S%.f%:z", text) {
        Err(e) => e.to_string(),
        Ok(_) => "not a time cru reads".to_owned(),
    };
    Err(format!("`{text}` is not a valid time ({why})"))
}

/// The 1-based line of `text` where `value` first appears after `key`, for
/// a warning about it (the YAML and JSON readers keep no positions).
pub(crate) fn line_of(text: &str, key: &str, value: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.contains(key) && l.contains(value))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPACED: &[&str] = &["%Y-%m-%d %H:%M:%S"];

    #[test]
    fn civil_times_are_utc_and_zoned_ones_keep_their_offset() {
        let t = parse("2025-12-03 10:12:44", SPACED).unwrap();
        assert_eq!(t.as_str(), "2025-12-03T10:12:44Z");
        let z = parse("2025-12-03T12:12:44+02:00", SPACED).unwrap();
        assert_eq!(z.unix_ms(), t.unix_ms());
    }

    #[test]
    fn impossible_dates_and_offsets_are_refused_with_the_text() {
        for bad in [
            "2025-02-30 10:00:00",
            "2025-12-03 25:00:00",
            "2025-12-03T10:00:00+25:00",
            "2025-13-01T10:00:00Z",
            "yesterday",
        ] {
            let e = parse(bad, SPACED).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn finds_the_line_of_a_value() {
        let text = "name: a\ncreated: '2025-02-30 10:00:00'\n";
        assert_eq!(line_of(text, "created", "2025-02-30 10:00:00"), Some(2));
        assert_eq!(line_of(text, "created", "nope"), None);
    }
}
