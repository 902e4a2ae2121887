//! ISO-8601 timestamps as sessions write them, kept exactly as written.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use jiff::tz::Offset;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time from a session file.
///
/// The text is kept as written (`2025-12-05T14:32:15Z`, `2025-12-03 10:12:44`,
/// `2025-12-05T15:32:15+01:00`) so that a round trip never rewrites a user's
/// timestamps; the instant is parsed once (by jiff, which checks every field:
/// no month 13, no February 30, no `24:00`, no offset `+99:99`) so durations
/// and ordering work across offsets. A timestamp without an offset is read as
/// UTC.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Timestamp {
    raw: String,
    /// The instant to the millisecond (as sessions write them), kept as a
    /// number rather than a `jiff::Timestamp` (twice the size): a phase holds
    /// several timestamps and a session thousands of phases.
    unix_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not an ISO-8601 timestamp (expected YYYY-MM-DD, optionally followed by \
     T and HH:MM[:SS[.fraction]] and by Z or an offset such as +01:00, every field in range)"
)]
pub struct TimestampError(pub String);

impl Timestamp {
    /// Milliseconds since the Unix epoch.
    pub fn unix_ms(&self) -> i64 {
        self.unix_ms
    }

    /// The milliseconds since the Unix epoch of a timestamp's text, without
    /// keeping the text: for the index, which orders 100,000 sessions by it.
    pub fn parse_unix_ms(text: &str) -> Option<i64> {
        parse_iso8601(text.trim()).map(jiff::Timestamp::as_millisecond)
    }

    /// Milliseconds from `earlier` to this instant (negative when `earlier`
    /// is later), whatever offsets the two were written with.
    pub fn ms_since(&self, earlier: &Timestamp) -> i64 {
        let ms = self.instant().duration_since(earlier.instant()).as_millis();
        i64::try_from(ms).unwrap_or(if ms < 0 { i64::MIN } else { i64::MAX })
    }

    /// The instant, for arithmetic and comparison.
    pub fn instant(&self) -> jiff::Timestamp {
        jiff::Timestamp::from_millisecond(self.unix_ms)
            .expect("made from an instant jiff represents")
    }

    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// True when the text is a date alone (`2025-12-05`), which stands for
    /// the start of that day in UTC.
    pub fn is_date_only(&self) -> bool {
        self.raw.trim().len() == DATE_LEN
    }

    /// The calendar day (`YYYY-MM-DD`) in UTC.
    pub fn utc_day(&self) -> String {
        self.instant().strftime("%Y-%m-%d").to_string()
    }

    /// A timestamp in canonical form (`YYYY-MM-DDTHH:MM:SSZ`) for an instant,
    /// clamped to the years 0000 to 9999 that the form can write.
    pub fn from_unix_ms(unix_ms: i64) -> Self {
        let instant = jiff::Timestamp::from_millisecond(unix_ms.clamp(MIN_MS, MAX_MS))
            .expect("clamped to the range jiff represents");
        Self::from_instant(instant)
    }

    /// The current time, to the second.
    pub fn now() -> Self {
        Self::from_instant(jiff::Timestamp::now())
    }

    fn from_instant(instant: jiff::Timestamp) -> Self {
        // Whole seconds only: what we write must parse back to the same instant.
        let instant = jiff::Timestamp::from_second(instant.as_second())
            .expect("a whole second of a valid instant is valid");
        Self {
            raw: instant.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            unix_ms: instant.as_millisecond(),
        }
    }
}

const DATE_LEN: usize = "YYYY-MM-DD".len();
/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const MIN_MS: i64 = -62_167_219_200_000;
const MAX_MS: i64 = 253_402_300_799_000;

