//! Calendar arithmetic the usage reports and `stats` share.

use jiff::ToSpan;
use jiff::civil::{Date, Weekday};

/// The first day of the week holding `date`, weeks starting on `start`.
pub fn week_start(date: Date, start: Weekday) -> Date {
    let back = (date.weekday().to_sunday_zero_offset() - start.to_sunday_zero_offset() + 7) % 7;
    date.checked_sub(i64::from(back).days()).unwrap_or(date)
}
