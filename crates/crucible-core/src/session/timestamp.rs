//! ISO-8601 timestamps as sessions write them, kept exactly as written.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time from a session file.
///
/// The text is kept as written (`2025-12-05T14:32:15Z`, `2025-12-03 10:12:44`,
/// `2025-12-05T15:32:15+01:00`) so that a round trip never rewrites a user's
/// timestamps; the instant is parsed once so durations and ordering work across
/// offsets. A timestamp without an offset is read as UTC.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Timestamp {
    raw: String,
    unix_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an ISO-8601 timestamp (expected e.g. 2025-12-05T14:32:15Z)")]
pub struct TimestampError(pub String);

impl Timestamp {
    /// Milliseconds since the Unix epoch.
    pub fn unix_ms(&self) -> i64 {
        self.unix_ms
    }

    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The calendar day (`YYYY-MM-DD`) in UTC.
    pub fn utc_day(&self) -> String {
        let (y, m, d) = civil_from_days(self.unix_ms.div_euclid(86_400_000));
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// A timestamp in canonical form (`YYYY-MM-DDTHH:MM:SSZ`) for an instant.
    pub fn from_unix_ms(unix_ms: i64) -> Self {
        let days = unix_ms.div_euclid(86_400_000);
        let ms_of_day = unix_ms.rem_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        let secs = ms_of_day / 1000;
        let raw = format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        // Whole seconds only: what we write must parse back to the same instant.
        Self {
            raw,
            unix_ms: unix_ms - ms_of_day % 1000,
        }
    }

    /// The current time, to the second.
    pub fn now() -> Self {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Self::from_unix_ms(ms)
    }
}

impl FromStr for Timestamp {
    type Err = TimestampError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unix_ms = parse_iso8601(s.trim()).ok_or_else(|| TimestampError(s.to_owned()))?;
        Ok(Self {
            raw: s.to_owned(),
            unix_ms,
        })
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// Reads `YYYY-MM-DD`, optionally followed by `T` or a space and
/// `HH:MM[:SS[.fraction]]`, optionally followed by `Z` or `±HH[:MM]`.
fn parse_iso8601(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    // Digits by hand: parsing each field as a `str` was most of the cost of
    // the several timestamps a session holds.
    let num = |from: usize, len: usize| -> Option<i64> {
        b.get(from..from + len)?.iter().try_fold(0, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let year = num(0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let (month, day) = (num(5, 2)?, num(8, 2)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    if b.len() == 10 {
        return Some(days * 86_400_000);
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let (hour, minute) = (num(11, 2)?, num(14, 2)?);
    let mut i = 16;
    let mut second = 0;
    let mut millis = 0;
    if b.get(i) == Some(&b':') {
        second = num(i + 1, 2)?;
        i += 3;
        if matches!(b.get(i), Some(b'.' | b',')) {
            let start = i + 1;
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == start {
                return None;
            }
            let digits = &s[start..end.min(start + 3)];
            millis = digits.parse::<i64>().ok()? * 10_i64.pow(3 - digits.len() as u32);
            i = end;
        }
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let offset_minutes = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2)?;
            let rest = &b[i + 3..];
            let om = match rest {
                [] => 0,
                [b':', _, _] => num(i + 4, 2)?,
                [_, _] => num(i + 3, 2)?,
                _ => return None,
            };
            let total = oh * 60 + om;
            if sign == b'+' { total } else { -total }
        }
        _ => return None,
    };
    Some(
        ((days * 86_400 + hour * 3600 + minute * 60 + second) - offset_minutes * 60) * 1000
            + millis,
    )
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm, exact for every representable year).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> i64 {
        s.parse::<Timestamp>().unwrap().unix_ms()
    }

    #[test]
    fn reads_the_forms_sessions_use() {
        assert_eq!(ms("1970-01-01T00:00:00Z"), 0);
        assert_eq!(ms("2025-12-05T14:32:15Z"), 1_764_945_135_000);
        assert_eq!(ms("2025-12-05 14:32:15"), 1_764_945_135_000);
        assert_eq!(ms("2025-12-05T15:32:15+01:00"), 1_764_945_135_000);
        assert_eq!(ms("2025-12-05T15:32:15+0100"), 1_764_945_135_000);
        assert_eq!(ms("2025-12-05T14:32:15.250Z"), 1_764_945_135_250);
        assert_eq!(ms("2025-12-05T14:32Z"), 1_764_945_120_000);
        assert_eq!(ms("2025-12-05"), 1_764_892_800_000);
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in [
            "",
            "yesterday",
            "2025-13-01",
            "2025-02-30",
            "2025-12-05T25:00:00Z",
            "2025-12-05X",
            "2025-12-05T14:32:15Q",
            "20251205",
        ] {
            assert!(bad.parse::<Timestamp>().is_err(), "{bad}");
        }
    }

    #[test]
    fn canonical_form_round_trips() {
        for ms in [0, 1_764_945_135_000, -86_400_000, 4_102_444_800_000] {
            let t = Timestamp::from_unix_ms(ms);
            assert_eq!(t.as_str().parse::<Timestamp>().unwrap(), t);
            assert_eq!(t.unix_ms(), ms);
        }
        assert_eq!(
            Timestamp::from_unix_ms(1_764_945_135_000).as_str(),
            "2025-12-05T14:32:15Z"
        );
        assert_eq!(
            ms("2025-12-05T14:32:15Z") / 86_400_000 * 86_400_000,
            ms("2025-12-05")
        );
        assert_eq!(
            "2025-12-05T23:59:59-02:00"
                .parse::<Timestamp>()
                .unwrap()
                .utc_day(),
            "2025-12-06"
        );
    }
}
