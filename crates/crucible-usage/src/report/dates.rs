//! Days, weeks and months in the reader's time zone, and the `--since` /
//! `--until` bounds.
//!
//! Lines are kept per UTC hour; a report puts a line in the local day of its
//! first request (`first_ms`). In a time zone whose offset is a whole number
//! of hours every request of an hour falls on the same local day, so this is
//! exact; in a half-hour zone (India, parts of Australia) the requests of
//! the hour that crosses local midnight all go to the first day.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

/// A `--since`/`--until` value that is not a date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DateBoundError {
    #[error(
        "`{input}` is not a date: expected YYYY-MM-DD, YYYYMMDD, or a span back from today \
         such as 7d, 2w or 3m"
    )]
    Unrecognised { input: String },
    #[error("`{input}` is not a day of the calendar ({reason})")]
    NoSuchDay { input: String, reason: String },
    #[error("`{input}` reaches too far back: {reason}")]
    OutOfRange { input: String, reason: String },
}

/// Reads a `--since`/`--until` bound: `2025-10-02`, `20251002`, or a span
/// back from today in `tz`: `7d` (days), `2w` (weeks), `3m` (calendar
/// months). `0d` is today. The bound is a whole local day, inclusive.
pub fn parse_date_bound(
    input: &str,
    now: Timestamp,
    tz: &TimeZone,
) -> Result<Date, DateBoundError> {
    let text = input.trim();
    let unrecognised = || DateBoundError::Unrecognised {
        input: input.to_owned(),
    };
    if let Some((digits, unit)) = relative_span(text) {
        // More than six digits: too many to count back.
        let Some(count) = (digits.len() <= 6)
            .then(|| digits.parse::<i64>().ok())
            .flatten()
        else {
            let unit = match unit {
                'd' => "days",
                'w' => "weeks",
                _ => "months",
            };
            return Err(DateBoundError::OutOfRange {
                input: input.to_owned(),
                reason: format!("at most 999999 {unit} back"),
            });
        };
        let out_of_range = |e: jiff::Error| DateBoundError::OutOfRange {
            input: input.to_owned(),
            reason: e.to_string(),
        };
        // `try_*`: a count beyond jiff's span limits is an error, not a panic.
        let span = match unit {
            'd' => Span::new().try_days(count),
            'w' => Span::new().try_weeks(count),
            _ => Span::new().try_months(count),
        }
        .map_err(out_of_range)?;
        return local_date(now, tz).checked_sub(span).map_err(out_of_range);
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (y, m, d) = match text.len() {
        10 if text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-' => {
            (&text[..4], &text[5..7], &text[8..])
        }
        8 => (&text[..4], &text[4..6], &text[6..]),
        _ => return Err(unrecognised()),
    };
    if !(digits(y) && digits(m) && digits(d)) {
        return Err(unrecognised());
    }
    let num = |s: &str| s.parse::<i16>().map_err(|_| unrecognised());
    let (y, m, d) = (num(y)?, num(m)?, num(d)?);
    Date::new(y, m as i8, d as i8).map_err(|e| DateBoundError::NoSuchDay {
        input: input.to_owned(),
        reason: e.to_string(),
    })
}

/// `7d` → ("7", 'd'): digits (however many) and a unit; anything else →
/// None.
fn relative_span(text: &str) -> Option<(&str, char)> {
    let unit = text.chars().last()?.to_ascii_lowercase();
    if !matches!(unit, 'd' | 'w' | 'm') {
        return None;
    }
    let digits = &text[..text.len() - 1];
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((digits, unit))
}

/// The local date of a moment given in milliseconds since the epoch.
pub(crate) fn local_date_ms(ms: i64, tz: &TimeZone) -> Date {
    // Out-of-range times (beyond year 9999) cannot come from a parsed
    // session; clamping keeps the report total instead of failing it.
    let ts = Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    local_date(ts, tz)
}