impl FromStr for Timestamp {
    type Err = TimestampError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let instant = parse_iso8601(s.trim()).ok_or_else(|| TimestampError(s.to_owned()))?;
        Ok(Self {
            raw: s.to_owned(),
            unix_ms: instant.as_millisecond(),
        })
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// By instant; two spellings of one instant are ordered by their text, so
/// that the order agrees with `==`.
impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> Ordering {
        self.unix_ms
            .cmp(&other.unix_ms)
            .then_with(|| self.raw.cmp(&other.raw))
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

/// Reads `YYYY-MM-DD`, optionally followed by `T`, `t` or a space and
/// `HH:MM[:SS[.fraction]]`, optionally followed by `Z` or `±HH[[:]MM]`.
///
/// The digits are picked out here and jiff checks and combines them (month
/// and day in range, February 29 only in leap years, hours to 23); an
/// offset is `±23:59` at most. jiff's own ISO-8601 parser is not used for the picking: it
/// costs ten times as much on the index's hot path (every session's start,
/// 100,000 per `list`), it reads forms sessions do not use and other readers
/// would not (`20251205`, `[Europe/Paris]` annotations), and it reads a leap
/// second `:60` as `:59`, an instant that another reader would not give back.
fn parse_iso8601(s: &str) -> Option<jiff::Timestamp> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i32> {
        b.get(from..from + len)?.iter().try_fold(0, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i32::from(d - b'0'))
        })
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let date = jiff::civil::Date::new(
        i16::try_from(year).ok()?,
        i8::try_from(month).ok()?,
        i8::try_from(day).ok()?,
    )
    .ok()?;
    if b.len() == DATE_LEN {
        return Offset::UTC
            .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
            .ok();
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let (hour, minute) = (num(11, 2)?, num(14, 2)?);
    let mut i = 16;
    let (mut second, mut nanos) = (0, 0);
    if b.get(i) == Some(&b':') {
        second = num(i + 1, 2)?;
        i += 3;
        if matches!(b.get(i), Some(b'.' | b',')) {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
            // Nanoseconds: the first nine digits, the rest beyond any clock.
            let kept = (i - start).min(9);
            nanos = num(start, kept)? * 10_i32.pow(9 - kept as u32);
        }
    }
    // jiff's `Time` takes a second of 60 for 59; a leap second is refused.
    if second == 60 {
        return None;
    }
    let time = jiff::civil::Time::new(
        i8::try_from(hour).ok()?,
        i8::try_from(minute).ok()?,
        i8::try_from(second).ok()?,
        nanos,
    )
    .ok()?;
    let offset = match &b[i..] {
        [] | [b'Z' | b'z'] => Offset::UTC,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let (oh, om) = match rest.len() {
                2 => (num(i + 1, 2)?, 0),
                4 => (num(i + 1, 2)?, num(i + 3, 2)?),
                5 if rest[2] == b':' => (num(i + 1, 2)?, num(i + 4, 2)?),
                _ => return None,
            };
            // RFC 3339's offset hours run to 23 (jiff itself takes 25).
            if oh > 23 || om > 59 {
                return None;
            }
            let seconds = (oh * 60 + om) * 60;
            Offset::from_seconds(if *sign == b'-' { -seconds } else { seconds }).ok()?
        }
        _ => return None,
    };
    offset.to_timestamp(date.to_datetime(time)).ok()
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
        assert_eq!(ms("2024-02-29t14:32:15-0000"), 1_709_217_135_000);
        assert_eq!(ms("2025-12-05T14:32:15,5+00"), 1_764_945_135_500);
        assert_eq!(ms("2025-12-05T14:32:15.123456789Z"), 1_764_945_135_123);
    }

    #[test]
    fn orders_by_instant_across_offsets() {
        let a: Timestamp = "2025-12-05T15:32:15+01:00".parse().unwrap();
        let b: Timestamp = "2025-12-05T14:32:16Z".parse().unwrap();
        assert!(a < b);
        assert_eq!(
            b.instant().duration_since(a.instant()),
            jiff::SignedDuration::from_secs(1)
        );
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
            "20251205T143215Z",
            "2025-12-05T14:32:15+99:99",
            "2025-12-05T14:32:15+01:60",
            "2025-12-05T14:32:15+26:00",
            "2025-00-05",
            "2025-12-00",
            "2025-12-32",
            "2025-04-31",
            "2023-02-29",
            "2025-12-05T24:00:00Z",
            "2025-12-05T14:60:00Z",
            "2025-12-05T14:32:61Z",
            "2016-12-31T23:59:60Z",
            "2025-12-05T14:32:15.Z",
            "2025-12-05T14:32:15Z[Europe/Paris]",
            "2025-12-05T14:32:15+01:00:00",
            "2025-12-05T14",
            "2025-12-05T14:32:15ZZ",
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