pub(crate) fn local_date(ts: Timestamp, tz: &TimeZone) -> Date {
    tz.to_offset(ts).to_datetime(ts).date()
}

pub use crucible_core::calendar::week_start;

/// `2025-10-02T14:01:20.000Z`, as ccusage writes times.
pub(crate) fn utc_millis(ms: i64) -> String {
    match Timestamp::from_millisecond(ms) {
        Ok(ts) => ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        Err(_) => ms.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Weekday;

    fn now() -> Timestamp {
        "2025-03-31T12:00:00Z".parse().unwrap()
    }

    fn bound(s: &str) -> Result<Date, DateBoundError> {
        parse_date_bound(s, now(), &TimeZone::UTC)
    }

    #[test]
    fn absolute_dates_in_both_spellings() {
        let want = Date::new(2025, 10, 2).unwrap();
        assert_eq!(bound("2025-10-02"), Ok(want));
        assert_eq!(bound("20251002"), Ok(want));
        assert_eq!(bound(" 20251002 "), Ok(want));
    }

    #[test]
    fn relative_spans_count_back_from_the_local_today() {
        assert_eq!(bound("0d"), Ok(Date::new(2025, 3, 31).unwrap()));
        assert_eq!(bound("7d"), Ok(Date::new(2025, 3, 24).unwrap()));
        assert_eq!(bound("2w"), Ok(Date::new(2025, 3, 17).unwrap()));
        // A month back from the 31st lands on the last day of February.
        assert_eq!(bound("1m"), Ok(Date::new(2025, 2, 28).unwrap()));
        // At 12:00 UTC it is already the next day in Kiritimati (UTC+14).
        let kiritimati = TimeZone::fixed(jiff::tz::offset(14));
        assert_eq!(
            parse_date_bound("0d", now(), &kiritimati),
            Ok(Date::new(2025, 4, 1).unwrap())
        );
    }

    #[test]
    fn a_span_too_long_to_count_says_so() {
        let e = bound("99999999999d").unwrap_err().to_string();
        assert!(e.contains("reaches too far back"), "{e}");
        assert!(e.contains("999999 days"), "{e}");
    }

    #[test]
    fn bad_bounds_say_what_was_expected() {
        for bad in [
            "yesterday",
            "2025-1-02",
            "2025/10/02",
            "7y",
            "d",
            "-7d",
            "2025100",
        ] {
            let err = bound(bad).unwrap_err();
            assert!(
                matches!(err, DateBoundError::Unrecognised { .. }),
                "{bad}: {err}"
            );
            assert!(err.to_string().contains("YYYY-MM-DD, YYYYMMDD"), "{err}");
        }
        let err = bound("2025-02-30").unwrap_err();
        assert!(matches!(err, DateBoundError::NoSuchDay { .. }), "{err}");
        assert!(
            err.to_string().starts_with("`2025-02-30` is not a day"),
            "{err}"
        );
        assert!(matches!(
            bound("999999m"),
            Err(DateBoundError::OutOfRange { .. })
        ));
    }

    #[test]
    fn weeks_start_on_the_chosen_day() {
        let thu = Date::new(2025, 8, 14).unwrap();
        assert_eq!(
            week_start(thu, Weekday::Sunday),
            Date::new(2025, 8, 10).unwrap()
        );
        assert_eq!(
            week_start(thu, Weekday::Monday),
            Date::new(2025, 8, 11).unwrap()
        );
        assert_eq!(week_start(thu, Weekday::Thursday), thu);
        let sun = Date::new(2025, 8, 10).unwrap();
        assert_eq!(
            week_start(sun, Weekday::Monday),
            Date::new(2025, 8, 4).unwrap()
        );
    }

    #[test]
    fn times_are_written_as_ccusage_writes_them() {
        assert_eq!(utc_millis(1_759_413_680_000), "2025-10-02T14:01:20.000Z");
        assert_eq!(utc_millis(1_759_413_680_123), "2025-10-02T14:01:20.123Z");
    }
}
